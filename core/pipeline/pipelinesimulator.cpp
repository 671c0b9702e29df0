#include "pipeline/pipelinesimulator.h"

#include "pipeline/pipelineschedules.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

namespace archipelago::core {

namespace {

// Guard against absurd inputs (the simulation allocates per (chunk, micro-batch)).
constexpr std::int64_t maxOps = 50'000'000;

bool allValid(const std::vector<double>& values)
{
    return std::all_of(values.begin(), values.end(),
                       [](double x) { return std::isfinite(x) && x >= 0.0; });
}

std::string validate(const PipelineSpec& spec)
{
    const int p = spec.stages;
    const int v = spec.virtualStages;
    if (p < 1 || v < 1 || spec.microBatches < 1)
        return "stages, virtual stages and micro-batches must be at least 1";
    if (v != 1 && spec.schedule != ScheduleKind::Interleaved1F1B)
        return "virtual stages > 1 need the interleaved 1F1B schedule";
    // Megatron-LM forward_backward_pipelining_with_interleaving: micro-batches run in groups
    // of p through the chunks; a last group smaller than p is rejected (dependency bubbles).
    if (v > 1 && spec.microBatches % p != 0)
        return "interleaved 1F1B needs the micro-batch count to be a multiple of p";
    if (spec.extraInFlightAtDci < 0)
        return "extra in-flight micro-batches at a DCI boundary must not be negative";
    const std::int64_t chunks = std::int64_t{p} * v;
    if (chunks * spec.microBatches * 3 > maxOps)
        return "pipeline too large to simulate (p * v * m)";
    const auto n = static_cast<std::size_t>(chunks);
    if (spec.forwardS.size() != n || spec.backwardS.size() != n)
        return "forward and backward times need one entry per chunk (p * v)";
    if (!spec.weightGradS.empty() && spec.weightGradS.size() != n)
        return "weight-gradient times need one entry per chunk (p * v) or none";
    if (!spec.sendS.empty() && spec.sendS.size() != n - 1)
        return "send times need one entry per chunk boundary (p * v - 1) or none";
    if (!spec.sendCrossesDci.empty() && spec.sendCrossesDci.size() != n - 1)
        return "DCI flags need one entry per chunk boundary (p * v - 1) or none";
    if (!allValid(spec.forwardS) || !allValid(spec.backwardS) || !allValid(spec.weightGradS) ||
        !allValid(spec.sendS))
        return "times must be finite and non-negative";
    for (std::size_t c = 0; c < spec.weightGradS.size(); ++c)
        if (spec.weightGradS[c] > spec.backwardS[c])
            return "a weight-gradient time exceeds its full backward time";
    return {};
}

PipelineResult failure(std::string error)
{
    PipelineResult r;
    r.ok = false;
    r.error = std::move(error);
    r.makespanS = std::numeric_limits<double>::quiet_NaN();
    r.periodS = r.makespanS;
    r.bubbleRatio = r.makespanS;
    r.idleOverCompute = r.makespanS;
    return r;
}

// Runs each rank's op list in order. An op starts when its rank is free and its inputs have
// arrived; the result is the longest path through the DAG of rank-order and data edges, so
// ranks can be advanced in any order: a worklist re-visits a rank when a neighbour progresses.
class Simulator
{
public:
    Simulator(const PipelineSpec& spec, const RankOrders& orders)
        : m_spec(spec)
        , m_orders(orders)
        , m_stages(spec.stages)
        , m_microBatches(spec.microBatches)
        , m_chunks(spec.stages * spec.virtualStages)
    {
        const auto cells =
            static_cast<std::size_t>(m_chunks) * static_cast<std::size_t>(m_microBatches);
        m_forwardEnd.assign(cells, notDone);
        m_backwardEnd.assign(cells, notDone);
        const auto n = static_cast<std::size_t>(m_chunks);
        const auto ranks = static_cast<std::size_t>(m_stages);
        m_forwardDur = spec.forwardS;
        m_backwardDur = spec.backwardS;
        m_weightDur.assign(n, 0.0);
        if (splitsWeightGrad(spec.schedule)) {
            for (std::size_t c = 0; c < n; ++c) {
                // Qi et al. 2023 section 2: B + W = full backward; T_B = T_W when not given.
                m_weightDur[c] =
                    spec.weightGradS.empty() ? spec.backwardS[c] / 2.0 : spec.weightGradS[c];
                m_backwardDur[c] = spec.backwardS[c] - m_weightDur[c];
            }
        }
        m_send = spec.sendS;
        m_send.resize(n, 0.0); // n - 1 boundaries, one unused slot keeps indexing simple
        m_pos.assign(orders.begin.begin(), orders.begin.end() - 1);
        m_freeAt.assign(ranks, 0.0);
        m_firstStart.assign(ranks, notDone);
        m_busy.assign(ranks, 0.0);
    }

