#include "placementrepair.h"

#include "evaluation/costmodel.h"
#include "io/placementrepair.h"

#include <QStringList>

namespace archipelago::app {

namespace {

QString describe(const core::Diagnostic& d)
{
    return d.pointer.empty() ? QString::fromStdString(d.message)
                             : QStringLiteral("%1: %2").arg(QString::fromStdString(d.pointer),
                                                            QString::fromStdString(d.message));
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

ValidatedEdit validateEdit(const core::Scenario& candidate, const core::Scenario& before,
                           bool repairPlacement)
{
    core::PlacementRepair repair =
        core::repairPlacement(candidate, before, core::effectiveCatalog(candidate),
                              repairPlacement ? core::PlacementRepairMode::Repair
                                              : core::PlacementRepairMode::KeepPlacement);
    if (!repair.scenario)
        return {
            std::nullopt, repair.errors.empty() ? QString() : describe(repair.errors.front()), {}};
    QStringList notes;
    for (const std::string& note : repair.notes)
        notes << QString::fromStdString(note);
    return {std::move(repair.scenario), {}, notes.join(QStringLiteral("; "))};
}

} // namespace archipelago::app
