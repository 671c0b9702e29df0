// The unpublished knobs of a published run (unpublishedknobs.h), chosen with the design-space
// search, explore/sweep.h: the same engine as `archipelago-cli sweep`.
//
// Where a paper leaves a knob unpublished (null), the run is evaluated as the team that tuned
// it would have run it (validation README): the fastest setting that fits in HBM, chosen
// jointly over every unpublished knob, each choice an assumption line naming what it beat.
// The run's SearchSpace holds one value for every published knob (tp, cp, pp, ep, recompute,
// ZeRO stage, the run's topology and placement, its global batch) and spans the unpublished:
//  - micro_batch null: every divisor of the per-replica batch (global_batch / dp), at most 64;
//  - virtual_stages null: 1 (1F1B), or a v that divides every stage's layers (interleaved 1F1B,
//    Megatron's num_layers % (pp * vp) == 0); with an uneven split (layers % pp != 0, as Llama
//    3's) any v up to the fewest layers on a stage, every chunk holding a layer; at most 16;
//  - sequence_parallel null: off or on when tp > 1 (off when tp = 1: nothing to split);
//  - distributed optimizer (the format has no field): off or on when dp * cp > 1, unless the
//    stack always shards (NeMo's ZeRO-2 optimizer);
//  - recompute null: none, as the README defines null for it: published, never searched (so
//    never selective where the stack did not have it).
// A run that names its stack's release (format version 2, `software_date`) is held to what that
// release had (validation/stackfeatures.h): interleaving, sequence parallelism or the
// distributed optimizer released later is not tried, and the knob's line says why. Published
// values are kept as published, whatever the date.
// The engine prunes what Megatron would refuse (the micro-batch count m a multiple of p when
// interleaving, the shape rules), more than 2^18 pipeline cells (p * v * m), and a point whose
// model states alone exceed HBM; it evaluates the rest and ranks those that fit by iteration
// time, ties by odometer index: each dimension lists Megatron's default first (no
// interleaving, sequence parallel and distributed optimizer off, the smaller micro-batch), so
// an exact tie goes to it. The first is the choice. When some point does not fit, a second sweep
// with the HBM lifted says what it would need: for the lines that name a setting that does not
// fit, and, when none fits, for the setting that needs the least memory (ties to the lower
// index again), which validateRuns reports as an error row naming that need and the HBM, never
// evaluated as if it fitted.
// The search's work is bounded (kMaxKnobSearchCells): a hostile file's run (thousands of
// layers, a per-replica batch with many divisors) would otherwise simulate up to 4,096 settings
// of up to 2^18 pipeline cells each, twice. Over the bound, the longest pipelines go first (the
// smallest micro-batch or the most chunks, whichever slice holds more cells), and an assumption
// line says which settings were not tried; the published runs stay well within it.
#include "validation/unpublishedknobs.h"

#include "explore/searchspace.h"
#include "explore/spaceodometer.h"
#include "explore/sweep.h"
#include "validation/stackfeatures.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <unordered_set>

