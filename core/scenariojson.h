// Mapping between the core types and their JSON form (docs/scenario-format.md). Internal to the
// scenario I/O: the public entry points are in scenarioio.h.
#pragma once

#include "objectreader.h"
#include "scenario.h"

namespace archipelago::core {

// Reads the scenario fields of the root object (after format, version and migration were
// handled). Types and required keys are checked here; value ranges and consistency are checked
// by checkScenario.
void readScenario(ObjectReader& root, Scenario& out);
Json scenarioToJson(const Scenario& scenario);

// Reads the five catalog arrays of `reader` (the scenario's "catalog" or a catalog document).
// Catalog entries are checked here, ranges included: they are not edited in the GUI.
void readCatalog(ObjectReader& reader, Catalog& out);
Json catalogToJson(const Catalog& catalog);

} // namespace archipelago::core
