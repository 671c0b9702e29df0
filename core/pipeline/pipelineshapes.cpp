// The simulator's per-thread shape cache (pipelineshapes.h).
#include "pipeline/pipelineshapes.h"

#include "model/scheduletraits.h"

#include <algorithm>

namespace archipelago::core::detail {

SimulatorScratch& scratch()
{
    thread_local SimulatorScratch s;
    return s;
}

// Most (chunk, micro-batch) activations a rank holds, in micro-batches (rounded up). The ops
// of a rank run one after another in list order, so a walk over the list suffices.
std::vector<int> peakInFlight(const PipelineSpec& spec, const RankOrders& orders)
{
    const bool splitW = splitsWeightGrad(spec.schedule);
    std::vector<int> peaks;
    peaks.reserve(static_cast<std::size_t>(spec.stages));
    for (int r = 0; r < spec.stages; ++r) {
        int held = 0;
        int peak = 0;
        const auto ri = static_cast<std::size_t>(r);
        for (int i = orders.begin[ri]; i < orders.begin[ri + 1]; ++i) {
            const PipelineOp& op = orders.ops[static_cast<std::size_t>(i)];
            if (op.kind == PipelineOpKind::Forward)
                peak = std::max(peak, ++held);
            else if (op.kind == (splitW && !op.fullBackward ? PipelineOpKind::WeightGrad
                                                            : PipelineOpKind::Backward))
                --held;
        }
        peaks.push_back((peak + spec.virtualStages - 1) / spec.virtualStages);
    }
    return peaks;
}

// The ops of a recorded run (groups: one op, or an overlapped pair) reordered by level: a
// group's level is one more than that of the groups it waits on (its rank's previous group,
// the producers of its inputs). Groups of one level do not depend on one another, so the
// replay's chain of dependent additions and maxima interleaves over the ranks and the CPU
// overlaps them, where the worklist's order follows one dependency chain at a time. The order
// changes no number: a rank's groups keep their order (each level above the last), so every
// per-rank and per-chunk sum and tie-break sees its values in the same order.
std::vector<ReplayOp> levelOrder(const std::vector<ReplayOp>& ops, int ranks, int microBatches,
                                 std::size_t cells)
{
    std::vector<int> forwardLevel(cells, 0), backwardLevel(cells, 0);
    std::vector<int> rankLevel(static_cast<std::size_t>(ranks), 0);
    struct Group
    {
        int level;
        std::size_t first;
        std::size_t count;
    };
    std::vector<Group> groups;
    groups.reserve(ops.size());
    const auto row = static_cast<std::size_t>(microBatches);
    for (std::size_t i = 0; i < ops.size();) {
        const std::size_t count = (ops[i].flags & ReplayOp::PairFirst) ? 2 : 1;
        int level = rankLevel[static_cast<std::size_t>(ops[i].rank)];
        for (std::size_t k = 0; k < count; ++k) {
            const ReplayOp& o = ops[i + k];
            const auto cell = static_cast<std::size_t>(o.cell);
            if (o.kind == PipelineOpKind::Forward && !(o.flags & ReplayOp::ChainStart))
                level = std::max(level, forwardLevel[cell - row]);
            if (o.kind == PipelineOpKind::Backward) {
                level = std::max(level, forwardLevel[cell]);
                if (!(o.flags & ReplayOp::ChainEnd))
                    level = std::max(level, backwardLevel[cell + row]);
            }
            if (o.kind == PipelineOpKind::WeightGrad)
                level = std::max(level, backwardLevel[cell]);
        }
        ++level;
        for (std::size_t k = 0; k < count; ++k) {
            const ReplayOp& o = ops[i + k];
            if (o.kind == PipelineOpKind::Forward)
                forwardLevel[static_cast<std::size_t>(o.cell)] = level;
            else if (o.kind == PipelineOpKind::Backward)
                backwardLevel[static_cast<std::size_t>(o.cell)] = level;
        }
        rankLevel[static_cast<std::size_t>(ops[i].rank)] = level;
        groups.push_back({level, i, count});
        i += count;
    }
    // A stable counting sort by level (levels are 1 to the number of groups): each level's
    // first op position from the ops per level, then every group copied to its level's next
    // position in recorded order, so the order is exactly a stable sort's.
    int maxLevel = 0;
    for (const Group& g : groups)
        maxLevel = std::max(maxLevel, g.level);
    std::vector<std::size_t> start(static_cast<std::size_t>(maxLevel) + 2, 0);
    for (const Group& g : groups)
        start[static_cast<std::size_t>(g.level) + 1] += g.count;
    for (std::size_t l = 1; l < start.size(); ++l)
        start[l] += start[l - 1];
    std::vector<ReplayOp> out(ops.size());
    for (const Group& g : groups) {
        std::size_t& at = start[static_cast<std::size_t>(g.level)];
        std::copy_n(ops.begin() + static_cast<std::ptrdiff_t>(g.first), g.count,
                    out.begin() + static_cast<std::ptrdiff_t>(at));
        at += g.count;
    }
    return out;
}

CompiledShape& SimulatorScratch::shapeFor(const PipelineSpec& spec,
                                          std::unique_ptr<CompiledShape>& owned)
{
    // No extra warm-ups (the common case): every rank gets 0 (dciExtraMicroBatches).
    if (spec.extraInFlightAtDci <= 0)
        extras.assign(static_cast<std::size_t>(spec.stages), 0);
    else {
        extras.resize(static_cast<std::size_t>(spec.stages));
        for (int r = 0; r < spec.stages; ++r)
            extras[static_cast<std::size_t>(r)] = dciExtraMicroBatches(spec, r);
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        if (!shapes[i]->matches(spec, extras))
            continue;
        std::rotate(shapes.begin(), shapes.begin() + static_cast<std::ptrdiff_t>(i),
                    shapes.begin() + static_cast<std::ptrdiff_t>(i) + 1); // to the front
        return *shapes.front();
    }
    auto shape = std::make_unique<CompiledShape>();
    shape->schedule = spec.schedule;
    shape->p = spec.stages;
    shape->v = spec.virtualStages;
    shape->m = spec.microBatches;
    shape->extras = extras;
    shape->orders = buildRankOrders(spec);
    shape->peaks = peakInFlight(spec, shape->orders);
    const RankOrders& o = shape->orders;
    shape->byPos.resize(o.ops.size());
    for (int r = 0; r < spec.stages; ++r) {
        const int end = o.begin[static_cast<std::size_t>(r) + 1];
        for (int at = o.begin[static_cast<std::size_t>(r)]; at < end; ++at) {
            const PipelineOp& op = o.ops[static_cast<std::size_t>(at)];
            const int inChain = op.chunk % o.chainLength;
            ReplayOp& d = shape->byPos[static_cast<std::size_t>(at)];
            d.cell = op.chunk * spec.microBatches + op.microBatch;
            d.chunk = op.chunk;
            d.rank = r;
            d.kind = op.kind;
            d.flags = static_cast<std::uint8_t>(
                (inChain == 0 ? ReplayOp::ChainStart : 0) |
                (inChain == o.chainLength - 1 ? ReplayOp::ChainEnd : 0) |
                (op.fullBackward ? ReplayOp::FullBackward : 0) |
                (op.pairedWithNext && at + 1 < end ? ReplayOp::PairFirst : 0));
        }
    }
    if (shape->orders.ops.size() > maxCachedOps) { // too big to keep: the caller owns it
        owned = std::move(shape);
        return *owned;
    }
    // The least recently used go first, until the new one fits the count and the budget.
    std::size_t held = shape->orders.ops.size();
    for (const auto& kept : shapes)
        held += kept->orders.ops.size();
    while (!shapes.empty() && (shapes.size() == maxShapes || held > cachedOpsBudget)) {
        held -= shapes.back()->orders.ops.size();
        shapes.pop_back();
    }
    shapes.insert(shapes.begin(), std::move(shape));
    return *shapes.front();
}

} // namespace archipelago::core::detail
