#include "explore/sweep.h"

#include "evaluation/costmodel.h"
#include "evaluation/runcost.h"
#include "explore/lowerbound.h"
#include "explore/memoryestimate.h"
#include "explore/spaceodometer.h"
#include "io/scenarioio.h"
#include "model/scheduletraits.h"
#include "model/shapecheck.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <deque>
#include <limits>
#include <optional>
#include <unordered_map>

namespace archipelago::core {

namespace {

// What the search ranks on: iteration time, memory and the DCI traffic; capex and power come
// from the topology variant, made once per variant (explore/pointplacement.h).
EvaluateOptions leanOptions()
{
    EvaluateOptions o;
    o.timeline = false;
    o.warnings = false;
    o.billOfMaterials = false;
    o.attribution = false;
    // A point that does not fit is never ranked: stop after the memory pass.
    o.stopIfOutOfMemory = true;
    return o;
}

// Sets every field a point varies but its topology variant (applyTopology; `sc` may hold
// another point of the same base): the topology stays between the points of one variant, and
// copying it grows with the DCI links.
void applyKnobs(Scenario& sc, const Scenario& base, const DesignPoint& p,
                const Placement& placement)
{
    Parallelism& par = sc.parallelism;
    par.tp = p.tp;
    par.cp = p.cp;
    par.pp = p.pp;
    par.ep = p.ep;
    par.virtualStages = scheduleTraits(p.schedule).interleaved ? p.virtualStages : 1;
    par.microBatch = p.microBatch;
    par.recompute = p.recompute;
    par.zeroStage = p.zeroStage;
    par.distributedOptimizer = p.distributedOptimizer;
    par.gradReduceDtype = p.gradReduceDtype;
    const DatacenterSyncOptions& sync = base.parallelism.datacenterSync;
    par.datacenterSync.scheme = p.datacenterSync.value_or(sync.scheme);
    par.datacenterSync.innerSteps = p.innerSteps.value_or(sync.innerSteps);
    sc.workload.checkpointIntervalS =
        p.checkpointIntervalS.value_or(base.workload.checkpointIntervalS);
    // Sequence parallelism splits along TP: off without TP (Megatron-LM arguments.py).
    par.sequenceParallel = p.sequenceParallel && p.tp > 1;
    sc.schedule.kind = p.schedule;
    sc.schedule.extraInFlightAtDci = p.extraInFlightAtDci;
    sc.workload.globalBatch = p.globalBatch > 0 ? p.globalBatch : base.workload.globalBatch;
    sc.placement = placement;
}

void applyTopology(Topology& topology, const Topology& base, const DesignPoint& p)
{
    applyTopologyVariant(topology, base, p.dciTransport, p.wavelengths, p.fabric, p.ncclChannels);
}

// The multiple of `perStep` nearest `batch` inside [range.min, range.max] (ties up), or 0.
std::int64_t batchInRange(std::int64_t batch, std::int64_t perStep, const GlobalBatchRange& range)
{
    if (perStep <= 0)
        return 0;
    const std::int64_t low =
        std::max<std::int64_t>(1, (range.minSequences + perStep - 1) / perStep);
    const std::int64_t high = range.maxSequences / perStep;
    if (low > high)
        return 0;
    return std::clamp((batch + perStep / 2) / perStep, low, high) * perStep;
}

// Whether the space keeps the base's global batch (the range is that one value).
bool batchIsFixed(const SearchSpace& space, int baseBatch)
{
    return space.globalBatch.minSequences == baseBatch &&
           space.globalBatch.maxSequences == baseBatch;
}

// The global batch point `p` trains with, given its placement's DP: Megatron-LM requires
// global_batch % (micro_batch * dp) == 0 (arguments.py), so the base's batch, or the multiple
// nearest it in the space's range; 0 when there is none. Recorded in the point only when it
// moved (0: the base's), so a fixed batch prints as before.
std::int64_t assignPointBatch(DesignPoint& p, int baseBatch, std::int64_t dataParallel,
                              const GlobalBatchRange& range)
{
    const std::int64_t batch =
        batchInRange(baseBatch, std::int64_t{p.microBatch} * dataParallel, range);
    if (batch > 0)
        p.globalBatch = batch == baseBatch ? 0 : static_cast<int>(batch);
    return batch;
}

// The busiest DCI link's busy time over the iteration (uncapped: above 1 the link cannot
// carry the iteration's traffic in its time).
double dciUtilisation(const Evaluation& ev)
{
    double most = 0.0;
    for (const LinkTraffic& t : ev.traffic)
        if (t.dciLinkId >= 0 && ev.iterationTimeS > 0.0)
            most = std::max(most, t.busyS / ev.iterationTimeS);
    return most;
}

bool hasErrors(const std::vector<Diagnostic>& diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& d) {
        return d.severity == Diagnostic::Severity::Error;
    });
}

