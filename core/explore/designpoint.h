// One point of a SearchSpace: a value per dimension, and its index in the space's odometer
// order (explore/spaceodometer.h), which makes every result independent of the thread count.
#pragma once

#include "model/scenario.h"

#include <cstdint>

namespace archipelago::core {

struct DesignPoint
{
    std::uint64_t index = 0;
    int tp = 1;
    int cp = 1;
    int pp = 1;
    int ep = 1;
    int virtualStages = 1;
    int microBatch = 1;
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    int extraInFlightAtDci = 0;
    Recompute recompute = Recompute::None;
    int zeroStage = 0;
    bool distributedOptimizer = false;

    bool operator==(const DesignPoint&) const = default;
};

} // namespace archipelago::core
