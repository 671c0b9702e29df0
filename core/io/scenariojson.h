// Mapping between the core types and their JSON form (docs/scenario-format.md). Internal to the
// scenario I/O: the public entry points are in scenarioio.h.
#pragma once

#include "io/objectreader.h"
#include "io/scenarioio.h"
#include "io/scenariokeys.h"
#include "model/scenario.h"

namespace archipelago::core {

// Reads the scenario fields of the root object (after format, version and migration were
// handled). Types and required keys are checked here; value ranges and consistency are checked
// by checkScenario.
void readScenario(ObjectReader& root, Scenario& out);
Json scenarioToJson(const Scenario& scenario);

// The top-level "pins" array: each pin's scenario is a full scenario object without format and
// version (scenariopins.cpp). Reading checks types only; checkPins checks each pin's scenario
// as a whole, with pointers under /pins/N/scenario.
void readPins(ObjectReader& root, std::vector<PinnedScenario>& out);
void checkPins(const std::vector<PinnedScenario>& pins, DiagnosticSink& sink);
Json pinsToJson(const std::vector<PinnedScenario>& pins);

// The top-level "explore" section (scenarioexplore.cpp): kept as compact JSON text beside the
// scenario (LoadResult::explore), checked to be an object; written only when `explore` holds one.
void readExploreSection(ObjectReader& root, std::string& out);
void writeExploreSection(Json& root, const std::string& explore);

// Reads the five catalog arrays of `reader` (the scenario's "catalog" or a catalog document).
// Catalog entries are checked here, ranges included: they are not edited in the GUI.
void readCatalog(ObjectReader& reader, Catalog& out);
Json catalogToJson(const Catalog& catalog);

} // namespace archipelago::core
