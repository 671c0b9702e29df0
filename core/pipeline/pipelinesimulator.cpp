#include "pipeline/pipelinesimulator.h"

#include "model/scheduletraits.h"
#include "pipeline/pipelineschedules.h"
#include "pipeline/pipelineshapes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>

namespace archipelago::core {

namespace {

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

using detail::CompiledShape;
using detail::ReplayOp;
using detail::SimulatorScratch;

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
    // `replaying`: the run will be a replay(), which writes every end time before reading it
    // (the buffers need no reset).
    Simulator(const PipelineSpec& spec, const CompiledShape& shape, SimulatorScratch& scratch,
              bool replaying)
        : m_spec(spec)
        , m_orders(shape.orders)
        , m_byPos(shape.byPos)
        , m_stages(spec.stages)
        , m_microBatches(spec.microBatches)
        , m_chunks(spec.stages * spec.virtualStages)
        , m_forwardEnd(scratch.forwardEnd)
        , m_backwardEnd(scratch.backwardEnd)
        , m_weightEnd(scratch.weightEnd)
        , m_activationAt(scratch.activationAt)
        , m_gradientAt(scratch.gradientAt)
        , m_forwardDur(scratch.forwardDur)
        , m_backwardDur(scratch.backwardDur)
        , m_weightDur(scratch.weightDur)
        , m_send(scratch.send)
        , m_pos(scratch.pos)
        , m_queued(scratch.queued)
        , m_work(scratch.work)
        , m_chainFlags(scratch.chainFlags)
    {
        const auto cells =
            static_cast<std::size_t>(m_chunks) * static_cast<std::size_t>(m_microBatches);
        if (replaying) {
            m_forwardEnd.resize(cells);
            m_backwardEnd.resize(cells);
        } else {
            m_forwardEnd.assign(cells, notDone);
            m_backwardEnd.assign(cells, notDone);
        }
        m_weightEnd.resize(splitsWeightGrad(spec.schedule) ? cells : 0);
        const auto n = static_cast<std::size_t>(m_chunks);
        const auto ranks = static_cast<std::size_t>(m_stages);
        m_forwardDur.assign(spec.forwardS.begin(), spec.forwardS.end());
        m_backwardDur.assign(spec.backwardS.begin(), spec.backwardS.end());
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
        m_chainFlags.resize(n);
        for (std::size_t c = 0; c < n; ++c) {
            const int inChain = static_cast<int>(c) % m_orders.chainLength;
            const bool last = inChain == m_orders.chainLength - 1;
            m_chainFlags[c] = static_cast<std::uint8_t>((inChain == 0 ? ReplayOp::ChainStart : 0) |
                                                        (last ? ReplayOp::ChainEnd : 0));
        }
        m_send.assign(spec.sendS.begin(), spec.sendS.end());
        m_send.resize(n, 0.0); // n - 1 boundaries, one unused slot keeps indexing simple
        m_pos.assign(m_orders.begin.begin(), m_orders.begin.end() - 1);
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

    // False when some rank can never run its next op (a cycle in the schedule). With
    // `steps`, appends the ops in the order they ran (for CompiledShape::replay).
    bool run(std::vector<TimelineBlock>* timeline, std::vector<ReplayOp>* steps)
    {
        m_timeline = timeline;
        m_steps = steps;
        m_work.resize(static_cast<std::size_t>(m_stages));
        std::iota(m_work.begin(), m_work.end(), 0);
        m_queued.assign(static_cast<std::size_t>(m_stages), 1);
        for (;;) {
            while (!m_work.empty()) {
                const int r = m_work.back();
                m_work.pop_back();
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

    // Runs the ops in an order a run() of the same shape without loads recorded (see
    // levelOrder): every op's inputs are final when it is reached, so there is no worklist and
    // no readiness check. The arithmetic is advance()'s, operation for operation, so the
    // numbers are bit-identical. No timeline (its blocks come in the worklist's order).
    void replay(const std::vector<ReplayOp>& ops)
    {
        m_timeline = nullptr;
        const std::size_t n = ops.size();
        for (std::size_t i = 0; i < n;) {
            const ReplayOp& first = ops[i];
            const std::size_t count = (first.flags & ReplayOp::PairFirst) ? 2 : 1;
            double ready = 0.0;
            for (std::size_t k = 0; k < count; ++k)
                ready = std::max(ready, inputTime(ops[i + k]));
            replayGroup(&ops[i], count, ready);
            i += count;
        }
    }

    // The group of `count` ops at `ops` (one, or an overlapped pair) replayed, its inputs there
    // at `ready`: runGroup's arithmetic, operation for operation.
    void replayGroup(const ReplayOp* ops, std::size_t count, double ready)
    {
        const auto ri = static_cast<std::size_t>(ops[0].rank);
        const double start = std::max(m_freeAt[ri], ready);
        double finish = start;
        for (std::size_t k = 0; k < count; ++k)
            finish += duration(ops[k]);
        if (m_firstStart[ri] == notDone)
            m_firstStart[ri] = start;
        m_freeAt[ri] = finish;
        double opStart = start;
        for (std::size_t k = 0; k < count; ++k) {
            const double dur = duration(ops[k]);
            m_busy[ri] += dur;
            replayed(ops[k], opStart, count == 2 ? finish : opStart + dur);
            opStart += dur;
        }
    }

    // Runs the ops and the transfers served in the order a run with the same loads recorded
    // (CompiledShape::loadedReplay). Valid when every shared link serves its transfers in the
    // same order under these numbers: its service order is then the one the heap would give
    // (ready-time order), every op's inputs are final when it is reached, and the numbers are
    // bit-identical to run()'s. False as soon as a link would serve out of that order (the
    // caller then runs the simulation).
    bool replayLoaded(const std::vector<ReplayOp>& events)
    {
        m_timeline = nullptr;
        m_lastReady.assign(m_resourceFree.size(), -std::numeric_limits<double>::infinity());
        const std::size_t n = events.size();
        for (std::size_t i = 0; i < n;) {
            const ReplayOp& first = events[i];
            if (first.flags & ReplayOp::Serve) {
                if (!replayServe(first))
                    return false;
                ++i;
                continue;
            }
            const std::size_t count = (first.flags & ReplayOp::PairFirst) ? 2 : 1;
            double ready = 0.0;
            for (std::size_t k = 0; k < count; ++k)
                ready = std::max(ready, inputTime(events[i + k]));
            replayGroup(&events[i], count, ready);
            i += count;
        }
        return true;
    }

    std::vector<double>& busy() { return m_busy; }
    std::vector<double>& freeAt() { return m_freeAt; }
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
    // (Per chunk, precomputed: the worklist asks per op, and a division is slow.)
    bool chainStart(int chunk) const
    {
        return m_chainFlags[static_cast<std::size_t>(chunk)] & ReplayOp::ChainStart;
    }
    bool chainEnd(int chunk) const
    {
        return m_chainFlags[static_cast<std::size_t>(chunk)] & ReplayOp::ChainEnd;
    }

    bool loaded(int boundary, bool backward) const
    {
        const std::size_t k = slot(boundary, backward);
        return !m_loadBegin.empty() && m_loadBegin[k] != m_loadBegin[k + 1];
    }

    // When the data over `boundary` (its cell for the micro-batch: i) reach the consumer, or
    // notDone: a loaded transfer's arrival as served, otherwise the producer's end plus sendS.
    double arrivalAt(int boundary, bool backward, std::size_t i) const
    {
        if (loaded(boundary, backward))
            return (backward ? m_gradientAt : m_activationAt)[i];
        const double t = backward ? m_backwardEnd[i + static_cast<std::size_t>(m_microBatches)]
                                  : m_forwardEnd[i];
        return t == notDone ? notDone : t + m_send[static_cast<std::size_t>(boundary)];
    }

    // Time at which the inputs of `o` are available, or notDone.
    double readyTime(const ReplayOp& o) const
    {
        const auto i = static_cast<std::size_t>(o.cell);
        switch (o.kind) {
        case PipelineOpKind::Forward:
            return (o.flags & ReplayOp::ChainStart)
                       ? 0.0
                       : arrivalAt(o.chunk - 1, false,
                                   i - static_cast<std::size_t>(m_microBatches));
        case PipelineOpKind::Backward: {
            const double own = m_forwardEnd[i];
            if (own == notDone || (o.flags & ReplayOp::ChainEnd))
                return own;
            const double t = arrivalAt(o.chunk, true, i);
            return t == notDone ? notDone : std::max(own, t);
        }
        case PipelineOpKind::WeightGrad:
            return m_backwardEnd[i];
        }
        return notDone;
    }

    void wake(int rank, int self)
    {
        auto& q = m_queued[static_cast<std::size_t>(rank)];
        if (rank != self && !q) {
            q = 1;
            m_work.push_back(rank);
        }
    }

    void record(int rank, const PipelineOp& op, double start, double end)
    {
        static constexpr BlockKind kinds[] = {BlockKind::Forward, BlockKind::Backward,
                                              BlockKind::WeightGrad};
        m_timeline->push_back({rank, m_orders.chunkLocal[static_cast<std::size_t>(op.chunk)],
                               op.microBatch, kinds[static_cast<int>(op.kind)], start, end, false});
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
        if (m_steps)
            m_steps->push_back(serveEvent(t.boundary, t.backward, t.microBatch));
        double begin = 0.0;
        const double arrive = serveAt(t.boundary, t.backward, t.microBatch, t.readyS, begin);
        wake(rankOf(t.backward ? t.boundary : t.boundary + 1), -1);
        if (m_timeline)
            recordSend(t.boundary, t.backward, t.microBatch, begin, arrive);
    }

    // An op as a run records it: with InputLoaded when its input transfer loads a shared link.
    ReplayOp recorded(ReplayOp o) const
    {
        const bool input = o.kind == PipelineOpKind::Forward
                               ? !(o.flags & ReplayOp::ChainStart) && loaded(o.chunk - 1, false)
                           : o.kind == PipelineOpKind::Backward
                               ? !(o.flags & ReplayOp::ChainEnd) && loaded(o.chunk, true)
                               : false;
        if (input)
            o.flags = static_cast<std::uint8_t>(o.flags | ReplayOp::InputLoaded);
        return o;
    }

    // readyTime() of a replayed op, whose inputs are all there: the input neighbour's chunk is
    // one cell row (m cells) away; an InputLoaded op (only in a run with loads) reads the
    // transfer's served arrival.
    double inputTime(const ReplayOp& o) const
    {
        const auto i = static_cast<std::size_t>(o.cell);
        const auto c = static_cast<std::size_t>(o.chunk);
        const auto row = static_cast<std::size_t>(m_microBatches);
        switch (o.kind) {
        case PipelineOpKind::Forward:
            if (o.flags & ReplayOp::ChainStart)
                return 0.0;
            return (o.flags & ReplayOp::InputLoaded) ? m_activationAt[i - row]
                                                     : m_forwardEnd[i - row] + m_send[c - 1];
        case PipelineOpKind::Backward: {
            const double own = m_forwardEnd[i];
            if (o.flags & ReplayOp::ChainEnd)
                return own;
            return std::max(own, (o.flags & ReplayOp::InputLoaded)
                                     ? m_gradientAt[i]
                                     : m_backwardEnd[i + row] + m_send[c]);
        }
        case PipelineOpKind::WeightGrad:
            return m_backwardEnd[i];
        }
        return notDone;
    }

    ReplayOp serveEvent(int boundary, bool backward, int microBatch) const
    {
        ReplayOp e;
        e.cell = static_cast<int>(cell(boundary, microBatch));
        e.chunk = boundary;
        e.rank = -1;
        e.kind = backward ? PipelineOpKind::Backward : PipelineOpKind::Forward;
        e.flags = ReplayOp::Serve;
        return e;
    }

    // The transfer over `boundary` of `microBatch`, ready at `readyS`, served now: it begins
    // when every resource it loads is free, holds each for its service time and arrives at
    // begin + max(sendS, longest service). Returns the arrival; `begin` is set.
    double serveAt(int boundary, bool backward, int microBatch, double readyS, double& begin)
    {
        const std::size_t k = slot(boundary, backward);
        const auto first = static_cast<std::size_t>(m_loadBegin[k]);
        const auto last = static_cast<std::size_t>(m_loadBegin[k + 1]);
        begin = readyS;
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
        const double arrive = begin + std::max(m_send[static_cast<std::size_t>(boundary)], service);
        (backward ? m_gradientAt : m_activationAt)[cell(boundary, microBatch)] = arrive;
        return arrive;
    }

    // A recorded Serve event replayed: false when a resource it loads would now serve it out
    // of ready-time order (or in a tie, which the heap breaks by emission order), so the
    // recorded order is not the one this run's numbers give.
    bool replayServe(const ReplayOp& e)
    {
        const int boundary = e.chunk;
        const bool backward = e.kind == PipelineOpKind::Backward;
        const auto i = static_cast<std::size_t>(e.cell);
        const double ready = backward ? m_backwardEnd[i + static_cast<std::size_t>(m_microBatches)]
                                      : m_forwardEnd[i];
        const std::size_t k = slot(boundary, backward);
        for (int at = m_loadBegin[k]; at < m_loadBegin[k + 1]; ++at) {
            double& previous = m_lastReady[static_cast<std::size_t>(
                m_loads[static_cast<std::size_t>(at)].resource)];
            if (!(ready > previous))
                return false;
            previous = ready;
        }
        double begin = 0.0;
        serveAt(boundary, backward, e.cell % m_microBatches, ready, begin);
        return true;
    }

    // When the inputs of the group of `count` ops at `pos` are all there (an overlapped pair,
    // DualPipe's F&B, waits for the inputs of both ops), or notDone.
    double groupReady(int pos, int count) const
    {
        double ready = 0.0;
        for (int k = 0; k < count; ++k) {
            const double t = readyTime(m_byPos[static_cast<std::size_t>(pos + k)]);
            if (t == notDone)
                return notDone;
            ready = std::max(ready, t);
        }
        return ready;
    }

    void advance(int r)
    {
        const auto ri = static_cast<std::size_t>(r);
        const int end = m_orders.begin[ri + 1];
        int& pos = m_pos[ri];
        while (pos < end) {
            const int count =
                (m_byPos[static_cast<std::size_t>(pos)].flags & ReplayOp::PairFirst) ? 2 : 1;
            const double ready = groupReady(pos, count);
            if (ready == notDone)
                return;
            if (m_steps)
                for (int k = 0; k < count; ++k)
                    m_steps->push_back(recorded(m_byPos[static_cast<std::size_t>(pos + k)]));
            const int at = pos;
            pos += count;
            runGroup(r, at, count, ready);
        }
    }

    // Runs the group of `count` ops at `pos` on rank r, its inputs there at `ready`.
    void runGroup(int r, int pos, int count, double ready)
    {
        const auto ri = static_cast<std::size_t>(r);
        const double start = std::max(m_freeAt[ri], ready);
        double finish = start;
        for (int k = 0; k < count; ++k)
            finish += duration(m_byPos[static_cast<std::size_t>(pos + k)]);
        if (m_firstStart[ri] == notDone)
            m_firstStart[ri] = start;
        m_freeAt[ri] = finish;
        double opStart = start;
        for (int k = 0; k < count; ++k) {
            // A pair's outputs are final, and sent, at the end of the pair; the timeline
            // shows its F and B one after the other.
            const PipelineOp& o = m_orders.ops[static_cast<std::size_t>(pos + k)];
            const double dur = duration(m_byPos[static_cast<std::size_t>(pos + k)]);
            m_busy[ri] += dur;
            if (m_timeline)
                record(r, o, opStart, opStart + dur);
            finished(r, o, opStart, count == 2 ? finish : opStart + dur);
            opStart += dur;
        }
    }

    double duration(const ReplayOp& o) const
    {
        const auto c = static_cast<std::size_t>(o.chunk);
        switch (o.kind) {
        case PipelineOpKind::Forward:
            return m_forwardDur[c];
        case PipelineOpKind::Backward:
            return (o.flags & ReplayOp::FullBackward) ? m_backwardDur[c] + m_weightDur[c]
                                                      : m_backwardDur[c];
        case PipelineOpKind::WeightGrad:
            return m_weightDur[c];
        }
        return 0.0;
    }

    // finished() of a replayed op: its transfers need no wake-up and no timeline block.
    void replayed(const ReplayOp& o, double start, double finish)
    {
        const auto c = static_cast<std::size_t>(o.chunk);
        const auto i = static_cast<std::size_t>(o.cell);
        if (o.kind == PipelineOpKind::Forward) {
            m_forwardEnd[i] = finish;
            m_firstForward[c] = std::min(m_firstForward[c], start);
        } else if (o.kind == PipelineOpKind::Backward) {
            m_backwardEnd[i] = finish;
        } else {
            m_weightEnd[i] = finish;
        }
        const bool final = o.kind == PipelineOpKind::WeightGrad
                               ? m_splitW
                               : o.kind == PipelineOpKind::Backward &&
                                     (!m_splitW || (o.flags & ReplayOp::FullBackward));
        if (final && finish >= m_gradEnd[c]) {
            m_gradStart[c] = start;
            m_gradEnd[c] = finish;
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
        } else {
            m_weightEnd[cell(op.chunk, op.microBatch)] = finish;
        }
        // The op that makes the chunk's weight gradients final for this micro-batch.
        const bool final =
            op.kind == PipelineOpKind::WeightGrad
                ? m_splitW
                : op.kind == PipelineOpKind::Backward && (!m_splitW || op.fullBackward);
        if (final && finish >= m_gradEnd[c]) {
            m_gradStart[c] = start;
            m_gradEnd[c] = finish;
        }
    }

    const PipelineSpec& m_spec;
    const RankOrders& m_orders;
    const std::vector<ReplayOp>& m_byPos;
    int m_stages;
    int m_microBatches;
    int m_chunks;
    bool m_splitW = false;
    // Per chunk (from the thread's scratch, reused between calls).
    std::vector<double>& m_forwardEnd;
    std::vector<double>& m_backwardEnd;
    std::vector<double>& m_weightEnd; // split-W schedules only (pipelineperiodic.cpp reads it)
    // Per (boundary, micro-batch), for loaded transfers only: when the activations reach chunk
    // boundary + 1, and when the gradients reach chunk boundary.
    std::vector<double>& m_activationAt;
    std::vector<double>& m_gradientAt;
    std::vector<double>& m_forwardDur;
    std::vector<double>& m_backwardDur;
    std::vector<double>& m_weightDur;
    std::vector<double>& m_send;
    std::vector<int>& m_pos;
    std::vector<char>& m_queued;
    std::vector<int>& m_work;
    std::vector<std::uint8_t>& m_chainFlags; // per chunk, ReplayOp::ChainStart / ChainEnd
    // Per rank and per chunk: moved into the result.
    std::vector<double> m_freeAt, m_firstStart, m_busy;
    std::vector<double> m_firstForward, m_gradStart, m_gradEnd;
    std::vector<TimelineBlock>* m_timeline = nullptr;
    std::vector<ReplayOp>* m_steps = nullptr;
    // Shared resources (empty without loads).
    std::vector<int> m_loadBegin;
    std::vector<PipelineLoad> m_loads;
    std::vector<double> m_resourceFree;
    std::vector<double> m_lastReady; // per resource, the ready time last served (replayLoaded)
    std::vector<PipelineResourceUsage> m_usage;
    std::vector<Pending> m_heap;
    std::uint64_t m_seq = 0;
};

} // namespace

PipelineResult simulatePipeline(const PipelineSpec& spec)
{
    if (std::string error = detail::validateSpec(spec); !error.empty())
        return failure(std::move(error));
    // A long pipeline: once its steady state repeats, a shorter run of the same shape gives it
    // (pipelineperiodic.cpp); otherwise, or for a timeline, it is simulated.
    if (!spec.recordTimeline)
        if (std::optional<PipelineResult> r = detail::extrapolatePeriodic(spec))
            return std::move(*r);
    return detail::simulateValid(spec);
}

namespace detail {

PipelineResult simulateValid(const PipelineSpec& spec, bool keepCells)
{
    SimulatorScratch& scr = detail::scratch();
    std::unique_ptr<CompiledShape> owned; // a shape too big for the cache
    // A run without loads records its step order into the (cached) shape. The cache drops
    // entries only in shapeFor, so the reference stays valid to the end.
    CompiledShape& shape = scr.shapeFor(spec, owned);
    const RankOrders& orders = shape.orders;
    PipelineResult result;
    if (spec.recordTimeline) {
        const std::size_t ops = orders.ops.size();
        result.timeline.reserve(spec.sendS.empty() ? ops : 2 * ops);
    }
    std::vector<TimelineBlock>* timeline = spec.recordTimeline ? &result.timeline : nullptr;
    // Without a timeline, a shape run before is replayed in the order it ran: without loads
    // always (its order is structural), with loads when their structure is the recorded one
    // and the shared links serve in the recorded order (replayLoaded checks it as it goes).
    const bool loaded = !spec.loads.empty();
    std::optional<Simulator> sim;
    bool done = false;
    if (!spec.recordTimeline && !loaded && !shape.replay.empty()) {
        sim.emplace(spec, shape, scr, true);
        sim->replay(shape.replay);
        done = true;
        ++scr.replays;
    } else if (!spec.recordTimeline && loaded && !shape.loadedReplay.empty() &&
               shape.loadsMatch(spec)) {
        sim.emplace(spec, shape, scr, true);
        done = sim->replayLoaded(shape.loadedReplay);
        ++(done ? scr.loadedReplays : scr.loadedReplaysRefused);
    }
    if (!done) {
        // Record the order: without loads on the shape's first run, with loads on every run
        // that simulates (the numbers of the last one are the likeliest to come again).
        const bool recordSteps = !owned && (loaded || shape.replay.empty());
        std::vector<ReplayOp> steps;
        if (recordSteps)
            steps.reserve(orders.ops.size() * (loaded ? 2 : 1));
        sim.emplace(spec, shape, scr, false);
        if (!sim->run(timeline, recordSteps ? &steps : nullptr)) {
            scr.trim();
            return failure("schedule deadlock: some rank waits on an op that never runs");
        }
        if (recordSteps && loaded) {
            shape.loadedReplay = std::move(steps);
            shape.loadKey = CompiledShape::loadKeyOf(spec);
        } else if (recordSteps) {
            shape.replay = detail::levelOrder(steps, spec.stages, spec.microBatches,
                                              static_cast<std::size_t>(spec.stages) *
                                                  static_cast<std::size_t>(spec.virtualStages) *
                                                  static_cast<std::size_t>(spec.microBatches));
        }
    }

    if (!keepCells)
        scr.trim();
    std::vector<double>& freeAt = sim->freeAt();
    result.makespanS = *std::max_element(freeAt.begin(), freeAt.end());
    for (int r = 0; r < spec.stages; ++r) {
        const auto ri = static_cast<std::size_t>(r);
        result.periodS = std::max(result.periodS, freeAt[ri] - sim->firstStart()[ri]);
    }
    result.finishS = std::move(freeAt);
    result.busyS = std::move(sim->busy());
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
    result.peakInFlight = shape.peaks;
    result.firstForwardStartS = std::move(sim->firstForward());
    result.gradReadyStartS = std::move(sim->gradStart());
    result.gradReadyEndS = std::move(sim->gradEnd());
    result.resources = std::move(sim->usage());
    return result;
}

} // namespace detail

double PipelineResult::resourceBusyAfterS(std::size_t resource, double fromS) const
{
    if (resource >= resources.size())
        return 0.0;
    const auto& spans = resources[resource].busyIntervals;
    // The intervals are disjoint and in time order: skip those that end before fromS.
    auto it = std::lower_bound(
        spans.begin(), spans.end(), fromS,
        [](const std::pair<double, double>& s, double t) { return s.second <= t; });
    double busy = 0.0;
    for (; it != spans.end(); ++it)
        busy += std::max(0.0, std::min(it->second, makespanS) - std::max(it->first, fromS));
    return busy;
}

} // namespace archipelago::core
