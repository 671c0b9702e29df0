#include "pipeline/pipelineschedules.h"

#include "model/scheduletraits.h"

#include <array>

#include <algorithm>

namespace archipelago::core {

namespace {

class OrderBuilder
{
public:
    OrderBuilder(std::vector<PipelineOp>& ops, int chunk)
        : m_ops(ops)
        , m_chunk(chunk)
    {}
    void forward(int microBatch)
    {
        m_ops.push_back({PipelineOpKind::Forward, m_chunk, microBatch});
    }
    void backward(int microBatch)
    {
        m_ops.push_back({PipelineOpKind::Backward, m_chunk, microBatch});
    }
    void weightGrad(int microBatch)
    {
        m_ops.push_back({PipelineOpKind::WeightGrad, m_chunk, microBatch});
    }

private:
    std::vector<PipelineOp>& m_ops;
    int m_chunk;
};

// GPipe (Huang et al. 2019): all forwards, then all backwards.
void appendGpipe(OrderBuilder& out, int m)
{
    for (int j = 0; j < m; ++j)
        out.forward(j);
    for (int j = 0; j < m; ++j)
        out.backward(j);
}

// The 1F1B family on one rank (v = 1). `warmup` forwards run before the first backward; then
// each backward is followed by the next forward (PipeDream-Flush, Narayanan et al. 2021 section
// 2.2; Megatron-LM forward_backward_pipelining_without_interleaving runs p - r - 1 warm-up
// forwards then "F, B" pairs, the same order as p - r forwards then "B, F" pairs).
// With `splitW` (zero bubble, Qi et al. 2023 section 2) each B is followed by the oldest
// pending W once more than `deferredW` W's are pending, and the deferred W's run at the end.
// Activations held at most: warmup + deferredW.
void appendOneFOneBFamily(OrderBuilder& out, int m, int warmup, bool splitW, int deferredW)
{
    int nextF = 0;
    int nextB = 0;
    int nextW = 0;
    const auto backward = [&] {
        out.backward(nextB++);
        if (splitW && nextB - nextW > deferredW)
            out.weightGrad(nextW++);
    };
    warmup = std::clamp(warmup, 1, m);
    while (nextF < warmup)
        out.forward(nextF++);
    while (nextF < m) {
        backward();
        out.forward(nextF++);
    }
    while (nextB < m)
        backward();
    while (splitW && nextW < m)
        out.weightGrad(nextW++);
}

// Interleaved 1F1B (Narayanan et al. 2021 section 2.2; Megatron-LM
// forward_backward_pipelining_with_interleaving). The k-th forward of a rank is
// (micro-batch, v_index) = table[k], where the table runs micro-batches in groups of p, each
// group through all v chunks in turn (get_schedule_table, the last group takes the rest); the
// k-th backward uses the same table with the chunk order reversed (Megatron requires m to be a
// multiple of p, checked by simulatePipeline). Warm-up forwards (get_pp_rank_microbatches):
// (p - r - 1) * 2 + (v - 1) * p, at most m * v; then "F, B" pairs; then the remaining
// backwards.
void appendInterleaved(std::vector<PipelineOp>& ops, int p, int v, int m, int rank, int extra)
{
    struct Slot
    {
        int microBatch;
        int vIndex;
    };
    std::vector<Slot> table;
    table.reserve(static_cast<std::size_t>(m) * static_cast<std::size_t>(v));
    for (int group = 0; group < m; group += p)
        for (int vi = 0; vi < v; ++vi)
            for (int j = group; j < std::min(group + p, m); ++j)
                table.push_back({j, vi});
    const int total = m * v;
    const int warmup = std::min((p - rank - 1) * 2 + (v - 1) * p + extra * v, total);
    const auto forward = [&](int k) {
        const Slot s = table[static_cast<std::size_t>(k)];
        ops.push_back({PipelineOpKind::Forward, s.vIndex * p + rank, s.microBatch});
    };
    const auto backward = [&](int k) {
        const Slot s = table[static_cast<std::size_t>(k)];
        ops.push_back({PipelineOpKind::Backward, (v - 1 - s.vIndex) * p + rank, s.microBatch});
    };
    for (int k = 0; k < warmup; ++k)
        forward(k);
    for (int k = 0; k < total - warmup; ++k) {
        forward(warmup + k);
        backward(k);
    }
    for (int k = total - warmup; k < total; ++k)
        backward(k);
}

// DualPipe (DeepSeek-V3 report section 3.2.1, Figure 5), the op order of deepseek-ai/DualPipe
// dualpipe.py (DualPipe.step). Micro-batches 0 .. m/2 - 1 run down through chunks 0 .. p-1
// (chunk r on rank r), m/2 .. m - 1 up through chunks p .. 2p-1 (chunk p + s, stage s, on rank
// p - 1 - s). Phase 0 of rank r is the direction it is nearer the start of (down on the first
// half of the ranks, up on the second), phase 1 the other; h = min(r, p - 1 - r). Steps:
//   1  2(p/2 - h - 1) x F0
//   2  h + 1 x (F0, F1)
//   3  p/2 - h - 1 x (B1, W1, F1)              zero bubble: W right after its B
//   4  m/2 - p + h + 1 x (F0&B1, F1&B0)         overlapped pairs, full backwards; the middle
//                                               ranks run the first F0, B1 apart
//   5  p/2 - h - 1 x (B1, F1&B0)
//   6  h + 1 x (B1, B0)                         the second half split (W deferred)
//   7  p/2 - h - 1 x (W, B0)                    B0 split
//   8  h + 1 x W
// The deferred W's run oldest first (WeightGradStore is a FIFO).
void appendDualPipe(std::vector<PipelineOp>& ops, int p, int m, int rank)
{
    const int half = p / 2;
    const int h = std::min(rank, p - 1 - rank);
    const int n = m / 2; // micro-batches per direction
    const bool secondHalf = rank >= half;
    // Direction 0 (down): chunk rank; direction 1 (up): chunk 2p - 1 - rank.
    const std::array<int, 2> chunk{rank, 2 * p - 1 - rank};
    std::array<int, 2> nextF{0, 0};
    std::array<int, 2> nextB{0, 0};
    std::vector<PipelineOp> pendingW;
    std::size_t nextW = 0;
    const auto dir = [&](int phase) { return phase ^ (secondHalf ? 1 : 0); };
    const auto forward = [&](int phase, bool paired = false) {
        const int d = dir(phase);
        PipelineOp op{PipelineOpKind::Forward, chunk[d], d * n + nextF[d]++};
        op.pairedWithNext = paired;
        ops.push_back(op);
    };
    const auto backward = [&](int phase, bool zeroBubble) {
        const int d = dir(phase);
        PipelineOp op{PipelineOpKind::Backward, chunk[d], d * n + nextB[d]++};
        op.fullBackward = !zeroBubble;
        ops.push_back(op);
        if (zeroBubble)
            pendingW.push_back({PipelineOpKind::WeightGrad, op.chunk, op.microBatch});
    };
    const auto weightGrad = [&] { ops.push_back(pendingW[nextW++]); };
    const auto pair = [&](int forwardPhase, int backwardPhase) {
        forward(forwardPhase, true);
        backward(backwardPhase, false);
    };
    const bool middle = h == half - 1;
    for (int i = 0; i < 2 * (half - h - 1); ++i) // step 1
        forward(0);
    for (int i = 0; i < h + 1; ++i) { // step 2
        forward(0);
        forward(1);
    }
    for (int i = 0; i < half - h - 1; ++i) { // step 3
        backward(1, true);
        weightGrad();
        forward(1);
    }
    for (int i = 0; i < n - p + h + 1; ++i) { // step 4
        if (i == 0 && middle) {
            // dualpipe.py: "We don't overlap these two chunks to further reduce bubble size."
            forward(0);
            backward(1, false);
        } else {
            pair(0, 1);
        }
        pair(1, 0);
    }
    for (int i = 0; i < half - h - 1; ++i) { // step 5
        backward(1, false);
        pair(1, 0);
    }
    bool zeroBubble = false; // step 6: from its middle on, the backwards defer their W
    for (int i = 0; i < h + 1; ++i) {
        if (i == (h + 1) / 2 && h % 2 == 1)
            zeroBubble = true;
        backward(1, zeroBubble);
        if (i == (h + 1) / 2 && h % 2 == 0)
            zeroBubble = true;
        backward(0, zeroBubble);
    }
    for (int i = 0; i < half - h - 1; ++i) { // step 7
        weightGrad();
        backward(0, true);
    }
    while (nextW < pendingW.size()) // step 8
        weightGrad();
}

// One rank-order builder per schedule, indexed by ScheduleKind (model/scheduletraits.h).
using Builder = void (*)(OrderBuilder& out, std::vector<PipelineOp>& ops, int p, int v, int m,
                         int r, int extra);

void buildGpipe(OrderBuilder& out, std::vector<PipelineOp>&, int, int, int m, int, int)
{
    appendGpipe(out, m);
}

void buildOneFOneB(OrderBuilder& out, std::vector<PipelineOp>&, int p, int, int m, int r, int extra)
{
    appendOneFOneBFamily(out, m, p - r + extra, false, 0);
}

void buildInterleaved(OrderBuilder& out, std::vector<PipelineOp>& ops, int p, int v, int m, int r,
                      int extra)
{
    // v = 1 is plain 1F1B: the interleaved warm-up count would only hold more memory.
    if (v == 1)
        appendOneFOneBFamily(out, m, p - r + extra, false, 0);
    else
        appendInterleaved(ops, p, v, m, r, extra);
}

// ZB-H1 (Qi et al. 2023 section 2.1): 1F1B's p - r warm-up forwards; rank r defers r W's so
// that every rank holds p micro-batches, 1F1B's peak; the deferred W's fill the tail. Bubble
// (p - 1)(T_F + T_B - T_W).
void buildZbH1(OrderBuilder& out, std::vector<PipelineOp>&, int p, int, int m, int r, int extra)
{
    appendOneFOneBFamily(out, m, p - r + extra, true, r);
}

// ZB-H2 (Qi et al. 2023 section 2.2): 2(p - r) - 1 warm-up forwards fill the bubble before the
// first B; rank r defers 2r W's, so every rank holds 2p - 1 micro-batches and the ranks form a
// parallelogram. Bubble (p - 1)(T_F + T_B - 2 T_W) per period.
void buildZbH2(OrderBuilder& out, std::vector<PipelineOp>&, int p, int, int m, int r, int extra)
{
    appendOneFOneBFamily(out, m, 2 * (p - r) - 1 + extra, true, 2 * r);
}

// DualPipe: m even and at least 2p, p even (checked by simulatePipeline, as dualpipe.py
// asserts); no cross-DC extras (every rank is in warm-up on one direction or the other).
void buildDualPipe(OrderBuilder&, std::vector<PipelineOp>& ops, int p, int, int m, int r, int)
{
    appendDualPipe(ops, p, m, r);
}

constexpr std::array<Builder, 6> kBuilders{buildGpipe, buildOneFOneB, buildInterleaved,
                                           buildZbH1,  buildZbH2,     buildDualPipe};
static_assert(static_cast<std::size_t>(ScheduleKind::DualPipe) + 1 == kBuilders.size(),
              "one builder per ScheduleKind, in enum order");

} // namespace

bool splitsWeightGrad(ScheduleKind kind)
{
    return scheduleTraits(kind).splitsWeightGrad;
}

int dciExtraMicroBatches(const PipelineSpec& spec, int rank)
{
    if (spec.extraInFlightAtDci <= 0)
        return 0;
    const auto& dci = spec.sendCrossesDci;
    // Interleaved: the chunks wrap around (rank p - 1 feeds rank 0), so every rank is upstream
    // of a DCI boundary for some chunk. Extra forwards on only some ranks can deadlock (rank 0
    // in warm-up waits for a forward that rank p - 1 runs after a backward that needs rank 0),
    // so all ranks get them.
    if (spec.virtualStages > 1)
        return std::find(dci.begin(), dci.end(), true) != dci.end() ? spec.extraInFlightAtDci : 0;
    int lastDciRank = -1;
    for (std::size_t c = 0; c < dci.size(); ++c)
        if (dci[c])
            lastDciRank = std::max(lastDciRank, static_cast<int>(c) % spec.stages);
    return rank <= lastDciRank ? spec.extraInFlightAtDci : 0;
}

std::vector<int> chunkRanks(ScheduleKind kind, int p, int v)
{
    std::vector<int> ranks(static_cast<std::size_t>(p) * static_cast<std::size_t>(v));
    const bool dualPipe = scheduleTraits(kind).modelCopies == 2 && v == 2;
    for (std::size_t c = 0; c < ranks.size(); ++c) {
        const int ci = static_cast<int>(c);
        // DualPipe: chunk p + s (stage s of the up copy) on rank p - 1 - s.
        ranks[c] = dualPipe && ci >= p ? 2 * p - 1 - ci : ci % p;
    }
    return ranks;
}

RankOrders buildRankOrders(const PipelineSpec& spec)
{
    const int p = spec.stages;
    const int v = spec.virtualStages;
    const int m = spec.microBatches;
    const bool splitW = splitsWeightGrad(spec.schedule);
    RankOrders orders;
    orders.ops.reserve(static_cast<std::size_t>(p) * static_cast<std::size_t>(v) *
                       static_cast<std::size_t>(m) * (splitW ? 3 : 2));
    orders.begin.reserve(static_cast<std::size_t>(p) + 1);
    for (int r = 0; r < p; ++r) {
        orders.begin.push_back(static_cast<int>(orders.ops.size()));
        const int extra = dciExtraMicroBatches(spec, r);
        OrderBuilder out(orders.ops, r);
        kBuilders[static_cast<std::size_t>(spec.schedule)](out, orders.ops, p, v, m, r, extra);
    }
    orders.begin.push_back(static_cast<int>(orders.ops.size()));
    orders.chunkRank = chunkRanks(spec.schedule, p, v);
    orders.chainLength = p * v / scheduleTraits(spec.schedule).modelCopies;
    orders.chunkLocal.assign(orders.chunkRank.size(), 0);
    std::vector<int> held(static_cast<std::size_t>(p), 0);
    for (std::size_t c = 0; c < orders.chunkRank.size(); ++c)
        orders.chunkLocal[c] = held[static_cast<std::size_t>(orders.chunkRank[c])]++;
    return orders;
}

} // namespace archipelago::core
