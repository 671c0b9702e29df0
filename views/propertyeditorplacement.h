// Placement follow-ups of the property editor. Changing TP, CP or PP (or a datacenter's GPU
// count) invalidates the placement: the shards' stage lists have pp entries and each entry puts
// tp * cp * dp_replicas GPUs in its datacenter (docs/scenario-format.md, "Placement"). The
// editor offers a consistent placement with the edit instead of refusing it, as one intent.
#pragma once

#include "model/scenario.h"

#include <QString>

#include <vector>

namespace archipelago::views {

enum class PlacementShape
{
    Implicit, // no shards: the whole job in the first datacenter, DP derived
    PpAcross, // one shard whose stages span several datacenters
    DpAcross, // every shard has all its stages in one datacenter
    Custom    // anything else: left to the layout view
};

PlacementShape placementShape(const core::Placement& placement);

// Placements for `candidate` (the scenario after the edit, placement not yet adapted), best
// first: the shards rescaled to the new tp * cp when PP and the datacenters' GPUs are unchanged
// (keeps a hand-made stage assignment), then core's preset of the same shape
// (ppAcrossDatacenters / dpAcrossDatacenters), then the placement as it was. Layers per stage
// whose count no longer matches pp become a balanced explicit split or the even split (the
// former first when the old split was explicit). Without a degree or GPU change: just the
// current placement.
std::vector<core::Placement> placementOptions(const core::Scenario& before,
                                              const core::Scenario& candidate);

// "128 replicas: stages 0-7 in building-a, 8-15 in building-b" (one line per shard).
QString placementSummary(const core::Scenario& scenario);

} // namespace archipelago::views
