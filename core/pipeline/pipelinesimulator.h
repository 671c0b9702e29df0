// Discrete-event simulation of a pipeline schedule over p x v stages and m micro-batches
// (ARCHITECTURE.md section 3, "Pipeline").
//
// Model: each rank is one compute stream that runs its list of operations (F, B and, for the
// zero-bubble schedules, W of a (chunk, micro-batch)) in the order the schedule prescribes,
// one at a time. F of chunk c needs F of chunk c-1 plus sendS[c-1]; B of chunk c needs B of
// chunk c+1 plus sendS[c] (the last chunk's B needs its own F); W needs B of the same chunk.
// Transfers are asynchronous: they overlap compute and only delay the op that needs them.
// The op orders are built in pipelineschedules.cpp.
//
// Shared links (links conserve capacity): a transfer may load shared resources (a
// DCI link in one direction). It holds each of them FIFO in the order transfers become ready:
// begin = max(ready, every loaded resource free), the resources are busy for their service
// time from begin, and the data arrives at begin + max(sendS, longest service). So the bytes
// all transfers push over a resource, divided by its capacity, never exceed the time they
// take. The simulation runs in time order for that: ranks advance as far as their inputs are
// known (longest paths, as before), and the transfers that load a resource wait in a heap
// ordered by ready time, served one at a time once no earlier transfer can still appear.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <string>
#include <utility>
#include <vector>

namespace archipelago::core {

// A link the pipeline's transfers share, in one direction.
struct PipelineResource
{
    LinkClass linkClass = LinkClass::Dci;
    Id dciLinkId = -1;         // the DCI link, when linkClass == Dci
    bool fromA = true;         // direction: from the link's end `a` to `b` (false: b to a)
    double capacityGBps = 0.0; // per direction (for reports; the service times use it)

    bool operator==(const PipelineResource&) const = default;
};

// The use one boundary transfer of one micro-batch makes of a resource.
struct PipelineLoad
{
    int boundary = 0;      // chunk boundary c: chunk c -> chunk c + 1
    bool backward = false; // false: activations c -> c + 1; true: gradients c + 1 -> c
    int resource = 0;      // index into PipelineSpec::resources
    // Time the transfer holds the resource: the bytes that all data-parallel replicas push
    // over it for this boundary transfer at once, divided by its capacity per direction.
    double serviceS = 0.0;

