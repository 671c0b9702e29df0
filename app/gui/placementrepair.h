// Keeps every edit valid ("never an invalid document"). An edit is first built as the whole
// scenario it would produce; validateEdit checks it with the loader's validation and, for
// edits that change the GPUs or the degrees, lets core re-make the placement
// (core::repairPlacement, io/placementrepair.h: the same fallbacks the property editor uses).
// When the data-parallel degree changes and the edit did not set the global batch itself, the
// global batch follows DP (said in `note`) rather than the edit being refused; nothing is
// invented beyond that: an edit still invalid is refused with the reason.
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
    // What was adjusted besides the edit ("global batch 8 -> 16 sequences ...", a TP split
    // across datacenters dropped), "; "-separated.
    QString note;
};

// The errors (not the warnings) core::checkScenario finds, against the effective catalog.
std::vector<core::Diagnostic> scenarioErrors(const core::Scenario& scenario);

// core::repairPlacement(candidate, before) against the candidate's effective catalog; with
// `repairPlacement` false the placement is kept as the edit set it (only the batch follows).
ValidatedEdit validateEdit(const core::Scenario& candidate, const core::Scenario& before,
                           bool repairPlacement);

} // namespace archipelago::app
