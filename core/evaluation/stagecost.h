// Time of one model chunk for one micro-batch on one pipeline rank: compute (computemodel.h)
// plus the exposed part of its tensor-, context- and expert-parallel communication
// (collectives.h on the placement's group paths), and the traffic that communication puts on
// each link class.
#pragma once

#include "compute/computemodel.h"
#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"
#include "network/collectives.h"
#include "network/linktraffic.h"
#include "network/placement.h"

#include <vector>

namespace archipelago::core {

// Seconds per micro-batch, split the way Breakdown reports them.
struct ChunkParts
{
    double forward = 0.0;
    double backward = 0.0;
    double recompute = 0.0;
    double tp = 0.0;
    double cp = 0.0;
    double ep = 0.0;
    double pp = 0.0;           // non-overlapped send/recv (overlap.ppComm off)
    double interference = 0.0; // compute slowed by communication hidden under it

    double forwardPass = 0.0;  // what the pipeline's F block lasts (sum of forward parts)
    double backwardPass = 0.0; // what its B block lasts (backward + recompute + their comm)
    double total() const { return forwardPass + backwardPass; }
};

// Bytes each group's collectives send per GPU and iteration, summed over the pipeline ranks
// (divide by p for the average GPU); linktraffic.h turns them into per-link-class traffic.
struct TrafficTally
{
    GroupBytes groups;
    void add(double* group, const double* bytesPerLevel, int levels, double times)
    {
        if (!group)
            return;
        for (int i = 0; i < levels; ++i)
            *group += bytesPerLevel[i] * times;
    }
};

struct ChunkSpec
{
    int denseLayers = 0;
    int moeLayers = 0;
    bool first = false; // chunk 0: embedding
    bool last = false;  // last chunk: logits and loss
    int mtpModules = 0; // multi-token prediction modules after the output head (last chunk)
    int rank = 0;       // the pipeline rank that holds it (pipeline/pipelineschedules.h)
};

// Model chunks in model order (chunk c = j*p + r lives on rank r, Megatron interleaving), `v`
// chunks per rank (chunksPerRank of the schedule as evaluate() runs it). DualPipe: two copies
// of the p stages, chunk p + s repeating chunk s (stage s) on rank p - 1 - s (DeepSeek-V3
// report section 3.2.1); each copy has its embedding and output head.
std::vector<ChunkSpec> layoutChunks(const Scenario& scenario, ScheduleKind kind, int v);

// Costs one chunk on an accelerator, per micro-batch; `microBatches` per iteration scale the
// traffic tally (nullptr skips traffic accounting). `pairedPasses`: the schedule runs each
// forward beside another micro-batch's backward on the same rank (DualPipe), so the expert
// all-to-all of one hides under the other's compute.
// `memo`, when given, keeps layerCompute() per (accelerator, dense or MoE) and the collectives
// between the chunks of one evaluation (same workload, parallelism and placement analysis):
// most chunks share their layer shape.
struct LayerComputeMemo
{
    CollectiveMemo collectives;
    struct Entry
    {
        const AcceleratorSpec* accel = nullptr;
        bool moe = false;
        LayerCompute compute;
    };
    std::vector<Entry> entries;

    const LayerCompute& get(const Workload& workload, const Parallelism& par, bool moe,
                            const AcceleratorSpec& accel);
};

ChunkParts chunkCost(const Workload& workload, const Parallelism& par,
                     const PlacementAnalysis& placement, const AcceleratorSpec& accel,
                     const ChunkSpec& chunk, double microBatches, TrafficTally* traffic,
                     bool pairedPasses = false, LayerComputeMemo* memo = nullptr);

} // namespace archipelago::core
