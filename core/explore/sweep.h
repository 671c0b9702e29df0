// The design-space search (docs/explore.md): every point of a SearchSpace around a
// base scenario, enumerated lazily, pruned by shape and memory before it is evaluated, the rest
// evaluated with the lean options on TBB (one EvaluationWorkspace per thread), in batches
// between which a progress callback runs and a cancellation flag is read. The result is the
// same whatever the thread count: batches merge in odometer order.
#pragma once

#include "explore/paretofront.h"
#include "explore/pointplacement.h"
#include "explore/searchspace.h"
#include "explore/sweeppoint.h"
#include "model/catalog.h"
#include "model/scenario.h"

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

// What happened to the points that were evaluated.
struct SweepCounts
{
    std::uint64_t spacePoints = 0;
    std::uint64_t considered = 0;
    std::array<std::uint64_t, static_cast<std::size_t>(PruneReason::Count)> pruned{};
    std::uint64_t evaluated = 0;
    std::uint64_t failed = 0;      // evaluate() refused it (ok false)
    std::uint64_t outOfMemory = 0; // evaluated, does not fit in HBM: never reported
    std::uint64_t overBudget = 0;  // evaluated, over a budget or the DCI utilisation bound
    std::uint64_t feasible = 0;    // evaluated, fits, within budget: the ranked points
    std::uint64_t prunedTotal() const;
};

struct SweepProgress
{
    std::uint64_t considered = 0;
    std::uint64_t total = 0;
    std::uint64_t evaluated = 0;
};

// Pipeline cells (p * v * m) one point may simulate: 4x the largest published run's
// (Narayanan et al. 2021's 1T: 64 stages * 2 chunks * 512 micro-batches), a bound for a hostile
// space. A point beyond it is pruned `too-large`; the base is evaluated as given.
inline constexpr std::int64_t kMaxSweepCells = std::int64_t{1} << 18;

// What a top-N list ranks by (each list ties by iteration time, then by odometer index).
enum class SweepObjective
{
    IterationTime,
    TimeToTrain,
    // Time to train once interruptions, checkpoints and restarts are counted (Goodput).
    EffectiveTimeToTrain,
    TotalCost,
    // What the effective run costs: the cluster's cost per hour times the effective time to
    // train (RunCost::effectiveRunCostUsd).
    RunCost,
    NetworkCapex,
    MemoryPeak,
    Count
};
inline constexpr std::size_t kSweepObjectives = static_cast<std::size_t>(SweepObjective::Count);
const char* toString(SweepObjective objective); // "iteration_time", ...
double objectiveValue(SweepObjective objective, const SweepPoint& point);
// a before b in `objective`'s top list: smaller objective, then faster, then lower index.
bool rankedBefore(SweepObjective objective, const SweepPoint& a, const SweepPoint& b);

// One evaluated point, compactly, for a scatter of every point (SweepOptions::samples): its
// odometer index, what became of it and its figures (NaN where the evaluation stopped before
// them: a point out of memory has only its memory peak).
struct SweepSample
{
    enum class Kind : std::uint8_t
    {
        Feasible,    // fits, within the budgets: ranked
        OverBudget,  // fits, over a budget or the DCI utilisation bound
        OutOfMemory, // does not fit in HBM
        Failed       // evaluate() refused it
    };
    std::uint64_t index = 0;
    Kind kind = Kind::Feasible;
    double iterationTimeS = 0.0;
    double timeToTrainS = 0.0;
    double memoryPeakGib = 0.0;
    double networkCapexUsd = 0.0;
    double totalCostUsd = 0.0;

    // Equal figures, NaN equal to NaN (the same point swept twice gives equal samples).
    bool operator==(const SweepSample& o) const
    {
        const auto same = [](double a, double b) {
            return a == b || (std::isnan(a) && std::isnan(b));
        };
        return index == o.index && kind == o.kind && same(iterationTimeS, o.iterationTimeS) &&
               same(timeToTrainS, o.timeToTrainS) && same(memoryPeakGib, o.memoryPeakGib) &&
               same(networkCapexUsd, o.networkCapexUsd) && same(totalCostUsd, o.totalCostUsd);
    }
};

struct SweepOptions
{
    int threads = 0; // 0: TBB's default
    int top = 10;    // points in each of SweepResult::topBy
    // Sharding (docs/explore.md): this run considers the points whose odometer index is
    // shardIndex modulo shardCount. The shards' results merge into the unsharded one.
    int shardIndex = 0;
    int shardCount = 1;
    std::uint64_t batchSize = 1024;
    // Batches a parallel loop runs before the threads merge them (each against the results as
    // of its own start: the same result for any value).
    int batchesPerRegion = 16;
    std::function<void(const SweepProgress&)> progress; // between batches, on the caller's thread
    const std::atomic<bool>* cancel = nullptr;          // read between batches
    // When set, every evaluated point (counts.evaluated of them) is appended in odometer order,
    // the same whatever the thread count; nothing is collected otherwise.
    std::vector<SweepSample>* samples = nullptr;
};

struct SweepResult
{
    bool ok = false;
    std::string error; // when !ok: why the base cannot be swept
    bool cancelled = false;
    SweepCounts counts;
    SweepPoint base; // the base scenario as given, evaluated the same way
    bool baseFeasible = false;
    // 1 + the ranked points strictly faster than the base.
    std::uint64_t baseRank = 0;
    std::vector<SweepPoint> top; // by iteration time, ties by odometer index
    // The top points per objective (rankedBefore); topBy[IterationTime] equals `top`.
    std::array<std::vector<SweepPoint>, kSweepObjectives> topBy;
    // The ranked points strictly faster than the base (baseRank - 1), for merging shards.
    std::uint64_t fasterThanBase = 0;
    int shardIndex = 0;
    int shardCount = 1;
    std::vector<SweepPoint> timeVsCapex;
    std::vector<SweepPoint> timeVsMemory;
    std::vector<SweepPoint> trainTimeVsCost;
    double wallS = 0.0;
};

// The scenario of `point`: the base with the point's knobs, its topology variant, its global
// batch (the base's when 0) and the placement `placement` (made for the point's placement
// dimensions by the search, SweepPoint::placement).
Scenario applyPoint(const Scenario& base, const DesignPoint& point, const Placement& placement);

// GPUs placed times the accelerator's catalog price, plus `networkCapexUsd`: a point's
// SweepPoint::totalCostUsd, for any scenario (the current design beside a sweep's points).
double totalCostUsd(const Scenario& scenario, const Catalog& catalog, double networkCapexUsd);

// The point of `space` at odometer `index` as the search makes it: its knobs with the global
// batch the search gives it, and its scenario (applyPoint with the point's placement). Nullopt
// when the search prunes it before any evaluation (no placement, no batch in the range, an
// index outside the space). For previewing a point of a result that kept only its index.
struct SweepPointScenario
{
    DesignPoint point;
    Scenario scenario;
};
std::optional<SweepPointScenario> sweepPointScenario(const Scenario& base, const Catalog& catalog,
                                                     const SearchSpace& space, std::uint64_t index);

SweepResult runSweep(const Scenario& base, const Catalog& catalog, const SearchSpace& space,
                     const SweepOptions& options = {});

} // namespace archipelago::core
