// Runs the cost model off the UI thread (STYLE.md "Evaluation off the UI thread"): a
// cost-affecting change restarts a short single-shot timer (debounce); when it fires, an
// immutable copy of the scenario is evaluated with QtConcurrent; a result older than the
// latest request is dropped, so the published Evaluation always belongs to the newest scenario.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <QObject>
#include <QTimer>

#include <cstdint>
#include <memory>

namespace archipelago::app {

// core::evaluate for a worker thread: no exception leaves it (STYLE.md: none crosses a layer
// boundary); a failure comes back as an Evaluation with an "internal-error" warning.
core::Evaluation evaluateSafely(const core::Scenario& scenario);

class Evaluator : public QObject
{
    Q_OBJECT

public:
    explicit Evaluator(QObject* parent = nullptr);
    ~Evaluator() override;

    // Debounce interval; 0 evaluates on the next event-loop turn.
    void setDelay(int milliseconds);
    int delay() const;

    // Schedules an evaluation of a copy of `scenario`, replacing any not yet started.
    void request(const core::Scenario& scenario);

    // The latest published evaluation, or nullptr before the first.
    std::shared_ptr<const core::Evaluation> evaluation() const { return m_evaluation; }
    // The scenario the latest published evaluation belongs to, or nullptr before the first.
    std::shared_ptr<const core::Scenario> evaluatedScenario() const { return m_evaluated; }
    bool isBusy() const { return m_running > 0 || m_timer.isActive(); }
    std::uint64_t generation() const { return m_generation; }

signals:
    // A request is waiting or running; the published figures are out of date.
    void pending();
    void evaluated(std::shared_ptr<const core::Evaluation> evaluation);

private:
    void start();

    QTimer m_timer;
    std::shared_ptr<const core::Scenario> m_snapshot;
    std::shared_ptr<const core::Evaluation> m_evaluation;
    std::shared_ptr<const core::Scenario> m_evaluated;
    std::uint64_t m_generation = 0; // of the latest request
    int m_running = 0;
};

} // namespace archipelago::app
