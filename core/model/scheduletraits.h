// What the rest of the program needs to know about each pipeline schedule, in one table: a new
// schedule is one entry here and its rank-order builder in pipeline/pipelineschedules.cpp.
#pragma once

#include "model/scenario.h"

#include <span>
#include <string_view>

namespace archipelago::core {

struct ScheduleTraits
{
    ScheduleKind kind;
    std::string_view key;         // the scenario file's name for it ("1f1b")
    std::string_view displayName; // what the window shows ("1F1B")
    std::string_view source;      // the paper that defines it
    bool interleaved;             // runs v > 1 model chunks per rank
    bool splitsWeightGrad;        // backward split into B (input grad) and W (weight grad)
    // Consecutive iterations overlap without a barrier, so the cost is the steady-state period
    // rather than the makespan (zero-bubble's optimizer post-validation, Qi et al. 2023 §4).
    bool steadyStatePeriod;
    // The cross-DC-aware extra warm-up forwards change anything (not for GPipe, which runs
    // every forward first anyway).
    bool extraInFlightApplies;
    // Activations of rank `rank` held at the peak, in micro-batches (fractional for
    // interleaved chunks), before clamping to [1, m]. The simulator's measured peak
    // (PipelineResult::peakInFlight) is this rounded up; tests/test_pipelinesimulator checks it.
    double (*inFlight)(int p, int v, int m, int rank);
    // Model chunks per rank the schedule itself fixes (0: the scenario's virtual_stages).
    // DualPipe: 2, rank r holds chunks r and 2p - 1 - r (DeepSeek-V3 report section 3.2.1).
    int fixedChunksPerRank;
    // Copies of the model's weights the pipeline holds: DualPipe keeps one per direction
    // (2, the report's Table 2), each copy a chain of p chunks that half the micro-batches
    // run through.
    int modelCopies;
};

const ScheduleTraits& scheduleTraits(ScheduleKind kind);
// Every schedule, in the order of the enum (and of the window's menus).
std::span<const ScheduleTraits> allScheduleTraits();

// Model chunks per pipeline rank: the schedule's fixed count, else `virtualStages` (at least 1).
int chunksPerRank(ScheduleKind kind, int virtualStages);

// Micro-batches in flight on `rank`, clamped to [1, m] (p, v, m at least 1).
double inFlightMicroBatches(ScheduleKind kind, int p, int v, int m, int rank);

} // namespace archipelago::core