    bool operator==(const PipelineLoad&) const = default;
};

struct PipelineSpec
{
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    int stages = 1;        // p, pipeline ranks
    int virtualStages = 1; // v, model chunks per rank (interleaved only; others need 1)
    int microBatches = 1;  // m
    // Per model chunk, indexed chunk = v_index * p + rank (Megatron's interleaved order:
    // rank r holds chunks r, r+p, r+2p, ...). Size p*v each.
    std::vector<double> forwardS;
    std::vector<double> backwardS; // full backward (input + weight gradient)
    // Zero-bubble: the part of backwardS that is W (<= backwardS). Empty = backwardS / 2
    // (Qi et al. 2023 assume T_B = T_W). Ignored by the other schedules.
    std::vector<double> weightGradS;
    // Transfer time from chunk c to chunk c+1 (activations forward, gradients backward),
    // size p*v-1 (empty = free transfers): latency + bytes / bandwidth of that boundary's link.
    std::vector<double> sendS;
    std::vector<bool> sendCrossesDci; // size p*v-1 or empty, for the timeline
    // Shared resources and the boundary transfers that load them (empty = none, every
    // transfer is a fixed delay sendS). A boundary direction without a load is unshared. With
    // loads, sendS is the transfer's unshared time (latency + bytes / its per-GPU bandwidth):
    // it arrives at begin + max(sendS, longest service), see the top of this file.
    std::vector<PipelineResource> resources;
    std::vector<PipelineLoad> loads;
    // Extra micro-batches a rank may run ahead before a boundary that crosses a DCI link
    // (cross-DC-aware schedule): every rank at or before the last rank that sends over a DCI
    // boundary runs this many more warm-up forwards (times v chunk-forwards for interleaved),
    // so the slow round trip overlaps compute. Peak in-flight grows by as much on those ranks;
    // the caller bounds it by HBM. No effect on GPipe (all forwards run first anyway).
    int extraInFlightAtDci = 0;
    bool recordTimeline = true;
};

// What the pipeline's transfers did to one shared resource.
struct PipelineResourceUsage
{
    LinkClass linkClass = LinkClass::Dci;
    Id dciLinkId = -1;
    bool fromA = true;
    double capacityGBps = 0.0;
    double busyS = 0.0; // sum of the service times (= bytes / capacity) in this direction
    // When it is busy: disjoint [start, end) intervals in time order (FIFO service).
    std::vector<std::pair<double, double>> busyIntervals;
};

struct PipelineResult
{
    bool ok = true;    // false: invalid spec or deadlock; see error
    std::string error; // empty when ok
    // End of the last op of one iteration started at t = 0 (NaN when !ok).
    double makespanS = 0.0;
    // Steady-state iteration period when consecutive iterations overlap (no barrier between
    // them, e.g. zero-bubble's optimizer post-validation, Qi et al. 2023 section 4): the
    // longest span of one rank, first op start to last op end. Equals makespanS for GPipe,
    // 1F1B and interleaved (rank 0 starts first and ends last); less for ZB-H2's
    // parallelogram, which is what makes its bubble zero.
    double periodS = 0.0;
    std::vector<double> finishS;  // per rank, end of its last op (later ranks finish early)
    std::vector<double> busyS;    // per rank, compute time (sum of its op durations)
    std::vector<double> idleS;    // per rank, makespan - busy
    double bubbleRatio = 0.0;     // mean over ranks of idle / makespan
    double idleOverCompute = 0.0; // mean over ranks of idle / busy
    // Per rank: the most (chunk, micro-batch) activations held at once, divided by v and
    // rounded up, i.e. in micro-batches. An activation is held from the start of its F until
    // its B ends (until its W ends for the zero-bubble schedules). 1F1B rank 0 gives p.
    std::vector<int> peakInFlight;
    std::vector<TimelineBlock> timeline; // only when recordTimeline; Send blocks for sendS > 0
                                         // (or a load), from the queued begin to the arrival
    // Per model chunk (size p*v): the start of its first forward, and the start and end of the
    // gradient op (B, or W for the zero-bubble schedules) of its micro-batch that ends last:
    // the chunk's weight gradients become final over [gradReadyStartS, gradReadyEndS].
    std::vector<double> firstForwardStartS;
    std::vector<double> gradReadyStartS;
    std::vector<double> gradReadyEndS;

    // Shared resources, one per PipelineSpec::resources entry, in the same order.
    //
    // API for the data-parallel pass (evaluation/datacost.cpp): a DCI link appears as up to two
    // resources (one per direction, same dciLinkId, fromA true/false). The pipeline's transfers
    // keep resource i busy resourceBusyAfterS(i, t) seconds inside [t, makespanS] (the
    // intervals are clipped at t; nothing is busy after the makespan), so a gradient collective
    // that starts at t on that link has (makespanS - t) - busy of it left before the pipeline
    // drains. busyS is the whole iteration's busy time; busy / makespan is at most 1.
    std::vector<PipelineResourceUsage> resources;
    double resourceBusyAfterS(std::size_t resource, double fromS) const;
};

// Thread-safe. Each thread keeps a few recently simulated shapes (schedule, p, v, m, cross-DC
// extras: their rank orders and, for runs without shared-resource loads, the order their ops
// ran in) and its buffers, so that the next design point of the same shape skips the rank-order
// build and the worklist (pipelinesimulator.cpp, CompiledShape). The numbers do not depend on
// it: a replay runs the same operations on the same values.
PipelineResult simulatePipeline(const PipelineSpec& spec);

} // namespace archipelago::core
