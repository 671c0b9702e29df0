// Calibration files ("archipelago-calibration", docs/calibration.md): what
// `archipelago-cli calibrate` writes and a scenario names in its "calibration" key. Reading never
// throws: it returns the calibration or diagnostics naming the file, the JSON pointer and what
// was expected.
#pragma once

#include "model/calibration.h"
#include "model/diagnostic.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

inline constexpr const char* kCalibrationFormat = "archipelago-calibration";
inline constexpr int kCalibrationVersion = 1;

// One measured run as the calibration predicted it (the file's "runs_detail", for the reader).
struct CalibrationRunRow
{
    std::string id;
    double measuredS = 0.0;
    double catalogS = 0.0;     // with the catalog's parameters before the fit
    double fittedS = 0.0;      // with the fitted parameters (in-sample)
    double leaveOneOutS = 0.0; // with parameters fitted on every other run

    bool operator==(const CalibrationRunRow&) const = default;
};

struct CalibrationLoad
{
    std::optional<Calibration> calibration; // `file` is left empty: the caller names it
    std::vector<CalibrationRunRow> rows;
    std::string command; // how it was made, as recorded
    std::vector<Diagnostic> errors;
    std::vector<Diagnostic> warnings;
    bool ok() const { return calibration.has_value() && errors.empty(); }
};

CalibrationLoad parseCalibration(std::string_view text, const std::string& fileName);
CalibrationLoad loadCalibrationFile(const std::string& path);

// The file's text; parseCalibration(serializeCalibration(c, rows, command)) gives them back.
std::string serializeCalibration(const Calibration& calibration,
                                 const std::vector<CalibrationRunRow>& rows,
                                 const std::string& command);

// The path a scenario's "calibration" value names: relative to the scenario file's folder
// unless absolute (`scenarioFile` may be "" or a bare name: the working directory).
std::string resolveCalibrationPath(const std::string& scenarioFile, const std::string& named);
// The name to write for the calibration `named` in `fromScenarioFile` when the scenario is
// written to `toScenarioFile`: relative to that file's folder, or absolute when
// `toScenarioFile` is "" (an autosaved copy, kept elsewhere) or on another root.
std::string relocatedCalibrationPath(const std::string& named, const std::string& fromScenarioFile,
                                     const std::string& toScenarioFile);

} // namespace archipelago::core
