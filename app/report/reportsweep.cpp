// The sweep section (reportbuilder.h) and the checks of a sweep's JSON (reportsweep.h).
#include "report/reportsweep.h"

#include "common/format.h"
#include "report/reportbuilder.h"
#include "report/reportfigures.h"

#include "evaluation/costmodel.h"
#include "explore/sweep.h"
#include "explore/sweepjson.h"
#include "explore/sweepkeys.h"
#include "explore/sweepmerge.h"
#include "explore/sweepsave.h"
#include "io/evaluationjson.h"
#include "io/scenarioio.h"

#include <QFileInfo>

namespace archipelago::report {

namespace {

using namespace core::sweepkeys;
using core::evalkeys::kIterationTimeS;
using core::evalkeys::kMemoryPeakGib;
using core::evalkeys::kMfu;
using core::evalkeys::kNetworkCapexUsd;
using core::evalkeys::kTimeToTrainS;

// "/key": the JSON pointer of a key of the sweep's top level.
std::string keyPointer(const char* key)
{
    return std::string("/") + key;
}

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

class Checker
{
public:
    Checker(const std::string& file, std::vector<core::Diagnostic>& errors)
        : m_file(file)
        , m_errors(errors)
    {}

    void error(const std::string& pointer, const std::string& message)
    {
        if (m_errors.size() < 20)
            m_errors.push_back({core::Diagnostic::Severity::Error, m_file, pointer, message});
    }
    bool object(const nlohmann::json& j, const std::string& pointer)
    {
        if (j.is_object())
            return true;
        error(pointer, "expected an object");
        return false;
    }
    bool number(const nlohmann::json& parent, const char* key, const std::string& pointer)
    {
        const std::string at = pointer + "/" + key;
        if (!parent.contains(key)) {
            error(at, "missing: expected a number");
            return false;
        }
        if (!parent[key].is_number()) {
            error(at, "expected a number");
            return false;
        }
        return true;
    }
    // A design point as sweepjson.cpp writes it: the figures the fronts and the table read.
    void point(const nlohmann::json& p, const std::string& pointer)
    {
        if (!object(p, pointer))
            return;
        number(p, kNetworkCapexUsd, pointer);
        number(p, kTotalCostUsd, pointer);
        if (!p.contains(kDescription) || !p[kDescription].is_string())
            error(pointer + keyPointer(kDescription), "expected a string");
        if (!p.contains(kEvaluation)) {
            error(pointer + keyPointer(kEvaluation), "missing: expected an object");
            return;
        }
        const nlohmann::json& e = p[kEvaluation];
        if (!object(e, pointer + keyPointer(kEvaluation)))
            return;
        for (const char* key : {kIterationTimeS, kMemoryPeakGib, kTimeToTrainS, kMfu})
            number(e, key, pointer + keyPointer(kEvaluation));
    }

private:
    std::string m_file;
    std::vector<core::Diagnostic>& m_errors;
};

} // namespace

std::vector<core::Diagnostic> checkSweepJson(const nlohmann::json& json, const std::string& file)
{
    std::vector<core::Diagnostic> errors;
    Checker c(file, errors);
    if (!c.object(json, ""))
        return errors;
    if (!json.contains(kFronts)) {
        c.error(keyPointer(kFronts),
                "missing: expected the object of Pareto fronts of `archipelago-cli sweep --json`");
    } else if (c.object(json[kFronts], keyPointer(kFronts))) {
        for (const auto& [key, front] : json[kFronts].items()) {
            const std::string pointer = keyPointer(kFronts) + "/" + key;
            if (!front.is_array()) {
                c.error(pointer, "expected an array of design points");
                continue;
            }
            for (std::size_t i = 0; i < front.size(); ++i)
                c.point(front[i], pointer + "/" + std::to_string(i));
        }
    }
    if (!json.contains(kTop) || !json[kTop].is_array())
        c.error(keyPointer(kTop), "expected an array of design points");
    else
        for (std::size_t i = 0; i < json[kTop].size(); ++i)
            c.point(json[kTop][i], keyPointer(kTop) + "/" + std::to_string(i));
    if (json.contains(kBase) && !json[kBase].is_null())
        c.point(json[kBase], keyPointer(kBase));
    if (!json.contains(kCounts)) {
        c.error(keyPointer(kCounts), "missing: expected an object");
    } else if (c.object(json[kCounts], keyPointer(kCounts))) {
        for (const char* key : {kConsidered, kEvaluated, kFeasible})
            c.number(json[kCounts], key, keyPointer(kCounts));
    }
    return errors;
}

std::optional<ReportSweep> readReportSweep(const std::string& path,
                                           std::vector<core::Diagnostic>& errors)
{
    core::DiagnosticSink sink(path);
    std::optional<nlohmann::json> json = core::readSweepJson(path, sink);
    if (!json) {
        errors = sink.takeErrors();
        if (errors.empty())
            errors.push_back({core::Diagnostic::Severity::Error, path, "", "could not be read"});
        return std::nullopt;
    }
    errors = checkSweepJson(*json, path);
    if (!errors.empty())
        return std::nullopt;
    return ReportSweep{q(path), std::move(*json)};
}

namespace {

nlohmann::json figuresJson(const std::string& description, const core::Evaluation& e,
                           double networkCapexUsd, double totalCostUsd, double baseIterationS)
{
    nlohmann::json j;
    j[kDescription] = description;
    j[kNetworkCapexUsd] = networkCapexUsd;
    j[kTotalCostUsd] = totalCostUsd;
    if (baseIterationS > 0.0)
        j[kIterationTimeVsBase] = e.iterationTimeS / baseIterationS;
    j[kEvaluation] = {{kIterationTimeS, e.iterationTimeS},
                      {kMemoryPeakGib, e.memoryPeakGib},
                      {kTimeToTrainS, e.timeToTrainS},
                      {kMfu, e.mfu}};
    return j;
}

nlohmann::json pointsJson(const std::vector<core::SweepPoint>& points, double baseIterationS)
{
    nlohmann::json array = nlohmann::json::array();
    for (const core::SweepPoint& p : points)
        array.push_back(figuresJson(core::describeSweepPoint(p), p.evaluation, p.networkCapexUsd,
                                    p.totalCostUsd, baseIterationS));
    return array;
}

} // namespace

std::optional<ReportSweep> savedReportSweep(const core::SweepRecord& record,
                                            const core::Scenario& scenario,
                                            const core::Evaluation& evaluation,
                                            std::vector<core::Diagnostic>& errors)
{
    if (record.empty())
        return std::nullopt;
    const std::shared_ptr<const core::SavedSweep> saved = record.sweep;
    if (!saved) {
        errors = record.errors;
        return std::nullopt;
    }
    const double baseS = evaluation.ok ? evaluation.iterationTimeS : 0.0;
    nlohmann::json j;
    j[kCounts] = {{kConsidered, saved->counts.considered},
                  {kEvaluated, saved->counts.evaluated},
                  {kFeasible, saved->counts.feasible}};
    j[kBaseRank] = saved->baseRank;
    j[kBaseFeasible] = saved->baseRank > 0;
    if (evaluation.ok)
        j[kBase] = figuresJson("the scenario as given", evaluation, evaluation.networkCapexUsd,
                               core::totalCostUsd(scenario, core::effectiveCatalog(scenario),
                                                  evaluation.networkCapexUsd),
                               baseS);
    j[kFronts] = {{kTimeVsCapex, pointsJson(saved->timeVsCapex, baseS)},
                  {kTimeVsMemory, pointsJson(saved->timeVsMemory, baseS)},
                  {kTrainTimeVsCost, pointsJson(saved->trainTimeVsCost, baseS)}};
    j[kTop] = pointsJson(
        saved->topBy[static_cast<std::size_t>(core::SweepObjective::IterationTime)], baseS);
    return ReportSweep{QString(), std::move(j)};
}

ReportSection sweepSection(const ReportSweep& sweep)
{
    ReportSection section{QStringLiteral("sweep"), QStringLiteral("Design-space sweep"), {}, false};
    const nlohmann::json& j = sweep.json;
    auto count = [&j](const char* key) {
        const nlohmann::json& c = j.value(kCounts, nlohmann::json::object());
        return c.contains(key) && c[key].is_number() ? c[key].get<double>() : 0.0;
    };
    QString text = QStringLiteral("The design space around this scenario%1: %2 points considered, "
                                  "%3 evaluated in full, %4 feasible.")
                       .arg(sweep.file.isEmpty()
                                ? QString()
                                : QStringLiteral(" (%1)").arg(QFileInfo(sweep.file).fileName()),
                            views::formatWholeNumber(count(kConsidered)),
                            views::formatWholeNumber(count(kEvaluated)),
                            views::formatWholeNumber(count(kFeasible)));
    if (j.contains(kBaseRank) && j[kBaseRank].is_number_integer() && j.value(kBaseFeasible, false))
        text += QStringLiteral(" The scenario as given ranks %1 by iteration time.")
                    .arg(j[kBaseRank].get<long long>());
    section.blocks.push_back(paragraph(text));

    const nlohmann::json base = j.contains(kBase) ? j[kBase] : nlohmann::json();
    ReportBlock fronts;
    fronts.kind = ReportBlock::Kind::Figures;
    for (const FrontAxes& axes : frontAxes()) {
        const std::string key = axes.key.toStdString();
        if (j.contains(kFronts) && j[kFronts].contains(key))
            fronts.figures.push_back(frontFigure(axes, j[kFronts][key], base));
    }
    if (!fronts.figures.empty()) {
        section.blocks.push_back(paragraph(
            QStringLiteral("Pareto fronts (both objectives minimised): no point of the space is "
                           "better on both axes than a point on the line. The red diamond is the "
                           "scenario as given."),
            ReportBlock::Kind::Note));
        section.blocks.push_back(fronts);
    }

    ReportTable t;
    t.caption = QStringLiteral("Fastest feasible design points");
    t.headers = {QStringLiteral("#"),
                 QStringLiteral("Design point"),
                 QStringLiteral("Iteration"),
                 QStringLiteral("vs base"),
                 QStringLiteral("MFU"),
                 QStringLiteral("Memory"),
                 QStringLiteral("Network capex"),
                 QStringLiteral("Total cost")};
    t.rightAligned = {true, false, true, true, true, true, true, true};
    const nlohmann::json top = j.value(kTop, nlohmann::json::array());
    for (std::size_t i = 0; i < top.size(); ++i) {
        const nlohmann::json& p = top[i];
        const nlohmann::json& e = p[kEvaluation];
        const double vsBase =
            p.contains(kIterationTimeVsBase) && p[kIterationTimeVsBase].is_number()
                ? p[kIterationTimeVsBase].get<double>()
                : 0.0;
        t.rows.append({QString::number(i + 1), q(p[kDescription].get<std::string>()),
                       views::formatSeconds(e[kIterationTimeS].get<double>()),
                       vsBase > 0 ? views::formatPercent(vsBase - 1.0) : QStringLiteral("—"),
                       views::formatPercent(e[kMfu].get<double>()),
                       views::formatGib(e[kMemoryPeakGib].get<double>()),
                       views::formatUsd(p[kNetworkCapexUsd].get<double>()),
                       views::formatUsd(p[kTotalCostUsd].get<double>())});
        const CellMark m = vsBase > 0 && vsBase < 1.0 ? CellMark::Better
                           : vsBase > 1.0             ? CellMark::Worse
                                                      : CellMark::None;
        t.marks.append({CellMark::None, CellMark::None, CellMark::None, m});
    }
    if (!t.rows.isEmpty())
        section.blocks.push_back(tableBlock(t));
    return section;
}

} // namespace archipelago::report
