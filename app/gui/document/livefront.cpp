#include "document/livefront.h"

#include "common/format.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "explore/sweepjson.h"

#include <QStringList>
#include <QThread>

#include <algorithm>

#include <utility>

namespace archipelago::app {

namespace {

// A gain smaller than this is reported as none: the figures differ in their last digits only
// (the model's own error is a few percent, README "The cost model and how far to trust it").
constexpr double kLeastGain = 5e-4;

// Threads for the sweep: all but one, so the window keeps a core to redraw on.
int sweepThreads()
{
    return std::max(1, QThread::idealThreadCount() - 1);
}

} // namespace

LiveFront::LiveFront(Document* document, Evaluator* evaluator, QObject* parent)
    : QObject(parent)
    , m_document(document)
    , m_evaluator(evaluator)
    , m_runner(new SweepRunner(this))
{
    qRegisterMetaType<Finding>();
    connect(m_runner, &SweepRunner::finished, this, &LiveFront::onFinished);
    connect(m_document, &Document::changed, this, [this](const ChangeEvent& event) {
        if (event.affectsCost())
            invalidate();
    });
    // The sweep follows the evaluation of the same scenario: the window's figures first.
    connect(m_evaluator, &Evaluator::evaluated, this, [this] {
        const std::shared_ptr<const core::Scenario> evaluated = m_evaluator->evaluatedScenario();
        if (evaluated && *evaluated == m_document->scenario())
            start();
    });
}

LiveFront::~LiveFront()
{
    // The runner (a child) waits for its worker; nothing it says reaches this half destroyed.
    disconnect(m_runner, nullptr, this, nullptr);
    m_runner->cancel();
}

void LiveFront::setEnabled(bool on)
{
    if (on == m_enabled)
        return;
    m_enabled = on;
    if (on) {
        emit searching();
        start();
        return;
    }
    m_runner->cancel();
    m_runningRevision = 0; // what it finds is dropped
    m_finding.reset();
    emit cleared();
}

void LiveFront::setSuspended(bool suspended)
{
    if (suspended == m_suspended)
        return;
    m_suspended = suspended;
    if (suspended) {
        if (m_runner->isRunning()) {
            m_runner->cancel();
            m_runningRevision = 0;
        }
        return;
    }
    start(); // the edits made meanwhile, or the sweep cut short
}

void LiveFront::invalidate()
{
    ++m_revision;
    m_finding.reset();
    if (m_runner->isRunning())
        m_runner->cancel(); // onFinished drops it; the next evaluation starts the new one
    if (m_enabled)
        emit searching();
}

void LiveFront::start()
{
    if (!m_enabled || m_suspended || m_finding)
        return;
    if (m_runner->isRunning()) {
        if (m_runningRevision != m_revision)
            m_runner->cancel(); // onFinished starts this one
        return;
    }
    core::Scenario base = m_document->scenario();
    core::SearchSpace space = core::defaultSearchSpace(base);
    m_runningRevision = m_revision;
    m_runner->start(std::move(base), std::move(space), 1, false, sweepThreads());
}

void LiveFront::onFinished(const std::shared_ptr<SweepRunner::Outcome>& outcome)
{
    if (m_runningRevision != m_revision || outcome->result.cancelled) {
        // Swept for a design since edited (or cut short): sweep the document as it is now,
        // once the evaluator has it.
        const std::shared_ptr<const core::Scenario> evaluated = m_evaluator->evaluatedScenario();
        if (!m_evaluator->isBusy() && evaluated && *evaluated == m_document->scenario())
            start();
        return;
    }
    const core::SweepResult& r = outcome->result;
    Finding f;
    f.revision = m_runningRevision;
    f.base = std::move(outcome->base);
    f.space = std::move(outcome->space);
    f.spacePoints = r.counts.spacePoints;
    f.evaluated = r.counts.evaluated;
    f.wallS = r.wallS;
    if (!r.ok) {
        f.kind = Finding::Kind::Failed;
        f.error = r.error;
    } else {
        f.current = r.base;
        f.currentFeasible = r.baseFeasible;
        const auto& ranked = r.topBy[static_cast<std::size_t>(core::SweepObjective::TimeToTrain)];
        if (!ranked.empty())
            f.best = ranked.front();
        if (f.currentFeasible) {
            const double now = f.current.evaluation.timeToTrainS;
            f.gain = f.best && now > 0.0 ? 1.0 - f.best->evaluation.timeToTrainS / now : 0.0;
            f.kind = f.gain >= kLeastGain ? Finding::Kind::Faster : Finding::Kind::Best;
            if (f.kind == Finding::Kind::Best) {
                f.gain = 0.0;
                f.best.reset();
            }
        } else {
            f.kind = f.best ? Finding::Kind::Feasible : Finding::Kind::NoneFeasible;
        }
        if (f.best)
            f.changes = core::sweepPointChanges(f.current, *f.best);
    }
    m_finding = std::move(f);
    emit found(*m_finding);
}

QString LiveFront::text(const Finding& f, int maxChanges)
{
    QStringList changes;
    for (const std::string& c : f.changes)
        changes << QString::fromStdString(c);
    const qsizetype shown =
        maxChanges < 0 ? changes.size() : std::min<qsizetype>(maxChanges, changes.size());
    QString what = changes.isEmpty() ? tr("another placement of the same knobs")
                                     : changes.mid(0, shown).join(QLatin1Char(' '));
    if (shown < changes.size())
        what += tr(" and %1 more").arg(changes.size() - shown);
    switch (f.kind) {
    case Finding::Kind::Faster: {
        // One decimal, two below 1% so that a small gain does not read as none.
        const double percent = 100.0 * f.gain;
        return tr("A design %1% faster exists: %2")
            .arg(QString::number(percent, 'f', percent < 1.0 ? 2 : 1), what);
    }
    case Finding::Kind::Best:
        return tr("No faster design in the default space (%1 points)")
            .arg(views::formatCount(static_cast<std::int64_t>(f.spacePoints)));
    case Finding::Kind::Feasible:
        return tr("The current design does not fit; one that does exists: %1").arg(what);
    case Finding::Kind::NoneFeasible:
        return tr("No design of the default space fits (%1 points)")
            .arg(views::formatCount(static_cast<std::int64_t>(f.spacePoints)));
    case Finding::Kind::Failed:
        return tr("The default space could not be searched: %1")
            .arg(QString::fromStdString(f.error));
    }
    return {};
}

} // namespace archipelago::app
