// A cheap lower bound on a design point's iteration time, to skip evaluating points that cannot
// enter any result of a sweep (docs/explore.md, "The lower bound"), and the filter that decides
// it from plain numbers of the results so far.
//
// The bound is compute at peak: every GEMM of every layer, of the logits and of what the
// recompute policy runs again, at the accelerator's peak FLOP/s times the calibrated
// gemm_peak fraction (EfficiencyParams::gemmPeakEfficiency). The compute model never beats that
// (compute/computemodel.h: a GEMM runs at peak * gemm_peak * e_tile * k / (k + half_dim), with
// e_tile and the k term at most 1, and takes the roofline maximum with HBM time; memory-bound
// work, kernel overheads and communication only add). Per pipeline rank the busy time is at
// least its chunks' (forward + backward + recompute) times the micro-batches through them, and
// the iteration is at least the busiest rank's (evaluation/resultpasses.cpp). For a schedule
// whose cost is its makespan (not ZB-H2's steady period) and whose chunks form one chain (not
// DualPipe), rank k cannot start before micro-batch 0 has gone forward through chunks 0..k-1,
// and, when its last op is a backward (no split W), chunks k-1..0 still run that micro-batch's
// backward after it ends: makespan >= F(0..k-1) + busy(k) + B(0..k-1) (pipeline/
// pipelinesimulator.h: one op at a time per rank, an op after its inputs). With equal stages
// that is the 1F1B minimal makespan (m + p - 1)(F + B). The data-parallel tail, transfers and
// the optimizer step are left out (all >= 0).
#pragma once

#include "explore/sweep.h"
#include "model/catalog.h"
#include "model/scenario.h"

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace archipelago::core {

// Seconds; never more than evaluate(scenario, catalog).iterationTimeS when that evaluation is
// ok (tests/test_lowerbound.cpp checks every point of every preset's sweep). 0 when the
// scenario's shape leaves nothing to bound (no accelerator, no micro-batch).
double iterationTimeLowerBoundS(const Scenario& scenario, const Catalog& catalog);

// Time to train for an iteration time, with the same operations as the cost model
// (evaluation/resultpasses.cpp), so a lower bound of the iteration time gives one of the time
// to train, bit for bit monotone.
double timeToTrainS(const Workload& workload, double iterationTimeS);

// GEMM FLOPs one GPU executes for one layer and one micro-batch, forward, as the compute model
// runs them (compute/computemodel.cpp layerCompute: causal flash attention skips the masked
// half). `attention` runs in BF16, `gemm` in the workload's precision.
struct LayerGemmFlops
{
    double gemm = 0.0;
    double attention = 0.0;
    double upProjections = 0.0; // MLA's up-projections, part of gemm (selective recompute)
};
LayerGemmFlops layerGemmFlops(const Workload& workload, const Parallelism& par, bool moeLayer,
                              bool fusedAttention);

// What a sweep has found so far, as plain numbers (the state as of the start of a batch).
struct BoundFilterState
{
    // Each Pareto front's points: (first objective, second objective), both minimised
    // (sweep.h: time vs capex, time vs memory peak, time to train vs total cost).
    std::vector<std::pair<double, double>> timeVsCapex;
    std::vector<std::pair<double, double>> timeVsMemory;
    std::vector<std::pair<double, double>> trainTimeVsCost;
    // Per top list (sweep.h SweepObjective order): full (it holds N points), and then its last
    // point's objective value and iteration time. N = 0: full, both -infinity.
    struct TopList
    {
        bool full = false;
        double lastValue = 0.0;
        double lastTimeS = 0.0;
    };
    std::array<TopList, kSweepObjectives> top{};
    // The base's iteration time: a point strictly faster counts in the base's rank.
    double baseTimeS = 0.0;
};

// What is known of a point before it is evaluated: lower bounds of what evaluation gives, and
// the figures that do not depend on it.
struct PointBounds
{
    double iterationTimeS = 0.0; // iterationTimeLowerBoundS
    double timeToTrainS = 0.0;   // timeToTrain(workload, iterationTimeS)
    double memoryPeakGib = 0.0;  // explore/memoryestimate.h
    double networkCapexUsd = 0.0;
    double totalCostUsd = 0.0;
    double runCostUsd = 0.0; // the cost per hour (evaluation/runcost.h) x timeToTrainS
};

// Whether a point may still change a sweep's result. Prunable only when it can enter no Pareto
// front, no top list, and cannot be faster than the base. Exact, not a heuristic: the points
// in the state came before the point (lower odometer index), so on a tie the kept point wins
// (ParetoFront keeps the first of equal points; rankedBefore ties by iteration time, then index),
// and a front or list only gets better as the sweep goes on, so what the state of an earlier
// moment rules out stays ruled out.
class BoundFilter
{
public:
    BoundFilter() = default;
    explicit BoundFilter(const BoundFilterState& state);

    bool prunable(const PointBounds& point) const;

private:
    // A front as its points sorted by the first objective, with the running minimum of the
    // second: "some point is at least as good on both" is one binary search.
    struct Front
    {
        std::vector<double> x;
        std::vector<double> minY;
        void assign(std::vector<std::pair<double, double>> points);
        bool weaklyDominated(double x, double y) const;
    };
    Front m_timeCapex;
    Front m_timeMemory;
    Front m_trainCost;
    std::array<BoundFilterState::TopList, kSweepObjectives> m_top{};
    double m_baseTimeS = 0.0;
};

} // namespace archipelago::core
