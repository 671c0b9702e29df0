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
// check is simulated (GPipe always fails: its forwards and backwards do not alternate), and
// so is a transfer that loads two links at once (a route through a third building: it
// begins when both are free, which one line per link does not describe).
// tests/test_pipelineperiodic checks the figures against the simulation over randomised
// shapes of every schedule, with and without shared links.
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

// What the orders of m0 and m0 + g allow, per line (a rank's ops, or the transfers one shared
// link served, in order): where m1's order has its extra period and how long it is, and how
// many periods before it the later elements read.
struct Structure
{
    bool ok = false;
    std::vector<int> insertAt; // P_l, a position in m1's order of line l
    std::vector<int> period;   // L_l
    int window = 0;            // W: periods checked to repeat, the inserted one included
};

using Lines = std::vector<std::vector<OpKey>>;

// An element of m1 (line, position) that reads an element of another line: a rank's op the
// producer of its activations or gradients (or, with shared links, the transfer that brings
// them), a served transfer the op that produced it. An input on the element's own line comes
// before it in the line's order (a rank's previous op, a link's previous transfer), which
// already waits for it.
struct Input
{
    int line, pos, fromLine, fromPos;
};

// Lines from `firstLink` on are shared links: a link's order may allow several insertion
// points (its transfers of one boundary run micro-batch after micro-batch, so any point
// does), and the one taken is where its transfers' producers reach their ranks' inserted
// periods (each link element's producer is its one input).
Structure analyseLines(const Lines& k0, const Lines& k1, int step, const std::vector<Input>& inputs,
                       std::size_t firstLink)
{
    Structure st;
    const std::size_t lines = k1.size();
    st.insertAt.resize(lines);
    st.period.resize(lines);
    std::vector<std::size_t> latest(lines); // the latest insertion point each line allows
    for (std::size_t l = 0; l < lines; ++l) {
        const auto& a = k0[l];
        const auto& b = k1[l];
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
        st.insertAt[l] = static_cast<int>(at);
        st.period[l] = static_cast<int>(len);
        latest[l] = at;
    }
    if (firstLink < lines) {
        // A link's insertion point: its first element produced at or after its producer's.
        std::vector<int> producedLate(lines, std::numeric_limits<int>::max());
        for (const Input& in : inputs) {
            const auto l = static_cast<std::size_t>(in.line);
            if (l >= firstLink && in.fromPos >= st.insertAt[static_cast<std::size_t>(in.fromLine)])
                producedLate[l] = std::min(producedLate[l], in.pos);
        }
        for (std::size_t l = firstLink; l < lines; ++l) {
            const auto& a = k0[l];
            const auto& b = k1[l];
            const std::size_t len = b.size() - a.size();
            const std::size_t at = std::min(static_cast<std::size_t>(producedLate[l]), a.size());
            // Also m1 = m0 with the period inserted there: the elements from there to the
            // latest point are those of m0 one group later.
            if (at > latest[l])
                return st;
            for (std::size_t i = at; i < latest[l]; ++i)
                if (b[i + len] != shifted(a[i], step))
                    return st;
            st.insertAt[l] = static_cast<int>(at);
        }
    }
    // How many periods before its line's insertion point each input lies decides W; an
    // element before the insertion point must read nothing after it on another line, and one
    // of the inserted period nothing after that line's inserted period.
    int window = 2; // the inserted period and the one before it (the line's previous element)
    for (const Input& in : inputs) {
        const auto l = static_cast<std::size_t>(in.line);
        const auto from = static_cast<std::size_t>(in.fromLine);
        const int insert = st.insertAt[from];
        if (in.pos < st.insertAt[l]) {
            if (in.fromPos >= insert)
                return st; // the unchanged prefix would read the inserted period
            continue;
        }
        const int len = st.period[from];
        if (in.fromPos < insert)
            window = std::max(window, 1 + (insert - in.fromPos + len - 1) / len);
        else if (in.pos < st.insertAt[l] + st.period[l] && in.fromPos >= insert + len)
            return st; // the inserted period would read another line's cool-down
    }
    // The window's periods repeat structurally: each element is the one a period before it,
    // one group later.
    for (std::size_t l = 0; l < lines; ++l) {
        const int len = st.period[l];
        const int from = st.insertAt[l] - (window - 1) * len;
        if (from - len < 0)
            return st;
        for (int q = from; q < st.insertAt[l] + len; ++q)
            if (k1[l][static_cast<std::size_t>(q)] !=
                shifted(k1[l][static_cast<std::size_t>(q - len)], step))
                return st;
    }
    st.window = window;
    st.ok = true;
    return st;
}

