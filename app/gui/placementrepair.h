// Keeps every edit valid (issue 5: "never an invalid document"). An edit is first built as the
// whole scenario it would produce; this checks it with the loader's validation and, for edits
// that change the GPUs or the degrees, re-makes the placement so that the GPU accounting holds
// again: the current placement style first (pipeline stages across datacenters, or data
// parallel across them; core/placementpresets.h), then the other, then the implicit placement.
// When the data-parallel degree changes and the edit did not set the global batch itself, the
// global batch moves to the nearest multiple of micro_batch * dp (said in `note`) rather than
// refusing; nothing is invented beyond that: an edit still invalid is refused with the reason.
#pragma once

#include "io/scenarioio.h"

#include <QString>

#include <optional>
#include <vector>

namespace archipelago::app {

struct ValidatedEdit
{
    std::optional<core::Scenario> scenario; // the scenario to apply; nullopt: refused
    QString reason;                         // why it was refused (the first error)
    QString note; // what was adjusted besides the edit ("global batch 8 -> 16 sequences ...")
};

// The errors (not the warnings) core::checkScenario finds, against the effective catalog.
std::vector<core::Diagnostic> scenarioErrors(const core::Scenario& scenario);

// `candidate` if valid; otherwise, when `repairPlacement`, the first valid re-placement of it
// (in the style of `before`'s placement); otherwise, when `candidate` keeps `before`'s global
// batch, the first of those with the global batch fitted to the new DP; otherwise refused.
ValidatedEdit validateEdit(const core::Scenario& candidate, const core::Scenario& before,
                           bool repairPlacement);

} // namespace archipelago::app
