// One point of a SearchSpace: a value per dimension, and its index in the space's odometer
// order (explore/spaceodometer.h), which makes every result independent of the thread count.
#pragma once

#include "explore/searchspace.h"
#include "model/scenario.h"

#include <cstdint>
#include <optional>

namespace archipelago::core {

struct DesignPoint
{
    std::uint64_t index = 0;
    // The topology variant: nullopt keeps the base's (per link, per datacenter).
    ElementChoice<DciTransport> dciTransport;
    ElementChoice<int> wavelengths;
    FabricChoice fabric;
    int ncclChannels = 0;
    // The placement.
    int tp = 1;
    int cp = 1;
    int pp = 1;
    int ep = 1;
    PlacementBoundary boundary = PlacementBoundary::Base;
    StageSplit stageSplit;
    RankOrder rankOrder = kMegatronRankOrder;
    int dataParallel = 0; // the requested DP; 0: the largest that fits
    // The rest.
    bool sequenceParallel = false; // applied only with TP > 1 (Megatron-LM arguments.py)
    int virtualStages = 1;
    int microBatch = 1;
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    int extraInFlightAtDci = 0;
    Recompute recompute = Recompute::None;
    int zeroStage = 0;
    bool distributedOptimizer = false;
    GradReduceDtype gradReduceDtype = GradReduceDtype::Fp32;
    // The run: nullopt keeps the base's.
    std::optional<DatacenterSync> datacenterSync;
    std::optional<int> innerSteps;
    std::optional<double> checkpointIntervalS; // 0: Daly's optimum
    // Not a dimension: the global batch the search gave the point (SearchSpace::globalBatch)
    // when it differs from the base's; 0: the base's.
    int globalBatch = 0;

    bool operator==(const DesignPoint&) const = default;
};

} // namespace archipelago::core