// A hash of everything a placement holds (for finding equal ones).
std::size_t placementHash(const Placement& placement)
{
    std::size_t h = 0;
    const auto mix = [&h](std::size_t v) {
        h ^= v + std::size_t{0x9e3779b97f4a7c15} + (h << 6) + (h >> 2);
    };
    for (ParallelDim d : placement.rankOrder)
        mix(static_cast<std::size_t>(d));
    for (const PlacementShard& shard : placement.shards) {
        mix(static_cast<std::size_t>(shard.dpReplicas));
        for (Id dc : shard.stageDatacenters)
            mix(static_cast<std::size_t>(dc));
        for (Id dc : shard.splitDatacenters)
            mix(static_cast<std::size_t>(dc));
    }
    for (int layers : placement.layersPerStage)
        mix(static_cast<std::size_t>(layers));
    return h;
}

// An evaluated point in its worker's buffer, with the bounds it passed and its exact memory
// peak when the test after the memory pass ran (NaN otherwise), to test it again against a
// later filter.
struct Slot
{
    SweepPoint point;
    PointBounds bounds;
    double memoryPeakGib = std::numeric_limits<double>::quiet_NaN();
};

// One point's outcome, computed on any thread and merged in index order: a few bytes; an
// evaluated point lives in its worker's buffer (Worker::slot) until the region is merged.
struct Outcome
{
    enum class Kind : std::uint8_t
    {
        Pruned,
        Failed,
        OutOfMemory,
        Evaluated,
        OtherShard // another shard's point (SweepOptions::shardIndex)
    };
    Kind kind = Kind::Pruned;
    PruneReason reason = PruneReason::Redundant;
    Slot* slot = nullptr; // Failed, OutOfMemory and Evaluated only
};

PointBounds withMemoryPeak(PointBounds bounds, double memoryPeakGib)
{
    bounds.memoryPeakGib = memoryPeakGib;
    return bounds;
}

// Whether an evaluated point's outcome is a bound prune under `filter`: the test before its
// evaluation, and the one after its memory pass when that ran (Sweeper::consider).
bool boundedBy(const BoundFilter& filter, const Slot& s)
{
    return filter.prunable(s.bounds) ||
           (!std::isnan(s.memoryPeakGib) &&
            filter.prunable(withMemoryPeak(s.bounds, s.memoryPeakGib)));
}

// What a sample holds of an evaluated point (SweepOptions::samples).
SweepSample sampleOf(std::uint64_t index, SweepSample::Kind kind, const SweepPoint& p)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Evaluation& e = p.evaluation;
    const bool full = kind == SweepSample::Kind::Feasible || kind == SweepSample::Kind::OverBudget;
    SweepSample s;
    s.index = index;
    s.kind = kind;
    s.iterationTimeS = full ? e.iterationTimeS : nan;
    s.timeToTrainS = full ? e.timeToTrainS : nan;
    s.memoryPeakGib = kind == SweepSample::Kind::Failed ? nan : e.memoryPeakGib;
    s.networkCapexUsd = full ? p.networkCapexUsd : nan;
    s.totalCostUsd = full ? p.totalCostUsd : nan;
    return s;
}

struct Worker
{
    EvaluationWorkspace workspace;
    std::optional<Scenario> scratch;
    // The topology variant `scratch` and the workspace hold (SpaceOdometer::topologyIndex).
    std::uint64_t topology = std::numeric_limits<std::uint64_t>::max();
    // The points evaluated in this region; a deque keeps a slot in place while others are added.
    std::deque<Slot> points;
    std::size_t used = 0;

    Slot& slot()
    {
        if (used == points.size())
            points.emplace_back();
        return points[used++];
    }
};

// Keeps the `limit` first points of `list` in `objective`'s order.
void offerTop(std::vector<SweepPoint>& list, std::size_t limit, SweepObjective objective,
              const SweepPoint& p)
{
    const auto before = [objective](const SweepPoint& a, const SweepPoint& b) {
        return rankedBefore(objective, a, b);
    };
    if (limit == 0 || (list.size() >= limit && !before(p, list.back())))
        return;
    list.insert(std::upper_bound(list.begin(), list.end(), p, before), p);
    if (list.size() > limit)
        list.pop_back();
}

