// Per-iteration work that does not shrink with the micro-batches, and the wait for the slowest
// GPU: two rows of the breakdown (`overhead_s`, `variability_s`) that grow with the job while
// the compute per GPU shrinks, so they decide how far a job scales.
//
//  - overhead: after the pipeline drains and the data-parallel gradients are reduced, Megatron
//    finalizes the gradients and clips them (Megatron-LM megatron/core/distributed/
//    finalize_model_grads.py; megatron/core/optimizer/clip_grads.py):
//      * a tied embedding's gradient (V x h / TP parameters, fp32 main gradients) is
//        all-reduced between the first and the last pipeline stage
//        (_allreduce_word_embedding_grads), on whatever joins them: the fabric, or a DCI link
//        when the first and last stages sit in different datacenters;
//      * the gradient norm for clipping is one float all-reduced over the model-parallel
//        group, over the whole job when the optimizer is sharded (get_grad_norm_fp32): a
//        latency-bound collective, NCCL's tree with the LL protocol (network/fabric.h), plus
//        the round trip of every DCI route the group spans.
//  - variability: a synchronous step waits for its slowest participant. Every GPU of the job
//    takes part in one (TP per layer, PP per micro-batch, DP per iteration), so the job
//    computes at the pace of its slowest GPU: E[max of N] of a normal spread of sustained speed
//    with coefficient of variation cv (EfficiencyParams::gpuSpeedCv; Sinha et al., SC'22)
//    stretches the busiest rank's compute by cv x E[max of N standard normals].
#pragma once

#include "model/catalog.h"
#include "model/scenario.h"
#include "network/placement.h"

#include <cstdint>

namespace archipelago::core {

// Expected maximum of n independent standard normal variables, by Blom's (1958) plotting
// position, Phi^-1((n - 0.375) / (n + 0.25)) (within 0.5% of the exact value for n >= 2);
// 0 for n <= 1.
double expectedMaxStandardNormal(double n);
// The standard normal quantile (Acklam's rational approximation refined by one Halley step on
// std::erfc: full double precision). p in (0, 1).
double normalQuantile(double p);

struct IterationOverhead
{
    double tiedEmbeddingS = 0.0; // first <-> last stage all-reduce of the tied embedding
    double gradNormS = 0.0;      // the clipping norm's all-reduce
    double totalS() const { return tiedEmbeddingS + gradNormS; }
};

// `gpus` in the job, `gpusPerDomain` its scale-up domain size.
IterationOverhead iterationOverhead(const Scenario& s, const Parallelism& par,
                                    const PlacementAnalysis& pl, const EfficiencyParams& eff,
                                    std::int64_t gpus, int gpusPerDomain);

// The wait for the slowest of `gpus` GPUs whose busiest rank computes for `computeS`.
double variabilityS(double computeS, std::int64_t gpus, const EfficiencyParams& eff);

} // namespace archipelago::core
