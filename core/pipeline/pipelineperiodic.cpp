// A long pipeline from a short run of the same shape (pipelineshapes.h, extrapolatePeriodic).
//
// Every schedule but GPipe is a warm-up, a steady state that repeats one group of g
// micro-batches after another (g = 1 for the 1F1B family, p for interleaved 1F1B, whose table
// runs micro-batches in groups of p, and 2 for DualPipe, one per direction), and a cool-down.
// The op orders for m and m + g differ, on every rank, by one period of L_r ops inserted in
// the steady state, every later op's micro-batch moved on by one group. The times are a
// max-plus recurrence on that structure (each op ends at its duration after the later of its
// rank's previous op and its inputs), so once one period on every rank ends exactly lambda
// after the period before it, and every op after it depends on the past only through periods
// so verified, every further period is the last one plus lambda (max and + commute with a
// shift) and the cool-down after N more periods is the one after none plus N lambda
// (Baccelli et al. 1992, Synchronization and Linearity, chapter 3: a max-plus linear system
// once periodic stays periodic).
//
// A shared link is one more line of that recurrence: it serves its transfers first come,
// first served (pipelinesimulator.h), so in the order it served them each begins at the later
// of its data being ready and the link finishing the one before, and arrives a fixed time
// after. That order is the run's, not the schedule's, so the structure of a pipeline with
// loads comes from simulated runs of m0 and m0 + g, and the long run's order is the short
// run's with periods inserted: it is the ready-time order the simulator would follow as long
// as the short run's has no tie, because every two transfers served one after the other in
// the long run are two of the short run, moved on by whole periods.
//
// Where uneven links make the periods alternate (a steady state of cyclicity 2: an
// irreducible max-plus matrix repeats after c steps, c its cyclicity, Baccelli et al.
// chapter 3), the window repeats every two periods but not every one: the period is then two
// groups.
//
// So the m-micro-batch run is made from the run of m1 = m0 + g (m0 = m modulo g plus a few
// groups): the inserted period of m1 is found against m0's order, the window of periods the
// later ops read is checked to repeat with one lambda (to 1e-12 of the run's length; the
// recurrence cannot amplify a deviation, so the extrapolation's error stays below N times
// it), and then every figure follows: the ranks' ends and the chunks' gradient times move by
// (N - 1) lambda, their busy time by (N - 1) periods' work, the links' busy intervals repeat
// their inserted period, the first starts and the peak in flight stay. A shape that fails a
// check is simulated, and so is a transfer that loads two links at once (a route through a
// third building: it begins when both are free, which one line per link does not describe).
//
// GPipe has no alternating steady state (its forwards all run before its backwards), but two
// tandem lines of identical jobs, whose ends have a closed form (gpipeClosedForm below).
//
// tests/test_pipelineperiodic checks the figures against the simulation over randomised
// shapes of every schedule, with and without shared links.
#include "model/scheduletraits.h"
#include "pipeline/pipelinelines.h"
#include "pipeline/pipelineshapes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace archipelago::core::detail {

