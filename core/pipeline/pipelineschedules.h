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
    // A Backward that also computes the weight gradient (B + W in one op, its gradient sent
    // at its end) in a schedule that otherwise splits them: DualPipe's backwards outside the
    // zero-bubble phases (dualpipe.py, enable_zb=False).
    bool fullBackward = false;
    // A Forward that runs together with the next op of its rank, a Backward of another
    // micro-batch (DualPipe's overlapped forward and backward, DeepSeek-V3 report section
    // 3.2.1, Figure 4): the pair starts once both inputs are there and sends both outputs
    // at its end.
    bool pairedWithNext = false;
};

// Ops of all ranks in execution order: rank r runs ops[begin[r]] .. ops[begin[r + 1] - 1].
struct RankOrders
{
    std::vector<PipelineOp> ops;
    std::vector<int> begin;      // size p + 1
    std::vector<int> chunkRank;  // per chunk (size p*v): the rank that holds it
    std::vector<int> chunkLocal; // per chunk: its index among its rank's chunks (the timeline's)
    // Chunks a micro-batch runs through: p * v, or p for DualPipe, whose chunks form two
    // chains (0 .. p-1 down, p .. 2p-1 up) that each take half the micro-batches.
    int chainLength = 1;
};

// The rank that holds each model chunk (size p*v): chunk c on rank c % p (Megatron's
// interleaving, chunks r, r + p, ... on rank r) for every schedule but DualPipe, whose rank r
// holds chunk r of the down copy and chunk 2p - 1 - r, stage p - 1 - r of the up copy.
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
