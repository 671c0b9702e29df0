// Megatron-LM pretrain_gpt.py arguments (megatron/training/arguments.py at core_v0.15.3; the
// list is tests/data/launch/megatron-lm.txt).
#include "launch/launchbuilders.h"

#include <algorithm>
#include <numeric>

namespace archipelago::core::launch {

namespace {

// The model's layers per pipeline rank as Megatron-LM splits them: even, or the first / last
// rank different (--decoder-first/last-pipeline-num-layers), else an explicit layout, which
// also gives the virtual stages (arguments.py refuses both). True when it wrote the layout.
bool addLayerSplit(const PlanInputs& in, const Adder& add)
{
    const Scenario& s = in.scenario;
    if (s.placement.layersPerStage.empty() || s.parallelism.pp <= 1)
        return false;
    const std::vector<int> perRank = effectiveLayersPerStage(s);
    if (std::adjacent_find(perRank.begin(), perRank.end(), std::not_equal_to<>()) == perRank.end())
        return false;
    const std::size_t n = perRank.size();
    const bool middleEven = n >= 3 && std::all_of(perRank.begin() + 1, perRank.end() - 1,
                                                  [&](int l) { return l == perRank[1]; });
    const int v = std::max(1, s.parallelism.virtualStages);
    // TransformerConfig (core_v0.15.3) needs each of the three divisible by the virtual stages.
    if (middleEven && perRank[1] % v == 0 && perRank.front() % v == 0 && perRank.back() % v == 0) {
        if (perRank.front() != perRank[1])
            add("--decoder-first-pipeline-num-layers", perRank.front(), "the first stage's layers");
        if (perRank.back() != perRank[1])
            add("--decoder-last-pipeline-num-layers", perRank.back(), "the last stage's layers");
        return false;
    }
    add("--pipeline-model-parallel-layout", pipelineLayout(s),
        "layers per chunk (E embedding, t layer, m MTP, L loss; | between chunks)");
    return true;
}

void addWorkload(const PlanInputs& in, const Adder& add)
{
    const Workload& w = in.scenario.workload;
    add("--num-layers", w.layers, "workload layers");
    add("--hidden-size", w.hidden, "workload hidden");
    add("--num-attention-heads", w.heads, "workload heads");
    if (w.kvHeads < w.heads) {
        add("--group-query-attention", "", "KV heads < heads");
        add("--num-query-groups", w.kvHeads, "workload KV heads");
    }
    add("--ffn-hidden-size", w.ffnHidden, "workload FFN hidden");
    if (w.activation == FfnActivation::Swiglu)
        add("--swiglu", "", "SwiGLU activation");
    add("--seq-length", w.seqLen, "workload sequence length");
    add("--max-position-embeddings", w.seqLen, "workload sequence length");
    if (!w.tiedEmbeddings)
        add("--untie-embeddings-and-output-weights", "", "output layer not tied");
    if (w.attentionWindow > 0)
        add("--window-size", std::to_string(w.attentionWindow) + ",0",
            "sliding attention window (left, right)");
    if (w.parallelBlock)
        add.unexpressed("parallel attention and MLP block",
                        "Megatron-LM's GPT has no parallel block; the layers run in sequence");
    if (w.precision == Precision::Fp8) {
        add("--fp8-format", "hybrid", "FP8 GEMMs (E4M3 forward, E5M2 gradients)");
        add("--fp8-recipe", w.fp8Recipe == Fp8Recipe::Blockwise ? "blockwise" : "delayed",
            "FP8 scaling recipe");
    }
    add("--bf16", "", "BF16 mixed precision");
    if (w.moe.enabled()) {
        const MoeConfig& m = w.moe;
        add("--num-experts", m.experts, "MoE experts");
        add("--moe-router-topk", m.topK, "MoE top-k");
        add("--moe-ffn-hidden-size", m.expertFfnHidden, "expert FFN hidden");
        if (m.sharedExperts > 0)
            add("--moe-shared-expert-intermediate-size",
                static_cast<long long>(m.sharedExperts) * m.expertFfnHidden,
                "shared experts x expert FFN hidden");
        if (m.firstDenseLayers > 0)
            add("--moe-layer-freq",
                "([0]*" + std::to_string(m.firstDenseLayers) + "+[1]*" +
                    std::to_string(w.layers - m.firstDenseLayers) + ")",
                "leading dense layers");
        add("--moe-token-dispatcher-type", "alltoall", "expert-parallel all-to-all");
        add("--moe-grouped-gemm", "", "experts' GEMMs grouped (the cost model's expert GEMMs)");
        if (m.nodeLimited()) {
            // Group-limited routing (DeepSeek-V3 section 2.1.2): one group per node of the EP
            // group, each token to at most maxNodesPerToken of them.
            const int groups = std::max(1, in.scenario.parallelism.ep / in.gpusPerNode);
            add("--moe-router-num-groups", groups, "nodes of the expert-parallel group");
            add("--moe-router-group-topk", m.maxNodesPerToken, "MoE nodes per token");
        }
        if (m.dispatchPrecision == Precision::Fp8)
            add.unexpressed("FP8 dispatch",
                            "core_v0.15.3 has no switch for FP8 all-to-all activations; the "
                            "dispatch runs in BF16 (twice the bytes the model counts)");
    }
    if (w.mla.enabled()) {
        add("--multi-latent-attention", "", "multi-head latent attention");
        if (w.mla.qLoraRank > 0)
            add("--q-lora-rank", w.mla.qLoraRank, "MLA query rank");
        add("--kv-lora-rank", w.mla.kvLoraRank, "MLA key/value rank");
        add("--qk-head-dim", w.mla.qkNopeHeadDim, "MLA query/key head dim (no rotary)");
        add("--qk-pos-emb-head-dim", w.mla.qkRopeHeadDim, "MLA rotary head dim");
        add("--v-head-dim", w.mla.vHeadDim, "MLA value head dim");
    }
    if (w.mtpDepth > 0)
        add("--mtp-num-layers", w.mtpDepth, "multi-token prediction depth");
    // Mock data of the workload's vocabulary measures the iteration as the model does; a real
    // run replaces these three with its tokenizer and --data-path.
    add("--mock-data", "", "synthetic data (replace with --data-path for a real run)");
    add("--tokenizer-type", "NullTokenizer", "no tokenizer with mock data");
    add("--vocab-size", w.vocab, "workload vocabulary");
    add("--global-batch-size", w.globalBatch, "global batch (sequences)");
    if (in.trainIterations > 0)
        add("--train-iters", in.trainIterations, "tokens to train / tokens per iteration");
    if (in.checkpointIterations > 0) {
        add("--save-interval", in.checkpointIterations,
            w.checkpointIntervalS > 0.0 ? "the scenario's checkpoint interval in iterations"
                                        : "Daly's optimal checkpoint interval, in iterations");
        add("--save", "${CHECKPOINT_DIR}", "where checkpoints go");
        // Megatron-FSDP saves only fsdp_dtensor checkpoints (arguments.py).
        add("--ckpt-format", in.scenario.parallelism.zeroStage >= 2 ? "fsdp_dtensor" : "torch_dist",
            "distributed checkpoints");
        if (w.checkpointAsynchronous)
            add("--async-save", "", "asynchronous checkpoints");
    }
}

void addParallelism(const PlanInputs& in, const Adder& add)
{
    const Parallelism& p = in.scenario.parallelism;
    add("--tensor-model-parallel-size", p.tp, "TP");
    add("--pipeline-model-parallel-size", p.pp, "PP");
    if (p.cp > 1)
        add("--context-parallel-size", p.cp, "CP");
    if (p.ep > 1)
        add("--expert-model-parallel-size", p.ep, "EP");
    if (!addLayerSplit(in, add) && p.virtualStages > 1)
        add("--num-virtual-stages-per-pipeline-rank", p.virtualStages, "virtual stages");
    if (p.sequenceParallel && p.tp > 1)
        add("--sequence-parallel", "", "sequence parallel");
    add("--micro-batch-size", p.microBatch, "micro-batch (sequences)");
    if (pipelineInnerToData(in.scenario.placement))
        add("--use-tp-pp-dp-mapping", "", "rank order: PP inner to DP");
    const bool distOpt = p.distributedOptimizer || p.zeroStage == 1;
    if (p.zeroStage >= 2) {
        // Megatron-FSDP's sharding strategies (megatron/core/distributed/fsdp): gradients and
        // optimizer state (ZeRO-2), or parameters too (ZeRO-3).
        add("--use-megatron-fsdp", "", "ZeRO " + std::to_string(p.zeroStage));
        add("--data-parallel-sharding-strategy",
            p.zeroStage == 2 ? "optim_grads" : "optim_grads_params",
            "ZeRO " + std::to_string(p.zeroStage));
    } else if (distOpt) {
        add("--use-distributed-optimizer", "", "distributed optimizer (ZeRO-1)");
        if (optimizerInstances(p) > 1)
            add("--num-distributed-optimizer-instances", optimizerInstances(p),
                "hierarchical data parallelism: one optimizer instance per group of DP ranks");
    }
    if (p.gradReduceDtype == GradReduceDtype::Bf16)
        add("--grad-reduce-in-bf16", "", "gradient reduction in BF16");
    switch (p.recompute) {
    case Recompute::None:
        break;
    case Recompute::Selective:
        add("--recompute-granularity", "selective", "selective recompute");
        break;
    case Recompute::Full:
        add("--recompute-granularity", "full", "full recompute");
        add("--recompute-method", "uniform", "full recompute of every layer");
        add("--recompute-num-layers", 1, "full recompute of every layer");
        break;
    }
    if (p.overlap.dpGradReduce)
        add("--overlap-grad-reduce", "", "gradient reduction under backward");
    // arguments.py: the all-gather overlap needs sharded weights and the reduce overlap.
    if (p.overlap.dpParamGather && p.overlap.dpGradReduce && (distOpt || p.zeroStage >= 2))
        add("--overlap-param-gather", "", "parameter all-gather under forward");
    if (p.overlap.tpComm && p.tp > 1 && p.sequenceParallel)
        add("--tp-comm-overlap", "", "TP communication under GEMMs");
    else if (p.overlap.tpComm && p.tp > 1)
        add.unexpressed("TP overlap without sequence parallelism",
                        "Megatron-LM overlaps TP communication only with sequence parallelism");
    if (p.overlap.epComm && p.ep > 1)
        add("--overlap-moe-expert-parallel-comm", "", "EP all-to-all under expert compute");
    if (!p.overlap.ppComm && p.pp > 1 && p.virtualStages > 1)
        add("--no-overlap-p2p-communication", "", "PP transfers not overlapped");
    if (!p.overlap.cpComm && p.cp > 1)
        add.unexpressed("CP without overlap",
                        "Megatron-LM always overlaps its CP ring with attention");
    if (p.kernels.flashAttention.has_value())
        add("--attention-backend", *p.kernels.flashAttention ? "flash" : "unfused",
            "attention kernel");
    if (p.datacenterSync.scheme != DatacenterSync::Synchronous)
        add.unexpressed(std::string("datacenter sync ") + toString(p.datacenterSync.scheme),
                        "Megatron-LM trains synchronously; DiLoCo needs an outer optimizer "
                        "loop around it (e.g. PrimeIntellect's prime or torchft)");
}

void addSchedule(const PlanInputs& in, const Adder& add)
{
    const Schedule& sch = in.scenario.schedule;
    switch (sch.kind) {
    case ScheduleKind::OneFOneB:
    case ScheduleKind::Interleaved1F1B:
        break; // Megatron-LM's schedule (interleaved when v > 1)
    case ScheduleKind::GPipe:
    case ScheduleKind::ZeroBubbleH1:
    case ScheduleKind::ZeroBubbleH2:
    case ScheduleKind::DualPipe:
        add.unexpressed(std::string("schedule ") + toString(sch.kind),
                        "Megatron-LM core_v0.15.3 runs 1F1B (interleaved with virtual stages); "
                        "the job will have 1F1B's bubble, not this schedule's");
        break;
    }
    if (sch.extraInFlightAtDci > 0)
        add.unexpressed("extra micro-batches in flight at DCI boundaries",
                        "Megatron-LM's 1F1B warm-up is fixed by the stage count");
}

} // namespace

void addMegatronSettings(const PlanInputs& in, LaunchPlan& plan)
{
    const Adder add{plan};
    const Parallelism& p = in.scenario.parallelism;
    // Megatron-LM orders TP/CP communication before compute on one CUDA queue before Blackwell
    // and Megatron-FSDP needs more than one (arguments.py).
    if (p.zeroStage >= 2)
        plan.environment.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "8",
                                    "Megatron-FSDP needs more than one (CUDA's default 8)"});
    else if (p.tp > 1 || p.cp > 1)
        plan.environment.push_back(
            {"CUDA_DEVICE_MAX_CONNECTIONS", "1",
             "TP / CP communication ordered before compute (pre-Blackwell)"});
    plan.notes.push_back("positions, normalization and biases are not in the scenario (the cost "
                         "model does not tell them apart): Megatron-LM's defaults apply; a "
                         "Llama-family model adds --position-embedding-type rope "
                         "--normalization RMSNorm --disable-bias-linear");
    addParallelism(in, add);
    addSchedule(in, add);
    addWorkload(in, add);
}

} // namespace archipelago::core::launch
