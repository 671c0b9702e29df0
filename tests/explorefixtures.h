// Helpers shared by the explorer's tests: a preset loaded from its path, the search spaces built
// around it, a sweep keeping its first points, and the check that a sweep's counts add up.
#pragma once

#include "clirun.h"
#include "explore/searchspace.h"
#include "explore/sweep.h"
#include "io/scenarioio.h"

#include <QtTest>

#include <algorithm>
#include <string>

namespace archipelago::tests {

// The scenario of a preset file (presetPath, clirun.h); one that does not load stops the test
// program.
inline core::Scenario loadPreset(const std::string& path)
{
    const core::LoadResult load = core::loadScenarioFile(path);
    if (!load.ok())
        qFatal("cannot load %s", path.c_str());
    return *load.scenario;
}

// The base's topology, placement, rank order and global batch; every other dimension to set.
inline core::SearchSpace basePlacementSpace(const core::Scenario& base)
{
    using namespace core;
    SearchSpace s;
    s.dciTransports = {std::nullopt};
    s.wavelengths = {std::nullopt};
    s.fabrics = {std::nullopt};
    s.boundaries = {PlacementBoundary::Base};
    s.stageSplits = {0};
    RankOrder order = kMegatronRankOrder;
    std::copy(base.placement.rankOrder.begin(), base.placement.rankOrder.end(), order.begin());
    s.rankOrders = {order};
    s.dataParallel = {0};
    s.gradReduceDtype = {base.parallelism.gradReduceDtype};
    s.globalBatch = {base.workload.globalBatch, base.workload.globalBatch};
    return s;
}

// One value of every dimension, the base's: the tests widen the dimension they test.
inline core::SearchSpace pinnedSpace(const core::Scenario& base)
{
    using namespace core;
    const Parallelism& par = base.parallelism;
    SearchSpace s = basePlacementSpace(base);
    s.tp = {par.tp};
    s.cp = {par.cp};
    s.pp = {par.pp};
    s.ep = {par.ep};
    s.sequenceParallel = {par.sequenceParallel};
    s.virtualStages = {par.virtualStages};
    s.microBatch = {par.microBatch};
    s.schedules = {base.schedule.kind};
    s.extraInFlightAtDci = {base.schedule.extraInFlightAtDci};
    s.recompute = {par.recompute};
    s.zeroStage = {par.zeroStage};
    s.distributedOptimizer = {par.distributedOptimizer};
    return s;
}

// Every new dimension with two values on the two-building preset (1F1B, so that any number of
// micro-batches runs).
inline core::SearchSpace acrossSpace(const core::Scenario& base)
{
    using namespace core;
    SearchSpace s = pinnedSpace(base);
    s.virtualStages = {1};
    s.schedules = {ScheduleKind::OneFOneB};
    s.recompute = {Recompute::Full}; // fits in HBM without sequence parallelism too
    s.sequenceParallel = {true, false};
    s.boundaries = {PlacementBoundary::Pp, PlacementBoundary::Dp};
    s.rankOrders = {kMegatronRankOrder, *rankOrderFromString("tp-cp-ep-pp-dp")};
    s.dataParallel = {0, 120};
    s.dciTransports = {std::nullopt, DciTransport::LossyIp};
    s.wavelengths = {std::nullopt, 32};
    s.fabrics = {std::nullopt, FabricKind::RailOptimized};
    s.globalBatch = {1024, 4096};
    return s;
}

inline void checkCountsAddUp(const core::SweepCounts& c)
{
    QCOMPARE(c.considered, c.prunedTotal() + c.evaluated);
    QCOMPARE(c.evaluated, c.failed + c.outOfMemory + c.overBudget + c.feasible);
}

// The sweep of `space` keeping the first `top` points of each list.
inline core::SweepResult sweepTop(const core::Scenario& base, const core::Catalog& catalog,
                                  const core::SearchSpace& space, int top)
{
    core::SweepOptions options;
    options.top = top;
    return core::runSweep(base, catalog, space, options);
}

} // namespace archipelago::tests
