// The checks simulatePipeline runs on a spec before it simulates (pipelineshapes.h).
#include "pipeline/pipelineshapes.h"

#include "model/scheduletraits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace archipelago::core::detail {

namespace {

// Guard against absurd inputs (the simulation allocates per (chunk, micro-batch)).
constexpr std::int64_t maxOps = 50'000'000;

bool allValid(const std::vector<double>& values)
{
    return std::all_of(values.begin(), values.end(),
                       [](double x) { return std::isfinite(x) && x >= 0.0; });
}

} // namespace

std::string validateSpec(const PipelineSpec& spec)
{
    const int p = spec.stages;
    const int v = spec.virtualStages;
    if (p < 1 || v < 1 || spec.microBatches < 1)
        return "stages, virtual stages and micro-batches must be at least 1";
    const ScheduleTraits& traits = scheduleTraits(spec.schedule);
    if (traits.fixedChunksPerRank > 0 && v != traits.fixedChunksPerRank)
        return std::string(traits.displayName) + " runs " +
               std::to_string(traits.fixedChunksPerRank) +
               " model chunks per rank (virtual stages)";
    if (v != 1 && traits.fixedChunksPerRank == 0 && !traits.interleaved)
        return "virtual stages > 1 need the interleaved 1F1B schedule";
    // DeepSeek-V3 report section 3.2.1: DualPipe needs p and m divisible by 2; dualpipe.py
    // also asserts m >= 2p (num_chunks >= num_ranks * 2: each direction fills all p ranks).
    if (traits.modelCopies == 2 &&
        (p % 2 != 0 || spec.microBatches % 2 != 0 || spec.microBatches < 2 * p))
        return "DualPipe needs an even pp and an even micro-batch count of at least 2 * pp "
               "(pp " +
               std::to_string(p) + ", " + std::to_string(spec.microBatches) + " micro-batches)";
    // Megatron-LM forward_backward_pipelining_with_interleaving: micro-batches run in groups
    // of p through the chunks; a last group smaller than p is rejected (dependency bubbles).
    if (traits.interleaved && v > 1 && spec.microBatches % p != 0)
        return "interleaved 1F1B needs the micro-batch count to be a multiple of p";
    if (spec.extraInFlightAtDci < 0)
        return "extra in-flight micro-batches at a DCI boundary must not be negative";
    const std::int64_t chunks = std::int64_t{p} * v;
    if (chunks * spec.microBatches * 3 > maxOps)
        return "pipeline too large to simulate (p * v * m)";
    const auto n = static_cast<std::size_t>(chunks);
    if (spec.forwardS.size() != n || spec.backwardS.size() != n)
        return "forward and backward times need one entry per chunk (p * v)";
    if (!spec.weightGradS.empty() && spec.weightGradS.size() != n)
        return "weight-gradient times need one entry per chunk (p * v) or none";
    if (!spec.sendS.empty() && spec.sendS.size() != n - 1)
        return "send times need one entry per chunk boundary (p * v - 1) or none";
    if (!spec.sendCrossesDci.empty() && spec.sendCrossesDci.size() != n - 1)
        return "DCI flags need one entry per chunk boundary (p * v - 1) or none";
    if (!allValid(spec.forwardS) || !allValid(spec.backwardS) || !allValid(spec.weightGradS) ||
        !allValid(spec.sendS))
        return "times must be finite and non-negative";
    for (std::size_t c = 0; c < spec.weightGradS.size(); ++c)
        if (spec.weightGradS[c] > spec.backwardS[c])
            return "a weight-gradient time exceeds its full backward time";
    for (const PipelineLoad& l : spec.loads) {
        if (l.boundary < 0 || static_cast<std::size_t>(l.boundary) + 1 >= n || l.resource < 0 ||
            static_cast<std::size_t>(l.resource) >= spec.resources.size())
            return "a shared-link load names no chunk boundary or no resource";
        if (!std::isfinite(l.serviceS) || l.serviceS < 0.0)
            return "times must be finite and non-negative";
    }
    return {};
}

} // namespace archipelago::core::detail
