// Placement follow-ups of the property editor. Changing TP, CP or PP (or a datacenter's GPU
// count) invalidates the placement: the shards' stage lists have pp entries and each entry puts
// tp * cp * dp_replicas GPUs in its datacenter (docs/scenario-format.md, "Placement"). The
// editor offers a consistent placement with the edit instead of refusing it, as one intent;
// the repair itself is core's (io/placementrepair.h), so the editor and the app agree.
#pragma once

#include "model/scenario.h"

#include <QString>

#include <vector>

namespace archipelago::views {

// Placements for `candidate` (the scenario after the edit, placement not yet adapted), best
// first: the placement core::repairPlacement makes of it (the same repair the app's edit
// controller applies: kept, rescaled, the preset of the same shape, the other one, implicit),
// then the placement as it was, whose errors explain a refusal. The caller tries each (and each
// with the global batch fitted to its DP) against its own checks.
std::vector<core::Placement> placementOptions(const core::Scenario& before,
                                              const core::Scenario& candidate);

// "128 replicas: stages 0-7 in building-a, 8-15 in building-b" (one line per shard).
QString placementSummary(const core::Scenario& scenario);

} // namespace archipelago::views