// Where each F and B of a run runs: its rank and its position in the rank's order, per cell
// (chunk * m + micro-batch).
struct OpPlaces
{
    std::vector<int> forwardAt, backwardAt; // index into orders.ops
    std::vector<int> rankOf;                // per index into orders.ops
};

OpPlaces placesOf(const RankOrders& o, int p, int v, int m)
{
    OpPlaces at;
    const auto cells = static_cast<std::size_t>(p * v * m);
    at.forwardAt.assign(cells, -1);
    at.backwardAt.assign(cells, -1);
    at.rankOf.resize(o.ops.size());
    for (int r = 0; r < p; ++r)
        for (int i = o.begin[static_cast<std::size_t>(r)];
             i < o.begin[static_cast<std::size_t>(r) + 1]; ++i) {
            const PipelineOp& op = o.ops[static_cast<std::size_t>(i)];
            const auto cell = static_cast<std::size_t>(op.chunk * m + op.microBatch);
            at.rankOf[static_cast<std::size_t>(i)] = r;
            if (op.kind == PipelineOpKind::Forward)
                at.forwardAt[cell] = i;
            else if (op.kind == PipelineOpKind::Backward)
                at.backwardAt[cell] = i;
        }
    return at;
}

// The inputs the ranks' ops of m1 read on other lines. `transferAt(boundary, backward,
// micro-batch)` gives the (line, position) of a transfer a shared link served, or line -1 for
// one that loads none (the op then reads its producer).
template <class TransferAt>
void rankInputs(const RankOrders& o, const OpPlaces& at, int m, const TransferAt& transferAt,
                std::vector<Input>& inputs)
{
    const int p = static_cast<int>(o.begin.size()) - 1;
    for (int r = 0; r < p; ++r) {
        const int first = o.begin[static_cast<std::size_t>(r)];
        for (int i = first; i < o.begin[static_cast<std::size_t>(r) + 1]; ++i) {
            const PipelineOp& op = o.ops[static_cast<std::size_t>(i)];
            const int inChain = op.chunk % o.chainLength;
            int boundary = -1;
            bool backward = false;
            int producer = -1;
            if (op.kind == PipelineOpKind::Forward && inChain != 0) {
                boundary = op.chunk - 1;
                producer = at.forwardAt[static_cast<std::size_t>(boundary * m + op.microBatch)];
            } else if (op.kind == PipelineOpKind::Backward && inChain != o.chainLength - 1) {
                boundary = op.chunk;
                backward = true;
                producer =
                    at.backwardAt[static_cast<std::size_t>((op.chunk + 1) * m + op.microBatch)];
            }
            if (producer < 0)
                continue;
            if (const std::pair<int, int> t = transferAt(boundary, backward, op.microBatch);
                t.first >= 0) {
                inputs.push_back({r, i - first, t.first, t.second});
                continue;
            }
            const int from = at.rankOf[static_cast<std::size_t>(producer)];
            if (from != r)
                inputs.push_back(
                    {r, i - first, from, producer - o.begin[static_cast<std::size_t>(from)]});
        }
    }
}

