// The undo text of a property edit, named after what it changed: "Set TP to 8", "Set Global
// Batch to 2,048", "Set Distance dc-a↔dc-b to 100 km", "Set Model GPT-3 175B". The Undo
// History lists one line per step, so "Change Workload" eight times says nothing; the text is
// built from the difference between the scenario before and after the edit.
#pragma once

#include "model/scenario.h"

#include <QString>

namespace archipelago::app {

// Describes the user's change from `before` to `after`. Quantities that only follow the edit
// (the placement and the global batch re-fitted after a degree or pod change) are named only
// when nothing else changed. Returns `fallback` when nothing is recognised.
QString describeEdit(const core::Scenario& before, const core::Scenario& after,
                     const QString& fallback);

} // namespace archipelago::app
