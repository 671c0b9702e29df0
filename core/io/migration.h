// Upgrading scenario documents written by older versions (STYLE.md, "Files and errors").
// Migration works on the JSON, before it is read: a step knows the old layout, the reader only
// knows the current one. Adding version N+1 is one entry in the table of scenarioMigrations()
// plus a golden test in tests/data/migration/.
#pragma once

#include "io/jsondocument.h"

#include <optional>
#include <span>
#include <string>

namespace archipelago::core {

struct MigrationStep
{
    int fromVersion;          // the step turns a version-N document into version N+1
    const char* name;         // "migrate_v0_to_v1"
    void (*apply)(Json& doc); // must tolerate any JSON shape: the document is not yet checked
};

// The chain for scenario files, ordered by fromVersion.
std::span<const MigrationStep> scenarioMigrations();

// Oldest scenario version that can still be read.
int oldestScenarioVersion();

// Applies the steps from `fromVersion` up to `toVersion` in order and sets doc["version"] after
// each. Returns an error message when a step is missing from the chain.
std::optional<std::string> migrate(Json& doc, int fromVersion, int toVersion,
                                   std::span<const MigrationStep> steps);

} // namespace archipelago::core
