#include "document/pinevaluations.h"

#include "document/evaluator.h"

#include "evaluation/costmodel.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace archipelago::app {

PinEvaluations::PinEvaluations(QObject* parent)
    : QObject(parent)
{}

PinEvaluations::~PinEvaluations() = default;

PinEvaluations::Entry* PinEvaluations::find(const core::Scenario& scenario)
{
    auto it = std::find_if(m_entries.begin(), m_entries.end(),
                           [&scenario](const Entry& e) { return e.scenario == scenario; });
    return it == m_entries.end() ? nullptr : &*it;
}

std::shared_ptr<const core::Evaluation>
PinEvaluations::evaluationFor(const core::Scenario& scenario) const
{
    auto it = std::find_if(m_entries.begin(), m_entries.end(),
                           [&scenario](const Entry& e) { return e.scenario == scenario; });
    return it == m_entries.end() ? nullptr : it->evaluation;
}

void PinEvaluations::seed(const core::Scenario& scenario,
                          std::shared_ptr<const core::Evaluation> evaluation)
{
    if (Entry* entry = find(scenario)) {
        if (!entry->evaluation)
            entry->evaluation = std::move(evaluation);
        return;
    }
    m_entries.push_back({scenario, std::move(evaluation)});
}

void PinEvaluations::setPins(const std::vector<core::PinnedScenario>& pins)
{
    std::erase_if(m_entries, [&pins](const Entry& e) {
        return e.evaluation &&
               std::none_of(pins.begin(), pins.end(), [&e](const core::PinnedScenario& p) {
                   return p.scenario == e.scenario;
               });
    });
    for (const core::PinnedScenario& pin : pins) {
        if (find(pin.scenario))
            continue;
        m_entries.push_back({pin.scenario, nullptr});
        auto* watcher = new QFutureWatcher<core::Evaluation>(this);
        ++m_running;
        connect(watcher, &QFutureWatcher<core::Evaluation>::finished, this,
                [this, watcher, scenario = pin.scenario] {
                    --m_running;
                    watcher->deleteLater();
                    if (Entry* entry = find(scenario))
                        entry->evaluation =
                            std::make_shared<const core::Evaluation>(watcher->result());
                    emit updated();
                });
        watcher->setFuture(QtConcurrent::run(evaluateSafely, pin.scenario));
    }
}

} // namespace archipelago::app