class Sweeper
{
public:
    Sweeper(const Scenario& base, const Catalog& catalog, const SearchSpace& space)
        : m_base(base)
        , m_catalog(catalog)
        , m_space(space)
        , m_odometer(space)
    {
        m_minVirtualStages =
            space.virtualStages.empty()
                ? 1
                : *std::min_element(space.virtualStages.begin(), space.virtualStages.end());
        m_spaceHasNoSequenceParallel =
            std::find(space.sequenceParallel.begin(), space.sequenceParallel.end(), false) !=
            space.sequenceParallel.end();
        m_spaceHasPlainOptimizer =
            std::find(space.distributedOptimizer.begin(), space.distributedOptimizer.end(),
                      false) != space.distributedOptimizer.end();
        m_spaceHasZeroOne =
            std::find(space.zeroStage.begin(), space.zeroStage.end(), 1) != space.zeroStage.end();
        m_baseSync = base.parallelism.datacenterSync;
        std::vector<DatacenterSync> schemes;
        for (const std::optional<DatacenterSync>& s : space.datacenterSync)
            schemes.push_back(s.value_or(m_baseSync.scheme));
        if (!schemes.empty())
            m_localScheme = std::find(schemes.begin(), schemes.end(),
                                      DatacenterSync::Synchronous) != schemes.end()
                                ? DatacenterSync::Synchronous
                                : schemes.front();
        m_firstInnerSteps = space.innerSteps.empty()
                                ? m_baseSync.innerSteps
                                : space.innerSteps.front().value_or(m_baseSync.innerSteps);
        m_batchFixed = batchIsFixed(space, base.workload.globalBatch);
        for (const Datacenter& dc : base.topology.datacenters)
            if (const AcceleratorSpec* acc = catalog.accelerator(dc.accelerator))
                m_hbmGibMax = std::max(m_hbmGibMax, acc->hbmGib);
    }

    const SpaceOdometer& odometer() const { return m_odometer; }

    // Every placement, once (in parallel); then, in index order, a placement equal to one of
    // an earlier value of the same shape (tp, cp, pp, ep) is redundant: a `pp` split on one
    // datacenter, `base` equal to a preset, `dp: "max"` and the explicit DP it comes to. The
    // rest of the point's knobs run over the same values for both, so each design is kept once.
    void makePlacements()
    {
        // Checked once here rather than with every placement: its rules grow with the links.
        const TopologyRules baseTopology = hasErrors(checkTopology(m_base.topology, m_catalog))
                                               ? TopologyRules::Run
                                               : TopologyRules::Checked;
        m_placements.resize(static_cast<std::size_t>(m_odometer.placements()));
        tbb::parallel_for(std::size_t{0}, m_placements.size(), [&](std::size_t k) {
            m_placements[k] =
                makePointPlacement(m_base, m_catalog, m_odometer.at(m_odometer.firstOfPlacement(k)),
                                   m_space, m_batchFixed, baseTopology);
        });
        // The placement index's digits, slowest first: tp, cp, pp, ep, then boundary, split,
        // rank order and dp (explore/spaceodometer.h): one block of those per shape.
        const std::size_t block = m_space.boundaries.size() * m_space.stageSplits.size() *
                                  m_space.rankOrders.size() * m_space.dataParallel.size();
        std::unordered_multimap<std::size_t, std::size_t> seen; // placement hash -> index
        for (std::size_t k = 0; k < m_placements.size(); ++k) {
            if (k % block == 0)
                seen.clear();
            PointPlacement& here = m_placements[k];
            if (!here.placement)
                continue;
            const std::size_t key = placementHash(*here.placement);
            const auto [first, last] = seen.equal_range(key);
            for (auto it = first; it != last && !here.redundant; ++it)
                here.redundant = m_placements[it->second].placement == here.placement;
            if (!here.redundant)
                seen.emplace(key, k);
        }
    }

