#include "editing/editvalidation.h"

#include "io/editcheck.h"
#include "io/scenarioio.h"
#include "model/placementpresets.h"

#include "common/format.h"
#include "propertyeditor/diagnostictext.h"

#include <QObject>
#include <QStringList>

#include <limits>

namespace archipelago::app {

namespace {

// In the user's words, as the property editor says it (views/propertyeditor/diagnostictext.h):
// the refusal of a canvas or menu edit reads like a field's ("Global batch: the global batch must
// be a multiple of …"), not as the checker's JSON pointer and formula.
QString describe(const core::Diagnostic& d, const core::Scenario& scenario)
{
    const QString message =
        views::userMessage(d, scenario).replace(QLatin1Char('\n'), QLatin1Char(' ')).trimmed();
    const QString place = views::placeOf(d.pointer, scenario);
    return place.isEmpty() || message.startsWith(place, Qt::CaseInsensitive)
               ? message
               : QStringLiteral("%1: %2").arg(place, message);
}

} // namespace

std::vector<core::Diagnostic> scenarioErrors(const core::Scenario& scenario)
{
    std::vector<core::Diagnostic> errors;
    for (core::Diagnostic& d : core::checkScenario(scenario, core::effectiveCatalog(scenario)))
        if (d.severity == core::Diagnostic::Severity::Error)
            errors.push_back(std::move(d));
    return errors;
}

std::optional<core::Scenario> keepingBatch(const core::Scenario& fitted, std::int64_t batch)
{
    if (batch < 1 || batch > std::numeric_limits<int>::max())
        return std::nullopt;
    core::Scenario kept = fitted;
    kept.workload.globalBatch = static_cast<int>(batch);
    const std::int64_t dp = core::largestDividingDataParallel(batch, kept.parallelism.microBatch,
                                                              core::dataParallel(fitted));
    if (dp < 1)
        return std::nullopt;
    kept.placement = core::withDataParallelAtMost(kept, dp);
    if (core::dataParallel(kept) != dp || !scenarioErrors(kept).empty())
        return std::nullopt;
    return kept;
}

ValidatedEdit validateEdit(const core::Scenario& candidate, const core::Scenario& before,
                           bool repairPlacement, const std::vector<std::string>& fields)
{
    core::EditCheck check =
        core::checkEdit(before, candidate, fields,
                        repairPlacement ? core::PlacementRepairMode::Repair
                                        : core::PlacementRepairMode::KeepPlacement);
    if (!check.accepted())
        return {std::nullopt,
                check.errors.empty() ? QString() : describe(check.errors.front(), candidate),
                {}};
    QStringList notes;
    for (const std::string& note : check.notes)
        notes << QString::fromStdString(note);
    ValidatedEdit edit{std::move(check.scenario), {}, notes.join(QStringLiteral("; "))};
    const core::Scenario& fitted = *edit.scenario;
    if (check.changesGlobalBatch()) {
        edit.batchBefore = check.batchBefore;
        edit.batchAfter = check.batchAfter;
        const std::int64_t dpBefore = core::dataParallel(before);
        const std::int64_t dpAfter = core::dataParallel(fitted);
        edit.batchQuestion =
            QObject::tr("This edit changes data parallelism from %1 to %2. The global batch of "
                        "%3 sequences does not divide into micro-batch %4 × DP %2, so the edit "
                        "is only valid with a global batch of %5 sequences (the nearest that "
                        "divides).\n\nChange the global batch from %3 to %5 with this edit?")
                .arg(views::formatCount(dpBefore), views::formatCount(dpAfter),
                     views::formatCount(edit.batchBefore),
                     views::formatCount(fitted.parallelism.microBatch),
                     views::formatCount(edit.batchAfter));
    }
    return edit;
}

} // namespace archipelago::app
