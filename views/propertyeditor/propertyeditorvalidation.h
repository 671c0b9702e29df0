// Inline validation of the property editor in the user's words: core::checkEdit judges an edit
// (the loader's own checks on the candidate, compared with the scenario as it is, so the editor
// refuses exactly what a file would be refused for, and exactly what the app would refuse);
// this says its reasons and the scenario's diagnostics as a person would (diagnostictext.h).
#pragma once

#include "io/editcheck.h"
#include "io/scenarioio.h"

#include <QStringList>

#include <vector>

namespace archipelago::views {

// checkScenario(scenario, effectiveCatalog(scenario)), each message in the user's words
// (diagnostictext.h) and `file` holding where it is in words ("Datacenter building-a").
std::vector<core::Diagnostic> checkCandidate(const core::Scenario& scenario);
// The same wording for diagnostics already found in `scenario`.
std::vector<core::Diagnostic> inUserWords(std::vector<core::Diagnostic> diagnostics,
                                          const core::Scenario& scenario);
// Their messages in the user's words, each once.
QStringList messagesInUserWords(const std::vector<core::Diagnostic>& diagnostics,
                                const core::Scenario& scenario);

// Why core::checkEdit refused an edit of `candidate`, in the user's words: the errors at the
// edited field, or those it caused elsewhere with where they are ("Datacenter building-a: …").
QStringList refusalReasons(const core::EditCheck& check, const core::Scenario& candidate);

} // namespace archipelago::views
