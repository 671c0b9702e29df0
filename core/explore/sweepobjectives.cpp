// The sweep's objectives (explore/sweep.h): their names, a point's value in each and the order
// the top lists rank points in.
#include "explore/sweep.h"

namespace archipelago::core {

const char* toString(SweepObjective objective)
{
    switch (objective) {
    case SweepObjective::IterationTime:
        return "iteration_time";
    case SweepObjective::TimeToTrain:
        return "time_to_train";
    case SweepObjective::EffectiveTimeToTrain:
        return "effective_time_to_train";
    case SweepObjective::TotalCost:
        return "total_cost";
    case SweepObjective::RunCost:
        return "run_cost";
    case SweepObjective::NetworkCapex:
        return "network_capex";
    case SweepObjective::MemoryPeak:
        return "memory_peak";
    case SweepObjective::Count:
        break;
    }
    return "?";
}

double objectiveValue(SweepObjective objective, const SweepPoint& p)
{
    switch (objective) {
    case SweepObjective::IterationTime:
        return p.evaluation.iterationTimeS;
    case SweepObjective::TimeToTrain:
        return p.evaluation.timeToTrainS;
    case SweepObjective::EffectiveTimeToTrain:
        return p.evaluation.goodput.effectiveTimeToTrainS;
    case SweepObjective::TotalCost:
        return p.totalCostUsd;
    case SweepObjective::RunCost:
        return p.evaluation.runCost.effectiveRunCostUsd;
    case SweepObjective::NetworkCapex:
        return p.networkCapexUsd;
    case SweepObjective::MemoryPeak:
        return p.evaluation.memoryPeakGib;
    case SweepObjective::Count:
        break;
    }
    return 0.0;
}

bool rankedBefore(SweepObjective objective, const SweepPoint& a, const SweepPoint& b)
{
    const double va = objectiveValue(objective, a);
    const double vb = objectiveValue(objective, b);
    if (va != vb)
        return va < vb;
    if (a.evaluation.iterationTimeS != b.evaluation.iterationTimeS)
        return a.evaluation.iterationTimeS < b.evaluation.iterationTimeS;
    return a.point.index < b.point.index;
}

std::uint64_t SweepCounts::prunedTotal() const
{
    std::uint64_t n = 0;
    for (std::uint64_t k : pruned)
        n += k;
    return n;
}

} // namespace archipelago::core
