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
        : spec_(spec)
        , orders_(orders)
        , p_(spec.stages)
        , m_(spec.microBatches)
        , chunks_(spec.stages * spec.virtualStages)
    {
        const auto cells = static_cast<std::size_t>(chunks_) * static_cast<std::size_t>(m_);
        forwardEnd_.assign(cells, notDone);
        backwardEnd_.assign(cells, notDone);
        const auto n = static_cast<std::size_t>(chunks_);
        const auto ranks = static_cast<std::size_t>(p_);
        forwardDur_ = spec.forwardS;
        backwardDur_ = spec.backwardS;
        weightDur_.assign(n, 0.0);
        if (splitsWeightGrad(spec.schedule)) {
            for (std::size_t c = 0; c < n; ++c) {
                // Qi et al. 2023 section 2: B + W = full backward; T_B = T_W when not given.
                weightDur_[c] =
                    spec.weightGradS.empty() ? spec.backwardS[c] / 2.0 : spec.weightGradS[c];
                backwardDur_[c] = spec.backwardS[c] - weightDur_[c];
            }
        }
        send_ = spec.sendS;
        send_.resize(n, 0.0); // n - 1 boundaries, one unused slot keeps indexing simple
        pos_.assign(orders.begin.begin(), orders.begin.end() - 1);
        freeAt_.assign(ranks, 0.0);
        firstStart_.assign(ranks, notDone);
        busy_.assign(ranks, 0.0);
    }

    // False when some rank can never run its next op (a cycle in the schedule).
    bool run(std::vector<TimelineBlock>* timeline)
    {
        timeline_ = timeline;
        std::vector<int> work(static_cast<std::size_t>(p_));
        std::iota(work.begin(), work.end(), 0);
        queued_.assign(static_cast<std::size_t>(p_), 1);
        work_ = &work;
        while (!work.empty()) {
            const int r = work.back();
            work.pop_back();
            queued_[static_cast<std::size_t>(r)] = 0;
            advance(r);
        }
        for (int r = 0; r < p_; ++r)
            if (pos_[static_cast<std::size_t>(r)] != orders_.begin[static_cast<std::size_t>(r) + 1])
                return false;
        return true;
    }

    const std::vector<double>& busy() const { return busy_; }
    const std::vector<double>& freeAt() const { return freeAt_; }
    const std::vector<double>& firstStart() const { return firstStart_; }

private:
    static constexpr double notDone = -1.0;

    std::size_t cell(int chunk, int microBatch) const
    {
        return static_cast<std::size_t>(chunk) * static_cast<std::size_t>(m_) +
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
            if (const double t = forwardEnd_[cell(op.chunk - 1, op.microBatch)]; t != notDone)
                return t + send_[c - 1];
            return notDone;
        case PipelineOpKind::Backward: {
            const double own = forwardEnd_[cell(op.chunk, op.microBatch)];
            if (own == notDone || op.chunk == chunks_ - 1)
                return own;
            const double t = backwardEnd_[cell(op.chunk + 1, op.microBatch)];
            return t == notDone ? notDone : std::max(own, t + send_[c]);
        }
        case PipelineOpKind::WeightGrad:
            return backwardEnd_[cell(op.chunk, op.microBatch)];
        }
        return notDone;
    }

    double duration(const PipelineOp& op) const
    {
        const auto c = static_cast<std::size_t>(op.chunk);
        switch (op.kind) {
        case PipelineOpKind::Forward:
            return forwardDur_[c];
        case PipelineOpKind::Backward:
            return backwardDur_[c];
        case PipelineOpKind::WeightGrad:
            return weightDur_[c];
        }
        return 0.0;
    }

    void wake(int rank, int self)
    {
        auto& q = queued_[static_cast<std::size_t>(rank)];
        if (rank != self && !q) {
            q = 1;
            work_->push_back(rank);
        }
    }

    void record(int rank, const PipelineOp& op, double start, double end)
    {
        const int vIndex = op.chunk / p_;
        static constexpr BlockKind kinds[] = {BlockKind::Forward, BlockKind::Backward,
                                              BlockKind::WeightGrad};
        timeline_->push_back(
            {rank, vIndex, op.microBatch, kinds[static_cast<int>(op.kind)], start, end, false});
        // The transfer this op starts: activations to chunk + 1, or gradients to chunk - 1.
        int boundary = -1;
        if (op.kind == PipelineOpKind::Forward && op.chunk + 1 < chunks_)
            boundary = op.chunk;
        else if (op.kind == PipelineOpKind::Backward && op.chunk > 0)
            boundary = op.chunk - 1;
        if (boundary < 0)
            return;
        const double t = send_[static_cast<std::size_t>(boundary)];
        if (t <= 0.0)
            return;
        const auto b = static_cast<std::size_t>(boundary);
        const bool dci = b < spec_.sendCrossesDci.size() && spec_.sendCrossesDci[b];
        timeline_->push_back({rank, vIndex, op.microBatch, BlockKind::Send, end, end + t, dci});
    }

    void advance(int r)
    {
        const auto ri = static_cast<std::size_t>(r);
        const int end = orders_.begin[ri + 1];
        int& pos = pos_[ri];
        while (pos < end) {
            const PipelineOp& op = orders_.ops[static_cast<std::size_t>(pos)];
            const double ready = readyTime(op);
            if (ready == notDone)
                return;
            const double start = std::max(freeAt_[ri], ready);
            const double dur = duration(op);
            const double finish = start + dur;
            if (firstStart_[ri] == notDone)
                firstStart_[ri] = start;
            freeAt_[ri] = finish;
            busy_[ri] += dur;
            ++pos;
            if (timeline_)
                record(r, op, start, finish);
            if (op.kind == PipelineOpKind::Forward) {
                forwardEnd_[cell(op.chunk, op.microBatch)] = finish;
                if (op.chunk + 1 < chunks_)
                    wake((op.chunk + 1) % p_, r);
            } else if (op.kind == PipelineOpKind::Backward) {
                backwardEnd_[cell(op.chunk, op.microBatch)] = finish;
                if (op.chunk > 0)
                    wake((op.chunk - 1) % p_, r);
            }
        }
    }

    const PipelineSpec& spec_;
    const RankOrders& orders_;
    int p_;
    int m_;
    int chunks_;
    std::vector<double> forwardDur_, backwardDur_, weightDur_, send_;
    std::vector<double> forwardEnd_, backwardEnd_;
    std::vector<int> pos_;
    std::vector<double> freeAt_, firstStart_, busy_;
    std::vector<char> queued_;
    std::vector<int>* work_ = nullptr;
    std::vector<TimelineBlock>* timeline_ = nullptr;
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