namespace {

using namespace lines;

// Below this many micro-batches a pipeline is simulated: the short run would be as long.
constexpr int kLeastGroupsSaved = 4;
// The repeat of one period is checked to this fraction of the short run's makespan: the
// rounding of its thousands of additions is far below it (about 1e-16 each).
constexpr double kPeriodTolerance = 1e-12;
// Tries of a pipeline with shared links before it is simulated (each runs two short ones).
constexpr int kLoadedTries = 3;
// With loads the short runs are tried only when the long run is at least three times the longer
// one, so a try that fails costs at most two thirds of the simulation it precedes (in the 15-D
// sweep, whose pipelines are 17 micro-batches long on average, 96% of the tries at any length
// failed, a link's queue not settled yet, and made it 30% slower).
constexpr int kLoadedLeastSaving = 3;

int groupOf(const PipelineSpec& spec)
{
    const ScheduleTraits& t = scheduleTraits(spec.schedule);
    if (t.modelCopies == 2)
        return 2; // one micro-batch more in each direction
    return t.interleaved && spec.virtualStages > 1 ? spec.stages : 1;
}

// The structure of a pipeline without shared links: its lines are its ranks.
Structure analyse(const CompiledShape& s0, const CompiledShape& s1, int step, bool twoDirections)
{
    const OpPlaces at = placesOf(s1.orders, s1.p, s1.v, s1.m);
    std::vector<Input> inputs;
    rankInputs(
        s1.orders, at, s1.m, [](int, bool, int) { return std::pair<int, int>(-1, 0); }, inputs);
    return analyseLines(keys(s0.orders, s0.m, twoDirections), keys(s1.orders, s1.m, twoDirections),
                        step, inputs, static_cast<std::size_t>(s1.p));
}

// The structure of a shape, per thread: computed once per (schedule, p, v, m0, m1, extras).
struct CachedStructure
{
    ScheduleKind schedule;
    int p, v, m0, m1;
    std::vector<int> extras;
    Structure structure;
};

const Structure& structureFor(const PipelineSpec& spec0, const PipelineSpec& spec1, int step,
                              bool twoDirections)
{
    thread_local std::vector<CachedStructure> cache;
    SimulatorScratch& scr = scratch();
    std::vector<int> extras(static_cast<std::size_t>(spec0.stages));
    for (int r = 0; r < spec0.stages; ++r)
        extras[static_cast<std::size_t>(r)] = dciExtraMicroBatches(spec0, r);
    for (const CachedStructure& c : cache)
        if (c.schedule == spec0.schedule && c.p == spec0.stages && c.v == spec0.virtualStages &&
            c.m0 == spec0.microBatches && c.m1 == spec1.microBatches && c.extras == extras)
            return c.structure;
    std::unique_ptr<CompiledShape> owned0, owned1;
    const CompiledShape& s0 = scr.shapeFor(spec0, owned0);
    const CompiledShape& s1 = scr.shapeFor(spec1, owned1);
    if (cache.size() >= 16)
        cache.erase(cache.begin());
    cache.push_back({spec0.schedule, spec0.stages, spec0.virtualStages, spec0.microBatches,
                     spec1.microBatches, std::move(extras), analyse(s0, s1, step, twoDirections)});
    return cache.back().structure;
}

// The end of the op at position q of rank r in the last simulation (of m1 micro-batches).
double endOf(const RankOrders& o, int r, int q, int m)
{
    const PipelineOp& op =
        o.ops[static_cast<std::size_t>(o.begin[static_cast<std::size_t>(r)] + q)];
    const auto cell = static_cast<std::size_t>(op.chunk * m + op.microBatch);
    const SimulatorScratch& scr = scratch();
    switch (op.kind) {
    case PipelineOpKind::Forward:
        return scr.forwardEnd[cell];
    case PipelineOpKind::Backward:
        return scr.backwardEnd[cell];
    case PipelineOpKind::WeightGrad:
        return scr.weightEnd[cell];
    }
    return std::numeric_limits<double>::quiet_NaN();
}

// The m-micro-batch result from the m1 run `r1`, N - 1 = groups periods later.
PipelineResult extended(PipelineResult r1, const PipelineSpec& spec, const RankOrders& o1,
                        const Structure& st, double lambda, std::int64_t groups)
{
    const double shift = static_cast<double>(groups) * lambda;
    const std::vector<double>& forward = spec.forwardS;
    const bool splitW = splitsWeightGrad(spec.schedule);
    for (int r = 0; r < spec.stages; ++r) {
        const auto ri = static_cast<std::size_t>(r);
        // A period's work on the rank, as the simulator counts it (pipelinesimulator.cpp).
        double work = 0.0;
        for (int q = st.insertAt[ri]; q < st.insertAt[ri] + st.period[ri]; ++q) {
            const PipelineOp& op = o1.ops[static_cast<std::size_t>(o1.begin[ri] + q)];
            const auto c = static_cast<std::size_t>(op.chunk);
            const double w = !splitW                    ? 0.0
                             : spec.weightGradS.empty() ? spec.backwardS[c] / 2.0
                                                        : spec.weightGradS[c];
            work += op.kind == PipelineOpKind::Forward      ? forward[c]
                    : op.kind == PipelineOpKind::WeightGrad ? w
                    : (!splitW || op.fullBackward)          ? spec.backwardS[c]
                                                            : spec.backwardS[c] - w;
        }
        r1.finishS[ri] += shift;
        r1.busyS[ri] += static_cast<double>(groups) * work;
    }
    r1.makespanS = *std::max_element(r1.finishS.begin(), r1.finishS.end());
    r1.periodS += shift;
    for (std::size_t c = 0; c < r1.gradReadyEndS.size(); ++c) {
        r1.gradReadyStartS[c] += shift;
        r1.gradReadyEndS[c] += shift;
    }
    r1.bubbleRatio = 0.0;
    r1.idleOverCompute = 0.0;
    const double ranks = spec.stages;
    for (std::size_t r = 0; r < r1.busyS.size(); ++r) {
        r1.idleS[r] = r1.makespanS - r1.busyS[r];
        if (r1.makespanS > 0.0)
            r1.bubbleRatio += r1.idleS[r] / r1.makespanS / ranks;
        if (r1.busyS[r] > 0.0)
            r1.idleOverCompute += r1.idleS[r] / r1.busyS[r] / ranks;
    }
    return r1;
}

} // namespace

