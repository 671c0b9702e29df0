// The placement as the property editor words it. Changing TP, CP or PP (or a datacenter's GPU
// count) invalidates the placement: the shards' stage lists have pp entries and each entry puts
// tp * cp * dp_replicas GPUs in its datacenter (docs/scenario-format.md, "Placement"). The
// editor re-makes it with the edit instead of refusing it; the repair is core's
// (io/editcheck.h, io/placementrepair.h), so the editor and the app agree.
#pragma once

#include "model/scenario.h"

#include <QString>

namespace archipelago::views {

// "128 replicas: stages 0-7 in building-a, 8-15 in building-b" (one line per shard).
QString placementSummary(const core::Scenario& scenario);

} // namespace archipelago::views
