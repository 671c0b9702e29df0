// Per-rank operation orders of the pipeline schedules (used by pipelinesimulator.cpp).
#pragma once

#include "pipeline/pipelinesimulator.h"

#include <cstdint>
#include <vector>

namespace archipelago::core {

enum class PipelineOpKind : std::uint8_t
{
    Forward,
    Backward,
    WeightGrad
};

struct PipelineOp
{
    PipelineOpKind kind = PipelineOpKind::Forward;
    int chunk = 0; // global chunk, v_index * p + rank
    int microBatch = 0;
};

// Ops of all ranks in execution order: rank r runs ops[begin[r]] .. ops[begin[r + 1] - 1].
struct RankOrders
{
    std::vector<PipelineOp> ops;
    std::vector<int> begin;      // size p + 1
    std::vector<int> chunkRank;  // per chunk (size p*v): the rank that holds it
    std::vector<int> chunkLocal; // per chunk: its index among its rank's chunks (the timeline's)
};

// The rank that holds each model chunk (size p*v): chunk c on rank c % p (Megatron's
// interleaving, chunks r, r + p, ... on rank r) for every schedule but DualPipe.
std::vector<int> chunkRanks(ScheduleKind kind, int p, int v);

// True for the schedules that split the backward into B (input gradient) and W (weight
// gradient), Qi et al. 2023.
bool splitsWeightGrad(ScheduleKind kind);

// Extra warm-up micro-batches of `rank` in the cross-DC-aware variant (see
// PipelineSpec::extraInFlightAtDci).
int dciExtraMicroBatches(const PipelineSpec& spec, int rank);

// The order of operations each rank runs, as the schedule prescribes. Expects a valid spec
// (sizes checked by simulatePipeline).
RankOrders buildRankOrders(const PipelineSpec& spec);

} // namespace archipelago::core