// Whether every line's window repeats every two periods with one shift (the positions two
// periods back exist: the structure checked one period before the window).
bool repeatsEveryTwoPeriods(const Structure& st, const RankOrders& o1, int ranks,
                            const std::vector<std::vector<Served>>& served1,
                            const std::vector<int>& line1, int m1, double tolerance)
{
    double shift = std::numeric_limits<double>::quiet_NaN();
    const auto same = [&](double d) {
        if (std::isnan(shift))
            shift = d;
        return std::abs(d - shift) <= tolerance;
    };
    for (int r = 0; r < ranks; ++r) {
        const auto ri = static_cast<std::size_t>(r);
        const int len = st.period[ri];
        for (int q = st.insertAt[ri] - (st.window - 2) * len; q < st.insertAt[ri] + len; ++q)
            if (!same(endOf(o1, r, q, m1) - endOf(o1, r, q - 2 * len, m1)))
                return false;
    }
    for (std::size_t i = 0; i < served1.size(); ++i) {
        if (line1[i] < 0)
            continue;
        const auto li = static_cast<std::size_t>(line1[i]);
        const int len = st.period[li];
        for (int q = st.insertAt[li] - (st.window - 2) * len; q < st.insertAt[li] + len; ++q)
            if (!same(arrivalOf(served1[i][static_cast<std::size_t>(q)], m1) -
                      arrivalOf(served1[i][static_cast<std::size_t>(q - 2 * len)], m1)))
                return false;
    }
    return shift > 0.0;
}