namespace archipelago::core {

namespace {

// Bounds for a hostile file; real runs stay far below them (memory caps the micro-batch long
// before, and Megatron runs interleave at most 12 chunks per rank).
constexpr std::size_t kMaxMicroBatchCandidates = kMaxValuesPerDimension;
constexpr int kMaxVirtualStages = 16;
// The engine evaluates its base as given, whatever its pipeline cells (kMaxSweepCells,
// explore/sweep.h): a run whose cheapest point is beyond the bound is not swept at all.
// Within this, an alternative is reported as fast as the choice.
constexpr double kTieRelative = 1e-3;

bool shardsOptimizer(const PublishedRun& run)
{
    return std::int64_t{run.dp} * run.cp > 1;
}

// Why the run's stack release could not use `f` (stackfeatures.h), or nullopt.
std::optional<std::string> missing(const PublishedRun& run, StackFeature f)
{
    return missingFeature(run.software, run.softwareDate, f);
}

// The end of a knob's line when its stack release did not have the feature.
std::string notTried(const PublishedRun& run, StackFeature f)
{
    return " (" + featureName(f) + " not tried: " + missing(run, f).value_or("") + ")";
}

std::string withCommas(std::int64_t n)
{
    std::string digits = std::to_string(n);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

std::vector<int> divisorsAscending(int n)
{
    std::vector<int> low, high;
    for (int d = 1; static_cast<std::int64_t>(d) * d <= n; ++d) {
        if (n % d != 0)
            continue;
        low.push_back(d);
        if (d != n / d)
            high.push_back(n / d);
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}

// v = 1 runs 1F1B, v > 1 interleaved 1F1B; the engine drops the other pairings as redundant.
void pairSchedules(SearchSpace& s)
{
    s.schedules.clear();
    if (s.virtualStages.front() == 1)
        s.schedules.push_back(ScheduleKind::OneFOneB);
    if (s.virtualStages.back() > 1)
        s.schedules.push_back(ScheduleKind::Interleaved1F1B);
}

// The run's space (the header comment): the base's value of every dimension but the
// unpublished knobs.
SearchSpace knobSpace(const PublishedRun& run, const Scenario& sc)
{
    const Parallelism& par = sc.parallelism;
    SearchSpace s = defaultSearchSpace(sc); // then every dimension narrowed to the run's
    s.dciTransports = {std::nullopt};
    s.wavelengths = {std::nullopt};
    s.fabrics = {std::nullopt};
    s.tp = {par.tp};
    s.cp = {par.cp};
    s.pp = {par.pp};
    s.ep = {par.ep};
    s.boundaries = {PlacementBoundary::Base};
    s.stageSplits = {0};
    s.rankOrders = {kMegatronRankOrder};
    s.dataParallel = {0}; // the run's: its GPUs are exactly tp * cp * pp * dp
    s.globalBatch = GlobalBatchRange{sc.workload.globalBatch, sc.workload.globalBatch};
    s.extraInFlightAtDci = {sc.schedule.extraInFlightAtDci};
    s.recompute = {par.recompute};
    s.zeroStage = {par.zeroStage};

    if (run.microBatch) {
        s.microBatch = {*run.microBatch};
    } else {
        s.microBatch = divisorsAscending(std::max(1, run.model.globalBatch / std::max(1, run.dp)));
        if (s.microBatch.size() > kMaxMicroBatchCandidates)
            s.microBatch.resize(kMaxMicroBatchCandidates);
    }
    s.virtualStages = {run.virtualStages.value_or(1)};
    if (!run.virtualStages && run.pp > 1 && !missing(run, StackFeature::InterleavedSchedule)) {
        const std::vector<int> split = effectiveLayersPerStage(sc);
        const auto [fewest, most] = std::minmax_element(split.begin(), split.end());
        const bool even = split.empty() || *fewest == *most;
        const int top = split.empty() ? 1 : std::min(*fewest, kMaxVirtualStages);
        for (int v = 2; v <= top; ++v)
            if (!even || *fewest % v == 0)
                s.virtualStages.push_back(v);
    }
    pairSchedules(s);

    if (run.sequenceParallel)
        s.sequenceParallel = {*run.sequenceParallel};
    else if (run.tp > 1 && !missing(run, StackFeature::SequenceParallel))
        s.sequenceParallel = {false, true};
    else
        s.sequenceParallel = {false};
    // A stack that always shards (NeMo's ZeRO-2 optimizer) has nothing to choose.
    if (par.zeroStage >= 1)
        s.distributedOptimizer = {shardsOptimizer(run)};
    else if (shardsOptimizer(run) && !missing(run, StackFeature::DistributedOptimizer))
        s.distributedOptimizer = {false, true};
    else
        s.distributedOptimizer = {false};
    return s;
}

void setKnobs(Scenario& sc, int microBatch, int virtualStages, bool sequenceParallel,
              bool distributedOptimizer)
{
    Parallelism& par = sc.parallelism;
    par.microBatch = microBatch;
    par.virtualStages = virtualStages;
    par.sequenceParallel = sequenceParallel;
    par.distributedOptimizer = distributedOptimizer;
    sc.schedule.kind = virtualStages > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
}

// The pipeline cells (p * v * m) of a setting of the run's scenario: what its schedule
// simulation steps through, the search's unit of work. The knobs searched leave the batch, the
// data parallelism and the stages as they are.
class PipelineCells
{
public:
    explicit PipelineCells(const Scenario& sc)
        : m_globalBatch(sc.workload.globalBatch)
        , m_dataParallel(dataParallel(sc))
        , m_stages(sc.parallelism.pp)
    {}

    // microBatchesPerIteration(sc) * pp * v, with `microBatch` for sc's.
    std::int64_t of(int microBatch, int virtualStages) const
    {
        const std::int64_t perIteration = std::int64_t{microBatch} * m_dataParallel;
        return perIteration <= 0 ? 0 : m_globalBatch / perIteration * m_stages * virtualStages;
    }
    // What a sweep simulates for the setting: 0 for one the engine prunes as too large
    // (kMaxSweepCells) without simulating it.
    std::int64_t swept(int microBatch, int virtualStages) const
    {
        const std::int64_t cells = of(microBatch, virtualStages);
        return cells <= kMaxSweepCells ? cells : 0;
    }
    // What a sweep of `space` simulates at most: every setting once per sequence-parallel and
    // optimizer choice.
    std::int64_t ofSpace(const SearchSpace& space) const
    {
        std::int64_t cells = 0;
        for (int mb : space.microBatch)
            for (int v : space.virtualStages)
                cells += swept(mb, v);
        return cells * static_cast<std::int64_t>(space.sequenceParallel.size() *
                                                 space.distributedOptimizer.size());
    }

private:
    std::int64_t m_globalBatch;
    std::int64_t m_dataParallel;
    std::int64_t m_stages;
};

// What boundSpace left out: the micro-batches below the smallest kept, the virtual-stage
// counts above the largest kept (0: none).
struct SpaceBound
{
    int microBatchesBelow = 0;
    int virtualStagesAbove = 0;

    bool narrowed() const { return microBatchesBelow > 0 || virtualStagesAbove > 0; }
};

// Narrows `space` to `maxCells` (the file comment): drops the smallest micro-batch or the
// largest virtual-stage count, whichever slice holds more cells, until the sweep fits or one
// value of each is left.
SpaceBound boundSpace(const PipelineCells& cells, SearchSpace& space, std::int64_t maxCells)
{
    SpaceBound bound;
    while (cells.ofSpace(space) > maxCells &&
           (space.microBatch.size() > 1 || space.virtualStages.size() > 1)) {
        std::int64_t smallestMb = 0, mostChunks = 0;
        for (int v : space.virtualStages)
            smallestMb += cells.swept(space.microBatch.front(), v);
        for (int mb : space.microBatch)
            mostChunks += cells.swept(mb, space.virtualStages.back());
        const bool dropMicroBatch = space.virtualStages.size() == 1 ||
                                    (space.microBatch.size() > 1 && smallestMb >= mostChunks);
        if (dropMicroBatch) {
            space.microBatch.erase(space.microBatch.begin());
            bound.microBatchesBelow = space.microBatch.front();
        } else {
            space.virtualStages.pop_back();
            bound.virtualStagesAbove = space.virtualStages.back();
        }
    }
    return bound;
}

// The assumption line of a narrowed search.
std::string boundLine(const SpaceBound& bound, std::int64_t maxCells)
{
    std::string text = "search bounded to " + withCommas(maxCells) +
                       " pipeline cells (stages x chunks x micro-batches, summed over the "
                       "settings tried): ";
    if (bound.microBatchesBelow > 0)
        text += "micro-batches below " + std::to_string(bound.microBatchesBelow);
    if (bound.virtualStagesAbove > 0)
        text += std::string(bound.microBatchesBelow > 0 ? " and " : "") + "virtual stages above " +
                std::to_string(bound.virtualStagesAbove);
    return text + " not tried";
}

// One evaluated point of the space, and whether it fits in the run's HBM.
struct Trial
{
    const SweepPoint* sweepPoint = nullptr;
    bool fits = false;

    const DesignPoint& knobs() const { return sweepPoint->point; }
    double timeS() const { return sweepPoint->evaluation.iterationTimeS; }
    double peakGib() const { return sweepPoint->evaluation.memoryPeakGib; }
};

// The sweeps of one run: `fitting` on the run's HBM ranks the points that fit; `lifted` (only
// when some point does not fit) evaluates the same points with the HBM lifted, for what each
// would need. `trials` holds every evaluated point, in odometer order.
struct KnobSweep
{
    SweepResult fitting;
    SweepResult lifted;
    std::vector<Trial> trials;
    std::int64_t cells = 0; // the pipeline cells both sweeps simulated
};

// Sweeps every point of `space`, adding the cells of each point it evaluated to `cells`.
SweepResult sweepAll(const Scenario& base, const Catalog& catalog, const SearchSpace& space,
                     std::int64_t& cells)
{
    std::vector<SweepSample> samples;
    SweepOptions o;
    o.top = static_cast<int>(
        std::min<std::uint64_t>(spacePoints(space), std::numeric_limits<int>::max()));
    o.samples = &samples;
    SweepResult result = runSweep(base, catalog, space, o);
    const PipelineCells pipeline(base);
    cells += pipeline.of(base.parallelism.microBatch, base.parallelism.virtualStages);
    const SpaceOdometer odometer(space);
    for (const SweepSample& sample : samples) {
        const DesignPoint point = odometer.at(sample.index);
        cells += pipeline.of(point.microBatch, point.virtualStages);
    }
    return result;
}

void sweepKnobs(const Scenario& base, const Catalog& catalog, const SearchSpace& space,
                KnobSweep& out)
{
    out.fitting = sweepAll(base, catalog, space, out.cells);
    const SweepCounts& counts = out.fitting.counts;
    const bool someDoNotFit =
        counts.outOfMemory > 0 || counts.pruned[static_cast<std::size_t>(PruneReason::Memory)] > 0;
    if (!someDoNotFit) {
        for (const SweepPoint& p : out.fitting.top)
            out.trials.push_back(Trial{&p, true});
    } else {
        Catalog lifted = catalog;
        for (AcceleratorSpec& acc : lifted.accelerators)
            acc.hbmGib = std::numeric_limits<double>::max();
        out.lifted = sweepAll(base, lifted, space, out.cells);
        std::unordered_set<std::uint64_t> fit;
        for (const SweepPoint& p : out.fitting.top)
            fit.insert(p.point.index);
        for (const SweepPoint& p : out.lifted.top)
            out.trials.push_back(Trial{&p, fit.contains(p.point.index)});
    }
    std::sort(out.trials.begin(), out.trials.end(),
              [](const Trial& a, const Trial& b) { return a.knobs().index < b.knobs().index; });
}

// a before b: one that fits before one that does not; among those that fit the faster (the
// engine's order, SweepResult::top), among those that do not the one that needs less memory;
// then the lower odometer index (Megatron's defaults first).
bool preferred(const Trial& a, const Trial& b)
{
    if (a.fits != b.fits)
        return a.fits;
    const double ka = a.fits ? a.timeS() : a.peakGib();
    const double kb = b.fits ? b.timeS() : b.peakGib();
    if (ka != kb)
        return ka < kb;
    return a.knobs().index < b.knobs().index;
}

// The preferred trial among those `keep` selects, or null.
template <typename Keep> const Trial* bestTrial(const std::vector<Trial>& trials, Keep keep)
{
    const Trial* best = nullptr;
    for (const Trial& t : trials)
        if (keep(t.knobs()) && (!best || preferred(t, *best)))
            best = &t;
    return best;
}

// The choice: the engine's fastest that fits; when none fits, the point that needs the least
// memory; null when no point could be evaluated.
const Trial* chosenTrial(const KnobSweep& sweep)
{
    if (sweep.fitting.top.empty())
        return bestTrial(sweep.trials, [](const DesignPoint&) { return true; });
    const std::uint64_t fastest = sweep.fitting.top.front().point.index;
    for (const Trial& t : sweep.trials)
        if (t.knobs().index == fastest)
            return &t;
    return nullptr;
}

std::string formatted(const char* format, double value)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

// "8 is 5.7% slower" or "8 would need 93.1 GiB of 80".
std::string versus(const std::string& name, const Trial& alt, const Trial& chosen, double hbmGib)
{
    if (!alt.fits)
        return name + " would need " + formatted("%.1f", alt.peakGib()) + " GiB of " +
               formatted("%.4g", hbmGib);
    const double slower = alt.timeS() / chosen.timeS() - 1.0;
    if (slower < kTieRelative)
        return name + " is as fast (within 0.1%)";
    return name + " is " + formatted("%.1f", 100.0 * slower) + "% slower";
}

std::string onOff(bool on)
{
    return on ? "on" : "off";
}

bool sameOtherThanMicroBatch(const DesignPoint& a, const DesignPoint& b)
{
    return a.virtualStages == b.virtualStages && a.schedule == b.schedule &&
           a.sequenceParallel == b.sequenceParallel &&
           a.distributedOptimizer == b.distributedOptimizer;
}

// The micro-batch line's comparison: the larger micro-batches with the other knobs as chosen,
// the largest that fits and the smallest that does not.
std::string largerMicroBatches(const std::vector<Trial>& trials, const Trial& chosen, double hbmGib)
{
    const DesignPoint& c = chosen.knobs();
    const Trial* largest = nullptr;
    const Trial* tooLarge = nullptr;
    for (const Trial& t : trials) { // odometer order: the micro-batch ascending
        if (!sameOtherThanMicroBatch(t.knobs(), c) || t.knobs().microBatch <= c.microBatch)
            continue;
        if (t.fits)
            largest = &t;
        else if (!tooLarge)
            tooLarge = &t;
    }
    std::string text;
    if (largest)
        text +=
            "; " + versus(std::to_string(largest->knobs().microBatch) + ", the largest that fits,",
                          *largest, chosen, hbmGib);
    if (tooLarge)
        text +=
            "; " + versus(std::to_string(tooLarge->knobs().microBatch), *tooLarge, chosen, hbmGib);
    if (!largest && !tooLarge)
        text += "; the largest admissible";
    return text;
}

// One assumption line per knob the run does not publish, each naming what the choice beat.
void describeChoices(const PublishedRun& run, const SearchSpace& space, const SpaceBound& bound,
                     const std::vector<Trial>& trials, const Trial& chosen, double hbmGib,
                     std::vector<std::string>& assumptions)
{
    const DesignPoint& c = chosen.knobs();
    const std::string why = chosen.fits ? "the fastest that fits"
                                        : "nothing admissible fits in HBM: the setting that "
                                          "needs the least memory";
    // Against the best setting with the knob at another value, the others chosen jointly.
    const auto against = [&](auto keep, auto name) {
        const Trial* alt = bestTrial(trials, keep);
        return alt && chosen.fits ? "; " + versus(name(*alt), *alt, chosen, hbmGib) : std::string();
    };

    if (!run.microBatch)
        assumptions.push_back(
            "micro_batch not published: " + std::to_string(c.microBatch) + " (" + why +
            (chosen.fits ? largerMicroBatches(trials, chosen, hbmGib) : "") + ")");
    if (!run.virtualStages) {
        std::string text = "virtual_stages not published: " + std::to_string(c.virtualStages);
        if (run.pp == 1)
            text += " (pp = 1: no pipeline to interleave)";
        else if (missing(run, StackFeature::InterleavedSchedule))
            text += notTried(run, StackFeature::InterleavedSchedule);
        else if (space.virtualStages.size() == 1 && bound.virtualStagesAbove > 0)
            text += " (interleaving not tried: the search's bound)";
        else if (space.virtualStages.size() == 1)
            text += " (no stage holds enough layers to interleave)";
        else if (c.virtualStages == 1)
            text += " (" + why +
                    against([](const DesignPoint& k) { return k.virtualStages > 1; },
                            [](const Trial& t) {
                                return "the best interleaving, " +
                                       std::to_string(t.knobs().virtualStages) + ",";
                            }) +
                    ")";
        else
            text += " (" + why +
                    against([](const DesignPoint& k) { return k.virtualStages == 1; },
                            [](const Trial&) { return std::string("1 (no interleaving)"); }) +
                    ")";
        assumptions.push_back(text);
    }
    if (!run.sequenceParallel) {
        std::string text = "sequence_parallel not published: " + onOff(c.sequenceParallel);
        if (run.tp == 1)
            text += " (tp = 1: nothing to split)";
        else if (missing(run, StackFeature::SequenceParallel))
            text += notTried(run, StackFeature::SequenceParallel);
        else
            text +=
                " (" + why +
                against(
                    [&](const DesignPoint& k) { return k.sequenceParallel != c.sequenceParallel; },
                    [&](const Trial&) { return onOff(!c.sequenceParallel); }) +
                ")";
        assumptions.push_back(text);
    }
    const bool stackShards = space.zeroStage.front() >= 1; // chosen by the stack, not here
    if (shardsOptimizer(run) && !stackShards && missing(run, StackFeature::DistributedOptimizer))
        assumptions.push_back("distributed optimizer (not in the runs format): off" +
                              notTried(run, StackFeature::DistributedOptimizer));
    else if (shardsOptimizer(run) && space.distributedOptimizer.size() > 1)
        assumptions.push_back("distributed optimizer (not in the runs format): " +
                              onOff(c.distributedOptimizer) + " (" + why +
                              against(
                                  [&](const DesignPoint& k) {
                                      return k.distributedOptimizer != c.distributedOptimizer;
                                  },
                                  [&](const Trial&) { return onOff(!c.distributedOptimizer); }) +
                              ")");
}

} // namespace

bool hasUnpublishedKnobs(const PublishedRun& run)
{
    return !run.microBatch || !run.virtualStages || !run.sequenceParallel || shardsOptimizer(run);
}

std::int64_t chooseUnpublishedKnobs(const PublishedRun& run, const Catalog& catalog, Scenario& sc,
                                    std::vector<std::string>& assumptions,
                                    std::int64_t maxSearchCells)
{
    if (run.software && run.softwareDate && !knownStack(*run.software) && hasUnpublishedKnobs(run))
        assumptions.push_back("training stack " + *run.software +
                              " has no feature history here (validation/stackfeatures.cpp): its "
                              "unpublished knobs are not restricted by its date, " +
                              toString(*run.softwareDate));
    SearchSpace space = knobSpace(run, sc);
    const PipelineCells cells(sc);
    const SpaceBound bound = boundSpace(cells, space, maxSearchCells);
    pairSchedules(space);
    // The engine's base: the space's cheapest point (the largest micro-batch, the fewest
    // chunks), whose pipeline cells no other point's are below.
    setKnobs(sc, space.microBatch.back(), space.virtualStages.front(),
             space.sequenceParallel.front(), space.distributedOptimizer.front());
    const std::int64_t cheapestCells =
        cells.of(space.microBatch.back(), space.virtualStages.front());
    KnobSweep sweep;
    if (cheapestCells <= kMaxSweepCells && cells.ofSpace(space) <= maxSearchCells)
        sweepKnobs(sc, catalog, space, sweep);
    const Trial* chosen = chosenTrial(sweep);
    if (!chosen) {
        // No setting could be evaluated: the first one, whose evaluation says why.
        setKnobs(sc, space.microBatch.front(), space.virtualStages.front(),
                 space.sequenceParallel.front(), space.distributedOptimizer.front());
        if (hasUnpublishedKnobs(run))
            assumptions.push_back(
                "unpublished knobs not searched (no admissible setting could be evaluated "
                "within the search's bounds): micro-batch " +
                std::to_string(sc.parallelism.microBatch) + ", virtual stages " +
                std::to_string(sc.parallelism.virtualStages) + ", sequence parallel " +
                onOff(sc.parallelism.sequenceParallel) + ", distributed optimizer " +
                onOff(sc.parallelism.distributedOptimizer));
        return sweep.cells;
    }
    sc = applyPoint(sc, chosen->knobs(), chosen->sweepPoint->placement);
    describeChoices(run, space, bound, sweep.trials, *chosen, run.hbmGib, assumptions);
    if (bound.narrowed())
        assumptions.push_back(boundLine(bound, maxSearchCells));
    return sweep.cells;
}

} // namespace archipelago::core
