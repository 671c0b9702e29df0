#include "document/sweeprunner.h"

#include "io/scenarioio.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <utility>

namespace archipelago::app {

SweepRunner::SweepRunner(QObject* parent)
    : QObject(parent)
    , m_watcher(new QFutureWatcher<std::shared_ptr<Outcome>>(this))
{
    connect(m_watcher, &QFutureWatcherBase::finished, this, &SweepRunner::onFinished);
}

SweepRunner::~SweepRunner()
{
    // The worker posts progress to this object: stop it before it goes.
    if (m_cancel)
        m_cancel->store(true);
    m_watcher->waitForFinished();
}

bool SweepRunner::start(core::Scenario base, core::SearchSpace space, int top, bool samples,
                        int threads)
{
    if (m_running)
        return false;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_clock.start();
    m_running = true;
    auto outcome = std::make_shared<Outcome>();
    outcome->base = std::move(base);
    outcome->space = std::move(space);
    m_watcher->setFuture(
        QtConcurrent::run([this, outcome, top, samples, threads, cancel = m_cancel] {
            core::SweepOptions options;
            options.top = top;
            options.threads = threads;
            options.cancel = cancel.get();
            options.samples = samples ? &outcome->samples : nullptr;
            // Between batches, on the worker thread: hand the figures to the runner's thread (the
            // runner waits for this worker before it goes, see the destructor).
            options.progress = [this](const core::SweepProgress& p) {
                QMetaObject::invokeMethod(
                    this, [this, p] { emit progress(p); }, Qt::QueuedConnection);
            };
            // No exception leaves the worker (STYLE.md): it comes back as a sweep that did not run.
            try {
                outcome->result = core::runSweep(
                    outcome->base, core::effectiveCatalog(outcome->base), outcome->space, options);
            } catch (const std::exception& e) {
                outcome->result = {};
                outcome->result.ok = false;
                outcome->result.error = e.what();
            }
            return outcome;
        }));
    return true;
}

void SweepRunner::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

double SweepRunner::elapsedS() const
{
    return m_clock.isValid() ? static_cast<double>(m_clock.elapsed()) / 1000.0 : 0.0;
}

void SweepRunner::onFinished()
{
    std::shared_ptr<Outcome> outcome = m_watcher->result();
    m_running = false;
    emit finished(std::move(outcome));
}

} // namespace archipelago::app
