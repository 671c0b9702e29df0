// One check for every edit made in the window. The property editor judges a field with it
// before it proposes the edit (red field, the reason under it), and the edit controller applies
// the same edit through it, so both take the same scenario: the placement re-made when the edit
// changed the GPUs or the degrees (io/placementrepair.h), the global batch fitted to a new
// data-parallel degree when the edit left the batch alone (model/placementpresets.h), and the
// loader's own checks (checkScenario with the scenario's effective catalog) on the result.
//
// The diagnostics stay the checker's (JSON pointers, the loader's messages): the window words
// them for the user (views/propertyeditor/diagnostictext.h, app/gui/editing).
#pragma once

#include "io/placementrepair.h"
#include "model/diagnostic.h"
#include "model/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

struct EditCheck
{
    // The scenario to apply: the candidate, its placement re-made and its batch fitted when
    // needed; nullopt when the edit is refused.
    std::optional<Scenario> scenario;
    // Everything checkScenario finds in `scenario` (when accepted) or in the candidate (when
    // refused): what the editor marks on every field.
    std::vector<Diagnostic> diagnostics;
    // Why the edit is refused: the errors at the edited fields, or, when there are none there,
    // the errors the edit caused elsewhere (`errorsElsewhere`; say where, the message may not
    // name the field). Empty when accepted.
    std::vector<Diagnostic> errors;
    bool errorsElsewhere = false;
    // The warnings at the edited fields and those the edit caused: shown, never blocking.
    std::vector<Diagnostic> warnings;
    // What changed beyond the edit (placementrepair.h's notes: a TP split dropped, ...).
    std::vector<std::string> notes;
    // The global batch before and after the fit, when the accepted scenario's differs from the
    // candidate's: a different batch is a different job, so the window asks first.
    std::int64_t batchBefore = 0;
    std::int64_t batchAfter = 0;

    bool accepted() const { return scenario.has_value(); }
    bool changesGlobalBatch() const { return batchAfter != batchBefore; }
};

// `before` is the scenario the edit started from, `candidate` the scenario as the user's edit
// makes it (placement and batch untouched), `fields` the JSON pointers the edit set
// ("/parallelism/tp", "/topology/dci_links/0"). With `mode` Repair the placement may be re-made;
// with KeepPlacement (the edit set the placement itself) only the batch may follow.
//
// The first of these that holds is taken:
//  1. repairPlacement finds a candidate with no error (it fits the batch when nothing else is
//     valid, and prefers one that places every GPU);
//  2. the candidate as it is, then with its batch fitted (when the edit left the batch alone),
//     causes no error: none at the edited fields and none that `before` did not have. A
//     scenario that already had an error elsewhere (a file written by hand, a migrated one)
//     can still be edited; an edit never adds one.
// Otherwise the edit is refused with the errors of the candidate as it is.
EditCheck checkEdit(const Scenario& before, const Scenario& candidate,
                    const std::vector<std::string>& fields,
                    PlacementRepairMode mode = PlacementRepairMode::Repair);

// True when `pointer` is `field` or lies below it ("/topology/dci_links/0/distance_km" within
// "/topology/dci_links/0"; not within "/topology/dci_links/1").
bool pointerWithin(std::string_view pointer, std::string_view field);

} // namespace archipelago::core
