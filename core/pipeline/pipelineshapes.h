// The simulator's per-thread cache of pipeline shapes (pipelinesimulator.cpp uses it; nothing
// else should): the rank orders, peak in-flight activations and recorded op order of the
// shapes a thread simulated last, and the per-cell buffers it reuses between calls.
#pragma once

#include "pipeline/pipelineschedules.h"
#include "pipeline/pipelinesimulator.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace archipelago::core::detail {

// One op of a replay (below), its indices precomputed: no division or lookup left per op.
struct ReplayOp
{
    enum Flag : std::uint8_t
    {
        ChainStart = 1,   // the first chunk of its chain: a forward needs no input
        ChainEnd = 2,     // the last chunk of its chain: a backward needs only its own forward
        FullBackward = 4, // PipelineOp::fullBackward
        PairFirst = 8,    // the first op of an overlapped pair (the next op is the second)
        // Not an op: a transfer that loads shared links served (a run with loads records
        // them between its ops). cell = boundary * m + micro-batch, chunk = the boundary,
        // kind Forward for its activations, Backward for its gradients.
        Serve = 16,
        // In a run with loads: the op's input transfer loads shared links (its arrival is the
        // served one, not the producer's end plus sendS).
        InputLoaded = 32,
    };
    int cell = 0; // chunk * m + micro-batch
    int chunk = 0;
    int rank = 0;
    PipelineOpKind kind = PipelineOpKind::Forward;
    std::uint8_t flags = 0;
};

// Everything about a simulation that depends on the schedule's shape alone (schedule, p, v, m
// and the cross-DC extra warm-ups per rank), not on any time: the rank orders, the peak
// in-flight activations and, once a run without shared-resource loads has made it, the order
// in which that run executed the ops. Without loads, which op becomes runnable when is purely
// structural (an op waits on ops, never on a time), so the same shape always runs its ops in
// the same order; replaying that order gives bit-identical numbers (every time is computed
// from the same inputs by the same operations, ties included) without the worklist.
struct CompiledShape
{
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    int p = 0;
    int v = 0;
    int m = 0;
    std::vector<int> extras; // dciExtraMicroBatches per rank
    RankOrders orders;
    std::vector<int> peaks; // peakInFlight(orders)
    // orders.ops decoded for the worklist, same indices (PairFirst: the op and the next run as
    // one overlapped pair).
    std::vector<ReplayOp> byPos;
    // The ops in the order a run without loads executed them (empty until one did).
    std::vector<ReplayOp> replay;
    // The ops and the transfers served (Serve) in the order a run with loads executed them,
    // and the loads' structure it had (boundary, direction and resource of each, then the
    // resource count). A run whose loads have that structure and whose shared links serve
    // their transfers in that order under its own numbers replays it (pipelinesimulator.cpp).
    std::vector<ReplayOp> loadedReplay;
    std::vector<int> loadKey;

    bool loadsMatch(const PipelineSpec& spec) const
    {
        if (loadKey.size() != 3 * spec.loads.size() + 1 ||
            loadKey.back() != static_cast<int>(spec.resources.size()))
            return false;
        for (std::size_t i = 0; i < spec.loads.size(); ++i) {
            const PipelineLoad& l = spec.loads[i];
            if (loadKey[3 * i] != l.boundary || loadKey[3 * i + 1] != (l.backward ? 1 : 0) ||
                loadKey[3 * i + 2] != l.resource)
                return false;
        }
        return true;
    }
    static std::vector<int> loadKeyOf(const PipelineSpec& spec)
    {
        std::vector<int> key;
        key.reserve(3 * spec.loads.size() + 1);
        for (const PipelineLoad& l : spec.loads)
            key.insert(key.end(), {l.boundary, l.backward ? 1 : 0, l.resource});
        key.push_back(static_cast<int>(spec.resources.size()));
        return key;
    }

