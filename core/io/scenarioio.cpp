// Entry points of the scenario I/O (scenarioio.h). Parsing is one pipeline for files and
// strings alike: JSON syntax -> format and version -> migration -> types and required keys ->
// semantic checks against the built-in catalog merged with the scenario's own entries.
#include "io/scenarioio.h"

#include "io/calibrationio.h"
#include "io/diagnosticsink.h"
#include "io/migration.h"
#include "io/objectreader.h"
#include "io/scenariocheck.h"
#include "io/scenariojson.h"
#include "io/textfile.h"

#include <algorithm>

namespace archipelago::core {

namespace keys = scenariokeys;

namespace {

// Format and version decide how to read everything else: when either is wrong nothing else is
// read, because every further message would be noise about a different kind of document.
std::optional<int> readHeader(const Json& doc, DiagnosticSink& sink)
{
    const std::string expectedFormat = std::string("\"") + kScenarioFormat + "\"";
    const auto format = doc.find(keys::kFormat);
    if (format == doc.end()) {
        sink.error("/format", "missing required key \"format\" (expected " + expectedFormat + ")");
        return std::nullopt;
    }
    if (!format->is_string() || format->get<std::string>() != kScenarioFormat) {
        sink.error("/format", "expected " + expectedFormat + ", got " + describeJson(*format));
        return std::nullopt;
    }
    const std::string range = "an integer in " + std::to_string(oldestScenarioVersion()) + ".." +
                              std::to_string(kScenarioVersionWithCalibration);
    const auto version = doc.find(keys::kVersion);
    if (version == doc.end()) {
        sink.error("/version", "missing required key \"version\" (expected " + range + ")");
        return std::nullopt;
    }
    int v = 0;
    if (!readInt(*version, "/version", sink, v, range))
        return std::nullopt;
    if (v > kScenarioVersionWithCalibration) {
        sink.error("/version", "version " + std::to_string(v) +
                                   " is newer than this program reads (at most " +
                                   std::to_string(kScenarioVersionWithCalibration) +
                                   "); open it with a newer Archipelago");
        return std::nullopt;
    }
    if (v < oldestScenarioVersion()) {
        sink.error("/version", "expected " + range + ", got " + std::to_string(v));
        return std::nullopt;
    }
    return v;
}

// After a type error the scenario holds defaults in place of the bad values: range checks
// still find the other bad values, but a check on a pointer inside (or equal to) one that
// already failed would only repeat it.
void addFieldChecksAfterErrors(const Scenario& s, const Catalog& catalog, DiagnosticSink& sink)
{
    DiagnosticSink checks(sink.file());
    checkScenarioFields(s, catalog, checks);
    const std::vector<Diagnostic> earlier = sink.errors();
    for (Diagnostic& d : checks.takeErrors()) {
        const bool repeated = std::any_of(earlier.begin(), earlier.end(), [&](const Diagnostic& e) {
            return pointerWithin(d.pointer, e.pointer);
        });
        if (!repeated)
            sink.add(std::move(d));
    }
    for (Diagnostic& d : checks.takeWarnings())
        sink.add(std::move(d));
}

// The calibration file a scenario names, relative to the scenario's folder: read it whole, or
// an error at `pointer` and the file's own diagnostics (each naming the calibration file).
void readCalibrationFile(Scenario& scenario, const std::string& pointer, DiagnosticSink& sink)
{
    if (!scenario.calibration)
        return;
    const std::string named = scenario.calibration->file;
    const std::string path = resolveCalibrationPath(sink.file(), named);
    CalibrationLoad load = loadCalibrationFile(path);
    for (Diagnostic& d : load.warnings)
        sink.add(std::move(d));
    if (!load.ok()) {
        sink.error(pointer, "could not read the calibration file \"" + path + "\" it names: " +
                                (load.errors.empty() ? std::string("no calibration")
                                                     : load.errors[0].toString()));
        return;
    }
    scenario.calibration = std::move(*load.calibration);
    scenario.calibration->file = named;
}

std::optional<Scenario> parseInto(std::string_view text, DiagnosticSink& sink,
                                  std::vector<PinnedScenario>& pins, std::string& explore)
{
    if (text.size() > kMaxFileBytes) {
        sink.error({}, "the file is larger than " + std::to_string(kMaxFileBytes) +
                           " bytes; refusing to read it");
        return std::nullopt;
    }
    Json doc;
    if (!parseJsonDocument(text, doc, sink))
        return std::nullopt;
    if (!doc.is_object()) {
        sink.error({}, "expected a JSON object at the root, got " + describeJson(doc));
        return std::nullopt;
    }
    const std::optional<int> version = readHeader(doc, sink);
    if (!version)
        return std::nullopt;
    if (*version < kScenarioVersion) {
        if (auto error = migrate(doc, *version, kScenarioVersion, scenarioMigrations())) {
            sink.error("/version", *error);
            return std::nullopt;
        }
        sink.warning("/version", "migrated from version " + std::to_string(*version) + " to " +
                                     std::to_string(kScenarioVersion) + "; saving writes version " +
                                     std::to_string(kScenarioVersion));
    }

    Scenario scenario;
    {
        ObjectReader root(doc, {}, sink);
        root.skip(keys::kFormat);
        root.skip(keys::kVersion);
        readScenario(root, scenario);
        readPins(root, pins);
        readExploreSection(root, explore);
    }
    readCalibrationFile(scenario, "/calibration", sink);
    for (std::size_t i = 0; i < pins.size(); ++i)
        readCalibrationFile(pins[i].scenario,
                            "/pins/" + std::to_string(i) + "/scenario/calibration", sink);
    const Catalog catalog = effectiveCatalog(scenario);
    if (sink.hasErrors()) {
        addFieldChecksAfterErrors(scenario, catalog, sink);
        return std::nullopt;
    }
    for (Diagnostic& d : checkScenario(scenario, catalog, sink.file()))
        sink.add(std::move(d));
    checkPins(pins, sink);
    if (sink.hasErrors())
        return std::nullopt;
    return scenario;
}

LoadResult finish(std::optional<Scenario> scenario, DiagnosticSink& sink,
                  std::vector<PinnedScenario> pins = {}, std::string explore = {})
{
    LoadResult result;
    result.errors = sink.takeErrors();
    result.warnings = sink.takeWarnings();
    if (result.errors.empty()) {
        result.scenario = std::move(scenario);
        result.pins = std::move(pins);
        result.explore = std::move(explore);
    }
    return result;
}

} // namespace

LoadResult parseScenario(std::string_view text, const std::string& fileName)
{
    DiagnosticSink sink(fileName);
    std::optional<Scenario> scenario;
    std::vector<PinnedScenario> pins;
    std::string explore;
    try {
        scenario = parseInto(text, sink, pins, explore);
    } catch (const std::exception& ex) {
        // Only memory exhaustion can get here (the readers do not throw); no exception
        // crosses the layer boundary.
        sink.error({}, std::string("could not read the scenario: ") + ex.what());
        scenario.reset();
    }
    return finish(std::move(scenario), sink, std::move(pins), std::move(explore));
}

LoadResult loadScenarioFile(const std::string& path)
{
    DiagnosticSink sink(path);
    const std::optional<std::string> text = readTextFile(path, sink, "a scenario file");
    if (!text)
        return finish(std::nullopt, sink);
    return parseScenario(*text, path);
}

} // namespace archipelago::core