    // False when some rank can never run its next op (a cycle in the schedule).
    bool run(std::vector<TimelineBlock>* timeline)
    {
        m_timeline = timeline;
        std::vector<int> work(static_cast<std::size_t>(m_stages));
        std::iota(work.begin(), work.end(), 0);
        m_queued.assign(static_cast<std::size_t>(m_stages), 1);
        m_work = &work;
        while (!work.empty()) {
            const int r = work.back();
            work.pop_back();
            m_queued[static_cast<std::size_t>(r)] = 0;
            advance(r);
        }
        for (int r = 0; r < m_stages; ++r)
            if (m_pos[static_cast<std::size_t>(r)] !=
                m_orders.begin[static_cast<std::size_t>(r) + 1])
                return false;
        return true;
    }

    const std::vector<double>& busy() const { return m_busy; }
    const std::vector<double>& freeAt() const { return m_freeAt; }
    const std::vector<double>& firstStart() const { return m_firstStart; }

private:
    static constexpr double notDone = -1.0;

    std::size_t cell(int chunk, int microBatch) const
    {
        return static_cast<std::size_t>(chunk) * static_cast<std::size_t>(m_microBatches) +
               static_cast<std::size_t>(microBatch);
    }

    // Time at which the inputs of `op` are available, or notDone.
    double readyTime(const PipelineOp& op) const
    {
        const auto c = static_cast<std::size_t>(op.chunk);
        switch (op.kind) {
        case PipelineOpKind::Forward:
            if (op.chunk == 0)
                return 0.0;
            if (const double t = m_forwardEnd[cell(op.chunk - 1, op.microBatch)]; t != notDone)
                return t + m_send[c - 1];
            return notDone;
        case PipelineOpKind::Backward: {
            const double own = m_forwardEnd[cell(op.chunk, op.microBatch)];
            if (own == notDone || op.chunk == m_chunks - 1)
                return own;
            const double t = m_backwardEnd[cell(op.chunk + 1, op.microBatch)];
            return t == notDone ? notDone : std::max(own, t + m_send[c]);
        }
        case PipelineOpKind::WeightGrad:
            return m_backwardEnd[cell(op.chunk, op.microBatch)];
        }
        return notDone;
    }

    double duration(const PipelineOp& op) const
    {
        const auto c = static_cast<std::size_t>(op.chunk);
        switch (op.kind) {
        case PipelineOpKind::Forward:
            return m_forwardDur[c];
        case PipelineOpKind::Backward:
            return m_backwardDur[c];
        case PipelineOpKind::WeightGrad:
            return m_weightDur[c];
        }
        return 0.0;
    }

    void wake(int rank, int self)
    {
        auto& q = m_queued[static_cast<std::size_t>(rank)];
        if (rank != self && !q) {
            q = 1;
            m_work->push_back(rank);
        }
    }

    void record(int rank, const PipelineOp& op, double start, double end)
    {
        const int vIndex = op.chunk / m_stages;
        static constexpr BlockKind kinds[] = {BlockKind::Forward, BlockKind::Backward,
                                              BlockKind::WeightGrad};
        m_timeline->push_back(
            {rank, vIndex, op.microBatch, kinds[static_cast<int>(op.kind)], start, end, false});
        // The transfer this op starts: activations to chunk + 1, or gradients to chunk - 1.
        int boundary = -1;
        if (op.kind == PipelineOpKind::Forward && op.chunk + 1 < m_chunks)
            boundary = op.chunk;
        else if (op.kind == PipelineOpKind::Backward && op.chunk > 0)
            boundary = op.chunk - 1;
        if (boundary < 0)
            return;
        const double t = m_send[static_cast<std::size_t>(boundary)];
        if (t <= 0.0)
            return;
        const auto b = static_cast<std::size_t>(boundary);
        const bool dci = b < m_spec.sendCrossesDci.size() && m_spec.sendCrossesDci[b];
        m_timeline->push_back({rank, vIndex, op.microBatch, BlockKind::Send, end, end + t, dci});
    }

