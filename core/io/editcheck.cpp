#include "io/editcheck.h"

#include "io/scenarioio.h"
#include "model/placementpresets.h"

#include <algorithm>

namespace archipelago::core {

namespace {

bool contains(const std::vector<Diagnostic>& list, const Diagnostic& d)
{
    return std::find(list.begin(), list.end(), d) != list.end();
}

// The diagnostics of `after` that this edit is answerable for: those at its fields and those
// `before` did not have. The field's own errors say it best; what follows from them elsewhere
// (a placement that no longer adds up, a batch that no longer divides) is given only when the
// field has none.
void judge(EditCheck& check, const std::vector<Diagnostic>& before,
           const std::vector<Diagnostic>& after, const std::vector<std::string>& fields)
{
    const auto atField = [&](const Diagnostic& d) {
        return std::any_of(fields.begin(), fields.end(), [&](const std::string& field) {
            return pointerWithin(d.pointer, field);
        });
    };
    std::vector<Diagnostic> mine;
    std::vector<Diagnostic> elsewhere;
    for (const Diagnostic& d : after) {
        const bool own = atField(d);
        if (!own && contains(before, d))
            continue;
        if (d.severity == Diagnostic::Severity::Warning) {
            if (!contains(check.warnings, d))
                check.warnings.push_back(d);
        } else if (own) {
            if (!contains(mine, d))
                mine.push_back(d);
        } else if (!contains(elsewhere, d)) {
            elsewhere.push_back(d);
        }
    }
    check.errorsElsewhere = mine.empty() && !elsewhere.empty();
    check.errors = mine.empty() ? std::move(elsewhere) : std::move(mine);
}

void accept(EditCheck& check, const Scenario& candidate, Scenario scenario)
{
    if (scenario.workload.globalBatch != candidate.workload.globalBatch) {
        check.batchBefore = candidate.workload.globalBatch;
        check.batchAfter = scenario.workload.globalBatch;
    }
    check.scenario = std::move(scenario);
}

} // namespace

bool pointerWithin(std::string_view pointer, std::string_view field)
{
    return pointer == field || (pointer.size() > field.size() && pointer.starts_with(field) &&
                                pointer[field.size()] == '/');
}

EditCheck checkEdit(const Scenario& before, const Scenario& candidate,
                    const std::vector<std::string>& fields, PlacementRepairMode mode)
{
    EditCheck check;
    const std::vector<Diagnostic> beforeDiagnostics =
        checkScenario(before, effectiveCatalog(before));
    if (candidate == before) { // an edit that changes nothing is never refused
        check.diagnostics = beforeDiagnostics;
        judge(check, beforeDiagnostics, beforeDiagnostics, fields);
        check.errors.clear();
        check.errorsElsewhere = false;
        check.scenario = before;
        return check;
    }
    const Catalog catalog = effectiveCatalog(candidate);

    // 1. A scenario with no error at all, the placement re-made and the batch fitted if need be.
    PlacementRepair repair = repairPlacement(candidate, before, catalog, mode);
    if (repair.scenario) {
        check.diagnostics = checkScenario(*repair.scenario, catalog);
        judge(check, beforeDiagnostics, check.diagnostics, fields); // warnings only: no error
        check.notes = std::move(repair.notes);
        accept(check, candidate, std::move(*repair.scenario));
        return check;
    }

    // 2. No error caused by the edit, in a scenario that had some before it.
    std::vector<Scenario> tries{candidate};
    if (candidate.workload.globalBatch == before.workload.globalBatch) {
        Scenario fitted = withFittedGlobalBatch(candidate);
        if (fitted.workload.globalBatch != candidate.workload.globalBatch)
            tries.push_back(std::move(fitted));
    }
    std::optional<EditCheck> refusal;
    for (Scenario& attempt : tries) {
        EditCheck judged;
        judged.diagnostics = checkScenario(attempt, catalog);
        judge(judged, beforeDiagnostics, judged.diagnostics, fields);
        if (judged.errors.empty()) {
            accept(judged, candidate, std::move(attempt));
            return judged;
        }
        if (!refusal)
            refusal = std::move(judged);
    }
    return std::move(*refusal);
}

} // namespace archipelago::core