// The ranks' op lists of `orders` as keys.
Lines keys(const RankOrders& orders, int m, bool twoDirections)
{
    Lines out(orders.begin.size() - 1);
    for (std::size_t r = 0; r + 1 < orders.begin.size(); ++r)
        for (int i = orders.begin[r]; i < orders.begin[r + 1]; ++i)
            out[r].push_back(keyOf(orders.ops[static_cast<std::size_t>(i)], m, twoDirections));
    return out;
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

// A transfer a shared link served, and the link's line in a loaded structure.
struct Served
{
    int boundary;
    bool backward;
    int microBatch;
    bool operator==(const Served&) const = default;
};

// Which shared link each boundary transfer loads (slot 2 * boundary + backward), and for how
// long; -1 for one that loads none. Empty when some transfer loads several links: its begin
// then waits for all of them at once, which the lines below do not describe.
struct SlotLoads
{
    std::vector<int> resource;
    std::vector<double> serviceS;
};

SlotLoads slotLoads(const PipelineSpec& spec)
{
    SlotLoads s;
    const auto slots = 2 * static_cast<std::size_t>(spec.stages * spec.virtualStages);
    s.resource.assign(slots, -1);
    s.serviceS.assign(slots, 0.0);
    for (const PipelineLoad& l : spec.loads) {
        const std::size_t k = 2 * static_cast<std::size_t>(l.boundary) + (l.backward ? 1 : 0);
        if (s.resource[k] >= 0)
            return {};
        s.resource[k] = l.resource;
        s.serviceS[k] = l.serviceS;
    }
    return s;
}

// Per resource, the transfers a loaded run of `shape` served, in the order it served them
// (its recorded events, CompiledShape::loadedReplay).
std::vector<std::vector<Served>> servedOrders(const CompiledShape& shape, const SlotLoads& slots,
                                              std::size_t resources)
{
    std::vector<std::vector<Served>> out(resources);
    for (const ReplayOp& e : shape.loadedReplay) {
        if (!(e.flags & ReplayOp::Serve))
            continue;
        const bool backward = e.kind == PipelineOpKind::Backward;
        const int res = slots.resource[2 * static_cast<std::size_t>(e.chunk) + (backward ? 1 : 0)];
        out[static_cast<std::size_t>(res)].push_back({e.chunk, backward, e.cell % shape.m});
    }
    return out;
}

OpKey keyOf(const Served& t, int m, bool twoDirections)
{
    const int direction = twoDirections && t.microBatch >= m / 2 ? 1 : 0;
    return {t.backward ? PipelineOpKind::Backward : PipelineOpKind::Forward,
            t.boundary,
            direction,
            t.microBatch - direction * (m / 2),
            false,
            false};
}

// The lines of a loaded run: its ranks, then every shared link that served something (a link
// as a line in the order it served: a transfer begins once its data is ready and the link has
// served the one before, a max-plus recurrence like a rank's as long as that order holds).
// `line` maps a resource to its line, -1 for one that served nothing.
Lines loadedKeys(const CompiledShape& s, const std::vector<std::vector<Served>>& served,
                 bool twoDirections, std::vector<int>& line)
{
    Lines k = keys(s.orders, s.m, twoDirections);
    line.assign(served.size(), -1);
    for (std::size_t i = 0; i < served.size(); ++i) {
        if (served[i].empty())
            continue;
        line[i] = static_cast<int>(k.size());
        k.emplace_back();
        for (const Served& t : served[i])
            k.back().push_back(keyOf(t, s.m, twoDirections));
    }
    return k;
}

// The structure of a loaded pipeline from the served orders of its runs of m0 and m1: its
// ranks' ops read the transfers the links served, each transfer its producer. `line1` is set
// to the lines of m1's links.
Structure analyseLoaded(const Lines& k0, const std::vector<int>& line0, const CompiledShape& s1,
                        const std::vector<std::vector<Served>>& served1, std::vector<int>& line1,
                        const SlotLoads& slots, int step, bool twoDirections)
{
    const Lines k1 = loadedKeys(s1, served1, twoDirections, line1);
    if (line0 != line1 || k0.size() != k1.size())
        return {};
    const int m = s1.m;
    // Where each served transfer is on its line, per slot and micro-batch.
    std::vector<int> posOf(slots.resource.size() * static_cast<std::size_t>(m), -1);
    for (std::size_t i = 0; i < served1.size(); ++i)
        for (std::size_t q = 0; q < served1[i].size(); ++q) {
            const Served& t = served1[i][q];
            posOf[(2 * static_cast<std::size_t>(t.boundary) + (t.backward ? 1 : 0)) *
                      static_cast<std::size_t>(m) +
                  static_cast<std::size_t>(t.microBatch)] = static_cast<int>(q);
        }
    const OpPlaces at = placesOf(s1.orders, s1.p, s1.v, m);
    std::vector<Input> inputs;
    rankInputs(
        s1.orders, at, m,
        [&](int boundary, bool backward, int microBatch) {
            const std::size_t k = 2 * static_cast<std::size_t>(boundary) + (backward ? 1 : 0);
            const int res = slots.resource[k];
            if (res < 0)
                return std::pair<int, int>(-1, 0);
            return std::pair<int, int>(
                line1[static_cast<std::size_t>(res)],
                posOf[k * static_cast<std::size_t>(m) + static_cast<std::size_t>(microBatch)]);
        },
        inputs);
    for (std::size_t i = 0; i < served1.size(); ++i)
        for (std::size_t q = 0; q < served1[i].size(); ++q) {
            const Served& t = served1[i][q];
            const auto cell =
                static_cast<std::size_t>((t.boundary + (t.backward ? 1 : 0)) * m + t.microBatch);
            const int producer = t.backward ? at.backwardAt[cell] : at.forwardAt[cell];
            const int rank = at.rankOf[static_cast<std::size_t>(producer)];
            inputs.push_back({line1[i], static_cast<int>(q), rank,
                              producer - s1.orders.begin[static_cast<std::size_t>(rank)]});
        }
    for (const Input& in : inputs)
        if (in.fromLine < 0 || in.fromPos < 0)
            return {};
    return analyseLines(k0, k1, step, inputs, static_cast<std::size_t>(s1.p));
}

// The structure of a loaded pipeline, per thread: computed once per shape (schedule, p, v,
// m0, m1, extras), links its transfers load, and served orders of the two runs. The orders
// depend on the numbers, but the design points of one shape that an explorer or an edit
// evaluates one after another mostly serve in the same order.
struct CachedLoadedStructure
{
    ScheduleKind schedule;
    int p, v, m0, m1;
    std::vector<int> extras, slotResource;
    std::vector<std::vector<Served>> served0, served1;
    Structure structure;
    std::vector<int> line1;
};

const CachedLoadedStructure& loadedStructureFor(const PipelineSpec& spec0,
                                                const PipelineSpec& spec1, const SlotLoads& slots,
                                                std::vector<std::vector<Served>> served0,
                                                const std::vector<std::vector<Served>>& served1,
                                                int step)
{
    thread_local std::vector<CachedLoadedStructure> cache;
    std::vector<int> extras(static_cast<std::size_t>(spec0.stages));
    for (int r = 0; r < spec0.stages; ++r)
        extras[static_cast<std::size_t>(r)] = dciExtraMicroBatches(spec0, r);
    for (const CachedLoadedStructure& c : cache)
        if (c.schedule == spec0.schedule && c.p == spec0.stages && c.v == spec0.virtualStages &&
            c.m0 == spec0.microBatches && c.m1 == spec1.microBatches && c.extras == extras &&
            c.slotResource == slots.resource && c.served0 == served0 && c.served1 == served1)
            return c;
    const bool twoDirections = scheduleTraits(spec0.schedule).modelCopies == 2;
    CachedLoadedStructure c{spec0.schedule,
                            spec0.stages,
                            spec0.virtualStages,
                            spec0.microBatches,
                            spec1.microBatches,
                            std::move(extras),
                            slots.resource,
                            std::move(served0),
                            served1,
                            {},
                            {}};
    // The shapes of m0 and m1, cached by their runs (or built again: each lookup may drop
    // another shape, so each is looked up when it is used).
    std::vector<int> line0;
    Lines k0;
    {
        std::unique_ptr<CompiledShape> owned0;
        k0 = loadedKeys(scratch().shapeFor(spec0, owned0), c.served0, twoDirections, line0);
    }
    std::unique_ptr<CompiledShape> owned1;
    c.structure = analyseLoaded(k0, line0, scratch().shapeFor(spec1, owned1), c.served1, c.line1,
                                slots, step, twoDirections);
    if (cache.size() >= 8)
        cache.erase(cache.begin());
    cache.push_back(std::move(c));
    return cache.back();
}

// When a served transfer of the last simulation (of m micro-batches) was ready (its
// producer's end) and when it arrived.
double readyOf(const Served& t, int m)
{
    const SimulatorScratch& scr = scratch();
    return t.backward
               ? scr.backwardEnd[static_cast<std::size_t>((t.boundary + 1) * m + t.microBatch)]
               : scr.forwardEnd[static_cast<std::size_t>(t.boundary * m + t.microBatch)];
}

double arrivalOf(const Served& t, int m)
{
    const SimulatorScratch& scr = scratch();
    const auto cell = static_cast<std::size_t>(t.boundary * m + t.microBatch);
    return t.backward ? scr.gradientAt[cell] : scr.activationAt[cell];
}

// The m-micro-batch busy intervals of shared link `line` from the m1 run: its transfers'
// begins recomputed as the simulator serves them (ready, or the link free after the one
// before), the inserted period's repeated `groups` times lambda apart and the rest moved on
// by groups lambda; back-to-back services merge as the simulator merges them (a gap below
// `tolerance`, the extrapolation's rounding, counts as none).
void extendUsage(PipelineResourceUsage& u, const std::vector<Served>& served, int m1,
                 const SlotLoads& slots, int insertAt, int period, double lambda,
                 std::int64_t groups, double tolerance)
{
    std::vector<double> begin(served.size());
    std::vector<double> service(served.size());
    double free = 0.0;
    for (std::size_t q = 0; q < served.size(); ++q) {
        const Served& t = served[q];
        service[q] =
            slots.serviceS[2 * static_cast<std::size_t>(t.boundary) + (t.backward ? 1 : 0)];
        begin[q] = std::max(readyOf(t, m1), free);
        free = begin[q] + service[q];
    }
    auto& spans = u.busyIntervals;
    spans.clear();
    spans.reserve(served.size() +
                  static_cast<std::size_t>(groups) * static_cast<std::size_t>(period));
    const auto add = [&spans, tolerance](double b, double s) {
        if (s <= 0.0)
            return;
        if (!spans.empty() && spans.back().second >= b - tolerance)
            spans.back().second = b + s;
        else
            spans.emplace_back(b, b + s);
    };
    const auto at = static_cast<std::size_t>(insertAt);
    const auto len = static_cast<std::size_t>(period);
    double periodWork = 0.0;
    for (std::size_t q = 0; q < at; ++q)
        add(begin[q], service[q]);
    for (std::int64_t k = 0; k <= groups; ++k)
        for (std::size_t q = at; q < at + len; ++q) {
            add(begin[q] + static_cast<double>(k) * lambda, service[q]);
            if (k == 0 && service[q] > 0.0)
                periodWork += service[q];
        }
    const double shift = static_cast<double>(groups) * lambda;
    for (std::size_t q = at + len; q < served.size(); ++q)
        add(begin[q] + shift, service[q]);
    u.busyS += static_cast<double>(groups) * periodWork;
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
        const std::vector<int>* line1 = nullptr;
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

std::optional<PipelineResult> extrapolatePeriodic(const PipelineSpec& spec)
{
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
