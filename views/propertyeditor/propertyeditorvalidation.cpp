#include "propertyeditor/propertyeditorvalidation.h"

#include "io/scenarioio.h"
#include "propertyeditor/diagnostictext.h"

namespace archipelago::views {

std::vector<core::Diagnostic> checkCandidate(const core::Scenario& scenario)
{
    return inUserWords(core::checkScenario(scenario, core::effectiveCatalog(scenario)), scenario);
}

std::vector<core::Diagnostic> inUserWords(std::vector<core::Diagnostic> diagnostics,
                                          const core::Scenario& scenario)
{
    for (core::Diagnostic& d : diagnostics) {
        const QString where = placeOf(d.pointer, scenario);
        d.message = userMessage(d, scenario).toStdString();
        // Remember where, for an edit whose error lands on another field.
        d.file = where.toStdString();
    }
    return diagnostics;
}

QStringList messagesInUserWords(const std::vector<core::Diagnostic>& diagnostics,
                                const core::Scenario& scenario)
{
    QStringList texts;
    for (const core::Diagnostic& d : diagnostics) {
        const QString text = userMessage(d, scenario);
        if (!texts.contains(text))
            texts << text;
    }
    return texts;
}

QStringList refusalReasons(const core::EditCheck& check, const core::Scenario& candidate)
{
    QStringList reasons;
    for (const core::Diagnostic& d : check.errors) {
        QString text = userMessage(d, candidate);
        if (check.errorsElsewhere) {
            // Caused elsewhere by this edit: say where, the message may not name the field.
            const QString where = placeOf(d.pointer, candidate);
            if (!where.isEmpty())
                text = where + QStringLiteral(": ") + text;
        }
        if (!reasons.contains(text))
            reasons << text;
    }
    return reasons;
}

} // namespace archipelago::views
