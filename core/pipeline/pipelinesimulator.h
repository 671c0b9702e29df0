// Discrete-event simulation of a pipeline schedule over p x v stages and m micro-batches
// (ARCHITECTURE.md section 3, "Pipeline").
//
// Model: each rank is one compute stream that runs its list of operations (F, B and, for the
// zero-bubble schedules, W of a (chunk, micro-batch)) in the order the schedule prescribes,
// one at a time. F of chunk c needs F of chunk c-1 plus sendS[c-1]; B of chunk c needs B of
// chunk c+1 plus sendS[c] (the last chunk's B needs its own F); W needs B of the same chunk.
// Transfers are asynchronous: they overlap compute and only delay the op that needs them.
// The op orders are built in pipelineschedules.cpp.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <string>
#include <vector>

namespace archipelago::core {

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
    // Extra micro-batches a rank may run ahead before a boundary that crosses a DCI link
    // (cross-DC-aware schedule): every rank at or before the last rank that sends over a DCI
    // boundary runs this many more warm-up forwards (times v chunk-forwards for interleaved),
    // so the slow round trip overlaps compute. Peak in-flight grows by as much on those ranks;
    // the caller bounds it by HBM. No effect on GPipe (all forwards run first anyway).
    int extraInFlightAtDci = 0;
    bool recordTimeline = true;
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
};

PipelineResult simulatePipeline(const PipelineSpec& spec);

} // namespace archipelago::core
