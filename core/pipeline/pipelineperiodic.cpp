// A long pipeline from a short run of the same shape (pipelineshapes.h, extrapolatePeriodic).
//
// Every schedule but GPipe is a warm-up, a steady state that repeats one group of g
// micro-batches after another (g = 1 for the 1F1B family, p for interleaved 1F1B, whose table
// runs micro-batches in groups of p, and 2 for DualPipe, one per direction), and a cool-down.
// The op orders for m and m + g differ, on every rank, by one period of L_r ops inserted in
// the steady state, every later op's micro-batch moved on by one group. Without shared links
// the times are a max-plus recurrence on that structure (each op ends at its duration after
// the later of its rank's previous op and its inputs), so once one period on every rank ends
// exactly lambda after the period before it, and every op after it depends on the past only
// through periods so verified, every further period is the last one plus lambda (max and +
// commute with a shift) and the cool-down after N more periods is the one after none plus
// N lambda (Baccelli et al. 1992, Synchronization and Linearity, chapter 3: a max-plus linear
// system once periodic stays periodic).
//
// So the m-micro-batch run is made from the run of m1 = m0 + g (m0 = m modulo g plus a few
// groups): the inserted period of m1 is found against m0's order, the window of periods the
// later ops read is checked to repeat with one lambda (to 1e-12 of the run's length; the
// recurrence cannot amplify a deviation, so the extrapolation's error stays below N times
// it), and then every figure follows: the ranks' ends and the chunks' gradient times move by
// (N - 1) lambda, their busy time by (N - 1) periods' work, the first starts and the peak in
// flight stay. A shape that fails a check is simulated (GPipe always fails: its forwards and
// backwards do not alternate). tests/test_pipelineperiodic checks the figures against the
// simulation over randomised shapes of every schedule.
#include "model/scheduletraits.h"
#include "pipeline/pipelineshapes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace archipelago::core::detail {

