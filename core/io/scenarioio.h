// Scenario JSON format (ARCHITECTURE.md section 2; format described in docs/scenario-format.md).
// Loading never throws and never crashes: it returns a scenario or a list of diagnostics, each
// naming the file, the JSON pointer and what was expected.
#pragma once

#include "model/catalog.h"
#include "model/diagnostic.h"
#include "model/scenario.h"
#include "model/scenariolimits.h"
#include "model/shapecheck.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

inline constexpr const char* kScenarioFormat = "archipelago-scenario";
inline constexpr int kScenarioVersion = 2;
// The newest version read: version 2 with a "calibration" key (a file naming a calibration is
// written as 3, any other as 2).
inline constexpr int kScenarioVersionWithCalibration = 3;

// A design point pinned for comparison, saved with the document in the top-level "pins" array
// (docs/scenario-format.md, "Pinned design points").
struct PinnedScenario
{
    std::string name;
    std::string color; // "#rrggbb", or "" for the program's choice
    Scenario scenario;

    bool operator==(const PinnedScenario&) const = default;
};

struct LoadResult
{
    std::optional<Scenario> scenario; // set when there are no errors
    std::vector<PinnedScenario> pins; // the file's pinned design points, in order
    std::vector<Diagnostic> errors;
    std::vector<Diagnostic> warnings; // unknown keys, semantic warnings
    // The file's top-level "explore" section (the last sweep saved with it) as compact JSON,
    // checked only to be an object; "" when there is none. explore/sweeprecord.h reads it.
    std::string explore;
    bool ok() const { return scenario.has_value() && errors.empty(); }
};

LoadResult parseScenario(std::string_view text, const std::string& fileName);
LoadResult loadScenarioFile(const std::string& path);

// Exact round trip: parseScenario(serializeScenario(s)) == s.
std::string serializeScenario(const Scenario& scenario);
// The same with pinned design points (no "pins" key when `pins` is empty) and the explore
// section (LoadResult::explore; none when empty); the round trip restores all three exactly.
std::string serializeScenario(const Scenario& scenario, const std::vector<PinnedScenario>& pins,
                              const std::string& explore = {});

// Semantic checks on a parsed scenario against a catalog (degrees multiply to the GPU count,
// divide layers/heads/batch, TP larger than a scale-up domain warns, links join existing
// datacenters, the datacenter graph is connected, ...). Pointers name the offending field.
std::vector<Diagnostic> checkScenario(const Scenario& scenario, const Catalog& catalog,
                                      const std::string& fileName = {});
// The rules of checkScenario on a topology alone (its fields, the datacenter graph's
// connectivity): what TopologyRules::Checked skips.
std::vector<Diagnostic> checkTopology(const Topology& topology, const Catalog& catalog);
// With TopologyRules::Checked, for a scenario whose topology, exactly as it is, has no error
// under checkTopology (a sweep's candidate on its checked topology variant): those rules are not
// run again, so the check costs the same for 2 DCI links or 100,000, and it finds every error
// the full check would. TopologyRules::Run is the full check.
std::vector<Diagnostic> checkScenario(const Scenario& scenario, const Catalog& catalog,
                                      TopologyRules topology);
// Whether checkScenario(scenario, catalog, topology) finds an error, without composing its
// warnings: what a sweep asks of each candidate.
bool scenarioRefused(const Scenario& scenario, const Catalog& catalog, TopologyRules topology);

// The built-in catalog (resources/catalog.json compiled in).
const Catalog& builtinCatalog();
// The built-in catalog merged with the scenario's overrides (its "catalog" section), with the
// scenario's calibration applied to its accelerator: the catalog every check and every
// evaluation of that scenario uses.
Catalog effectiveCatalog(const Scenario& scenario);
// Parse a catalog document (same schema as resources/catalog.json).
std::optional<Catalog> parseCatalog(std::string_view text, const std::string& fileName,
                                    std::vector<Diagnostic>& errors);

} // namespace archipelago::core
