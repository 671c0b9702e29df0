#include "document/evaluator.h"

#include "evaluation/costmodel.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

namespace archipelago::app {

namespace {

constexpr int kDefaultDelayMs = 150;

} // namespace

core::Evaluation evaluateSafely(const core::Scenario& scenario)
{
    try {
        return core::evaluate(scenario);
    } catch (const std::exception& error) {
        core::Evaluation failed;
        failed.warnings.push_back(
            core::Warning{core::WarningCode::InternalError, core::WarningForm::Detail}.name(
                "detail", error.what()));
        return failed;
    } catch (...) {
        core::Evaluation failed;
        failed.warnings.push_back(
            core::Warning{core::WarningCode::InternalError, core::WarningForm::Detail}.name(
                "detail", "the cost model failed"));
        return failed;
    }
}

Evaluator::Evaluator(QObject* parent)
    : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(kDefaultDelayMs);
    connect(&m_timer, &QTimer::timeout, this, &Evaluator::start);
}

// Running workers own their snapshot; their watchers are children of this object and die with
// it, so a late result is simply never delivered.
Evaluator::~Evaluator() = default;

void Evaluator::setDelay(int milliseconds)
{
    m_timer.setInterval(milliseconds);
}

int Evaluator::delay() const
{
    return m_timer.interval();
}

void Evaluator::request(const core::Scenario& scenario)
{
    m_snapshot = std::make_shared<const core::Scenario>(scenario);
    ++m_generation;
    m_timer.start();
    emit pending();
}

void Evaluator::start()
{
    if (!m_snapshot)
        return;
    const std::uint64_t generation = m_generation;
    std::shared_ptr<const core::Scenario> snapshot = std::move(m_snapshot);
    auto* watcher = new QFutureWatcher<core::Evaluation>(this);
    connect(watcher, &QFutureWatcher<core::Evaluation>::finished, this,
            [this, watcher, generation, snapshot] {
                --m_running;
                watcher->deleteLater();
                if (generation != m_generation)
                    return; // a newer request is waiting or running: this result is stale
                m_evaluation = std::make_shared<const core::Evaluation>(watcher->result());
                m_evaluated = snapshot;
                emit evaluated(m_evaluation);
            });
    ++m_running;
    watcher->setFuture(QtConcurrent::run([snapshot] { return evaluateSafely(*snapshot); }));
}

} // namespace archipelago::app