    // Every topology variant's figures, once (in parallel); a variant whose topology equals an
    // earlier one's is redundant.
    void makeTopologies()
    {
        const auto n = static_cast<std::size_t>(m_odometer.topologies());
        std::vector<Topology> topologies(n, m_base.topology);
        m_topologies.resize(n);
        tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
            const DesignPoint p = m_odometer.at(m_odometer.firstOfTopology(k));
            applyTopologyVariant(topologies[k], m_base.topology, p.dciTransport, p.wavelengths,
                                 p.fabric, p.ncclChannels);
            m_topologies[k] = makeTopologyVariant(topologies[k], m_catalog);
            m_topologies[k].refused = topologyRefused(m_base, topologies[k], m_catalog);
        });
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t e = 0; e < k && !m_topologies[k].redundant; ++e)
                m_topologies[k].redundant = topologies[e] == topologies[k];
    }

    double totalCostUsd(const Scenario& sc, double capexUsd) const
    {
        return core::totalCostUsd(sc, m_catalog, capexUsd);
    }

    // The figures every ranked point carries beyond its evaluation.
    void complete(SweepPoint& sp, const Scenario& sc, double capexUsd, double powerW) const
    {
        sp.networkCapexUsd = capexUsd;
        sp.networkPowerW = powerW;
        sp.totalCostUsd = totalCostUsd(sc, capexUsd);
        const Evaluation& e = sp.evaluation;
        sp.evaluation.runCost = runCost(sc, m_catalog, capexUsd, powerW, e.timeToTrainS,
                                        e.goodput.effectiveTimeToTrainS);
        sp.dataParallel = dataParallel(sc);
    }

    // `filter`: the results as of the start of the point's batch (explore/lowerbound.h); a
    // point it rules out is not evaluated.
    // `digits`: the odometer's digits of `index`.
    Outcome consider(std::uint64_t index, const SpaceOdometer::Digits& digits, Worker& worker,
                     const BoundFilter& filter) const
    {
        Outcome out;
        // The knobs that decide redundancy first: most points stop before being built.
        const SpaceOdometer::Knobs q = m_odometer.knobs(digits);
        const PointPlacement& shape =
            m_placements[static_cast<std::size_t>(m_odometer.placementIndex(index))];
        const TopologyVariant& variant =
            m_topologies[static_cast<std::size_t>(m_odometer.topologyIndex(index))];
        const ScheduleTraits& traits = scheduleTraits(q.schedule);
        const auto prune = [&](PruneReason r) {
            out.kind = Outcome::Kind::Pruned;
            out.reason = r;
            return out;
        };
        // The same design as another point: a schedule without interleaving runs one chunk
        // per rank (the smallest v stands for them all), an interleaved one needs v > 1, and
        // the extra in-flight count changes nothing without a DCI boundary in the pipeline.
        if (traits.interleaved ? q.virtualStages < 2 : q.virtualStages != m_minVirtualStages)
            return prune(PruneReason::Redundant);
        // Sequence parallelism is off at TP 1: `true` there repeats `false` when both are in
        // the space.
        if (q.tp == 1 && q.sequenceParallel && m_spaceHasNoSequenceParallel)
            return prune(PruneReason::Redundant);
        // Megatron's distributed optimizer shards the optimizer states as ZeRO-1 does: the
        // model runs max(zero_stage, 1) (compute/memorymodel.cpp, evaluation/datacost.cpp), so
        // with ZeRO >= 1 it repeats the point without it, and at ZeRO 0 it repeats ZeRO 1.
        if (q.distributedOptimizer && m_spaceHasPlainOptimizer &&
            (q.zeroStage >= 1 || m_spaceHasZeroOne))
            return prune(PruneReason::Redundant);
        if (q.extraInFlightAtDci > 0 &&
            (!traits.extraInFlightApplies || !shape.pipelineCrossesDatacenter))
            return prune(PruneReason::Redundant);
        // Where DP crosses no datacenter every scheme is synchronous training (evaluation/
        // loosesync.h): one stands for them all, synchronous when the space has it. H changes
        // nothing when the datacenters step together: the first H stands for them all.
        const bool local = shape.placement && !shape.dataParallelCrossesDatacenters;
        const DatacenterSync scheme = q.datacenterSync.value_or(m_baseSync.scheme);
        if (local && scheme != m_localScheme)
            return prune(PruneReason::Redundant);
        if ((local || scheme == DatacenterSync::Synchronous) &&
            q.innerSteps.value_or(m_baseSync.innerSteps) != m_firstInnerSteps)
            return prune(PruneReason::Redundant);
        if (variant.redundant || (shape.placement && shape.redundant))
            return prune(PruneReason::Redundant);
        if (!shape.placement)
            return prune(shape.reason);
        if (variant.refused)
            return prune(PruneReason::Check);
        DesignPoint p = m_odometer.at(index, digits);
        if (m_space.dciCapacityGbpsMin && variant.minDciCapacityGbps < *m_space.dciCapacityGbpsMin)
            return prune(PruneReason::DciCapacity);
        const std::int64_t batch = assignPointBatch(p, m_base.workload.globalBatch,
                                                    shape.dataParallel, m_space.globalBatch);
        if (batch <= 0)
            return prune(PruneReason::GlobalBatch);
        const std::int64_t m = batch / (std::int64_t{p.microBatch} * shape.dataParallel);
        // Megatron interleaves only when the micro-batch count is a multiple of p.
        const int v = traits.interleaved ? p.virtualStages : 1;
        if (v > 1 && m % p.pp != 0)
            return prune(PruneReason::Shape);
        if (m * p.pp * std::max(v, chunksPerRank(p.schedule, v)) > kMaxSweepCells)
            return prune(PruneReason::TooLarge);
        if (!worker.scratch)
            worker.scratch = m_base;
        Scenario& sc = *worker.scratch;
        EvaluateOptions options = leanOptions();
        // The odometer's slowest digit is the topology variant, so a worker's points share one
        // for long runs: its topology and model change only with it.
        if (const std::uint64_t k = m_odometer.topologyIndex(index); worker.topology != k) {
            applyTopology(sc.topology, m_base.topology, p);
            worker.workspace.holdTopology(sc.topology, m_catalog, options.billOfMaterials);
            worker.topology = k;
        }
        applyKnobs(sc, m_base, p, *shape.placement);
        if (checkCostModelShape(sc, m_catalog).hasErrors())
            return prune(PruneReason::Shape);
        // A candidate is a scenario like any other: what `check` refuses (the loader's rules,
        // core::checkScenario, on the point's topology variant, placement and knobs) is never
        // evaluated, let alone ranked. The variant's topology passed it already
        // (topologyRefused), so only the rules that join it to the point run again.
        if (scenarioRefused(sc, m_catalog, TopologyRules::Checked))
            return prune(PruneReason::Check);
        const double memoryLbGib = memoryLowerBoundGib(sc, shape.dataParallel);
        if (m_hbmGibMax > 0.0 && memoryLbGib > m_hbmGibMax)
            return prune(PruneReason::Memory);
        const double timeLbS = iterationTimeLowerBoundS(sc, m_catalog);
        const double trainLbS = timeToTrainS(sc.workload, timeLbS);
        const double runCostLbUsd =
            runCostPerHour(sc, m_catalog, variant.networkCapexUsd, variant.networkPowerW)
                .usdPerHour *
            trainLbS / 3600.0;
        PointBounds bounds{timeLbS,
                           trainLbS,
                           memoryLbGib,
                           variant.networkCapexUsd,
                           totalCostUsd(sc, variant.networkCapexUsd),
                           runCostLbUsd};
        if (filter.prunable(bounds))
            return prune(PruneReason::Bound);
        // Again once the memory pass has the exact peak, before the costly pipeline passes.
        Slot& taken = worker.slot();
        taken.bounds = bounds;
        taken.memoryPeakGib = std::numeric_limits<double>::quiet_NaN();
        bool bounded = false;
        options.continueAfterMemory = [&](const Evaluation& partial) {
            taken.memoryPeakGib = partial.memoryPeakGib;
            bounded = filter.prunable(withMemoryPeak(bounds, partial.memoryPeakGib));
            return !bounded;
        };
        SweepPoint& sp = taken.point;
        sp.point = p;
        sp.evaluation = evaluate(sc, m_catalog, options, &worker.workspace);
        if (bounded) {
            --worker.used; // the slot just taken, free again
            return prune(PruneReason::Bound);
        }
        out.slot = &taken;
        if (!sp.evaluation.ok)
            out.kind = Outcome::Kind::Failed;
        else if (!sp.evaluation.fitsInMemory)
            out.kind = Outcome::Kind::OutOfMemory;
        else
            out.kind = Outcome::Kind::Evaluated;
        if (out.kind == Outcome::Kind::Evaluated) {
            complete(sp, sc, variant.networkCapexUsd, variant.networkPowerW);
            sp.placement = *shape.placement;
        }
        return out;
    }

    bool withinBudget(const SweepPoint& p) const
    {
        return (!m_space.networkCapexBudgetUsd ||
                p.networkCapexUsd <= *m_space.networkCapexBudgetUsd) &&
               (!m_space.networkPowerBudgetW || p.networkPowerW <= *m_space.networkPowerBudgetW) &&
               (!m_space.maxDciUtilisation ||
                dciUtilisation(p.evaluation) <= *m_space.maxDciUtilisation);
    }

