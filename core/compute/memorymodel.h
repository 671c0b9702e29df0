// Memory per GPU (ARCHITECTURE.md section 3, "Memory"): weights, gradients and optimizer
// states sharded by ZeRO stage or Megatron's distributed optimizer, activations per layer per
// micro-batch after Korthikanti et al. 2022 (Table 2), micro-batches in flight per schedule,
// and the heavier first and last stages.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <vector>

namespace archipelago::core {

// Parameters one GPU holds for one layer (weights sharded by TP, experts also by EP).
struct LayerParams
{
    double dense = 0.0;  // attention, dense MLP, norms, router, shared experts
    double expert = 0.0; // routed experts (gradients reduced over the expert-DP group)
};
LayerParams layerParamsPerGpu(const Workload& workload, const Parallelism& par, bool moeLayer);
// Input embedding or output layer on one GPU: V*h/t (vocabulary-parallel, Megatron).
double vocabParamsPerGpu(const Workload& workload, const Parallelism& par);

// Bytes per parameter of weights, gradients and optimizer states, for a data-parallel shard
// group of `shardGroup` GPUs. Megatron mixed precision keeps bf16 weights (2), fp32 main
// gradients (4) and fp32 master weights, Adam momentum and variance (12): 18 bytes; its
// distributed optimizer shards the 12 (6 + 12/d; Megatron-LM docs, "Distributed Optimizer").
// ZeRO stages 1/2/3 shard optimizer / + gradients / + weights (Rajbhandari et al. 2020,
// section 5, Figure 1).
struct StateBytes
{
    double weights = 2.0;
    double gradients = 4.0;
    double optimizer = 12.0;
    double total() const { return weights + gradients + optimizer; }
};
StateBytes stateBytesPerParam(const Parallelism& par, double shardGroup);

// Activation bytes stored per layer per micro-batch on one GPU, Korthikanti et al. 2022
// Table 2 generalised to GQA, SwiGLU, MoE and CP (see memorymodel.cpp):
//   no TP:              s*b*h*(34 + 5*a*s/h)
//   TP:                 s*b*h*(10 + 24/t + 5*a*s/(h*t))
//   TP + SP:            s*b*h/t*(34 + 5*a*s/h)
//   TP + selective:     s*b*h*(10 + 24/t)        TP + SP + selective: 34*s*b*h/t
//   full recompute:     2*s*b*h (the layer input only; /t with SP)
// With fused (flash) attention the 5*a*s/h score terms are never stored (Dao 2023: only the
// output and the softmax statistics, 4*a*s bytes in fp32 per sequence).
double activationBytesPerLayer(const Workload& workload, const Parallelism& par, bool moeLayer,
                               bool fusedAttention = false);

struct StageMemoryInput
{
    int rank = 0;
    int pp = 1;
    double layers = 0.0;           // layers held by this rank (all its chunks)
    double moeLayers = 0.0;        // of which MoE layers
    bool first = false;            // holds the input embedding
    bool last = false;             // holds the output layer and the fp32 logits
    double inFlight = 1.0;         // micro-batches in flight (model/scheduletraits.h + extra)
    double denseShardGroup = 1.0;  // dp * cp
    double expertShardGroup = 1.0; // dp * cp / ep
    bool fusedAttention = false;   // flash attention (computemodel.h fusedAttention)
    // DiLoCo's outer state per parameter, beside the optimizer's: the fp32 weights of the last
    // outer step and the fp32 Nesterov momentum, 8 bytes (Douillard et al. 2025, section 2.5:
    // 5/3 of data-parallel training's memory), sharded with the optimizer.
    double outerStateBytesPerParam = 0.0;
};
MemoryBreakdown stageMemory(const Workload& workload, const Parallelism& par,
                            const StageMemoryInput& in);

// The per-layer terms of stageMemory, the same on every stage of a job with one kind of
// attention kernel: computed once per evaluation, not once per stage.
struct LayerMemoryTerms
{
    LayerParams dense;                 // parameters of a dense layer, per GPU
    LayerParams moe;                   // of an MoE layer
    double vocabParams = 0.0;          // the embedding (or the output layer), per GPU
    double denseActivationBytes = 0.0; // stored per micro-batch in flight, a dense layer
    double moeActivationBytes = 0.0;   // an MoE layer
    double denseFullBytes = 0.0;       // without recompute: what full recompute rebuilds at once
    double moeFullBytes = 0.0;
};
LayerMemoryTerms layerMemoryTerms(const Workload& workload, const Parallelism& par,
                                  bool fusedAttention);
// stageMemory with `terms` = layerMemoryTerms(workload, par, in.fusedAttention).
MemoryBreakdown stageMemory(const Workload& workload, const Parallelism& par,
                            const StageMemoryInput& in, const LayerMemoryTerms& terms);

// Framework reserve: CUDA context, NCCL and cuBLAS workspaces (2 GiB) plus allocator
// fragmentation (5% of what the model allocates). PyTorch's caching allocator typically
// leaves 5-10% fragmented in LLM training (Guo et al. 2024, "GMLake", section 2.3, measure
// more under recompute and ZeRO-3; we take the low end for dense Megatron runs).
double reserveGib(double allocatedGib);

// The high end of that fragmentation (ibid.): a stage that fits only below it has no headroom.
inline constexpr double kFragmentationHighFraction = 0.10;

// The largest fragmentation, as a fraction of what the model allocates, at which a stage still
// fits in `hbmGib`: the inverse of reserveGib.
double fragmentationThatFits(double allocatedGib, double hbmGib);

inline constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

} // namespace archipelago::core
