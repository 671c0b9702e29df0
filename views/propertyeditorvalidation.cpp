#include "propertyeditorvalidation.h"

#include "evaluation/costmodel.h"
#include "propertyeditorfields.h"
#include "propertyeditorwords.h"

#include <algorithm>

namespace archipelago::views {

std::vector<core::Diagnostic> checkCandidate(const core::Scenario& scenario)
{
    std::vector<core::Diagnostic> diagnostics =
        core::checkScenario(scenario, core::effectiveCatalog(scenario));
    for (core::Diagnostic& d : diagnostics) {
        const QString where = placeOf(d.pointer, scenario);
        d.message = userMessage(d, scenario).toStdString();
        // Remember where, for an edit whose error lands on another field.
        d.file = where.toStdString();
    }
    return diagnostics;
}

EditVerdict judgeEdit(const std::vector<core::Diagnostic>& before,
                      const std::vector<core::Diagnostic>& after, const QStringList& fields)
{
    const auto atField = [&](const core::Diagnostic& d) {
        const QString pointer = QString::fromStdString(d.pointer);
        return std::any_of(fields.begin(), fields.end(),
                           [&](const QString& field) { return pointerWithin(pointer, field); });
    };
    const auto isNew = [&](const core::Diagnostic& d) {
        return std::find(before.begin(), before.end(), d) == before.end();
    };
    EditVerdict verdict;
    QStringList otherErrors;
    for (const core::Diagnostic& d : after) {
        const bool mine = atField(d);
        if (!mine && !isNew(d))
            continue;
        const QString text = QString::fromStdString(d.message);
        if (d.severity == core::Diagnostic::Severity::Warning) {
            if (!verdict.warnings.contains(text))
                verdict.warnings << text;
        } else if (mine) {
            if (!verdict.errors.contains(text))
                verdict.errors << text;
        } else if (!otherErrors.contains(text)) {
            // Caused elsewhere by this edit: say where, the message may not name the field.
            const QString where =
                d.file.empty() ? QString() : QString::fromStdString(d.file) + QStringLiteral(": ");
            otherErrors << where + text;
        }
    }
    // The field's own reasons say it best; what follows from them (a placement that no longer
    // adds up, a batch that no longer divides) is shown only when the field has none.
    if (verdict.errors.isEmpty())
        verdict.errors = otherErrors;
    return verdict;
}

} // namespace archipelago::views