namespace {

// Below this many micro-batches a pipeline is simulated: the short run would be as long.
constexpr int kLeastGroupsSaved = 4;
// The repeat of one period is checked to this fraction of the short run's makespan: the
// rounding of its thousands of additions is far below it (about 1e-16 each).
constexpr double kPeriodTolerance = 1e-12;

int groupOf(const PipelineSpec& spec)
{
    const ScheduleTraits& t = scheduleTraits(spec.schedule);
    if (t.modelCopies == 2)
        return 2; // one micro-batch more in each direction
    return t.interleaved && spec.virtualStages > 1 ? spec.stages : 1;
}

// An op as the structure compares it: DualPipe numbers the micro-batches of its second
// direction from m / 2 (pipelineschedules.cpp), so a micro-batch is its direction and its
// index in it.
struct OpKey
{
    PipelineOpKind kind;
    int chunk;
    int direction;
    int local;
    bool fullBackward;
    bool paired;
    bool operator==(const OpKey&) const = default;
};

OpKey keyOf(const PipelineOp& op, int m, bool twoDirections)
{
    const int direction = twoDirections && op.microBatch >= m / 2 ? 1 : 0;
    return {op.kind,         op.chunk,         direction, op.microBatch - direction * (m / 2),
            op.fullBackward, op.pairedWithNext};
}

// The same op one group later.
OpKey shifted(OpKey k, int step)
{
    k.local += step;
    return k;
}

// What the orders of m0 and m0 + g allow, per rank: where m1's order has its extra period
// and how long it is, and how many periods before it the later ops read.
struct Structure
{
    bool ok = false;
    std::vector<int> insertAt; // P_r, a position in m1's order of rank r
    std::vector<int> period;   // L_r
    int window = 0;            // W: periods checked to repeat, the inserted one included
};

// The ranks' op lists of `orders` as keys.
std::vector<std::vector<OpKey>> keys(const RankOrders& orders, int m, bool twoDirections)
{
    std::vector<std::vector<OpKey>> out(orders.begin.size() - 1);
    for (std::size_t r = 0; r + 1 < orders.begin.size(); ++r)
        for (int i = orders.begin[r]; i < orders.begin[r + 1]; ++i)
            out[r].push_back(keyOf(orders.ops[static_cast<std::size_t>(i)], m, twoDirections));
    return out;
}

Structure analyse(const CompiledShape& s0, const CompiledShape& s1, int step, bool twoDirections)
{
    Structure st;
    const int p = s1.p;
    const auto k0 = keys(s0.orders, s0.m, twoDirections);
    const auto k1 = keys(s1.orders, s1.m, twoDirections);
    st.insertAt.resize(static_cast<std::size_t>(p));
    st.period.resize(static_cast<std::size_t>(p));
    for (std::size_t r = 0; r < static_cast<std::size_t>(p); ++r) {
        const auto& a = k0[r];
        const auto& b = k1[r];
        if (b.size() <= a.size())
            return st;
        const std::size_t len = b.size() - a.size();
        std::size_t at = 0;
        while (at < a.size() && a[at] == b[at])
            ++at;
        // m1 = m0 with one period inserted at `at` and the rest one group later.
        for (std::size_t i = at; i < a.size(); ++i)
            if (b[i + len] != shifted(a[i], step))
                return st;
        st.insertAt[r] = static_cast<int>(at);
        st.period[r] = static_cast<int>(len);
    }
    // Where each F and B of m1 runs: rank and position.
    const RankOrders& o = s1.orders;
    const auto cells = static_cast<std::size_t>(p * s1.v * s1.m);
    std::vector<int> forwardAt(cells, -1), backwardAt(cells, -1);
    std::vector<int> rankOf(o.ops.size());
    for (int r = 0; r < p; ++r)
        for (int i = o.begin[static_cast<std::size_t>(r)];
             i < o.begin[static_cast<std::size_t>(r) + 1]; ++i) {
            const PipelineOp& op = o.ops[static_cast<std::size_t>(i)];
            const auto cell = static_cast<std::size_t>(op.chunk * s1.m + op.microBatch);
            rankOf[static_cast<std::size_t>(i)] = r;
            if (op.kind == PipelineOpKind::Forward)
                forwardAt[cell] = i;
            else if (op.kind == PipelineOpKind::Backward)
                backwardAt[cell] = i;
        }
    // The inputs of every op from other ranks (an input on its own rank ran before it in the
    // rank's order, which already waits for it): the producer of its activations or its
    // gradients. How many periods before its rank's insertion point each one lies decides W;
    // an op before the insertion point must read nothing after it on another rank, and an op
    // of the inserted period nothing after that rank's inserted period.
    int window = 2; // the inserted period and the one before it (the rank's previous op)
    for (int r = 0; r < p; ++r) {
        const int first = o.begin[static_cast<std::size_t>(r)];
        for (int i = first; i < o.begin[static_cast<std::size_t>(r) + 1]; ++i) {
            const PipelineOp& op = o.ops[static_cast<std::size_t>(i)];
            const int inChain = op.chunk % o.chainLength;
            int input = -1;
            if (op.kind == PipelineOpKind::Forward && inChain != 0)
                input = forwardAt[static_cast<std::size_t>((op.chunk - 1) * s1.m + op.microBatch)];
            else if (op.kind == PipelineOpKind::Backward && inChain != o.chainLength - 1)
                input = backwardAt[static_cast<std::size_t>((op.chunk + 1) * s1.m + op.microBatch)];
            if (input < 0)
                continue;
            const int from = rankOf[static_cast<std::size_t>(input)];
            if (from == r)
                continue;
            const int pos = input - o.begin[static_cast<std::size_t>(from)];
            const int insert = st.insertAt[static_cast<std::size_t>(from)];
            const bool before = i - first < st.insertAt[static_cast<std::size_t>(r)];
            if (before) {
                if (pos >= insert)
                    return st; // the unchanged prefix would read the inserted period
                continue;
            }
            const int len = st.period[static_cast<std::size_t>(from)];
            if (pos < insert)
                window = std::max(window, 1 + (insert - pos + len - 1) / len);
            else if (i - first < st.insertAt[static_cast<std::size_t>(r)] +
                                     st.period[static_cast<std::size_t>(r)] &&
                     pos >= insert + len)
                return st; // the inserted period would read another rank's cool-down
        }
    }
    // The window's periods repeat structurally: each op is the one a period before it, one
    // group later.
    for (int r = 0; r < p; ++r) {
        const auto ri = static_cast<std::size_t>(r);
        const int len = st.period[ri];
        const int from = st.insertAt[ri] - (window - 1) * len;
        if (from - len < 0)
            return st;
        for (int q = from; q < st.insertAt[ri] + len; ++q)
            if (k1[ri][static_cast<std::size_t>(q)] !=
                shifted(k1[ri][static_cast<std::size_t>(q - len)], step))
                return st;
    }
    st.window = window;
    st.ok = true;
    return st;
}

// The structure of a shape, per thread: computed once per (schedule, p, v, m modulo g, m0,
// extras).
struct CachedStructure
{
    ScheduleKind schedule;
    int p, v, m0;
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
            c.m0 == spec0.microBatches && c.extras == extras)
            return c.structure;
    std::unique_ptr<CompiledShape> owned0, owned1;
    const CompiledShape& s0 = scr.shapeFor(spec0, owned0);
    const CompiledShape& s1 = scr.shapeFor(spec1, owned1);
    if (cache.size() >= 16)
        cache.erase(cache.begin());
    cache.push_back({spec0.schedule, spec0.stages, spec0.virtualStages, spec0.microBatches,
                     std::move(extras), analyse(s0, s1, step, twoDirections)});
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

std::optional<PipelineResult> extrapolatePeriodic(const PipelineSpec& spec)
{
    const int step = groupOf(spec);
    const bool twoDirections = scheduleTraits(spec.schedule).modelCopies == 2;
    const int m = spec.microBatches;
    // The shortest run that may hold the warm-up, two steady periods and the cool-down (one
    // too short fails the structure, cached, and a longer one is tried), then at least
    // kLeastGroupsSaved groups saved.
    int extra = 0;
    for (int r = 0; r < spec.stages; ++r)
        extra = std::max(extra, dciExtraMicroBatches(spec, r));
    const int base = spec.stages + 2 * extra + step;
    int m0 = m % step + step * ((base + step - 1) / step);
    if (scheduleTraits(spec.schedule).modelCopies == 2)
        m0 = std::max(m0, 2 * spec.stages + 2); // DualPipe: m >= 2p, even
    while (m0 + step * (1 + kLeastGroupsSaved) <= m) {
        PipelineSpec s0 = spec;
        s0.microBatches = m0;
        PipelineSpec s1 = spec;
        s1.microBatches = m0 + step;
        const Structure& st = structureFor(s0, s1, twoDirections ? 1 : step, twoDirections);
        if (!st.ok) {
            m0 += step * std::max(2, (m0 / step) / 2); // a longer steady state
            continue;
        }
        const PipelineResult r1 = simulateValid(s1, true);
        if (!r1.ok) {
            scratch().trim();
            return std::nullopt;
        }
        std::unique_ptr<CompiledShape> owned;
        const RankOrders& o1 = scratch().shapeFor(s1, owned).orders;
        // One lambda for every period of the window on every rank.
        const double tolerance = kPeriodTolerance * std::max(1.0, r1.makespanS);
        double lambda = std::numeric_limits<double>::quiet_NaN();
        bool repeats = true;
        for (int r = 0; r < spec.stages && repeats; ++r) {
            const auto ri = static_cast<std::size_t>(r);
            const int len = st.period[ri];
            for (int q = st.insertAt[ri] - (st.window - 1) * len;
                 q < st.insertAt[ri] + len && repeats; ++q) {
                const double d =
                    endOf(o1, r, q, s1.microBatches) - endOf(o1, r, q - len, s1.microBatches);
                if (std::isnan(lambda))
                    lambda = d;
                repeats = std::abs(d - lambda) <= tolerance;
            }
        }
        scratch().trim();
        if (repeats && lambda > 0.0) {
            ++scratch().extrapolations[static_cast<std::size_t>(spec.schedule)];
            return extended(r1, spec, o1, st, lambda, (m - s1.microBatches) / step);
        }
        m0 += step * std::max(2, m0 / step); // not periodic yet: twice the steady state
    }
    return std::nullopt;
}

} // namespace archipelago::core::detail
