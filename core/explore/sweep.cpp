#include "explore/sweep.h"

#include "evaluation/costmodel.h"
#include "explore/memoryestimate.h"
#include "explore/spaceodometer.h"
#include "io/placementrepair.h"
#include "model/scheduletraits.h"
#include "model/shapecheck.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <limits>

namespace archipelago::core {

namespace {

// Pipeline cells (p * v * m) one point may simulate, as the validation knob search
// (validation/runvalidation.cpp, kMaxSearchCells).
constexpr std::int64_t kMaxCells = std::int64_t{1} << 18;

// What the search ranks on: iteration time and memory; capex and power come from the
// topology, which this slice keeps (SweepPoint).
EvaluateOptions leanOptions()
{
    EvaluateOptions o;
    o.timeline = false;
    o.warnings = false;
    o.billOfMaterials = false;
    o.attribution = false;
    return o;
}

// The placement made for one (tp, cp, pp, ep) shape, or why there is none.
struct ShapePlacement
{
    std::optional<Placement> placement;
    PruneReason reason = PruneReason::Placement;
    std::int64_t dataParallel = 0;
    bool pipelineCrossesDatacenter = false;
};

// Sets every field a point varies (`sc` may hold another point of the same base).
void applyInPlace(Scenario& sc, const Scenario& base, const DesignPoint& p,
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
    // Sequence parallelism splits along TP: the base's choice, off without TP.
    par.sequenceParallel = base.parallelism.sequenceParallel && p.tp > 1;
    sc.schedule.kind = p.schedule;
    sc.schedule.extraInFlightAtDci = p.extraInFlightAtDci;
    sc.placement = placement;
}

ShapePlacement placeShape(const Scenario& base, const Catalog& catalog, const DesignPoint& p)
{
    Scenario edited = base;
    DesignPoint plain = p;
    plain.virtualStages = 1;
    plain.microBatch = 1;
    plain.schedule = ScheduleKind::OneFOneB;
    plain.extraInFlightAtDci = 0;
    plain.recompute = base.parallelism.recompute;
    plain.zeroStage = base.parallelism.zeroStage;
    plain.distributedOptimizer = base.parallelism.distributedOptimizer;
    applyInPlace(edited, base, plain, base.placement);
    ShapePlacement out;
    const bool same = edited.parallelism.tp == base.parallelism.tp &&
                      edited.parallelism.cp == base.parallelism.cp &&
                      edited.parallelism.pp == base.parallelism.pp &&
                      edited.parallelism.ep == base.parallelism.ep;
    if (same) {
        out.placement = base.placement;
    } else {
        const PlacementRepair repair = repairPlacement(edited, base, catalog);
        if (!repair.scenario)
            return out;
        if (repair.scenario->workload.globalBatch != base.workload.globalBatch) {
            out.reason = PruneReason::GlobalBatch;
            return out;
        }
        out.placement = repair.scenario->placement;
    }
    edited.placement = *out.placement;
    out.dataParallel = dataParallel(edited);
    for (const PlacementShard& shard : effectiveShards(edited))
        for (std::size_t i = 1; i < shard.stageDatacenters.size(); ++i)
            if (shard.stageDatacenters[i] != shard.stageDatacenters[i - 1])
                out.pipelineCrossesDatacenter = true;
    return out;
}

// One point's outcome, computed on any thread and merged in index order.
struct Outcome
{
    enum class Kind
    {
        Pruned,
        Failed,
        OutOfMemory,
        Evaluated,
        OtherShard // another shard's point (SweepOptions::shardIndex)
    };
    Kind kind = Kind::Pruned;
    PruneReason reason = PruneReason::Redundant;
    SweepPoint point;
};

struct Worker
{
    EvaluationWorkspace workspace;
    std::optional<Scenario> scratch;
};

double timeOf(const SweepPoint& p)
{
    return p.evaluation.iterationTimeS;
}
double capexOf(const SweepPoint& p)
{
    return p.networkCapexUsd;
}
double memoryOf(const SweepPoint& p)
{
    return p.evaluation.memoryPeakGib;
}
double trainTimeOf(const SweepPoint& p)
{
    return p.evaluation.timeToTrainS;
}
double costOf(const SweepPoint& p)
{
    return p.totalCostUsd;
}

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
        for (const Datacenter& dc : base.topology.datacenters)
            if (const AcceleratorSpec* acc = catalog.accelerator(dc.accelerator))
                m_hbmGibMax = std::max(m_hbmGibMax, acc->hbmGib);
    }

    const SpaceOdometer& odometer() const { return m_odometer; }

