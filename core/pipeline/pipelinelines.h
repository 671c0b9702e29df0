// The lines of a pipeline's max-plus recurrence and their structure, for the extrapolation of
// long pipelines from short runs (pipelineperiodic.cpp; nothing else should use them): a line
// is a rank's ops in its order, or the transfers one shared link served, in the order it
// served them (pipelinelines.cpp: the structure of lines; pipelinelinks.cpp: the links').
#pragma once

#include "pipeline/pipelineschedules.h"
#include "pipeline/pipelineshapes.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace archipelago::core::detail::lines {

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

inline OpKey keyOf(const PipelineOp& op, int m, bool twoDirections)
{
    const int direction = twoDirections && op.microBatch >= m / 2 ? 1 : 0;
    return {op.kind,         op.chunk,         direction, op.microBatch - direction * (m / 2),
            op.fullBackward, op.pairedWithNext};
}

// The same op one group later.
inline OpKey shifted(OpKey k, int step)
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
                       std::size_t firstLink);

// Where each F and B of a run runs: its rank and its position in the rank's order, per cell
// (chunk * m + micro-batch).
struct OpPlaces
{
    std::vector<int> forwardAt, backwardAt; // index into orders.ops
    std::vector<int> rankOf;                // per index into orders.ops
};

OpPlaces placesOf(const RankOrders& o, int p, int v, int m);

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
Lines keys(const RankOrders& orders, int m, bool twoDirections);

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

// The links each transfer of `spec` loads; empty when one loads several.
SlotLoads slotLoads(const PipelineSpec& spec);

// Per resource, the transfers a loaded run of `shape` served, in the order it served them
// (its recorded events, CompiledShape::loadedReplay).
std::vector<std::vector<Served>> servedOrders(const CompiledShape& shape, const SlotLoads& slots,
                                              std::size_t resources);

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

// The structure of the loaded runs of spec0 and spec1 (m0 and m1, both just simulated) that
// served `served0` and `served1`, from the cache or analysed (and cached).
const CachedLoadedStructure& loadedStructureFor(const PipelineSpec& spec0,
                                                const PipelineSpec& spec1, const SlotLoads& slots,
                                                std::vector<std::vector<Served>> served0,
                                                const std::vector<std::vector<Served>>& served1,
                                                int step);

// When a served transfer of the last simulation (of m micro-batches) was ready (its
// producer's end) and when it arrived.
double readyOf(const Served& t, int m);

double arrivalOf(const Served& t, int m);

// The m-micro-batch busy intervals of shared link `line` from the m1 run: its transfers'
// begins recomputed as the simulator serves them (ready, or the link free after the one
// before), the inserted period's repeated `groups` times lambda apart and the rest moved on
// by groups lambda; back-to-back services merge as the simulator merges them (a gap below
// `tolerance`, the extrapolation's rounding, counts as none).
void extendUsage(PipelineResourceUsage& u, const std::vector<Served>& served, int m1,
                 const SlotLoads& slots, int insertAt, int period, double lambda,
                 std::int64_t groups, double tolerance);

} // namespace archipelago::core::detail::lines