// The extrapolation with periods of `cycle` groups, from runs of at least `leastM0`
// micro-batches. When a try of one group finds the window repeating every two periods but not
// every one (a steady state of cyclicity 2: uneven links make the periods alternate), sets
// `twoPeriodicAt` to that try's m0.
std::optional<PipelineResult> extrapolateCycles(const PipelineSpec& spec, const SlotLoads& slots,
                                                int cycle, int leastM0, int& twoPeriodicAt)
{
    const int step = cycle * groupOf(spec);
    const bool twoDirections = scheduleTraits(spec.schedule).modelCopies == 2;
    const int keyStep = cycle * (twoDirections ? 1 : groupOf(spec));
    const int m = spec.microBatches;
    const bool loaded = !spec.loads.empty();
    // The shortest run that may hold the warm-up, two steady periods and the cool-down (one
    // too short fails the structure, cached, and a longer one is tried), then at least
    // kLeastGroupsSaved groups saved.
    int extra = 0;
    for (int r = 0; r < spec.stages; ++r)
        extra = std::max(extra, dciExtraMicroBatches(spec, r));
    const int shortest = spec.stages + 2 * extra + groupOf(spec);
    const int base = std::max(leastM0, shortest);
    int m0 = m % step + step * ((base + step - 1) / step);
    if (scheduleTraits(spec.schedule).modelCopies == 2)
        m0 = std::max(m0, 2 * spec.stages + 2); // DualPipe: m >= 2p, even
    // With shared links a try runs two short simulations (their served orders depend on the
    // numbers, so their structure is not cached): a few tries, then the long run is simulated.
    int triesLeft = loaded ? kLoadedTries : std::numeric_limits<int>::max();
    while (m0 + step * (1 + kLeastGroupsSaved) <= m && triesLeft > 0 &&
           (!loaded || kLoadedLeastSaving * (m0 + step) <= m)) {
        PipelineSpec s0 = spec;
        s0.microBatches = m0;
        PipelineSpec s1 = spec;
        s1.microBatches = m0 + step;
        const Structure& rankStructure = structureFor(s0, s1, keyStep, twoDirections);
        if (!rankStructure.ok) {
            m0 += step * std::max(2, (m0 / step) / 2); // a longer steady state
            continue;
        }
        // With shared links the lines are the ranks and the links, each in the order it served
        // its transfers in the runs of m0 and m1.
        const Structure* loadedStructure = nullptr;
        std::vector<std::vector<Served>> served0, served1;
        static const std::vector<int> kNoLinks;
        const std::vector<int>* line1 = &kNoLinks; // the links' lines (none without loads)
        if (loaded) {
            --triesLeft;
            if (!simulateValid(s0).ok)
                return std::nullopt;
            std::unique_ptr<CompiledShape> owned0;
            const CompiledShape& shape0 = scratch().shapeFor(s0, owned0);
            if (owned0)
                return std::nullopt; // too big to have recorded the order it served
            served0 = servedOrders(shape0, slots, spec.resources.size());
        }
        const PipelineResult r1 = simulateValid(s1, true);
        if (!r1.ok) {
            scratch().trim();
            return std::nullopt;
        }
        std::unique_ptr<CompiledShape> owned;
        if (loaded) {
            if (scratch().shapeFor(s1, owned); owned) {
                scratch().trim();
                return std::nullopt; // too big to have recorded the order it served
            }
            served1 = servedOrders(scratch().shapeFor(s1, owned), slots, spec.resources.size());
            const CachedLoadedStructure& c =
                loadedStructureFor(s0, s1, slots, std::move(served0), served1, keyStep);
            loadedStructure = &c.structure;
            line1 = &c.line1;
            if (!loadedStructure->ok) {
                scratch().trim();
                m0 += step * std::max(2, (m0 / step) / 2);
                continue;
            }
        }
        // Looked up last: a lookup may drop another shape.
        const RankOrders& o1 = scratch().shapeFor(s1, owned).orders;
        const Structure& st = loaded ? *loadedStructure : rankStructure;
        // One lambda for every period of the window on every line (a link's: its arrivals).
        const double tolerance = kPeriodTolerance * std::max(1.0, r1.makespanS);
        double lambda = std::numeric_limits<double>::quiet_NaN();
        bool repeats = true;
        const auto check = [&](double d) {
            if (std::isnan(lambda))
                lambda = d;
            repeats = std::abs(d - lambda) <= tolerance;
        };
        const int m1 = s1.microBatches;
        for (int r = 0; r < spec.stages && repeats; ++r) {
            const auto ri = static_cast<std::size_t>(r);
            const int len = st.period[ri];
            for (int q = st.insertAt[ri] - (st.window - 1) * len;
                 q < st.insertAt[ri] + len && repeats; ++q)
                check(endOf(o1, r, q, m1) - endOf(o1, r, q - len, m1));
        }
        for (std::size_t i = 0; i < served1.size() && repeats; ++i) {
            if ((*line1)[i] < 0)
                continue;
            const auto li = static_cast<std::size_t>((*line1)[i]);
            const std::vector<Served>& t = served1[i];
            const int len = st.period[li];
            for (int q = st.insertAt[li] - (st.window - 1) * len;
                 q < st.insertAt[li] + len && repeats; ++q)
                check(arrivalOf(t[static_cast<std::size_t>(q)], m1) -
                      arrivalOf(t[static_cast<std::size_t>(q - len)], m1));
            // The link serves in ready-time order (the heap's, pipelinesimulator.cpp) only if
            // its order has no tie: then every pair of transfers it serves one after the
            // other in the long run is a pair of this run, moved on by whole periods.
            for (std::size_t q = 1; q < t.size() && repeats; ++q)
                repeats = readyOf(t[q], m1) > readyOf(t[q - 1], m1);
        }
        if (!repeats && cycle == 1 && twoPeriodicAt == 0 &&
            repeatsEveryTwoPeriods(st, o1, spec.stages, served1, *line1, m1, tolerance))
            twoPeriodicAt = m0;
        if (repeats && lambda > 0.0) {
            const std::int64_t groups = (m - m1) / step;
            PipelineResult r = extended(r1, spec, o1, st, lambda, groups);
            for (std::size_t i = 0; i < served1.size(); ++i)
                if ((*line1)[i] >= 0) {
                    const auto li = static_cast<std::size_t>((*line1)[i]);
                    extendUsage(r.resources[i], served1[i], m1, slots, st.insertAt[li],
                                st.period[li], lambda, groups, tolerance);
                }
            scratch().trim();
            ++scratch().extrapolations[static_cast<std::size_t>(spec.schedule)];
            return r;
        }
        scratch().trim();
        m0 += step * std::max(2, m0 / step); // not periodic yet: twice the steady state
    }
    return std::nullopt;
}

