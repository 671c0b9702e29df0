// Discrete-event simulation of a pipeline schedule over p x v stages and m micro-batches
// (ARCHITECTURE.md section 3, "Pipeline").
#pragma once

#include "evaluation.h"
#include "scenario.h"

#include <vector>

namespace archipelago::core {

struct PipelineSpec
{
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    int stages = 1;            // p, pipeline ranks
    int virtualStages = 1;     // v, model chunks per rank (interleaved only)
    int microBatches = 1;      // m
    // Per model chunk, indexed chunk = v_index * p + rank (Megatron's interleaved order:
    // rank r holds chunks r, r+p, r+2p, ...). Size p*v each.
    std::vector<double> forwardS;
    std::vector<double> backwardS;     // full backward (input + weight gradient)
    std::vector<double> weightGradS;   // zero-bubble: the part of backwardS that is W (<= B)
    // Transfer time from chunk c to chunk c+1 (activations forward, gradients backward),
    // size p*v-1: latency + bytes / bandwidth of the link that boundary crosses.
    std::vector<double> sendS;
    std::vector<bool> sendCrossesDci;  // size p*v-1, for the timeline
    // Extra micro-batches a rank may run ahead before a boundary that crosses a DCI link
    // (cross-DC-aware schedule). Bounded by memory by the caller.
    int extraInFlightAtDci = 0;
    bool recordTimeline = true;
};

struct PipelineResult
{
    double makespanS = 0.0;
    std::vector<double> busyS;         // per rank, compute time
    std::vector<double> idleS;         // per rank, makespan - busy
    double bubbleRatio = 0.0;          // mean over ranks of idle / makespan
    double idleOverCompute = 0.0;      // mean over ranks of idle / busy
    std::vector<int> peakInFlight;     // per rank, most micro-batches whose activations are held
    std::vector<TimelineBlock> timeline;
};

PipelineResult simulatePipeline(const PipelineSpec& spec);

} // namespace archipelago::core