private:
    const Scenario& m_base;
    const Catalog& m_catalog;
    const SearchSpace& m_space;
    SpaceOdometer m_odometer;
    std::vector<PointPlacement> m_placements;
    std::vector<TopologyVariant> m_topologies;
    int m_minVirtualStages = 1;
    bool m_spaceHasNoSequenceParallel = false;
    bool m_spaceHasPlainOptimizer = false; // `false` among distributed_optimizer's values
    bool m_spaceHasZeroOne = false;        // 1 among zero_stage's values
    // The datacenter sync scheme that stands for all where DP crosses no datacenter, and the H
    // that stands for all where the datacenters step together.
    DatacenterSyncOptions m_baseSync;
    DatacenterSync m_localScheme = DatacenterSync::Synchronous;
    int m_firstInnerSteps = 0;
    bool m_batchFixed = true;
    double m_hbmGibMax = 0.0;
};

DesignPoint pointOf(const Scenario& sc)
{
    DesignPoint p;
    p.index = std::numeric_limits<std::uint64_t>::max();
    const Parallelism& par = sc.parallelism;
    p.tp = par.tp;
    p.cp = par.cp;
    p.pp = par.pp;
    p.ep = par.ep;
    // The base's own placement and topology: each link and datacenter keeps its own value.
    p.boundary = PlacementBoundary::Base;
    if (sc.placement.rankOrder.size() == p.rankOrder.size())
        std::copy(sc.placement.rankOrder.begin(), sc.placement.rankOrder.end(),
                  p.rankOrder.begin());
    p.sequenceParallel = par.sequenceParallel;
    p.virtualStages = par.virtualStages;
    p.microBatch = par.microBatch;
    p.schedule = sc.schedule.kind;
    p.extraInFlightAtDci = sc.schedule.extraInFlightAtDci;
    p.recompute = par.recompute;
    p.zeroStage = par.zeroStage;
    p.distributedOptimizer = par.distributedOptimizer;
    p.gradReduceDtype = par.gradReduceDtype;
    return p;
}