namespace {

// GPipe without shared links in closed form (Huang et al. 2019: every forward, then every
// backward, in micro-batch order). The forwards are a tandem line of identical jobs, all there
// at the start: the F of micro-batch j ends on stage i after the longest path through the grid
// of (micro-batch, stage), the first micro-batch through every stage and the j others through
// the slowest of them, so EF(j, i) = sum over l <= i of f_l + sum over l < i of s_l + j max
// over l <= i of f_l. The backwards run from the last stage down, stage k free once its
// forwards end (R_k = EF(m - 1, k)): EB(j, i) = max over k >= i of R_k + sum over l in [i, k]
// of b_l + sum over l in [i, k) of s_l + j max over l in [i, k] of b_l. O(p^2), not O(m p).
PipelineResult gpipeClosedForm(const PipelineSpec& spec)
{
    const int p = spec.stages;
    const auto n = static_cast<std::size_t>(p);
    const double m = spec.microBatches;
    const auto send = [&spec](std::size_t boundary) {
        return boundary < spec.sendS.size() ? spec.sendS[boundary] : 0.0;
    };
    PipelineResult r;
    r.firstForwardStartS.resize(n);
    std::vector<double> release(n); // R_i, the end of stage i's forwards
    double reach = 0.0;             // sum of f_l + s_l up to the stage before
    double slowest = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        slowest = std::max(slowest, spec.forwardS[i]);
        r.firstForwardStartS[i] = reach;
        release[i] = reach + spec.forwardS[i] + (m - 1.0) * slowest;
        reach += spec.forwardS[i] + send(i);
    }
    r.finishS.resize(n);
    r.gradReadyStartS.resize(n);
    r.gradReadyEndS.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        double end = 0.0; // EB(m - 1, i)
        double path = 0.0;
        double widest = 0.0;
        for (std::size_t k = i; k < n; ++k) {
            path += spec.backwardS[k] + (k > i ? send(k - 1) : 0.0);
            widest = std::max(widest, spec.backwardS[k]);
            end = std::max(end, release[k] + path + (m - 1.0) * widest);
        }
        r.finishS[i] = end;
        r.gradReadyEndS[i] = end;
        r.gradReadyStartS[i] = end - spec.backwardS[i];
    }
    r.makespanS = *std::max_element(r.finishS.begin(), r.finishS.end());
    r.busyS.resize(n);
    r.idleS.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        r.periodS = std::max(r.periodS, r.finishS[i] - r.firstForwardStartS[i]);
        r.busyS[i] = m * (spec.forwardS[i] + spec.backwardS[i]);
        r.idleS[i] = r.makespanS - r.busyS[i];
        if (r.makespanS > 0.0)
            r.bubbleRatio += r.idleS[i] / r.makespanS / p;
        if (r.busyS[i] > 0.0)
            r.idleOverCompute += r.idleS[i] / r.busyS[i] / p;
    }
    r.peakInFlight.assign(n, spec.microBatches); // every forward before the first backward
    r.resources.resize(spec.resources.size());
    for (std::size_t i = 0; i < spec.resources.size(); ++i) {
        const PipelineResource& res = spec.resources[i];
        r.resources[i].linkClass = res.linkClass;
        r.resources[i].dciLinkId = res.dciLinkId;
        r.resources[i].fromA = res.fromA;
        r.resources[i].capacityGBps = res.capacityGBps;
    }
    ++scratch().extrapolations[static_cast<std::size_t>(ScheduleKind::GPipe)];
    return r;
}

} // namespace

std::optional<PipelineResult> extrapolatePeriodic(const PipelineSpec& spec)
{
    if (spec.schedule == ScheduleKind::GPipe)
        return spec.loads.empty() ? std::optional<PipelineResult>(gpipeClosedForm(spec))
                                  : std::nullopt;
    const SlotLoads slots = spec.loads.empty() ? SlotLoads{} : slotLoads(spec);
    if (!spec.loads.empty() && slots.resource.empty())
        return std::nullopt;
    int twoPeriodicAt = 0;
    if (std::optional<PipelineResult> r = extrapolateCycles(spec, slots, 1, 0, twoPeriodicAt))
        return r;
    if (twoPeriodicAt == 0)
        return std::nullopt;
    return extrapolateCycles(spec, slots, 2, twoPeriodicAt, twoPeriodicAt);
}

} // namespace archipelago::core::detail
