#include "io/calibrationio.h"

#include "io/jsondocument.h"
#include "io/objectreader.h"
#include "io/textfile.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace archipelago::core {

namespace {

// Relative errors are fractions; a calibration predicting ten times off is not one anybody
// would keep, but it is what the fit found, so the reader takes up to 1000%.
constexpr double kMaxError = 10.0;
constexpr int kMaxRuns = 10'000; // kMaxPublishedRuns (validation/publishedruns.h)

void readFitted(const Json& fitted, const std::string& pointer, DiagnosticSink& sink,
                Calibration& out)
{
    if (!fitted.is_object()) {
        sink.error(pointer,
                   "expected an object of parameter names and values, got " + describeJson(fitted));
        return;
    }
    // In calibrationParameters() order, whatever the file's order.
    for (const CalibrationParameter& p : calibrationParameters()) {
        const auto it = fitted.find(p.name);
        if (it == fitted.end())
            continue;
        const std::string at = childPointer(pointer, p.name);
        double value = 0.0;
        const std::string range = "a number in " + formatNumber(p.lo) + ".." + formatNumber(p.hi);
        if (!readNumber(*it, at, sink, value, range))
            continue;
        if (!(value >= p.lo && value <= p.hi)) {
            sink.error(at,
                       "expected " + range + " (" + p.meaning + "), got " + formatNumber(value));
            continue;
        }
        out.fitted.emplace_back(p.name, value);
    }
    for (auto it = fitted.begin(); it != fitted.end(); ++it)
        if (!findCalibrationParameter(it.key())) {
            std::string names;
            for (const CalibrationParameter& p : calibrationParameters())
                names += (names.empty() ? "" : ", ") + std::string(p.name);
            sink.error(childPointer(pointer, it.key()),
                       "unknown parameter \"" + it.key() + "\" (expected one of " + names + ")");
        }
    if (out.fitted.empty() && !sink.hasErrors())
        sink.error(pointer, "expected at least one fitted parameter");
}

void readErrors(ObjectReader& r, Calibration& c)
{
    const limits::NumberLimit fraction{0.0, kMaxError, false, "a fraction in 0..10"};
    r.number("in_sample_mean", c.inSampleMeanError, Need::Required, fraction);
    r.number("in_sample_max", c.inSampleMaxError, Need::Required, fraction);
    r.number("leave_one_out_mean", c.leaveOneOutMeanError, Need::Required, fraction);
    r.number("leave_one_out_max", c.leaveOneOutMaxError, Need::Required, fraction);
}

void readRow(ObjectReader& r, std::vector<CalibrationRunRow>& rows)
{
    CalibrationRunRow row;
    r.string("id", row.id, Need::Required, kMaxNameBytes);
    r.number("measured_s", row.measuredS, Need::Required);
    r.number("catalog_s", row.catalogS, Need::Optional);
    r.number("fitted_s", row.fittedS, Need::Optional);
    r.number("leave_one_out_s", row.leaveOneOutS, Need::Optional);
    rows.push_back(std::move(row));
}

CalibrationLoad finish(std::optional<Calibration> c, DiagnosticSink& sink, CalibrationLoad load)
{
    load.errors = sink.takeErrors();
    load.warnings = sink.takeWarnings();
    if (load.errors.empty())
        load.calibration = std::move(c);
    else
        load.rows.clear();
    return load;
}

} // namespace

