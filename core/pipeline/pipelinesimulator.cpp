#include "pipeline/pipelinesimulator.h"

#include "model/scheduletraits.h"
#include "pipeline/pipelineschedules.h"

#include <algorithm>
#include <cmath>
#include <functional>
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
    const ScheduleTraits& traits = scheduleTraits(spec.schedule);
    if (traits.fixedChunksPerRank > 0 && v != traits.fixedChunksPerRank)
        return std::string(traits.displayName) + " runs " +
               std::to_string(traits.fixedChunksPerRank) + " model chunks per rank (virtual stages)";
    if (v != 1 && traits.fixedChunksPerRank == 0 && !traits.interleaved)
        return "virtual stages > 1 need the interleaved 1F1B schedule";
    // DeepSeek-V3 report section 3.2.1: DualPipe needs p and m divisible by 2; dualpipe.py
    // also asserts m >= 2p (num_chunks >= num_ranks * 2: each direction fills all p ranks).
    if (traits.modelCopies == 2 && (p % 2 != 0 || spec.microBatches % 2 != 0 ||
                                    spec.microBatches < 2 * p))
        return "DualPipe needs an even pp and an even micro-batch count of at least 2 * pp "
               "(pp " + std::to_string(p) + ", " + std::to_string(spec.microBatches) +
               " micro-batches)";
    // Megatron-LM forward_backward_pipelining_with_interleaving: micro-batches run in groups
    // of p through the chunks; a last group smaller than p is rejected (dependency bubbles).
    if (traits.interleaved && v > 1 && spec.microBatches % p != 0)
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
    for (const PipelineLoad& l : spec.loads) {
        if (l.boundary < 0 || static_cast<std::size_t>(l.boundary) + 1 >= n || l.resource < 0 ||
            static_cast<std::size_t>(l.resource) >= spec.resources.size())
            return "a shared-link load names no chunk boundary or no resource";
        if (!std::isfinite(l.serviceS) || l.serviceS < 0.0)
            return "times must be finite and non-negative";
    }
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
// arrived; without shared resources the result is the longest path through the DAG of
// rank-order and data edges, so ranks can be advanced in any order: a worklist re-visits a
// rank when a neighbour progresses. A transfer that loads a shared resource waits in a heap by
// ready time; once the worklist is empty no transfer can become ready before the heap's
// earliest (every op still to run waits on a transfer in the heap), so serving that one
// keeps each resource FIFO in ready-time order.
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
        m_splitW = splitsWeightGrad(spec.schedule);
        if (m_splitW) {
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
        m_firstForward.assign(n, std::numeric_limits<double>::infinity());
        m_gradStart.assign(n, 0.0);
        m_gradEnd.assign(n, 0.0);
        if (!spec.loads.empty()) {
            // Loads grouped by (boundary, direction): slot 2c + backward, CSR offsets.
            m_loadBegin.assign(2 * n + 1, 0);
            for (const PipelineLoad& l : spec.loads)
                ++m_loadBegin[slot(l.boundary, l.backward) + 1];
            std::partial_sum(m_loadBegin.begin(), m_loadBegin.end(), m_loadBegin.begin());
            m_loads.resize(spec.loads.size());
            std::vector<int> fill(m_loadBegin.begin(), m_loadBegin.end() - 1);
            for (const PipelineLoad& l : spec.loads)
                m_loads[static_cast<std::size_t>(fill[slot(l.boundary, l.backward)]++)] = l;
            m_resourceFree.assign(spec.resources.size(), 0.0);
            m_activationAt.assign(cells, notDone);
            m_gradientAt.assign(cells, notDone);
        }
        m_usage.resize(spec.resources.size());
        for (std::size_t i = 0; i < spec.resources.size(); ++i) {
            const PipelineResource& res = spec.resources[i];
            m_usage[i].linkClass = res.linkClass;
            m_usage[i].dciLinkId = res.dciLinkId;
            m_usage[i].fromA = res.fromA;
            m_usage[i].capacityGBps = res.capacityGBps;
        }
        // At most one busy interval per load and micro-batch: one allocation per resource.
        for (PipelineResourceUsage& u : m_usage)
            u.busyIntervals.reserve(spec.loads.size() * static_cast<std::size_t>(m_microBatches));
    }

    // False when some rank can never run its next op (a cycle in the schedule).
    bool run(std::vector<TimelineBlock>* timeline)
    {
        m_timeline = timeline;
        std::vector<int> work(static_cast<std::size_t>(m_stages));
        std::iota(work.begin(), work.end(), 0);
        m_queued.assign(static_cast<std::size_t>(m_stages), 1);
        m_work = &work;
        for (;;) {
            while (!work.empty()) {
                const int r = work.back();
                work.pop_back();
                m_queued[static_cast<std::size_t>(r)] = 0;
                advance(r);
            }
            if (m_heap.empty())
                break;
            std::pop_heap(m_heap.begin(), m_heap.end(), std::greater<>{});
            const Pending t = m_heap.back();
            m_heap.pop_back();
            serve(t);
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
    std::vector<double>& firstForward() { return m_firstForward; }
    std::vector<double>& gradStart() { return m_gradStart; }
    std::vector<double>& gradEnd() { return m_gradEnd; }
    std::vector<PipelineResourceUsage>& usage() { return m_usage; }

private:
    static constexpr double notDone = -1.0;

    // A transfer waiting for its resources, ordered by ready time, then by emission.
    struct Pending
    {
        double readyS;
        std::uint64_t seq;
        int boundary;
        int microBatch;
        bool backward;
        bool operator>(const Pending& o) const
        {
            return readyS != o.readyS ? readyS > o.readyS : seq > o.seq;
        }
    };

    static std::size_t slot(int boundary, bool backward)
    {
        return 2 * static_cast<std::size_t>(boundary) + (backward ? 1 : 0);
    }

    std::size_t cell(int chunk, int microBatch) const
    {
        return static_cast<std::size_t>(chunk) * static_cast<std::size_t>(m_microBatches) +
               static_cast<std::size_t>(microBatch);
    }

    int rankOf(int chunk) const { return m_orders.chunkRank[static_cast<std::size_t>(chunk)]; }
    // The first and last chunk of a micro-batch's chain (DualPipe has two chains of p).
    bool chainStart(int chunk) const { return chunk % m_orders.chainLength == 0; }
    bool chainEnd(int chunk) const
    {
        return chunk % m_orders.chainLength == m_orders.chainLength - 1;
    }

    bool loaded(int boundary, bool backward) const
    {
        const std::size_t k = slot(boundary, backward);
        return !m_loadBegin.empty() && m_loadBegin[k] != m_loadBegin[k + 1];
    }

    // When the data over `boundary` reach the consumer, or notDone: a loaded transfer's
    // arrival as served, otherwise the producer's end plus sendS.
    double arrival(int boundary, bool backward, int microBatch) const
    {
        const std::size_t i = cell(boundary, microBatch);
        if (loaded(boundary, backward))
            return (backward ? m_gradientAt : m_activationAt)[i];
        const double t = backward ? m_backwardEnd[i + static_cast<std::size_t>(m_microBatches)]
                                  : m_forwardEnd[i];
        return t == notDone ? notDone : t + m_send[static_cast<std::size_t>(boundary)];
    }

    // Time at which the inputs of `op` are available, or notDone.
    double readyTime(const PipelineOp& op) const
    {
        switch (op.kind) {
        case PipelineOpKind::Forward:
            return chainStart(op.chunk) ? 0.0 : arrival(op.chunk - 1, false, op.microBatch);
        case PipelineOpKind::Backward: {
            const double own = m_forwardEnd[cell(op.chunk, op.microBatch)];
            if (own == notDone || chainEnd(op.chunk))
                return own;
            const double t = arrival(op.chunk, true, op.microBatch);
            return t == notDone ? notDone : std::max(own, t);
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
            return op.fullBackward ? m_backwardDur[c] + m_weightDur[c] : m_backwardDur[c];
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
        static constexpr BlockKind kinds[] = {BlockKind::Forward, BlockKind::Backward,
                                              BlockKind::WeightGrad};
        m_timeline->push_back({rank, m_orders.chunkLocal[static_cast<std::size_t>(op.chunk)],
                               op.microBatch, kinds[static_cast<int>(op.kind)], start, end,
                               false});
    }

    // Transfer over `boundary` (activations of chunk boundary to boundary + 1, or gradients of
    // boundary + 1 to boundary) between begin and its arrival: the consumer may run.
    void recordSend(int boundary, bool backward, int microBatch, double beginS, double arriveS)
    {
        if (arriveS <= beginS)
            return;
        const int from = backward ? boundary + 1 : boundary;
        const auto b = static_cast<std::size_t>(boundary);
        const bool dci = b < m_spec.sendCrossesDci.size() && m_spec.sendCrossesDci[b];
        m_timeline->push_back({rankOf(from), m_orders.chunkLocal[static_cast<std::size_t>(from)],
                               microBatch, BlockKind::Send, beginS, arriveS, dci});
    }

    // The transfer an op starts when it ends at `readyS`: unloaded, its consumer may look at
    // it now (arrival() adds sendS); loaded, it waits for its resources in the heap.
    void emit(int boundary, bool backward, int microBatch, double readyS, int self)
    {
        if (!loaded(boundary, backward)) {
            wake(rankOf(backward ? boundary : boundary + 1), self);
            if (m_timeline)
                recordSend(boundary, backward, microBatch, readyS,
                           readyS + m_send[static_cast<std::size_t>(boundary)]);
            return;
        }
        m_heap.push_back({readyS, m_seq++, boundary, microBatch, backward});
        std::push_heap(m_heap.begin(), m_heap.end(), std::greater<>{});
    }

    // FIFO on every resource the transfer loads (the heap hands them out in ready order).
    void serve(const Pending& t)
    {
        const std::size_t k = slot(t.boundary, t.backward);
        const auto first = static_cast<std::size_t>(m_loadBegin[k]);
        const auto last = static_cast<std::size_t>(m_loadBegin[k + 1]);
        double begin = t.readyS;
        for (std::size_t i = first; i < last; ++i)
            begin = std::max(begin, m_resourceFree[static_cast<std::size_t>(m_loads[i].resource)]);
        double service = 0.0;
        for (std::size_t i = first; i < last; ++i) {
            const PipelineLoad& l = m_loads[i];
            const auto res = static_cast<std::size_t>(l.resource);
            m_resourceFree[res] = begin + l.serviceS;
            service = std::max(service, l.serviceS);
            if (l.serviceS <= 0.0)
                continue;
            PipelineResourceUsage& u = m_usage[res];
            u.busyS += l.serviceS;
            if (!u.busyIntervals.empty() && u.busyIntervals.back().second >= begin)
                u.busyIntervals.back().second = begin + l.serviceS; // back to back: merge
            else
                u.busyIntervals.emplace_back(begin, begin + l.serviceS);
        }
        const double arrive =
            begin + std::max(m_send[static_cast<std::size_t>(t.boundary)], service);
        (t.backward ? m_gradientAt : m_activationAt)[cell(t.boundary, t.microBatch)] = arrive;
        wake(rankOf(t.backward ? t.boundary : t.boundary + 1), -1);
        if (m_timeline)
            recordSend(t.boundary, t.backward, t.microBatch, begin, arrive);
    }

    void advance(int r)
    {
        const auto ri = static_cast<std::size_t>(r);
        const int end = m_orders.begin[ri + 1];
        int& pos = m_pos[ri];
        while (pos < end) {
            const PipelineOp& op = m_orders.ops[static_cast<std::size_t>(pos)];
            // An overlapped pair (DualPipe's F&B) waits for the inputs of both ops.
            const int count = op.pairedWithNext && pos + 1 < end ? 2 : 1;
            double ready = 0.0;
            for (int k = 0; k < count; ++k) {
                const double t = readyTime(m_orders.ops[static_cast<std::size_t>(pos + k)]);
                if (t == notDone)
                    return;
                ready = std::max(ready, t);
            }
            const double start = std::max(m_freeAt[ri], ready);
            double finish = start;
            for (int k = 0; k < count; ++k)
                finish += duration(m_orders.ops[static_cast<std::size_t>(pos + k)]);
            if (m_firstStart[ri] == notDone)
                m_firstStart[ri] = start;
            m_freeAt[ri] = finish;
            double opStart = start;
            for (int k = 0; k < count; ++k) {
                // A pair's outputs are final, and sent, at the end of the pair; the timeline
                // shows its F and B one after the other.
                const PipelineOp& o = m_orders.ops[static_cast<std::size_t>(pos + k)];
                const double dur = duration(o);
                m_busy[ri] += dur;
                if (m_timeline)
                    record(r, o, opStart, opStart + dur);
                finished(r, o, opStart, count == 2 ? finish : opStart + dur);
                opStart += dur;
            }
            pos += count;
        }
    }

    // Records the end of `op` (started at `start`) and starts the transfers it feeds.
    void finished(int r, const PipelineOp& op, double start, double finish)
    {
        const auto c = static_cast<std::size_t>(op.chunk);
        if (op.kind == PipelineOpKind::Forward) {
            m_forwardEnd[cell(op.chunk, op.microBatch)] = finish;
            m_firstForward[c] = std::min(m_firstForward[c], start);
            if (!chainEnd(op.chunk))
                emit(op.chunk, false, op.microBatch, finish, r);
        } else if (op.kind == PipelineOpKind::Backward) {
            m_backwardEnd[cell(op.chunk, op.microBatch)] = finish;
            if (!chainStart(op.chunk))
                emit(op.chunk - 1, true, op.microBatch, finish, r);
        }
        // The op that makes the chunk's weight gradients final for this micro-batch.
        const bool final = op.kind == PipelineOpKind::WeightGrad
                               ? m_splitW
                               : op.kind == PipelineOpKind::Backward &&
                                     (!m_splitW || op.fullBackward);
        if (final && finish >= m_gradEnd[c]) {
            m_gradStart[c] = start;
            m_gradEnd[c] = finish;
        }
    }

    const PipelineSpec& m_spec;
    const RankOrders& m_orders;
    int m_stages;
    int m_microBatches;
    int m_chunks;
    bool m_splitW = false;
    std::vector<double> m_forwardDur, m_backwardDur, m_weightDur, m_send;
    std::vector<double> m_forwardEnd, m_backwardEnd;
    // Per (boundary, micro-batch), for loaded transfers only: when the activations reach chunk
    // boundary + 1, and when the gradients reach chunk boundary.
    std::vector<double> m_activationAt, m_gradientAt;
    std::vector<int> m_pos;
    std::vector<double> m_freeAt, m_firstStart, m_busy;
    std::vector<double> m_firstForward, m_gradStart, m_gradEnd;
    std::vector<char> m_queued;
    std::vector<int>* m_work = nullptr;
    std::vector<TimelineBlock>* m_timeline = nullptr;
    // Shared resources (empty without loads).
    std::vector<int> m_loadBegin;
    std::vector<PipelineLoad> m_loads;
    std::vector<double> m_resourceFree;
    std::vector<PipelineResourceUsage> m_usage;
    std::vector<Pending> m_heap;
    std::uint64_t m_seq = 0;
};

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
    result.firstForwardStartS = std::move(sim.firstForward());
    result.gradReadyStartS = std::move(sim.gradStart());
    result.gradReadyEndS = std::move(sim.gradEnd());
    result.resources = std::move(sim.usage());
    return result;
}

double PipelineResult::resourceBusyAfterS(std::size_t resource, double fromS) const
{
    if (resource >= resources.size())
        return 0.0;
    const auto& spans = resources[resource].busyIntervals;
    // The intervals are disjoint and in time order: skip those that end before fromS.
    auto it = std::lower_bound(spans.begin(), spans.end(), fromS,
                               [](const std::pair<double, double>& s, double t) {
                                   return s.second <= t;
                               });
    double busy = 0.0;
    for (; it != spans.end(); ++it)
        busy += std::max(0.0, std::min(it->second, makespanS) - std::max(it->first, fromS));
    return busy;
}

} // namespace archipelago::core
