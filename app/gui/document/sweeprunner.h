// Runs a design-space sweep (core::runSweep) off the UI thread, beside the Evaluator that runs
// one evaluation: the background job, its progress and its cancel. The Explore panel owns the
// fields and the plots; this owns the worker. Progress arrives on the runner's thread, queued
// from the worker between batches; finished() hands over the result once, and the runner waits
// for its worker before it goes (a worker never outlives what it reports to).
#pragma once

#include "explore/searchspace.h"
#include "explore/sweep.h"
#include "model/scenario.h"

#include <QElapsedTimer>
#include <QMetaType>
#include <QObject>

#include <atomic>
#include <memory>
#include <vector>

template <typename T> class QFutureWatcher;

namespace archipelago::app {

class SweepRunner : public QObject
{
    Q_OBJECT

public:
    // What one sweep found, with what it searched and around which scenario.
    struct Outcome
    {
        core::Scenario base;
        core::SearchSpace space;
        core::SweepResult result;
        std::vector<core::SweepSample> samples;
    };

    explicit SweepRunner(QObject* parent = nullptr);
    ~SweepRunner() override;

    // Starts a sweep of `space` around `base` (its saved sweep left out), keeping the best `top`
    // points per objective and, with `samples`, every evaluated point, on `threads` threads
    // (0: TBB's default); false while one runs.
    bool start(core::Scenario base, core::SearchSpace space, int top, bool samples = true,
               int threads = 0);
    // Asks the running sweep to stop after its current batch; finished() still comes, with the
    // points found so far (SweepResult::cancelled).
    void cancel();
    // True from start() until finished() has been emitted.
    bool isRunning() const { return m_running; }
    // Seconds since the running (or last) sweep started.
    double elapsedS() const;

signals:
    void progress(const core::SweepProgress& progress);
    // Never null; result.ok false (with result.error) when the sweep could not run.
    void finished(std::shared_ptr<archipelago::app::SweepRunner::Outcome> outcome);

private:
    void onFinished();

    QFutureWatcher<std::shared_ptr<Outcome>>* m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QElapsedTimer m_clock;
    bool m_running = false;
};

} // namespace archipelago::app

Q_DECLARE_METATYPE(std::shared_ptr<archipelago::app::SweepRunner::Outcome>)
Q_DECLARE_METATYPE(archipelago::core::SweepProgress)
