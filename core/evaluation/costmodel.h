// The cost model entry point: a pure function of the scenario (ARCHITECTURE.md section 3).
// The same function serves the GUI (off the UI thread), the CLI and the report.
#pragma once

#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"

namespace archipelago::core {

// The built-in catalog merged with the scenario's overrides.
Catalog effectiveCatalog(const Scenario& scenario);

// Evaluate with the effective catalog.
Evaluation evaluate(const Scenario& scenario);
// Evaluate against an explicit catalog (already merged).
Evaluation evaluate(const Scenario& scenario, const Catalog& catalog);

} // namespace archipelago::core
