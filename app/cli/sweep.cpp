// archipelago-cli sweep SCENARIO [--space SPACE.json] [--json] [--top N] [--threads K]
// [-o OUT.json]: the design-space search around a scenario (core/explore, docs/explore.md).
// Exit codes as every command: 0 success, 1 invalid input (the scenario, the space file),
// 2 usage error.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "explore/spacereader.h"
#include "explore/sweep.h"
#include "explore/sweepjson.h"
#include "io/scenarioio.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <ostream>

namespace archipelago::cli {

namespace {

const char* kSweepUsage =
    "Usage: archipelago-cli sweep SCENARIO.json [--space SPACE.json] [--json] [--top N]\n"
    "                             [--threads K] [-o OUT.json]\n";

std::optional<int> parseCount(const std::string& text, int low, int high)
{
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < low || v > high)
        return std::nullopt;
    return v;
}

std::string num(const char* format, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string describe(const core::SweepPoint& p)
{
    return core::describeSweepPoint(p);
}

// The largest changes of the breakdown against the base: what makes the point win.
std::string why(const core::SweepPoint& p, const core::SweepPoint& base)
{
    const core::Breakdown& a = p.evaluation.breakdown;
    const core::Breakdown& b = base.evaluation.breakdown;
    const std::pair<const char*, double> parts[] = {
        {"compute", (a.forwardS + a.backwardS) - (b.forwardS + b.backwardS)},
        {"recompute", a.recomputeS - b.recomputeS},
        {"TP", a.tpCommS - b.tpCommS},
        {"CP", a.cpCommS - b.cpCommS},
        {"EP", a.epCommS - b.epCommS},
        {"PP", a.ppCommS - b.ppCommS},
        {"DP", a.dpCommS - b.dpCommS},
        {"optimizer", a.optimizerS - b.optimizerS},
        {"bubble", a.bubbleS - b.bubbleS},
        {"interference", a.interferenceS - b.interferenceS}};
    std::string out;
    for (const auto& [name, d] : parts)
        if (std::abs(d) >= 0.01 * base.evaluation.iterationTimeS)
            out += (out.empty() ? "" : ", ") + std::string(name) + num(" %+.3g s", d);
    return out.empty() ? "no part moves by 1% of the base" : out;
}

void printFront(const char* title, const std::vector<core::SweepPoint>& front, const char* yLabel,
                double (*y)(const core::SweepPoint&), std::ostream& out)
{
    out << title << " (" << front.size() << " points)\n";
    for (const core::SweepPoint& p : front)
        out << "  " << num("%.4g s", p.evaluation.iterationTimeS) << "  " << yLabel << " "
            << num("%.4g", y(p)) << "  " << describe(p) << '\n';
}

void printText(const std::string& file, const core::SweepResult& r, std::ostream& out)
{
    const core::SweepCounts& c = r.counts;
    out << core::displayText(file) << '\n';
    out << "  space " << c.spacePoints << " points, considered " << c.considered << ", pruned "
        << c.prunedTotal() << " (";
    for (std::size_t i = 0; i < c.pruned.size(); ++i)
        out << (i ? ", " : "") << core::toString(static_cast<core::PruneReason>(i)) << ' '
            << c.pruned[i];
    out << "), evaluated " << c.evaluated << " (failed " << c.failed << ", out of memory "
        << c.outOfMemory << ", over budget " << c.overBudget << ", ranked " << c.feasible << ")"
        << (r.cancelled ? ", CANCELLED" : "") << '\n';
    out << "  " << num("%.3g s", r.wallS) << ", "
        << num("%.4g", r.wallS > 0 ? static_cast<double>(c.evaluated) / r.wallS : 0.0)
        << " points evaluated per second\n";
    out << "  base: " << num("%.4g s", r.base.evaluation.iterationTimeS) << "  " << describe(r.base)
        << (r.baseFeasible ? "" : "  (does not fit or over budget)") << ", rank " << r.baseRank
        << '\n';
    out << "top " << r.top.size() << " by iteration time\n";
    for (std::size_t i = 0; i < r.top.size(); ++i) {
        const core::SweepPoint& p = r.top[i];
        out << "  " << i + 1 << ". " << num("%.4g s", p.evaluation.iterationTimeS)
            << num(" (%.3gx the base)",
                   p.evaluation.iterationTimeS / r.base.evaluation.iterationTimeS)
            << num("  %.1f GiB", p.evaluation.memoryPeakGib) << "  " << describe(p) << '\n'
            << "     vs base: " << why(p, r.base) << '\n';
    }
    printFront(
        "front: iteration time vs network capex", r.timeVsCapex, "capex USD",
        [](const core::SweepPoint& p) { return p.networkCapexUsd; }, out);
    printFront(
        "front: iteration time vs memory peak", r.timeVsMemory, "GiB",
        [](const core::SweepPoint& p) { return p.evaluation.memoryPeakGib; }, out);
    out << "front: time to train vs total cost (" << r.trainTimeVsCost.size() << " points)\n";
    for (const core::SweepPoint& p : r.trainTimeVsCost)
        out << "  " << num("%.4g days", p.evaluation.timeToTrainS / 86400.0) << "  "
            << num("%.4g USD", p.totalCostUsd) << "  " << describe(p) << '\n';
}

} // namespace

int runSweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    bool asJson = false;
    std::string spaceFile;
    std::string outFile;
    core::SweepOptions options;
    std::vector<std::string> files;
    const auto usageError = [&](const std::string& message) {
        err << "archipelago-cli sweep: " << core::displayText(message) << '\n' << kSweepUsage;
        return kExitUsage;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool hasValue = i + 1 < args.size();
        if (a == "--json") {
            asJson = true;
        } else if (a == "-h" || a == "--help") {
            out << kSweepUsage;
            return kExitOk;
        } else if (a == "--space" || a == "-o" || a == "--top" || a == "--threads") {
            if (!hasValue)
                return usageError(a + " needs a value");
            const std::string& v = args[++i];
            if (a == "--space") {
                spaceFile = v;
            } else if (a == "-o") {
                outFile = v;
            } else if (a == "--top") {
                const std::optional<int> n = parseCount(v, 0, 10000);
                if (!n)
                    return usageError("--top expects an integer in 0..10000, got '" + v + "'");
                options.top = *n;
            } else {
                const std::optional<int> n = parseCount(v, 1, 1024);
                if (!n)
                    return usageError("--threads expects an integer in 1..1024, got '" + v + "'");
                options.threads = *n;
            }
        } else if (a.starts_with("-")) {
            return usageError("unknown option '" + a + "'");
        } else {
            files.push_back(a);
        }
    }
    if (files.size() != 1)
        return usageError(files.empty() ? "no scenario given" : "one scenario at a time");
    const std::string& file = files.front();
    const core::LoadResult load = core::loadScenarioFile(file);
    if (!load.ok()) {
        for (const core::Diagnostic& d : load.errors)
            err << d.toString() << '\n';
        return kExitInvalidInput;
    }
    const core::Scenario& base = *load.scenario;
    core::SearchSpace space = core::defaultSearchSpace(base);
    if (!spaceFile.empty()) {
        core::DiagnosticSink sink(spaceFile);
        std::optional<core::SearchSpace> read = core::loadSearchSpace(spaceFile, base, sink);
        for (const core::Diagnostic& d : sink.takeWarnings())
            err << d.toString() << '\n';
        if (!read) {
            for (const core::Diagnostic& d : sink.takeErrors())
                err << d.toString() << '\n';
            return kExitInvalidInput;
        }
        space = std::move(*read);
    }
    const core::SweepResult result =
        core::runSweep(base, core::effectiveCatalog(base), space, options);
    if (!result.ok) {
        err << core::Diagnostic{core::Diagnostic::Severity::Error, file, {}, result.error}
                   .toString()
            << '\n';
        return kExitInvalidInput;
    }
    const nlohmann::json json = core::sweepResultToJson(file, result);
    const std::string text = json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    if (!outFile.empty()) {
        std::ofstream o(outFile, std::ios::binary | std::ios::trunc);
        o << text << '\n';
        if (!o) {
            err << "archipelago-cli sweep: cannot write '" << core::displayText(outFile) << "'\n";
            return kExitInvalidInput;
        }
    }
    if (asJson)
        out << text << '\n';
    else
        printText(file, result, out);
    return kExitOk;
}

} // namespace archipelago::cli