std::vector<std::pair<double, double>> frontPairs(const ParetoFront& front)
{
    std::vector<std::pair<double, double>> out;
    out.reserve(front.size());
    for (const SweepPoint& p : front.points())
        out.emplace_back(front.x()(p), front.y()(p));
    return out;
}

// What the bound filter compares a point with (explore/lowerbound.h).
BoundFilterState boundState(const ParetoFront& timeCapex, const ParetoFront& timeMemory,
                            const ParetoFront& trainCost,
                            const std::array<std::vector<SweepPoint>, kSweepObjectives>& topBy,
                            std::size_t top, double baseTimeS)
{
    BoundFilterState state;
    state.timeVsCapex = frontPairs(timeCapex);
    state.timeVsMemory = frontPairs(timeMemory);
    state.trainTimeVsCost = frontPairs(trainCost);
    for (std::size_t k = 0; k < kSweepObjectives; ++k) {
        BoundFilterState::TopList& list = state.top[k];
        if (top == 0) {
            list = {true, -std::numeric_limits<double>::infinity(),
                    -std::numeric_limits<double>::infinity()};
        } else if (topBy[k].size() >= top) {
            list = {true, objectiveValue(static_cast<SweepObjective>(k), topBy[k].back()),
                    topBy[k].back().evaluation.iterationTimeS};
        }
    }
    state.baseTimeS = baseTimeS;
    return state;
}

