// The model's error on the built-in published runs: validateRuns() over each embedded file,
// combined into one mean and maximum (builtinvalidation.h).
#include "validation/builtinvalidation.h"

#include "io/scenarioio.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace archipelago::core {

namespace {

std::optional<ValidationSummary> computeSummary()
{
    const std::vector<BuiltinValidationFile> files = builtinValidationFiles();
    if (files.empty())
        return std::nullopt;
    ValidationSummary summary;
    double sum = 0.0;
    for (const BuiltinValidationFile& f : files) {
        ValidationFileSummary fs;
        fs.file = f.name;
        PublishedRunsLoad load = parsePublishedRuns(f.text, f.name);
        fs.errors = std::move(load.errors);
        if (fs.errors.empty()) {
            fs.runs = std::move(load.runs);
            fs.report = validateRuns(fs.runs, builtinCatalog());
            for (const RunComparison& r : fs.report.runs) {
                ++summary.runs;
                if (!r.ok)
                    continue;
                ++summary.evaluated;
                sum += std::abs(r.error);
                summary.maxAbsError = std::max(summary.maxAbsError, std::abs(r.error));
            }
        }
        summary.files.push_back(std::move(fs));
    }
    summary.meanAbsError = summary.evaluated == 0 ? 0.0 : sum / summary.evaluated;
    return summary;
}

} // namespace

std::optional<ValidationSummary> builtinValidationSummary()
{
    // A function-local static: initialised once, thread-safe (C++11 [stmt.dcl]/4).
    static const std::optional<ValidationSummary> summary = computeSummary();
    return summary;
}

std::string validationSummaryText(const std::optional<ValidationSummary>& summary)
{
    if (!summary)
        return "validation data not built in";
    if (summary->evaluated == 0)
        return "no published run could be evaluated";
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "mean absolute error %.1f%%, largest %.1f%% over %d published runs",
                  100.0 * summary->meanAbsError, 100.0 * summary->maxAbsError, summary->evaluated);
    std::string text = buf;
    if (summary->evaluated < summary->runs)
        text +=
            " (" + std::to_string(summary->runs - summary->evaluated) + " could not be evaluated)";
    return text;
}

} // namespace archipelago::core
