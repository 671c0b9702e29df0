// The cost model's passes, in the order evaluate() runs them (docs/architecture.md):
//
//   1. placement   where each group lands and what its collectives see; accelerators and
//                  model chunks per pipeline rank
//   2. stage cost  compute and TP/CP/EP communication per chunk and micro-batch, and the
//                  transfer time of every pipeline boundary
//   3. pipeline    the schedule in the discrete-event simulator (once), and the attribution
//                  of exposed transfers (re-simulated without them, only when asked)
//   4. dp tail     gradient reduction and optimizer step after the pipeline drains
//   5. breakdown   the busiest rank's parts, iteration time, MFU/HFU, throughput
//   6. memory      per rank, the worst against its HBM
//   7. network     traffic per link class; the run with failures over the failure domains
//                  that traffic crosses (goodput.h); the bill of materials (per topology,
//                  cached) and the run's cost
//   8. warnings    the causes worth naming
//   9. finite      every result a number: an infinite, NaN or integer-overflowing figure fails
//                  the evaluation with the figure and the inputs that drive it
//
// Each pass reads what the earlier ones left in the EvaluationContext and adds its own.
#pragma once

#include "evaluation/costmodel.h"
#include "evaluation/datacost.h"
#include "evaluation/stagecost.h"
#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"
#include "network/placement.h"
#include "network/topologymodel.h"
#include "pipeline/pipelinesimulator.h"

#include <string>
#include <vector>

namespace archipelago::core {

struct EvaluationContext
{
    EvaluationContext(const Scenario& scenario, const Catalog& catalogIn,
                      const EvaluateOptions& optionsIn, const TopologyModel& topologyIn,
                      Evaluation& evaluation)
        : s(scenario)
        , catalog(catalogIn)
        , options(optionsIn)
        , topology(topologyIn)
        , ev(evaluation)
    {}

    const Scenario& s; // after the schedule adjustments of evaluate()
    const Catalog& catalog;
    const EvaluateOptions& options;
    const TopologyModel& topology;
    Evaluation& ev;
    // The caller's workspace (per-topology and per-shape caches), or nullptr.
    EvaluationWorkspace* workspace = nullptr;

    // Shape (set by evaluate() before the passes).
    Parallelism par;
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int p = 1;       // pipeline ranks
    int v = 1;       // virtual stages per rank
    int nChunks = 1; // p * v
    int m = 1;       // micro-batches per iteration
    // Micro-batches through each chunk: m, or m / 2 for DualPipe's two model copies.
    int chunkMicroBatches = 1;
    std::vector<int> chunkRank; // per chunk, the rank that holds it (pipeline/pipelineschedules.h)
    std::int64_t dp = 1;

    // 1. placement
    PlacementAnalysis placement;
    std::vector<const AcceleratorSpec*> accel; // per pipeline rank
    std::vector<ChunkSpec> chunks;             // per model chunk, on rank chunkRank[c]

    // 2. stage cost
    std::vector<ChunkParts> parts; // per chunk, per micro-batch
    TrafficTally traffic;
    PipelineSpec spec;
    bool anyDci = false;
    struct DciBoundary
    {
        int rank = 0; // boundary rank -> rank + 1 (rank p - 1: the interleaved wrap to 0)
        Id fromDatacenter = -1;
        Id toDatacenter = -1;
        double latencyS = 0.0;
        double transferS = 0.0;
        double exposedS = 0.0; // what this boundary's DCI transfers lengthen the period by
    };
    std::vector<DciBoundary> dciBoundaries; // each crossing boundary once
    std::vector<int> sendBoundary;          // per send (chunk c -> c + 1), its boundary rank

    // 3. pipeline
    PipelineResult pipe;
    double pipeS = 0.0;       // the schedule's period (makespan, or ZB's steady period)
    double ppExposedS = 0.0;  // what the transfers lengthen it by (attribution)
    double dciExposedS = 0.0; // the DCI transfers' share of that

    // 4. dp tail
    DataParallelCost dpc;

    // 5. breakdown
    double busiestS = 0.0;
};

void placementPass(EvaluationContext& ctx);
void stageCostPass(EvaluationContext& ctx);
// False when the schedule cannot run (the evaluation is then marked failed).
bool pipelinePass(EvaluationContext& ctx);
void dataParallelPass(EvaluationContext& ctx);
void breakdownPass(EvaluationContext& ctx);
void memoryPass(EvaluationContext& ctx);
void networkCostPass(EvaluationContext& ctx);
void warningsPass(EvaluationContext& ctx);
// False when a result is not finite, or a count is beyond an integer (the evaluation is then
// marked failed with a NonFinite warning).
bool finitePass(EvaluationContext& ctx);

} // namespace archipelago::core
