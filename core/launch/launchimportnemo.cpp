// Import of NeMo recipe overrides and TorchTitan job settings, the inverse of nemolaunch.cpp
// and torchtitanlaunch.cpp. Both frameworks start from a recipe or a job file whose defaults
// Archipelago does not have, so a setting that is absent keeps the scenario's value (unlike
// Megatron-LM, whose command line is the whole configuration).
#include "launch/importreader.h"
#include "launch/launchbuilders.h"

#include <algorithm>

namespace archipelago::core::launch {

namespace {

void setBool(Reader& r, const std::string& name, bool& field)
{
    if (const auto v = r.boolean(name))
        field = *v;
}

} // namespace

void importNemo(Reader& r, Scenario& s, ImportedSettings& out)
{
    Workload& w = s.workload;
    Parallelism& p = s.parallelism;
    const std::string st = "trainer.strategy.";
    const std::string mc = "model.config.";
    setInt(r, st + "tensor_model_parallel_size", p.tp);
    setInt(r, st + "pipeline_model_parallel_size", p.pp);
    setInt(r, st + "context_parallel_size", p.cp);
    setInt(r, st + "expert_model_parallel_size", p.ep);
    if (r.has(st + "virtual_pipeline_model_parallel_size")) {
        p.virtualStages = 1;
        setInt(r, st + "virtual_pipeline_model_parallel_size", p.virtualStages);
    }
    setBool(r, st + "sequence_parallel", p.sequenceParallel);
    setInt(r, mc + "num_layers", w.layers);
    setInt(r, mc + "mtp_num_layers", w.mtpDepth);
    if (const auto layout = r.text(st + "pipeline_model_parallel_layout")) {
        const auto chunks = parsePipelineLayout(*layout);
        if (!chunks || chunks->size() % static_cast<std::size_t>(std::max(1, p.pp)) != 0) {
            r.fail(st + "pipeline_model_parallel_layout",
                   "expected chunks of E, t, m and L whose count is a multiple of PP");
        } else {
            p.virtualStages = static_cast<int>(chunks->size()) / std::max(1, p.pp);
            std::vector<int> perRank(static_cast<std::size_t>(p.pp), 0);
            for (std::size_t i = 0; i < chunks->size(); ++i)
                perRank[i % perRank.size()] +=
                    static_cast<int>(std::count((*chunks)[i].begin(), (*chunks)[i].end(), 't'));
            s.placement.layersPerStage = perRank;
        }
    }
    if (const auto ppInner = r.boolean(st + "use_tp_pp_dp_mapping");
        ppInner && *ppInner != pipelineInnerToData(s.placement))
        s.placement.rankOrder =
            *ppInner ? std::vector<ParallelDim>{ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Ep,
                                                ParallelDim::Pp, ParallelDim::Dp}
                     : std::vector<ParallelDim>{ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Ep,
                                                ParallelDim::Dp, ParallelDim::Pp};
    const std::string fsdp = r.text(st + "fsdp").value_or("");
    const std::string sharding = r.text(st + "ddp.data_parallel_sharding_strategy").value_or("");
    if (const auto distOpt = r.boolean("optim.config.use_distributed_optimizer")) {
        p.distributedOptimizer = *distOpt;
        p.zeroStage = *distOpt ? 1 : 0;
    }
    if (fsdp == "megatron") {
        p.zeroStage = sharding == "optim_grads_params" ? 3 : sharding == "optim_grads" ? 2 : 1;
        p.distributedOptimizer = true;
    }
    setInt(r, st + "num_distributed_optimizer_instances", p.distributedOptimizerInstances);
    if (const auto fp32 = r.boolean(st + "ddp.grad_reduce_in_fp32"))
        p.gradReduceDtype = *fp32 ? GradReduceDtype::Fp32 : GradReduceDtype::Bf16;
    r.boolean("trainer.plugins.grad_reduce_in_fp32");
    setBool(r, st + "ddp.overlap_grad_reduce", p.overlap.dpGradReduce);
    if (p.zeroStage >= 1 || p.distributedOptimizer)
        setBool(r, st + "ddp.overlap_param_gather", p.overlap.dpParamGather);
    if (const auto recompute = r.text(mc + "recompute_granularity"))
        p.recompute = *recompute == "full"        ? Recompute::Full
                      : *recompute == "selective" ? Recompute::Selective
                                                  : Recompute::None;
    r.text(mc + "recompute_method");
    r.text(mc + "recompute_num_layers");
    if (p.tp > 1)
        setBool(r, mc + "tp_comm_overlap", p.overlap.tpComm);

    setInt(r, mc + "hidden_size", w.hidden);
    setInt(r, mc + "num_attention_heads", w.heads);
    setInt(r, mc + "num_query_groups", w.kvHeads);
    setInt(r, mc + "ffn_hidden_size", w.ffnHidden);
    if (const auto gated = r.boolean(mc + "gated_linear_unit"))
        w.activation = *gated ? FfnActivation::Swiglu : FfnActivation::Gelu;
    setInt(r, mc + "seq_length", w.seqLen);
    setInt(r, "data.seq_length", w.seqLen);
    setInt(r, mc + "vocab_size", w.vocab);
    setBool(r, mc + "share_embeddings_and_output_weights", w.tiedEmbeddings);
    if (const auto window = r.text(mc + "window_size")) {
        if (const auto left = windowLeft(*window))
            w.attentionWindow = *left;
        else
            r.fail(mc + "window_size", "expected [LEFT,RIGHT], found '" + *window + "'");
    }
    if (r.has(mc + "num_moe_experts")) {
        w.moe.experts = 0;
        setInt(r, mc + "num_moe_experts", w.moe.experts);
        setInt(r, mc + "moe_router_topk", w.moe.topK);
        setInt(r, mc + "moe_ffn_hidden_size", w.moe.expertFfnHidden);
        if (const auto shared = r.integer(mc + "moe_shared_expert_intermediate_size", 0))
            w.moe.sharedExperts =
                w.moe.expertFfnHidden > 0 ? static_cast<int>(*shared / w.moe.expertFfnHidden) : 0;
        if (const auto freq = r.text(mc + "moe_layer_freq")) {
            if (const auto dense = leadingDenseLayers(*freq))
                w.moe.firstDenseLayers = *dense;
            else
                r.fail(mc + "moe_layer_freq",
                       "expected 1, [0]*N+[1]*M or a list of 0s then 1s, found '" + *freq + "'");
        }
        r.boolean(mc + "moe_grouped_gemm");
        if (r.integer(mc + "moe_router_num_groups"))
            setInt(r, mc + "moe_router_group_topk", w.moe.maxNodesPerToken);
    }
    if (const auto mla = r.boolean(mc + "multi_latent_attention"); mla && *mla != w.mla.enabled())
        out.notes.push_back(*mla ? "multi-head latent attention is on but its dimensions live in "
                                   "the recipe's MLATransformerConfig: set them in the scenario"
                                 : "multi-head latent attention is off: the scenario's MLA "
                                   "dimensions were cleared");
    if (const auto mla = r.boolean(mc + "multi_latent_attention"); mla && !*mla)
        w.mla = MlaConfig{};
    if (const auto fp8 = r.text("trainer.plugins.fp8"))
        w.precision = fp8->empty() || *fp8 == "None" ? Precision::Bf16 : Precision::Fp8;
    if (const auto recipe = r.text("trainer.plugins.fp8_recipe"))
        w.fp8Recipe = *recipe == "blockwise" ? Fp8Recipe::Blockwise : Fp8Recipe::Delayed;
    setInt(r, "data.micro_batch_size", p.microBatch);
    setInt(r, "data.global_batch_size", w.globalBatch);
    if (const auto steps = r.integer("trainer.max_steps"))
        w.trainTokens = static_cast<double>(*steps) * w.globalBatch * w.seqLen;
    setBool(r, st + "ckpt_async_save", w.checkpointAsynchronous);
    r.integer("trainer.num_nodes");
    r.integer("trainer.devices");
    s.schedule.kind = p.virtualStages > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
}

void importTorchTitan(Reader& r, Scenario& s, ImportedSettings& out)
{
    Workload& w = s.workload;
    Parallelism& p = s.parallelism;
    const std::string pa = "parallelism.";
    setInt(r, pa + "tensor_parallel_degree", p.tp);
    setInt(r, pa + "context_parallel_degree", p.cp);
    setInt(r, pa + "pipeline_parallel_degree", p.pp);
    setInt(r, pa + "expert_parallel_degree", p.ep);
    const auto replicate = r.integer(pa + "data_parallel_replicate_degree");
    const auto shard = r.integer(pa + "data_parallel_shard_degree", -1);
    const std::string reshard = r.text(pa + "fsdp_reshard_after_forward").value_or("default");
    if (shard) {
        const bool sharded = *shard != 1;
        p.zeroStage = !sharded ? 0 : reshard == "never" ? 2 : 3;
        p.distributedOptimizer = sharded;
        p.distributedOptimizerInstances =
            sharded && replicate && *replicate > 1 ? static_cast<int>(*replicate) : 1;
    }
    if (const auto schedule = r.text(pa + "pipeline_parallel_schedule")) {
        const std::string& n = *schedule;
        if (n == "1F1B")
            s.schedule.kind = ScheduleKind::OneFOneB;
        else if (n == "Interleaved1F1B")
            s.schedule.kind = ScheduleKind::Interleaved1F1B;
        else if (n == "GPipe" || n == "LoopedBFS")
            s.schedule.kind = ScheduleKind::GPipe;
        else if (n == "InterleavedZeroBubble" || n == "ZBVZeroBubble")
            s.schedule.kind = ScheduleKind::ZeroBubbleH1;
        else if (n == "DualPipeV")
            s.schedule.kind = ScheduleKind::DualPipe;
        else
            r.fail(pa + "pipeline_parallel_schedule",
                   "expected 1F1B, Interleaved1F1B, GPipe, LoopedBFS, InterleavedZeroBubble, "
                   "ZBVZeroBubble or DualPipeV, found '" +
                       n + "'");
    }
    setInt(r, pa + "pipeline_parallel_microbatch_size", p.microBatch);
    if (const auto perStage = r.integer(pa + "pipeline_parallel_layers_per_stage")) {
        p.virtualStages = std::max(1, static_cast<int>(w.layers / (*perStage * p.pp)));
        s.placement.layersPerStage.clear();
    }
    if (p.tp > 1)
        setBool(r, pa + "enable_async_tensor_parallel", p.overlap.tpComm);
    r.boolean("compile.enable");
    if (const auto mode = r.text("activation_checkpoint.mode"))
        p.recompute = *mode == "full"        ? Recompute::Full
                      : *mode == "selective" ? Recompute::Selective
                                             : Recompute::None;
    r.text("activation_checkpoint.selective_ac_option");
    setInt(r, "training.seq_len", w.seqLen);
    if (const auto global = r.integer("training.global_batch_size", -1); global && *global > 0)
        w.globalBatch = static_cast<int>(*global);
    else if (const auto local = r.integer("training.local_batch_size"); local && shard)
        w.globalBatch = static_cast<int>(
            std::min(1e9, static_cast<double>(*local) * static_cast<double>(replicate.value_or(1)) *
                              static_cast<double>(std::max(1LL, *shard))));
    r.text("training.local_batch_size");
    if (const auto steps = r.integer("training.steps"))
        w.trainTokens = static_cast<double>(*steps) * w.globalBatch * w.seqLen;
    r.text("training.mixed_precision_param");
    if (const auto recipe = r.text("quantize.linear.float8.recipe_name")) {
        w.precision = Precision::Fp8;
        w.fp8Recipe = *recipe == "rowwise" ? Fp8Recipe::Blockwise : Fp8Recipe::Delayed;
    }
    r.text("model.converters");
    for (const char* key : {"model.name", "model.flavor"})
        r.text(key);
    if (const auto mode = r.text("checkpoint.async_mode"))
        w.checkpointAsynchronous = *mode != "disabled";
    r.boolean("checkpoint.enable");
    if (r.has("checkpoint.interval")) {
        r.integer("checkpoint.interval");
        out.notes.push_back("the checkpoint interval stays the scenario's (checkpoint.interval "
                            "counts steps, whose length the model predicts)");
    }
    out.notes.push_back("TorchTitan's model dimensions come from its flavor, not the job file: "
                        "the scenario's workload shape is kept");
}

} // namespace archipelago::core::launch
