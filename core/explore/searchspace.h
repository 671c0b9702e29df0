// The design space around a base scenario (docs/explore.md): the values each
// searched dimension may take, and the optional constraints. A point of the space is one value
// per dimension (explore/designpoint.h); the topology and the placement's shape stay the base's.
#pragma once

#include "model/scenario.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace archipelago::core {

struct SearchSpace
{
    std::vector<int> tp;
    std::vector<int> cp;
    std::vector<int> pp;
    std::vector<int> ep;
    std::vector<int> virtualStages;
    std::vector<int> microBatch;
    std::vector<ScheduleKind> schedules;
    std::vector<int> extraInFlightAtDci; // the cross-DC-aware variant's extra warm-up forwards
    std::vector<Recompute> recompute;
    std::vector<int> zeroStage;
    std::vector<bool> distributedOptimizer;
    // Constraints beyond HBM fit and the fixed global batch (always on).
    std::optional<double> networkCapexBudgetUsd;
    std::optional<double> networkPowerBudgetW;
};

// Values per dimension at most, and points in a space at most (a bound for a hostile file).
inline constexpr std::size_t kMaxValuesPerDimension = 64;
inline constexpr std::uint64_t kMaxSpacePoints = std::uint64_t{1} << 40;

// The default space of docs/explore.md: the base's value of every dimension and its
// neighbours (halved and doubled degrees, every schedule, every recompute mode, ...).
SearchSpace defaultSearchSpace(const Scenario& base);

// Points in the space (the product of the dimension sizes), capped at kMaxSpacePoints + 1.
std::uint64_t spacePoints(const SearchSpace& space);

} // namespace archipelago::core
