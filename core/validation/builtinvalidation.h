// The published training runs built into the program (../shared/validation/v2/*.json, embedded at
// build time by core/embedfiles.cmake) and the model's error on them, computed by the same
// validateRuns() as `archipelago-cli validate`: what the review report and Help > Guide show so
// that a reader knows how far to trust a prediction (ARCHITECTURE.md sections 6 and 7).
#pragma once

#include "validation/publishedruns.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

struct BuiltinValidationFile
{
    std::string name;      // file name, e.g. "published-runs.json"
    std::string_view text; // its bytes, static storage
};

// Empty when the build found no ../shared/validation/v2 folder (defined in the generated
// builtinvalidationdata.cpp).
std::vector<BuiltinValidationFile> builtinValidationFiles();

// One embedded file: its runs and their comparison (report.runs[i] is runs[i]).
struct ValidationFileSummary
{
    std::string file;
    std::vector<PublishedRun> runs;
    ValidationReport report;
    std::vector<Diagnostic> errors; // the file did not parse: no runs
};

struct ValidationSummary
{
    std::vector<ValidationFileSummary> files;
    // Over every evaluated run of every file, as validateRuns() defines them per file.
    double meanAbsError = 0.0;
    double maxAbsError = 0.0;
    int evaluated = 0;
    int runs = 0;
    bool ok() const { return evaluated == runs && runs > 0; }
};

// The built-in runs validated against the built-in catalog; std::nullopt when no validation
// data was built in. Computed once per process (a few tens of milliseconds) and thread-safe.
std::optional<ValidationSummary> builtinValidationSummary();

// "validation data not built in" when there is none, else e.g. "mean absolute error 2.7%,
// largest 9.6% over 22 published runs".
std::string validationSummaryText(const std::optional<ValidationSummary>& summary);

} // namespace archipelago::core
