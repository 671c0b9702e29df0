// Evaluations of the pinned design points, for the plots and the comparison table. A pin is a
// frozen scenario, so its evaluation is computed once (off the UI thread, like the Evaluator's)
// and kept while a pin with that scenario exists; pinning the current point reuses the
// evaluation already published for it.
#pragma once

#include "io/scenarioio.h"
#include "model/evaluation.h"

#include <QObject>

#include <memory>
#include <vector>

namespace archipelago::app {

class PinEvaluations : public QObject
{
    Q_OBJECT

public:
    explicit PinEvaluations(QObject* parent = nullptr);
    ~PinEvaluations() override;

    // Drops the evaluations of scenarios no longer pinned and starts those missing.
    void setPins(const std::vector<core::PinnedScenario>& pins);
    // Records an evaluation already computed for `scenario`.
    void seed(const core::Scenario& scenario, std::shared_ptr<const core::Evaluation> evaluation);
    // nullptr while it is being computed.
    std::shared_ptr<const core::Evaluation> evaluationFor(const core::Scenario& scenario) const;
    bool isBusy() const { return m_running > 0; }

signals:
    void updated();

private:
    struct Entry
    {
        core::Scenario scenario;
        std::shared_ptr<const core::Evaluation> evaluation; // nullptr: running
    };
    Entry* find(const core::Scenario& scenario);

    std::vector<Entry> m_entries;
    int m_running = 0;
};

} // namespace archipelago::app
