// Where each parallel group lands, and what its collectives see (ARCHITECTURE.md section 3;
// issue "Topologies, placement and network cost"). The cost model asks this module, never the
// topology directly, for the bandwidth and latency of a group.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <vector>

namespace archipelago::core {

// One level of a hierarchical collective: `participants` peers talk over `linkClass` at
// `bandwidthGBps` per GPU per direction (after sharing with concurrent flows and
// oversubscription) and `latencyS` per step (the alpha of the alpha-beta model).
struct LevelLink
{
    LinkClass linkClass = LinkClass::ScaleUp;
    int participants = 1;
    double bandwidthGBps = 0.0; // GB/s (10^9 bytes/s) per GPU, each direction
    double latencyS = 0.0;
    Id dciLinkId = -1;       // the DCI link crossed, when linkClass == Dci
    int concurrentFlows = 1; // flows sharing the bottleneck at the same time

    bool operator==(const LevelLink&) const = default;
};

// A parallel group's path, innermost level first. The product of participants is the group
// size. A group inside one scale-up domain has one ScaleUp level.
struct GroupPath
{
    std::vector<LevelLink> levels;
    int size() const;
    bool crossesDci() const;

    bool operator==(const GroupPath&) const = default;
};

struct PlacementAnalysis
{
    GroupPath tp;
    GroupPath cp;
    GroupPath ep;
    GroupPath dp;       // gradient reduction group of dense parameters
    GroupPath expertDp; // gradient reduction group of expert parameters (dp*cp/ep)
    // Boundary i joins pipeline rank i to rank i+1 (size pp-1); for interleaved schedules the
    // wrap-around boundary from rank p-1 to rank 0 is `wrapBoundary`. The worst (slowest) shard
    // decides each boundary, since data-parallel replicas wait for one another.
    std::vector<LevelLink> stageBoundaries;
    LevelLink wrapBoundary;
    std::vector<Warning> warnings;
};

class TopologyModel;
// `model`, when given, must match the scenario's topology and `catalog` (TopologyModel::matches);
// without one the analysis builds what it needs for this call.
PlacementAnalysis analyzePlacement(const Scenario& scenario, const Catalog& catalog,
                                   const TopologyModel* model = nullptr);

} // namespace archipelago::core
