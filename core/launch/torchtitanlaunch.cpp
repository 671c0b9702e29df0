// TorchTitan TOML job settings (torchtitan/config/job_config.py at v0.2.2, the last release
// configured by TOML files; every key is also the CLI flag --section.key, which later releases
// keep; the list is tests/data/launch/torchtitan.txt). Values are TOML.
#include "launch/launchbuilders.h"

#include <algorithm>

namespace archipelago::core::launch {

namespace {

// torch.distributed.pipelining's schedule names (get_schedule_class).
const char* scheduleName(ScheduleKind kind, int virtualStages)
{
    switch (kind) {
    case ScheduleKind::GPipe:
        return virtualStages > 1 ? "LoopedBFS" : "GPipe";
    case ScheduleKind::OneFOneB:
        return "1F1B";
    case ScheduleKind::Interleaved1F1B:
        return "Interleaved1F1B";
    case ScheduleKind::ZeroBubbleH1:
    case ScheduleKind::ZeroBubbleH2:
        return "InterleavedZeroBubble";
    case ScheduleKind::DualPipe:
        return "DualPipeV";
    }
    return "1F1B";
}

void addParallelism(const PlanInputs& in, const Adder& add)
{
    const Scenario& s = in.scenario;
    const Parallelism& p = s.parallelism;
    // Data parallelism is FSDP2 (ZeRO-3) sharding, DDP replication, or both (HSDP): replicas
    // across the groups of the hierarchical scheme, sharding inside each.
    const int instances = optimizerInstances(p);
    const bool sharded = p.zeroStage >= 1 || p.distributedOptimizer;
    std::int64_t replicate = 1;
    std::int64_t shard = in.dp;
    if (!sharded) {
        replicate = in.dp;
        shard = 1;
    } else if (instances > 1 && in.dp % instances == 0) {
        replicate = instances;
        shard = in.dp / instances;
    }
    add("parallelism.data_parallel_replicate_degree", replicate, "DP replicas (DDP / HSDP)");
    add("parallelism.data_parallel_shard_degree", shard, "DP shards (FSDP2)");
    if (sharded && p.zeroStage < 3) {
        // FSDP2 without resharding after forward keeps the gathered weights through backward
        // and shards gradients and optimizer state: ZeRO-2.
        add("parallelism.fsdp_reshard_after_forward", quoted("never"),
            "weights stay gathered until backward ends (ZeRO-2)");
        if (p.zeroStage < 2)
            add.unexpressed("ZeRO-1 (distributed optimizer)",
                            "TorchTitan shards with FSDP2, whose nearest is ZeRO-2: gradients "
                            "sharded too (less memory, a reduce-scatter instead of an all-reduce)");
    }
    add("parallelism.tensor_parallel_degree", p.tp, "TP");
    if (p.tp > 1 && !p.sequenceParallel)
        add.unexpressed("TP without sequence parallelism",
                        "TorchTitan's tensor parallelism always shards the sequence (v0.2.2)");
    add("parallelism.context_parallel_degree", p.cp, "CP");
    add("parallelism.pipeline_parallel_degree", p.pp, "PP");
    add("parallelism.expert_parallel_degree", p.ep, "EP");
    if (p.pp > 1) {
        add("parallelism.pipeline_parallel_schedule",
            quoted(scheduleName(s.schedule.kind, p.virtualStages)), "pipeline schedule");
        add("parallelism.pipeline_parallel_microbatch_size", p.microBatch,
            "micro-batch (sequences)");
        const std::vector<int> chunks = chunkLayers(s);
        const bool even =
            std::adjacent_find(chunks.begin(), chunks.end(), std::not_equal_to<>()) == chunks.end();
        if (even && !chunks.empty())
            add("parallelism.pipeline_parallel_layers_per_stage", chunks.front(),
                "layers per model chunk (stages per rank follow)");
        else
            add.unexpressed("uneven layers per stage",
                            "TorchTitan splits evenly by layers_per_stage; an uneven split "
                            "needs module_fqns_per_model_part written for the model");
        if (s.schedule.kind == ScheduleKind::ZeroBubbleH1 ||
            s.schedule.kind == ScheduleKind::ZeroBubbleH2)
            add.unexpressed(std::string("schedule ") + toString(s.schedule.kind),
                            "PyTorch's InterleavedZeroBubble is the nearest (interleaved, with "
                            "split weight gradients), not the same bubble");
    }
    if (s.schedule.extraInFlightAtDci > 0)
        add.unexpressed("extra micro-batches in flight at DCI boundaries",
                        "PyTorch's schedules fix the warm-up by the stage count");
    if (p.overlap.tpComm && p.tp > 1) {
        add.flag("parallelism.enable_async_tensor_parallel", true, "TP communication under GEMMs");
        add.flag("compile.enable", true, "async TP needs torch.compile");
    }
    switch (p.recompute) {
    case Recompute::None:
        add("activation_checkpoint.mode", quoted("none"), "no recompute");
        break;
    case Recompute::Selective:
        add("activation_checkpoint.mode", quoted("selective"), "selective recompute");
        add("activation_checkpoint.selective_ac_option", quoted("op"),
            "recompute the cheap operators (attention's, as the model's selective)");
        break;
    case Recompute::Full:
        add("activation_checkpoint.mode", quoted("full"), "full recompute");
        break;
    }
    if (p.gradReduceDtype == GradReduceDtype::Bf16)
        add.unexpressed("gradient reduction in BF16",
                        "training.mixed_precision_reduce takes float32 only at v0.2.2");
    if (p.datacenterSync.scheme != DatacenterSync::Synchronous)
        add.unexpressed(std::string("datacenter sync ") + toString(p.datacenterSync.scheme),
                        "TorchTitan v0.2.2 trains synchronously; torchft's LocalSGD / DiLoCo "
                        "wrappers are outside its job file");
}

void addWorkload(const PlanInputs& in, const Adder& add)
{
    const Workload& w = in.scenario.workload;
    const bool deepseek = w.moe.enabled() || w.mla.enabled();
    add("model.name", quoted(deepseek ? "deepseek_v3" : "llama3"), "the model family");
    add("model.flavor", quoted("archipelago"), "a flavor with the workload's dimensions");
    std::string dims = std::to_string(w.layers) + " layers, hidden " + std::to_string(w.hidden) +
                       ", " + std::to_string(w.heads) + " heads (" + std::to_string(w.kvHeads) +
                       " KV), FFN " + std::to_string(w.ffnHidden) + ", vocabulary " +
                       std::to_string(w.vocab);
    if (w.moe.enabled())
        dims += ", " + std::to_string(w.moe.experts) + " experts top-" +
                std::to_string(w.moe.topK) + " of FFN " + std::to_string(w.moe.expertFfnHidden);
    add.unexpressed("model dimensions (" + dims + ")",
                    "TorchTitan takes them from a flavor registered in Python "
                    "(torchtitan/models/<name>/__init__.py); register \"archipelago\" with these");
    if (w.precision == Precision::Fp8) {
        add("model.converters", "[\"quantize.linear.float8\"]", "FP8 linear layers");
        add("quantize.linear.float8.recipe_name",
            quoted(w.fp8Recipe == Fp8Recipe::Blockwise ? "rowwise" : "tensorwise"), "FP8 scaling");
        add.unexpressed(w.fp8Recipe == Fp8Recipe::Blockwise ? "FP8 blockwise scaling"
                                                            : "FP8 delayed scaling",
                        "torchao scales per tensor or per row, computed on the fly; the nearest "
                        "is used");
    }
    const char* inModelCode = "a property of the model code, not of the job file";
    if (w.attentionWindow > 0)
        add.unexpressed("attention window of " + std::to_string(w.attentionWindow) + " tokens",
                        inModelCode);
    if (w.parallelBlock)
        add.unexpressed("parallel attention and MLP block", inModelCode);
    if (w.mtpDepth > 0)
        add.unexpressed("multi-token prediction depth " + std::to_string(w.mtpDepth), inModelCode);
    add("training.local_batch_size",
        in.dp > 0 ? static_cast<long long>(w.globalBatch / in.dp) : w.globalBatch,
        "sequences per DP rank per step");
    add("training.global_batch_size", w.globalBatch, "global batch (sequences)");
    add("training.seq_len", w.seqLen, "workload sequence length");
    if (in.trainIterations > 0)
        add("training.steps", in.trainIterations, "tokens to train / tokens per iteration");
    add("training.mixed_precision_param", quoted("bfloat16"), "BF16 compute");
    if (in.checkpointIterations > 0) {
        add.flag("checkpoint.enable", true, "checkpoints");
        add("checkpoint.interval", in.checkpointIterations,
            w.checkpointIntervalS > 0.0 ? "the scenario's checkpoint interval in steps"
                                        : "Daly's optimal checkpoint interval, in steps");
        add("checkpoint.async_mode", quoted(w.checkpointAsynchronous ? "async" : "disabled"),
            "asynchronous checkpoints");
    }
}

} // namespace

void addTorchTitanSettings(const PlanInputs& in, LaunchPlan& plan)
{
    const Adder add{plan};
    addWorkload(in, add);
    addParallelism(in, add);
}

} // namespace archipelago::core::launch
