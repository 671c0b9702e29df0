// Inline validation of the property editor: an edit is judged by running the loader's own
// semantic checks (core::checkScenario with the effective catalog) on the candidate scenario
// and comparing with the scenario as it is, so the editor refuses exactly what a file would be
// refused for, its reasons told in the user's words (propertyeditorwords.h).
#pragma once

#include "io/scenarioio.h"

#include <QStringList>

#include <vector>

namespace archipelago::views {

struct EditVerdict
{
    QStringList errors;   // refuse the edit and show these under the field
    QStringList warnings; // let the edit through, show these under the field
    bool accepted() const { return errors.isEmpty(); }
};

// checkScenario(scenario, effectiveCatalog(scenario)), each message in the user's words
// (propertyeditorwords.h) and `file` holding where it is in words ("Datacenter building-a").
std::vector<core::Diagnostic> checkCandidate(const core::Scenario& scenario);

// Diagnostics of `after` that concern the edited `fields` (JSON pointers) or that `before` did
// not have: the ones the edit caused. When some errors are at the edited fields only those are
// listed (the rest follow from them); otherwise the new errors elsewhere, with their pointer.
EditVerdict judgeEdit(const std::vector<core::Diagnostic>& before,
                      const std::vector<core::Diagnostic>& after, const QStringList& fields);

} // namespace archipelago::views