SweepResult sweepIn(const Scenario& base, const Catalog& catalog, const SearchSpace& space,
                    const SweepOptions& options)
{
    SweepResult result;
    Sweeper sweeper(base, catalog, space);
    // The base, evaluated in full once: the network capex and power of the topology.
    EvaluateOptions full;
    full.timeline = false;
    full.attribution = false;
    const Evaluation baseFull = evaluate(base, catalog, full);
    if (!baseFull.ok) {
        result.error = "the base scenario cannot be evaluated";
        return result;
    }
    if (sweeper.odometer().placements() > kMaxSpacePlacements ||
        sweeper.odometer().topologies() > kMaxSpaceTopologies) {
        result.error = "the space holds more placements or topology variants than the search "
                       "makes: narrow a dimension";
        return result;
    }
    result.base.point = pointOf(base);
    EvaluateOptions baseOptions = leanOptions();
    baseOptions.stopIfOutOfMemory = false; // the base is reported even when it does not fit
    result.base.evaluation = evaluate(base, catalog, baseOptions);
    sweeper.complete(result.base, base, baseFull.networkCapexUsd, baseFull.networkPowerW);
    result.base.placement = base.placement;
    result.baseFeasible = result.base.evaluation.fitsInMemory && sweeper.withinBudget(result.base);
    result.ok = true;

    sweeper.makeTopologies();
    sweeper.makePlacements();
    const SpaceOdometer& odometer = sweeper.odometer();
    SweepCounts& counts = result.counts;
    counts.spacePoints = odometer.size();
    ParetoFront timeCapex(&frontaxis::iterationTimeS, &frontaxis::networkCapexUsd);
    ParetoFront timeMemory(&frontaxis::iterationTimeS, &frontaxis::memoryPeakGib);
    ParetoFront trainCost(&frontaxis::timeToTrainS, &frontaxis::totalCostUsd);
    const std::size_t top = static_cast<std::size_t>(std::max(0, options.top));
    const double baseTimeS = result.base.evaluation.iterationTimeS;
    std::uint64_t fasterThanBase = 0;

    tbb::enumerable_thread_specific<Worker> workers;
    const std::uint64_t batch = std::max<std::uint64_t>(1, options.batchSize);
    const auto shardCount = static_cast<std::uint64_t>(std::max(1, options.shardCount));
    const auto shardIndex = static_cast<std::uint64_t>(std::max(0, options.shardIndex));
    result.shardIndex = static_cast<int>(shardIndex);
    result.shardCount = static_cast<int>(shardCount);
    // A region of SweepOptions::batchesPerRegion batches runs in one parallel loop, pruned against
    // the results as of its start, then merges batch by batch, each evaluated point tested again
    // against the results as of its batch's start. Fronts and top lists only get better
    // (lowerbound.h): the result is one batch at a time's, and the threads meet once a region.
    const std::uint64_t region =
        batch * static_cast<std::uint64_t>(std::max(1, options.batchesPerRegion));
    std::uint64_t changes = 0; // points merged into a front or a top list
    std::vector<Outcome> outcomes;
    for (std::uint64_t begin = 0; begin < odometer.size(); begin += region) {
        if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
            result.cancelled = true;
            break;
        }
        const std::uint64_t end = std::min(odometer.size(), begin + region);
        outcomes.resize(static_cast<std::size_t>(end - begin)); // each is written below
        const BoundFilter regionFilter(
            boundState(timeCapex, timeMemory, trainCost, result.topBy, top, baseTimeS));
        const std::uint64_t regionChanges = changes;
        // Each task decodes its first point and steps the odometer through the rest.
        tbb::parallel_for(
            tbb::blocked_range<std::size_t>(0, outcomes.size()),
            [&](const tbb::blocked_range<std::size_t>& range) {
                Worker& worker = workers.local();
                SpaceOdometer::Digits digits = odometer.digits(begin + range.begin());
                for (std::size_t i = range.begin(); i != range.end(); ++i) {
                    outcomes[i] =
                        (begin + i) % shardCount == shardIndex
                            ? sweeper.consider(begin + i, digits, worker, regionFilter)
                            : Outcome{Outcome::Kind::OtherShard, PruneReason::Redundant, nullptr};
                    odometer.increment(digits);
                }
            });
        for (std::uint64_t first = begin; first < end; first += batch) {
            const auto from = static_cast<std::size_t>(first - begin);
            const auto to = static_cast<std::size_t>(std::min(end, first + batch) - begin);
            // The results as of the batch's start, when they moved since the region's and the
            // batch has an evaluated point to test.
            std::optional<BoundFilter> own;
            if (changes != regionChanges &&
                std::any_of(outcomes.begin() + static_cast<std::ptrdiff_t>(from),
                            outcomes.begin() + static_cast<std::ptrdiff_t>(to),
                            [](const Outcome& o) { return o.slot != nullptr; }))
                own.emplace(
                    boundState(timeCapex, timeMemory, trainCost, result.topBy, top, baseTimeS));
            for (std::size_t i = from; i < to; ++i) {
                Outcome& o = outcomes[i];
                if (own && o.slot && boundedBy(*own, *o.slot))
                    o = Outcome{Outcome::Kind::Pruned, PruneReason::Bound, nullptr};
                if (o.kind == Outcome::Kind::OtherShard)
                    continue;
                if (options.samples && o.kind == Outcome::Kind::Failed)
                    options.samples->push_back(
                        sampleOf(begin + i, SweepSample::Kind::Failed, o.slot->point));
                if (options.samples && o.kind == Outcome::Kind::OutOfMemory)
                    options.samples->push_back(
                        sampleOf(begin + i, SweepSample::Kind::OutOfMemory, o.slot->point));
                ++counts.considered;
                switch (o.kind) {
                case Outcome::Kind::Pruned:
                    ++counts.pruned[static_cast<std::size_t>(o.reason)];
                    continue;
                case Outcome::Kind::Failed:
                    ++counts.evaluated;
                    ++counts.failed;
                    continue;
                case Outcome::Kind::OutOfMemory:
                    ++counts.evaluated;
                    ++counts.outOfMemory;
                    continue;
                case Outcome::Kind::Evaluated:
                    ++counts.evaluated;
                    break;
                case Outcome::Kind::OtherShard:
                    continue;
                }
                const SweepPoint& point = o.slot->point;
                const bool within = sweeper.withinBudget(point);
                if (options.samples)
                    options.samples->push_back(sampleOf(begin + i,
                                                        within ? SweepSample::Kind::Feasible
                                                               : SweepSample::Kind::OverBudget,
                                                        point));
                if (!within) {
                    ++counts.overBudget;
                    continue;
                }
                ++counts.feasible;
                ++changes;
                if (point.evaluation.iterationTimeS < baseTimeS)
                    ++fasterThanBase;
                timeCapex.insert(point);
                timeMemory.insert(point);
                trainCost.insert(point);
                for (std::size_t k = 0; k < kSweepObjectives; ++k)
                    offerTop(result.topBy[k], top, static_cast<SweepObjective>(k), point);
            }
            if (options.progress)
                options.progress(
                    SweepProgress{counts.considered, odometer.size(), counts.evaluated});
            if (first + batch < odometer.size() && options.cancel &&
                options.cancel->load(std::memory_order_relaxed)) {
                result.cancelled = true;
                break;
            }
        }
        for (Worker& w : workers) // every slot merged (or dropped on a cancel): free again
            w.used = 0;
        if (result.cancelled)
            break;
    }
    result.fasterThanBase = fasterThanBase;
    result.baseRank = fasterThanBase + 1;
    result.top = result.topBy[static_cast<std::size_t>(SweepObjective::IterationTime)];
    result.timeVsCapex = timeCapex.sorted();
    result.timeVsMemory = timeMemory.sorted();
    result.trainTimeVsCost = trainCost.sorted();
    return result;
}

} // namespace