    void advance(int r)
    {
        const auto ri = static_cast<std::size_t>(r);
        const int end = m_orders.begin[ri + 1];
        int& pos = m_pos[ri];
        while (pos < end) {
            const PipelineOp& op = m_orders.ops[static_cast<std::size_t>(pos)];
            const double ready = readyTime(op);
            if (ready == notDone)
                return;
            const double start = std::max(m_freeAt[ri], ready);
            const double dur = duration(op);
            const double finish = start + dur;
            if (m_firstStart[ri] == notDone)
                m_firstStart[ri] = start;
            m_freeAt[ri] = finish;
            m_busy[ri] += dur;
            ++pos;
            if (m_timeline)
                record(r, op, start, finish);
            if (op.kind == PipelineOpKind::Forward) {
                m_forwardEnd[cell(op.chunk, op.microBatch)] = finish;
                if (op.chunk + 1 < m_chunks)
                    wake((op.chunk + 1) % m_stages, r);
            } else if (op.kind == PipelineOpKind::Backward) {
                m_backwardEnd[cell(op.chunk, op.microBatch)] = finish;
                if (op.chunk > 0)
                    wake((op.chunk - 1) % m_stages, r);
            }
        }
    }

    const PipelineSpec& m_spec;
    const RankOrders& m_orders;
    int m_stages;
    int m_microBatches;
    int m_chunks;
    std::vector<double> m_forwardDur, m_backwardDur, m_weightDur, m_send;
    std::vector<double> m_forwardEnd, m_backwardEnd;
    std::vector<int> m_pos;
    std::vector<double> m_freeAt, m_firstStart, m_busy;
    std::vector<char> m_queued;
    std::vector<int>* m_work = nullptr;
    std::vector<TimelineBlock>* m_timeline = nullptr;
};

// Most (chunk, micro-batch) activations a rank holds, in micro-batches (rounded up). The ops
// of a rank run one after another in list order, so a walk over the list suffices.
std::vector<int> peakInFlight(const PipelineSpec& spec, const RankOrders& orders)
{
    const bool splitW = splitsWeightGrad(spec.schedule);
    const PipelineOpKind release = splitW ? PipelineOpKind::WeightGrad : PipelineOpKind::Backward;
    std::vector<int> peaks;
    peaks.reserve(static_cast<std::size_t>(spec.stages));
    for (int r = 0; r < spec.stages; ++r) {
        int held = 0;
        int peak = 0;
        const auto ri = static_cast<std::size_t>(r);
        for (int i = orders.begin[ri]; i < orders.begin[ri + 1]; ++i) {
            const PipelineOpKind kind = orders.ops[static_cast<std::size_t>(i)].kind;
            if (kind == PipelineOpKind::Forward)
                peak = std::max(peak, ++held);
            else if (kind == release)
                --held;
        }
        peaks.push_back((peak + spec.virtualStages - 1) / spec.virtualStages);
    }
    return peaks;
}

} // namespace

PipelineResult simulatePipeline(const PipelineSpec& spec)
{
    if (std::string error = validate(spec); !error.empty())
        return failure(std::move(error));

    const RankOrders orders = buildRankOrders(spec);
    PipelineResult result;
    if (spec.recordTimeline) {
        const std::size_t ops = orders.ops.size();
        result.timeline.reserve(spec.sendS.empty() ? ops : 2 * ops);
    }
    Simulator sim(spec, orders);
    if (!sim.run(spec.recordTimeline ? &result.timeline : nullptr))
        return failure("schedule deadlock: some rank waits on an op that never runs");

    const std::vector<double>& freeAt = sim.freeAt();
    result.makespanS = *std::max_element(freeAt.begin(), freeAt.end());
    for (int r = 0; r < spec.stages; ++r) {
        const auto ri = static_cast<std::size_t>(r);
        result.periodS = std::max(result.periodS, freeAt[ri] - sim.firstStart()[ri]);
    }
    result.finishS = freeAt;
    result.busyS = sim.busy();
    result.idleS.reserve(result.busyS.size());
    const double ranks = spec.stages;
    for (const double busy : result.busyS) {
        const double idle = result.makespanS - busy;
        result.idleS.push_back(idle);
        if (result.makespanS > 0.0)
            result.bubbleRatio += idle / result.makespanS / ranks;
        if (busy > 0.0)
            result.idleOverCompute += idle / busy / ranks;
    }
    result.peakInFlight = peakInFlight(spec, orders);
    return result;
}

} // namespace archipelago::core
