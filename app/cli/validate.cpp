// archipelago-cli validate RUNS.json [--json]: predicted vs measured iteration time for
// published training runs (ARCHITECTURE.md sections 6 and 7).
#include "cli.h"

#include "evaluation/costmodel.h"
#include "validation/publishedruns.h"
#include "io/scenarioio.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <ostream>

namespace archipelago::cli {

namespace {

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
        idWidth = std::max(idWidth, r.id.size());
    out << padded("id", idWidth) << "  " << padded("measured s", 11, false) << "  "
        << padded("predicted s", 11, false) << "  " << padded("error", 8, false) << '\n';
    for (const auto& r : report.runs) {
        out << padded(r.id, idWidth) << "  " << padded(fixed(r.measuredS, 3), 11, false) << "  "
            << padded(r.ok ? fixed(r.predictedS, 3) : "n/a", 11, false) << "  "
            << padded((r.error >= 0 ? "+" : "") + fixed(100.0 * r.error, 1) + "%", 8, false)
            << '\n';
        for (const std::string& a : r.assumptions)
            out << "    assumed: " << a << '\n';
        if (!r.ok)
            for (const std::string& w : r.warnings)
                out << "    " << w << '\n';
    }
    out << "mean absolute error " << fixed(100.0 * report.meanAbsError, 2) << "%, largest "
        << fixed(100.0 * report.maxAbsError, 2) << "% over " << report.runs.size() << " runs\n";
}

nlohmann::json toJson(const core::ValidationReport& report)
{
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : report.runs) {
        nlohmann::json j{
            {"id", r.id},       {"measured_s", r.measuredS},    {"predicted_s", r.predictedS},
            {"error", r.error}, {"assumptions", r.assumptions}, {"warnings", r.warnings}};
        if (!r.ok)
            j["evaluated"] = false;
        runs.push_back(std::move(j));
    }
    return {{"runs", runs},
            {"mean_abs_error", report.meanAbsError},
            {"max_abs_error", report.maxAbsError}};
}

} // namespace

int runValidate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    bool json = false;
    std::vector<std::string> files;
    for (const std::string& a : args) {
        if (a == "--json")
            json = true;
        else if (a == "-h" || a == "--help") {
            out << "Usage: archipelago-cli validate RUNS.json [--json]\n";
            return kExitOk;
        } else if (!a.empty() && a[0] == '-') {
            err << "archipelago-cli validate: unknown option '" << a << "'\n"
                << "Usage: archipelago-cli validate RUNS.json [--json]\n";
            return kExitUsage;
        } else
            files.push_back(a);
    }
    if (files.size() != 1) {
        err << "Usage: archipelago-cli validate RUNS.json [--json]\n";
        return kExitUsage;
    }
    const core::PublishedRunsLoad load = core::loadPublishedRuns(files.front());
    if (!load.ok()) {
        for (const core::Diagnostic& d : load.errors)
            err << d.toString() << '\n';
        return kExitInvalidInput;
    }
    const core::ValidationReport report = core::validateRuns(load.runs, core::builtinCatalog());
    if (json)
        out << toJson(report).dump(2) << '\n';
    else
        printTable(report, out);
    return kExitOk;
}

} // namespace archipelago::cli
