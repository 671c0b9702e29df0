// archipelago-cli validate RUNS.json [--json]: predicted vs measured iteration time for
// published training runs (ARCHITECTURE.md sections 6 and 7). Exit 1 when the file is invalid
// or a run cannot be evaluated: such a run has no error to average, so the set is incomplete.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "validation/publishedruns.h"
#include "validation/publishedrunsjson.h"
#include "validation/validationjson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace archipelago::cli {

namespace {

constexpr const char* kUsage = "Usage: archipelago-cli validate RUNS.json [--json]\n";

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string padded(std::string s, std::size_t width, bool left = true)
{
    if (s.size() >= width)
        return s;
    const std::string pad(width - s.size(), ' ');
    return left ? s + pad : pad + s;
}

void printTable(const core::ValidationReport& report, std::ostream& out)
{
    std::size_t idWidth = 2;
    for (const auto& r : report.runs)
        idWidth = std::max(idWidth, core::displayText(r.id).size());
    out << padded("id", idWidth) << "  " << padded("measured s", 11, false) << "  "
        << padded("predicted s", 11, false) << "  " << padded("error", 8, false) << '\n';
    for (const auto& r : report.runs) {
        // Appended, not `"+" + std::string`: GCC 12 warns (-Wrestrict) on the latter.
        std::string error = r.ok ? fixed(100.0 * r.error, 1) + "%" : "n/a";
        if (r.ok && r.error >= 0)
            error.insert(error.begin(), '+');
        out << padded(core::displayText(r.id), idWidth) << "  "
            << padded(fixed(r.measuredS, 3), 11, false) << "  "
            << padded(r.ok ? fixed(r.predictedS, 3) : "n/a", 11, false) << "  "
            << padded(error, 8, false) << '\n';
        for (const std::string& a : r.assumptions)
            out << "    assumed: " << core::displayText(a) << '\n';
        if (!r.ok)
            out << "    not evaluated: " << core::displayText(r.reason) << '\n';
    }
    out << "mean absolute error " << fixed(100.0 * report.meanAbsError, 2) << "%, largest "
        << fixed(100.0 * report.maxAbsError, 2) << "% over " << report.evaluated << " runs";
    if (!report.ok())
        out << " (" << report.runs.size() - static_cast<std::size_t>(report.evaluated)
            << " could not be evaluated)";
    out << '\n';
}

} // namespace

int runValidate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    bool json = false;
    bool optionsEnded = false;
    std::vector<std::string> files;
    for (const std::string& a : args) {
        if (!optionsEnded && a == "--json") {
            json = true;
        } else if (!optionsEnded && (a == "-h" || a == "--help")) {
            out << kUsage;
            return kExitOk;
        } else if (!optionsEnded && a == "--") {
            optionsEnded = true;
        } else if (!optionsEnded && a.starts_with("-")) {
            err << "archipelago-cli validate: unknown option '" << core::displayText(a) << "'\n"
                << kUsage;
            return kExitUsage;
        } else {
            files.push_back(a);
        }
    }
    if (files.size() != 1) {
        err << kUsage;
        return kExitUsage;
    }
    const std::string& file = files.front();
    const core::PublishedRunsLoad load = core::loadPublishedRuns(file);
    for (const core::Diagnostic& d : load.errors)
        err << d.toString() << '\n';
    for (const core::Diagnostic& d : load.warnings)
        err << d.toString() << '\n';
    if (!load.ok())
        return kExitInvalidInput;
    const core::ValidationReport report = core::validateRuns(load.runs, core::builtinCatalog());
    for (std::size_t i = 0; i < report.runs.size(); ++i)
        if (!report.runs[i].ok)
            err << core::Diagnostic{core::Diagnostic::Severity::Error, file,
                                    std::string("/").append(core::runkeys::kRuns) + "/" +
                                        std::to_string(i),
                                    std::string("run \"").append(report.runs[i].id) +
                                        "\" could not be evaluated: " + report.runs[i].reason}
                       .toString()
                << '\n';
    if (json)
        out << core::validationReportToJson(report).dump(2, ' ', false,
                                                         nlohmann::json::error_handler_t::replace)
            << '\n';
    else
        printTable(report, out);
    return report.ok() ? kExitOk : kExitInvalidInput;
}

} // namespace archipelago::cli