    void placeShapes()
    {
        m_shapes.resize(static_cast<std::size_t>(m_odometer.shapes()));
        const std::uint64_t stride =
            m_odometer.shapes() == 0 ? 1 : m_odometer.size() / m_odometer.shapes();
        tbb::parallel_for(std::size_t{0}, m_shapes.size(), [&](std::size_t s) {
            m_shapes[s] = placeShape(m_base, m_catalog, m_odometer.at(s * stride));
        });
    }

    void setNetwork(double capexUsd, double powerW)
    {
        m_capexUsd = capexUsd;
        m_powerW = powerW;
    }

    // The figures every ranked point carries beyond its evaluation.
    void complete(SweepPoint& sp, const Scenario& sc) const
    {
        sp.networkCapexUsd = m_capexUsd;
        sp.networkPowerW = m_powerW;
        const std::vector<std::int64_t> placed = placedGpusPerDatacenter(sc);
        double gpuCost = 0.0;
        for (std::size_t i = 0; i < placed.size() && i < sc.topology.datacenters.size(); ++i)
            if (const AcceleratorSpec* acc =
                    m_catalog.accelerator(sc.topology.datacenters[i].accelerator))
                gpuCost += static_cast<double>(placed[i]) * acc->priceUsd;
        sp.totalCostUsd = gpuCost + m_capexUsd;
        sp.dataParallel = dataParallel(sc);
    }

    Outcome consider(std::uint64_t index, Worker& worker) const
    {
        Outcome out;
        const DesignPoint p = m_odometer.at(index);
        const ShapePlacement& shape =
            m_shapes[static_cast<std::size_t>(m_odometer.shapeIndex(index))];
        const ScheduleTraits& traits = scheduleTraits(p.schedule);
        const auto prune = [&](PruneReason r) {
            out.kind = Outcome::Kind::Pruned;
            out.reason = r;
            return out;
        };
        // The same design as another point: a schedule without interleaving runs one chunk
        // per rank (the smallest v stands for them all), an interleaved one needs v > 1, and
        // the extra in-flight count changes nothing without a DCI boundary in the pipeline.
        if (traits.interleaved ? p.virtualStages < 2 : p.virtualStages != m_minVirtualStages)
            return prune(PruneReason::Redundant);
        if (p.extraInFlightAtDci > 0 &&
            (!traits.extraInFlightApplies || !shape.pipelineCrossesDatacenter))
            return prune(PruneReason::Redundant);
        if (!shape.placement)
            return prune(shape.reason);
        // Megatron-LM: global_batch % (micro_batch * dp) == 0 (arguments.py).
        const std::int64_t perStep = std::int64_t{p.microBatch} * shape.dataParallel;
        if (perStep <= 0 || m_base.workload.globalBatch % perStep != 0)
            return prune(PruneReason::GlobalBatch);
        const std::int64_t m = m_base.workload.globalBatch / perStep;
        // Megatron interleaves only when the micro-batch count is a multiple of p.
        const int v = traits.interleaved ? p.virtualStages : 1;
        if (v > 1 && m % p.pp != 0)
            return prune(PruneReason::Shape);
        if (m * p.pp * std::max(v, chunksPerRank(p.schedule, v)) > kMaxCells)
            return prune(PruneReason::TooLarge);
        if (!worker.scratch)
            worker.scratch = m_base;
        Scenario& sc = *worker.scratch;
        applyInPlace(sc, m_base, p, *shape.placement);
        if (checkCostModelShape(sc, m_catalog).hasErrors())
            return prune(PruneReason::Shape);
        if (m_hbmGibMax > 0.0 && memoryLowerBoundGib(sc, shape.dataParallel) > m_hbmGibMax)
            return prune(PruneReason::Memory);
        out.point.point = p;
        out.point.evaluation = evaluate(sc, m_catalog, leanOptions(), &worker.workspace);
        if (!out.point.evaluation.ok)
            out.kind = Outcome::Kind::Failed;
        else if (!out.point.evaluation.fitsInMemory)
            out.kind = Outcome::Kind::OutOfMemory;
        else
            out.kind = Outcome::Kind::Evaluated;
        if (out.kind == Outcome::Kind::Evaluated) {
            complete(out.point, sc);
            out.point.placement = *shape.placement;
        }
        return out;
    }

