// NeMo 2.0 recipe overrides for `nemo llm pretrain --factory RECIPE KEY=VALUE ...` (NeMo
// v2.4.0 with the Megatron-Core it pins; the list is tests/data/launch/nemo.txt). Values are
// Python literals, as NeMo-Run parses them.
#include "launch/launchbuilders.h"

#include <algorithm>

namespace archipelago::core::launch {

namespace {

void addParallelism(const PlanInputs& in, const Adder& add)
{
    const Scenario& s = in.scenario;
    const Parallelism& p = s.parallelism;
    const std::string strategy = "trainer.strategy.";
    add(strategy + "tensor_model_parallel_size", p.tp, "TP");
    add(strategy + "pipeline_model_parallel_size", p.pp, "PP");
    add(strategy + "context_parallel_size", p.cp, "CP");
    add(strategy + "expert_model_parallel_size", p.ep, "EP");
    if (p.virtualStages > 1)
        add(strategy + "virtual_pipeline_model_parallel_size", p.virtualStages, "virtual stages");
    add.flag(strategy + "sequence_parallel", p.sequenceParallel && p.tp > 1, "sequence parallel");
    if (pipelineInnerToData(s.placement))
        add.flag(strategy + "use_tp_pp_dp_mapping", true, "rank order: PP inner to DP");
    if (!s.placement.layersPerStage.empty() && p.pp > 1) {
        const std::vector<int> perRank = effectiveLayersPerStage(s);
        if (std::adjacent_find(perRank.begin(), perRank.end(), std::not_equal_to<>()) !=
            perRank.end())
            add(strategy + "pipeline_model_parallel_layout", quoted(pipelineLayout(s)),
                "layers per stage (E embedding, t layer, m MTP module, L loss)");
    }
    const bool distOpt = p.distributedOptimizer || p.zeroStage == 1;
    if (p.zeroStage >= 2) {
        add(strategy + "fsdp", quoted("megatron"), "ZeRO " + std::to_string(p.zeroStage));
        add(strategy + "ddp.data_parallel_sharding_strategy",
            quoted(p.zeroStage == 2 ? "optim_grads" : "optim_grads_params"),
            "ZeRO " + std::to_string(p.zeroStage));
    }
    add.flag("optim.config.use_distributed_optimizer", distOpt || p.zeroStage >= 2,
             "distributed optimizer");
    if (distOpt && optimizerInstances(p) > 1)
        add(strategy + "num_distributed_optimizer_instances", optimizerInstances(p),
            "hierarchical data parallelism: one optimizer instance per group of DP ranks");
    const bool fp32 = p.gradReduceDtype == GradReduceDtype::Fp32;
    add.flag(strategy + "ddp.grad_reduce_in_fp32", fp32, "gradient reduction precision");
    add.flag("trainer.plugins.grad_reduce_in_fp32", fp32, "gradient reduction precision");
    add.flag(strategy + "ddp.overlap_grad_reduce", p.overlap.dpGradReduce,
             "gradient reduction under backward");
    add.flag(strategy + "ddp.overlap_param_gather", p.overlap.dpParamGather && distOpt,
             "parameter all-gather under forward");
    switch (p.recompute) {
    case Recompute::None:
        break;
    case Recompute::Selective:
        add("model.config.recompute_granularity", quoted("selective"), "selective recompute");
        break;
    case Recompute::Full:
        add("model.config.recompute_granularity", quoted("full"), "full recompute");
        add("model.config.recompute_method", quoted("uniform"), "every layer");
        add("model.config.recompute_num_layers", 1, "every layer");
        break;
    }
    if (p.tp > 1)
        add.flag("model.config.tp_comm_overlap", p.overlap.tpComm && p.sequenceParallel,
                 "TP communication under GEMMs (needs sequence parallelism)");
    if (p.datacenterSync.scheme != DatacenterSync::Synchronous)
        add.unexpressed(std::string("datacenter sync ") + toString(p.datacenterSync.scheme),
                        "NeMo trains synchronously; DiLoCo needs an outer optimizer loop");
    switch (s.schedule.kind) {
    case ScheduleKind::OneFOneB:
    case ScheduleKind::Interleaved1F1B:
        break;
    default:
        add.unexpressed(std::string("schedule ") + toString(s.schedule.kind),
                        "NeMo runs Megatron-Core's 1F1B (interleaved with virtual stages)");
    }
    if (s.schedule.extraInFlightAtDci > 0)
        add.unexpressed("extra micro-batches in flight at DCI boundaries",
                        "Megatron-Core's 1F1B warm-up is fixed by the stage count");
}

void addWorkload(const PlanInputs& in, const Adder& add)
{
    const Workload& w = in.scenario.workload;
    const std::string model = "model.config.";
    add(model + "num_layers", w.layers, "workload layers");
    add(model + "hidden_size", w.hidden, "workload hidden");
    add(model + "num_attention_heads", w.heads, "workload heads");
    add(model + "num_query_groups", w.kvHeads, "workload KV heads");
    add(model + "ffn_hidden_size", w.ffnHidden, "workload FFN hidden");
    add.flag(model + "gated_linear_unit", w.activation == FfnActivation::Swiglu,
             "a gated (SwiGLU) MLP");
    add(model + "seq_length", w.seqLen, "workload sequence length");
    add(model + "vocab_size", w.vocab, "workload vocabulary");
    add.flag(model + "share_embeddings_and_output_weights", w.tiedEmbeddings,
             "whether the output layer shares the embedding");
    if (w.attentionWindow > 0)
        add(model + "window_size", "[" + std::to_string(w.attentionWindow) + ",0]",
            "sliding attention window (left, right)");
    if (w.parallelBlock)
        add.unexpressed("parallel attention and MLP block",
                        "Megatron-Core's GPT layer runs attention and MLP in sequence");
    if (w.moe.enabled()) {
        const MoeConfig& m = w.moe;
        add(model + "num_moe_experts", m.experts, "MoE experts");
        add(model + "moe_router_topk", m.topK, "MoE top-k");
        add(model + "moe_ffn_hidden_size", m.expertFfnHidden, "expert FFN hidden");
        add(model + "moe_shared_expert_intermediate_size",
            static_cast<long long>(m.sharedExperts) * m.expertFfnHidden,
            "shared experts x expert FFN hidden");
        if (m.firstDenseLayers > 0)
            add(model + "moe_layer_freq",
                quoted("[0]*" + std::to_string(m.firstDenseLayers) + "+[1]*" +
                       std::to_string(w.layers - m.firstDenseLayers)),
                "leading dense layers");
        add.flag(model + "moe_grouped_gemm", true, "experts' GEMMs grouped");
        if (m.nodeLimited()) {
            add(model + "moe_router_num_groups",
                std::max(1, in.scenario.parallelism.ep / in.gpusPerNode),
                "nodes of the expert-parallel group");
            add(model + "moe_router_group_topk", m.maxNodesPerToken, "MoE nodes per token");
        }
        if (m.dispatchPrecision == Precision::Fp8)
            add.unexpressed("FP8 dispatch", "no FP8 all-to-all switch; the dispatch runs in BF16");
    }
    if (w.mla.enabled()) {
        add.flag(model + "multi_latent_attention", true, "multi-head latent attention");
        add.unexpressed("MLA dimensions (q/kv ranks " + std::to_string(w.mla.qLoraRank) + "/" +
                            std::to_string(w.mla.kvLoraRank) + ", head dims " +
                            std::to_string(w.mla.qkNopeHeadDim) + "+" +
                            std::to_string(w.mla.qkRopeHeadDim) + ", value " +
                            std::to_string(w.mla.vHeadDim) + ")",
                        "they live in NeMo's MLATransformerConfig, which the deepseek recipes "
                        "set; check the recipe's values against these");
    }
    if (w.mtpDepth > 0)
        add(model + "mtp_num_layers", w.mtpDepth, "multi-token prediction depth");
    if (w.precision == Precision::Fp8) {
        add("trainer.plugins.fp8", quoted("hybrid"), "FP8 GEMMs");
        add("trainer.plugins.fp8_recipe",
            quoted(w.fp8Recipe == Fp8Recipe::Blockwise ? "blockwise" : "delayed"),
            "FP8 scaling recipe");
    }
    add("data.seq_length", w.seqLen, "workload sequence length");
    add("data.micro_batch_size", in.scenario.parallelism.microBatch, "micro-batch (sequences)");
    add("data.global_batch_size", w.globalBatch, "global batch (sequences)");
    if (in.trainIterations > 0)
        add("trainer.max_steps", in.trainIterations, "tokens to train / tokens per iteration");
    add.flag("trainer.strategy.ckpt_async_save", w.checkpointAsynchronous,
             "asynchronous checkpoints");
    if (in.checkpointIterations > 0)
        add.plan.notes.push_back(
            "checkpoint every " +
            (in.checkpointIterations == 1 ? std::string("step")
                                          : std::to_string(in.checkpointIterations) + " steps") +
            ": set the recipe's log.ckpt.every_n_train_steps (Lightning's ModelCheckpoint, "
            "outside the checked argument list)");
}

} // namespace

void addNemoSettings(const PlanInputs& in, LaunchPlan& plan)
{
    const Adder add{plan};
    const Workload& w = in.scenario.workload;
    plan.recipe = w.moe.enabled() || w.mla.enabled() ? "deepseek_v3" : "llama3_70b";
    std::int64_t nodes = 0;
    for (const BuildingNodes& b : plan.ranks.buildings)
        nodes += b.nodes;
    add("trainer.num_nodes", nodes, "nodes of every building");
    add("trainer.devices", in.gpusPerNode, "GPUs per node");
    addParallelism(in, add);
    addWorkload(in, add);
    if (w.activation == FfnActivation::Gelu)
        plan.notes.push_back("the recipe's activation function stays: a GeLU model needs "
                             "model.config.activation_func set in Python (not a CLI value)");
    plan.notes.push_back("every model dimension is overridden, so the recipe only supplies the "
                         "optimizer, data and logging defaults of its family");
    plan.notes.push_back("each GPU's task runs the recipe in its own process (NeMo-Run's "
                         "--direct) and Lightning takes its rank from Slurm");
}

} // namespace archipelago::core::launch