    bool matches(const PipelineSpec& spec, const std::vector<int>& extrasIn) const
    {
        return schedule == spec.schedule && p == spec.stages && v == spec.virtualStages &&
               m == spec.microBatches && extras == extrasIn;
    }
};

// Per-thread scratch of the simulator: a few recently used shapes (an explorer evaluates many
// design points of one pipeline shape in a row) and the per-(chunk, micro-batch) buffers, kept
// between calls so that a simulation allocates little more than its result.
struct SimulatorScratch
{
    // Bounded: a shape holds O(p * v * m) ops (about 64 bytes each with its recorded orders),
    // so a few are kept, up to a million ops each and a million and a half together (about
    // 100 MB a thread at most): the explorer's largest point (kMaxSweepCells) fits, and a
    // shape past the old 100,000 no longer falls off a cliff to the worklist on every call.
    static constexpr std::size_t maxShapes = 8;
    static constexpr std::size_t maxCachedOps = 1'000'000;
    static constexpr std::size_t cachedOpsBudget = 1'500'000;
    std::vector<std::unique_ptr<CompiledShape>> shapes; // most recently used first
    std::vector<int> extras;                            // the key being looked up
    // This thread's simulations by how they ran (tests/test_pipelinereplay reads them):
    // replayed without loads, replayed with loads, and replays with loads refused because a
    // shared link would serve in another order (then simulated).
    std::uint64_t replays = 0;
    std::uint64_t loadedReplays = 0;
    std::uint64_t loadedReplaysRefused = 0;
    // Long pipelines made from a shorter run (pipelineperiodic.cpp), per schedule.
    std::array<std::uint64_t, 8> extrapolations{};

    // Per (chunk, micro-batch) cell: when its F, B and (split-W schedules) W ended in the last
    // simulation, and when loaded transfers arrived.
    std::vector<double> forwardEnd, backwardEnd, weightEnd, activationAt, gradientAt;
    std::vector<double> forwardDur, backwardDur, weightDur, send;
    std::vector<int> pos, work;
    std::vector<char> queued;
    std::vector<std::uint8_t> chainFlags;

    // The shape of `spec`, from the cache or built (and cached when small enough).
    CompiledShape& shapeFor(const PipelineSpec& spec, std::unique_ptr<CompiledShape>& owned);

    // Frees the per-cell buffers after a simulation too big to be worth keeping them for.
    void trim()
    {
        if (forwardEnd.size() <= maxCachedOps)
            return;
        for (std::vector<double>* v :
             {&forwardEnd, &backwardEnd, &weightEnd, &activationAt, &gradientAt})
            std::vector<double>().swap(*v);
    }
};

// This thread's scratch.
SimulatorScratch& scratch();

// Why `spec` cannot be simulated, or "" (pipelinevalidate.cpp).
std::string validateSpec(const PipelineSpec& spec);

// simulatePipeline for a spec that validateSpec accepted, always simulated or replayed (never
// extrapolated). With `keepCells` its per-cell end times stay in scratch() until the next
// simulation, however many (the caller trims them); otherwise a run too large to keep them
// for frees them.
PipelineResult simulateValid(const PipelineSpec& spec, bool keepCells = false);

// The result of a long pipeline without a timeline from a shorter run of the same shape whose
// steady state repeats exactly, shared links included (pipelineperiodic.cpp); nullopt when the
// shape does not qualify, and the caller simulates.
std::optional<PipelineResult> extrapolatePeriodic(const PipelineSpec& spec);

// Most (chunk, micro-batch) activations a rank holds, in micro-batches (rounded up).
std::vector<int> peakInFlight(const PipelineSpec& spec, const RankOrders& orders);
// A recorded run's ops reordered by dependency level (see the definition).
std::vector<ReplayOp> levelOrder(const std::vector<ReplayOp>& ops, int ranks, int microBatches,
                                 std::size_t cells);

} // namespace archipelago::core::detail
