#include "sweeptext.h"

#include "explore/sweep.h"
#include "explore/sweepkeys.h"
#include "io/evaluationjson.h"
#include "io/textfile.h"
#include "model/diagnostic.h"

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <ostream>

namespace archipelago::cli {

namespace {

using json = nlohmann::json;
// The sweep JSON's keys (explore/sweepkeys.h); the evaluation's are named evalkeys::.
using namespace core::sweepkeys;

// The value at `path` under `j`, or null when a step is missing.
const json* at(const json& j, std::initializer_list<const char*> path)
{
    const json* p = &j;
    for (const char* key : path) {
        if (!p->is_object())
            return nullptr;
        const auto it = p->find(key);
        if (it == p->end())
            return nullptr;
        p = &*it;
    }
    return p;
}

double number(const json& j, std::initializer_list<const char*> path)
{
    const json* v = at(j, path);
    return v && v->is_number() ? v->get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::uint64_t count(const json& j, std::initializer_list<const char*> path)
{
    const json* v = at(j, path);
    return v && v->is_number_unsigned() ? v->get<std::uint64_t>() : 0;
}

const json& list(const json& j, std::initializer_list<const char*> path)
{
    static const json empty = json::array();
    const json* v = at(j, path);
    return v && v->is_array() ? *v : empty;
}

std::string num(const char* format, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// The point's description (sweepjson.cpp writes it); else its knobs as they are in the JSON.
std::string describe(const json& p)
{
    if (const json* d = at(p, {kDescription}); d && d->is_string())
        return core::displayText(d->get<std::string>());
    static const char* const kFigures[] = {kIndex,
                                           kEvaluation,
                                           kDataParallel,
                                           core::evalkeys::kNetworkCapexUsd,
                                           core::evalkeys::kNetworkPowerW,
                                           kTotalCostUsd,
                                           kIterationTimeVsBase,
                                           kBreakdownMinusBase};
    std::string out;
    if (!p.is_object())
        return out;
    for (const auto& [key, value] : p.items()) {
        bool figure = false;
        for (const char* f : kFigures)
            figure = figure || key == f;
        if (!figure)
            out += (out.empty() ? "" : " ") + key + " " +
                   value.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    return core::displayText(out);
}

// The parts of the breakdown that move by 1% of the base's iteration time or more.
std::string why(const json& p, double baseTimeS)
{
    using namespace core::evalkeys;
    const auto d = [&](const char* key) { return number(p, {kBreakdownMinusBase, key}); };
    const std::pair<const char*, double> parts[] = {{"compute", d(kForwardS) + d(kBackwardS)},
                                                    {"recompute", d(kRecomputeS)},
                                                    {"TP", d(kTpCommS)},
                                                    {"CP", d(kCpCommS)},
                                                    {"EP", d(kEpCommS)},
                                                    {"PP", d(kPpCommS)},
                                                    {"DP", d(kDpCommS)},
                                                    {"optimizer", d(kOptimizerS)},
                                                    {"bubble", d(kBubbleS)},
                                                    {"interference", d(kInterferenceS)}};
    std::string out;
    for (const auto& [name, delta] : parts)
        if (std::abs(delta) >= 0.01 * baseTimeS)
            out += (out.empty() ? "" : ", ") + std::string(name) + num(" %+.3g s", delta);
    return out.empty() ? "no part moves by 1% of the base" : out;
}

double iterationTime(const json& p)
{
    return number(p, {kEvaluation, core::evalkeys::kIterationTimeS});
}

// An objective's value as the text shows it.
std::string objectiveText(core::SweepObjective objective, const json& p)
{
    using namespace core::evalkeys;
    switch (objective) {
    case core::SweepObjective::IterationTime:
        return num("%.4g s", iterationTime(p));
    case core::SweepObjective::TimeToTrain:
        return num("%.4g days", number(p, {kEvaluation, kTimeToTrainS}) / 86400.0);
    case core::SweepObjective::EffectiveTimeToTrain:
        return num("%.4g days with failures",
                   number(p, {kEvaluation, kGoodput, kEffectiveTimeToTrainS}) / 86400.0);
    case core::SweepObjective::TotalCost:
        return num("%.4g USD", number(p, {kTotalCostUsd}));
    case core::SweepObjective::RunCost:
        return num("%.4g USD for the run",
                   number(p, {kEvaluation, kRunCost, kEffectiveRunCostUsd}));
    case core::SweepObjective::NetworkCapex:
        return num("%.4g USD", number(p, {kNetworkCapexUsd}));
    case core::SweepObjective::MemoryPeak:
        return num("%.1f GiB", number(p, {kEvaluation, kMemoryPeakGib}));
    case core::SweepObjective::Count:
        break;
    }
    return "?";
}

void printCounts(const json& r, std::optional<double> wallS, std::ostream& out)
{
    const auto c = [&](const char* key) { return count(r, {kCounts, key}); };
    out << "  space " << c(kSpacePoints) << " points, considered " << c(kConsidered) << ", pruned "
        << c(kPruned) << " (";
    for (std::size_t i = 0; i < static_cast<std::size_t>(core::PruneReason::Count); ++i) {
        const char* reason = core::toString(static_cast<core::PruneReason>(i));
        out << (i ? ", " : "") << reason << ' ' << count(r, {kCounts, kPrunedByReason, reason});
    }
    const json* cancelled = at(r, {kCancelled});
    out << "), evaluated " << c(kEvaluated) << " (failed " << c(kFailed) << ", out of memory "
        << c(kOutOfMemory) << ", over budget " << c(kOverBudget) << ", ranked " << c(kFeasible)
        << ")" << (cancelled && *cancelled == json(true) ? ", CANCELLED" : "") << '\n';
    if (wallS)
        out << "  " << num("%.3g s", *wallS) << ", "
            << num("%.4g", *wallS > 0 ? static_cast<double>(c(kEvaluated)) / *wallS : 0.0)
            << " points evaluated per second\n";
}

void printFront(const char* title, const json& front, const char* yLabel, const char* yKey,
                const char* ySubKey, std::ostream& out)
{
    out << title << " (" << front.size() << " points)\n";
    for (const json& p : front)
        out << "  " << num("%.4g s", iterationTime(p)) << "  " << yLabel << " "
            << num("%.4g", ySubKey ? number(p, {yKey, ySubKey}) : number(p, {yKey})) << "  "
            << describe(p) << '\n';
}

} // namespace

void printSweepText(const json& r, const std::string& note, std::optional<double> wallS,
                    std::ostream& out)
{
    const json* file = at(r, {kFile});
    out << core::displayText(file && file->is_string() ? file->get<std::string>() : "")
        << (note.empty() ? "" : "  (" + note + ")") << '\n';
    printCounts(r, wallS, out);
    const json* base = at(r, {kBase});
    const json& b = base ? *base : json::object();
    const double baseTimeS = iterationTime(b);
    const json* feasible = at(r, {kBaseFeasible});
    out << "  base: " << num("%.4g s", baseTimeS) << "  " << describe(b)
        << (feasible && *feasible == json(true) ? "" : "  (does not fit or over budget)")
        << ", rank " << count(r, {kBaseRank}) << '\n';
    const json& top = list(r, {kTop});
    out << "top " << top.size() << " by iteration time\n";
    for (std::size_t i = 0; i < top.size(); ++i) {
        const json& p = top[i];
        out << "  " << i + 1 << ". " << num("%.4g s", iterationTime(p))
            << num(" (%.3gx the base)", iterationTime(p) / baseTimeS)
            << num("  %.1f GiB", number(p, {kEvaluation, core::evalkeys::kMemoryPeakGib})) << "  "
            << describe(p) << '\n'
            << "     vs base: " << why(p, baseTimeS) << '\n';
    }
    // The other objectives' lists, one line a point (iteration time's is the list above).
    for (std::size_t k = 1; k < core::kSweepObjectives; ++k) {
        const auto objective = static_cast<core::SweepObjective>(k);
        const json& points = list(r, {kTopByObjective, core::toString(objective)});
        out << "top " << points.size() << " by " << core::toString(objective) << '\n';
        for (std::size_t i = 0; i < points.size(); ++i)
            out << "  " << i + 1 << ". " << objectiveText(objective, points[i]) << "  "
                << num("%.4g s", iterationTime(points[i])) << "  " << describe(points[i]) << '\n';
    }
    printFront("front: iteration time vs network capex", list(r, {kFronts, kTimeVsCapex}),
               "capex USD", core::evalkeys::kNetworkCapexUsd, nullptr, out);
    printFront("front: iteration time vs memory peak", list(r, {kFronts, kTimeVsMemory}), "GiB",
               kEvaluation, core::evalkeys::kMemoryPeakGib, out);
    const json& trainCost = list(r, {kFronts, kTrainTimeVsCost});
    out << "front: time to train vs total cost (" << trainCost.size() << " points)\n";
    for (const json& p : trainCost)
        out << "  " << objectiveText(core::SweepObjective::TimeToTrain, p) << "  "
            << objectiveText(core::SweepObjective::TotalCost, p) << "  " << describe(p) << '\n';
}

bool writeOutputFile(const std::string& path, const std::string& text, const char* command,
                     std::ostream& out, std::ostream& err)
{
    if (path == "-") {
        out << text << '\n';
        return true;
    }
    // Atomically: a shard's file that `merge` reads is either whole or absent.
    std::string error;
    if (!core::writeTextFileAtomically(path, text + '\n', error)) {
        err << "archipelago-cli " << command << ": cannot write '" << core::displayText(path)
            << "': " << core::displayText(error) << '\n';
        return false;
    }
    return true;
}

} // namespace archipelago::cli