    bool withinBudget(const SweepPoint& p) const
    {
        return (!m_space.networkCapexBudgetUsd ||
                p.networkCapexUsd <= *m_space.networkCapexBudgetUsd) &&
               (!m_space.networkPowerBudgetW || p.networkPowerW <= *m_space.networkPowerBudgetW);
    }

private:
    const Scenario& m_base;
    const Catalog& m_catalog;
    const SearchSpace& m_space;
    SpaceOdometer m_odometer;
    std::vector<ShapePlacement> m_shapes;
    int m_minVirtualStages = 1;
    double m_hbmGibMax = 0.0;
    double m_capexUsd = 0.0;
    double m_powerW = 0.0;
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
    p.virtualStages = par.virtualStages;
    p.microBatch = par.microBatch;
    p.schedule = sc.schedule.kind;
    p.extraInFlightAtDci = sc.schedule.extraInFlightAtDci;
    p.recompute = par.recompute;
    p.zeroStage = par.zeroStage;
    p.distributedOptimizer = par.distributedOptimizer;
    return p;
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
    sweeper.setNetwork(baseFull.networkCapexUsd, baseFull.networkPowerW);
    result.base.point = pointOf(base);
    result.base.evaluation = evaluate(base, catalog, leanOptions());
    sweeper.complete(result.base, base);
    result.base.placement = base.placement;
    result.baseFeasible = result.base.evaluation.fitsInMemory && sweeper.withinBudget(result.base);
    result.ok = true;

    sweeper.placeShapes();
    const SpaceOdometer& odometer = sweeper.odometer();
    SweepCounts& counts = result.counts;
    counts.spacePoints = odometer.size();
    ParetoFront timeCapex(&timeOf, &capexOf);
    ParetoFront timeMemory(&timeOf, &memoryOf);
    ParetoFront trainCost(&trainTimeOf, &costOf);
    const std::size_t top = static_cast<std::size_t>(std::max(0, options.top));
    const double baseTimeS = result.base.evaluation.iterationTimeS;
    std::uint64_t fasterThanBase = 0;

    tbb::enumerable_thread_specific<Worker> workers;
    const std::uint64_t batch = std::max<std::uint64_t>(1, options.batchSize);
    const auto shardCount = static_cast<std::uint64_t>(std::max(1, options.shardCount));
    const auto shardIndex = static_cast<std::uint64_t>(std::max(0, options.shardIndex));
    result.shardIndex = static_cast<int>(shardIndex);
    result.shardCount = static_cast<int>(shardCount);
    std::vector<Outcome> outcomes;
    for (std::uint64_t begin = 0; begin < odometer.size(); begin += batch) {
        if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
            result.cancelled = true;
            break;
        }
        const std::uint64_t end = std::min(odometer.size(), begin + batch);
        outcomes.assign(static_cast<std::size_t>(end - begin), Outcome{});
        tbb::parallel_for(std::size_t{0}, outcomes.size(), [&](std::size_t i) {
            if ((begin + i) % shardCount == shardIndex)
                outcomes[i] = sweeper.consider(begin + i, workers.local());
            else
                outcomes[i].kind = Outcome::Kind::OtherShard;
        });
        for (Outcome& o : outcomes) {
            if (o.kind == Outcome::Kind::OtherShard)
                continue;
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
            if (!sweeper.withinBudget(o.point)) {
                ++counts.overBudget;
                continue;
            }
            ++counts.feasible;
            if (o.point.evaluation.iterationTimeS < baseTimeS)
                ++fasterThanBase;
            timeCapex.insert(o.point);
            timeMemory.insert(o.point);
            trainCost.insert(o.point);
            for (std::size_t k = 0; k < kSweepObjectives; ++k)
                offerTop(result.topBy[k], top, static_cast<SweepObjective>(k), o.point);
        }
        if (options.progress)
            options.progress(SweepProgress{counts.considered, odometer.size(), counts.evaluated});
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

const char* toString(PruneReason reason)
{
    switch (reason) {
    case PruneReason::Redundant:
        return "redundant";
    case PruneReason::Placement:
        return "placement";
    case PruneReason::GlobalBatch:
        return "global-batch";
    case PruneReason::Shape:
        return "shape";
    case PruneReason::TooLarge:
        return "too-large";
    case PruneReason::Memory:
        return "memory";
    case PruneReason::Count:
        break;
    }
    return "?";
}

const char* toString(SweepObjective objective)
{
    switch (objective) {
    case SweepObjective::IterationTime:
        return "iteration_time";
    case SweepObjective::TimeToTrain:
        return "time_to_train";
    case SweepObjective::TotalCost:
        return "total_cost";
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
    case SweepObjective::TotalCost:
        return p.totalCostUsd;
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

Scenario applyPoint(const Scenario& base, const DesignPoint& point, const Placement& placement)
{
    Scenario sc = base;
    applyInPlace(sc, base, point, placement);
    return sc;
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