Scenario applyPoint(const Scenario& base, const DesignPoint& point, const Placement& placement)
{
    Scenario sc = base;
    applyTopology(sc.topology, base.topology, point);
    applyKnobs(sc, base, point, placement);
    return sc;
}

double totalCostUsd(const Scenario& sc, const Catalog& catalog, double networkCapexUsd)
{
    const std::vector<std::int64_t> placed = placedGpusPerDatacenter(sc);
    double gpuCost = 0.0;
    for (std::size_t i = 0; i < placed.size() && i < sc.topology.datacenters.size(); ++i)
        if (const AcceleratorSpec* acc =
                catalog.accelerator(sc.topology.datacenters[i].accelerator))
            gpuCost += static_cast<double>(placed[i]) * acc->priceUsd;
    return gpuCost + networkCapexUsd;
}

std::optional<SweepPointScenario> sweepPointScenario(const Scenario& base, const Catalog& catalog,
                                                     const SearchSpace& space, std::uint64_t index)
{
    const SpaceOdometer odometer(space);
    if (index >= odometer.size())
        return std::nullopt;
    DesignPoint p = odometer.at(index);
    const int baseBatch = base.workload.globalBatch;
    const PointPlacement shape =
        makePointPlacement(base, catalog, p, space, batchIsFixed(space, baseBatch));
    if (!shape.placement ||
        assignPointBatch(p, baseBatch, shape.dataParallel, space.globalBatch) <= 0)
        return std::nullopt;
    SweepPointScenario out{p, applyPoint(base, p, *shape.placement)};
    return out;
}

SweepResult runSweep(const Scenario& base, const Catalog& catalog, const SearchSpace& space,
                     const SweepOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    SweepResult result;
    if (options.threads > 0) {
        tbb::task_arena arena(options.threads);
        arena.execute([&] { result = sweepIn(base, catalog, space, options); });
    } else {
        result = sweepIn(base, catalog, space, options);
    }
    result.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace archipelago::core
