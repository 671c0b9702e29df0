// Data-parallel gradient reduction and the optimizer step, after the pipeline drains
// (ARCHITECTURE.md section 3, "Data parallel").
#pragma once

#include "evaluation/stagecost.h"
#include "model/catalog.h"
#include "model/scenario.h"
#include "network/placement.h"
#include "pipeline/pipelinesimulator.h"

#include <vector>

namespace archipelago::core {

struct DataParallelCost
{
    double exposedS = 0.0;      // DP communication left on the critical path
    double interferenceS = 0.0; // slowdown of the backward that hides the rest
    double optimizerS = 0.0;    // Adam step on the slowest rank
    double gradientS = 0.0;     // full gradient reduction time on the critical rank
    // Loosely coupled training (evaluation/loosesync.h), on the critical rank: the outer
    // all-reduce of the pseudo-gradient over the DCI every H steps, and what it adds to each
    // step on average (included in exposedS).
    int replicas = 1;
    double outerStepS = 0.0;
    double outerExposedS = 0.0;
    double outerBytesPerGpu = 0.0;
};

// Parameters one GPU of pipeline rank `rank` holds, dense and expert.
struct RankParams
{
    double dense = 0.0;
    double expert = 0.0;
};
RankParams rankParams(const Workload& workload, const Parallelism& par,
                      const std::vector<ChunkSpec>& chunks, int pp, int rank);

// `accel` per pipeline rank, `chunks` and `parts` per model chunk (c = j*p + r).
DataParallelCost dataParallelCost(const Scenario& scenario, const Parallelism& par,
                                  const PlacementAnalysis& placement,
                                  const std::vector<const AcceleratorSpec*>& accel,
                                  const std::vector<ChunkSpec>& chunks,
                                  const std::vector<ChunkParts>& parts, const PipelineResult& pipe,
                                  TrafficTally* traffic);

} // namespace archipelago::core