CalibrationLoad parseCalibration(std::string_view text, const std::string& fileName)
{
    DiagnosticSink sink(fileName);
    CalibrationLoad load;
    Calibration c;
    try {
        if (text.size() > kMaxFileBytes) {
            sink.error({}, "the file is larger than " + std::to_string(kMaxFileBytes) +
                               " bytes; refusing to read it");
            return finish(std::nullopt, sink, std::move(load));
        }
        Json doc;
        if (!parseJsonDocument(text, doc, sink))
            return finish(std::nullopt, sink, std::move(load));
        ObjectReader root(doc, {}, sink);
        if (!root.valid())
            return finish(std::nullopt, sink, std::move(load));
        std::string format;
        if (root.string("format", format, Need::Required) && format != kCalibrationFormat) {
            root.error("format", std::string("expected \"") + kCalibrationFormat + "\", got \"" +
                                     format + "\"");
            return finish(std::nullopt, sink, std::move(load));
        }
        int version = 0;
        if (root.integer("version", version, Need::Required) && version != kCalibrationVersion)
            root.error(
                "version",
                "expected " + std::to_string(kCalibrationVersion) + ", got " +
                    std::to_string(version) +
                    (version > kCalibrationVersion ? "; open it with a newer Archipelago" : ""));
        root.string("accelerator", c.accelerator, Need::Required, kMaxNameBytes);
        if (const Json* fitted = root.find("fitted", Need::Required, "an object"))
            readFitted(*fitted, root.pointerOf("fitted"), sink, c);
        root.integer("runs", c.runs, Need::Required,
                     limits::IntLimit{1, kMaxRuns, "an integer in 1..10000"});
        root.object("error", Need::Required, [&](ObjectReader& r) { readErrors(r, c); });
        root.string("command", load.command, Need::Optional);
        root.objects("runs_detail", Need::Optional,
                     [&](ObjectReader& r) { readRow(r, load.rows); });
    } catch (const std::exception& ex) {
        sink.error({}, std::string("could not read the calibration: ") + ex.what());
    }
    return finish(std::move(c), sink, std::move(load));
}

CalibrationLoad loadCalibrationFile(const std::string& path)
{
    DiagnosticSink sink(path);
    const std::optional<std::string> text = readTextFile(path, sink, "a calibration file");
    if (!text)
        return finish(std::nullopt, sink, {});
    return parseCalibration(*text, path);
}

std::string serializeCalibration(const Calibration& c, const std::vector<CalibrationRunRow>& rows,
                                 const std::string& command)
{
    nlohmann::ordered_json j;
    j["format"] = kCalibrationFormat;
    j["version"] = kCalibrationVersion;
    j["accelerator"] = c.accelerator;
    nlohmann::ordered_json fitted = nlohmann::ordered_json::object();
    for (const auto& [name, value] : c.fitted)
        fitted[name] = value;
    j["fitted"] = fitted;
    j["runs"] = c.runs;
    j["error"] = {{"in_sample_mean", c.inSampleMeanError},
                  {"in_sample_max", c.inSampleMaxError},
                  {"leave_one_out_mean", c.leaveOneOutMeanError},
                  {"leave_one_out_max", c.leaveOneOutMaxError}};
    if (!command.empty())
        j["command"] = command;
    nlohmann::ordered_json detail = nlohmann::ordered_json::array();
    for (const CalibrationRunRow& r : rows)
        detail.push_back({{"id", r.id},
                          {"measured_s", r.measuredS},
                          {"catalog_s", r.catalogS},
                          {"fitted_s", r.fittedS},
                          {"leave_one_out_s", r.leaveOneOutS}});
    if (!rows.empty())
        j["runs_detail"] = detail;
    return j.dump(2) + "\n";
}

std::string resolveCalibrationPath(const std::string& scenarioFile, const std::string& named)
{
    const std::filesystem::path path(named);
    if (path.is_absolute() || scenarioFile.empty())
        return named;
    return (std::filesystem::path(scenarioFile).parent_path() / path).lexically_normal().string();
}

std::string relocatedCalibrationPath(const std::string& named, const std::string& fromScenarioFile,
                                     const std::string& toScenarioFile)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path absolute =
        fs::absolute(resolveCalibrationPath(fromScenarioFile, named), ec).lexically_normal();
    if (ec)
        return named;
    if (toScenarioFile.empty())
        return absolute.string();
    const fs::path folder = fs::absolute(toScenarioFile, ec).parent_path();
    const fs::path relative = absolute.lexically_relative(folder);
    return ec || relative.empty() ? absolute.string() : relative.string();
}

} // namespace archipelago::core
