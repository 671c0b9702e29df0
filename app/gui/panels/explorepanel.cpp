#include "panels/explorepanel.h"

#include "commands/sweepcommands.h"
#include "common/colors.h"
#include "common/format.h"
#include "common/scenariotext.h"
#include "document/document.h"
#include "editing/editcontroller.h"
#include "evaluation/costmodel.h"
#include "explore/spaceodometer.h"
#include "explore/sweepjson.h"
#include "io/scenarioio.h"
#include "panels/explorespaceeditor.h"
#include "plots/paretoscatter.h"
#include "tables/sweeptoptable.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <utility>

namespace archipelago::app {

namespace {

constexpr int kTop = 10;

// A point's name, from what most often tells two points apart: "TP8 PP16 DP128 v4 mb1", then
// the placement boundary and the DCI transport when the point sets them; the comparison table
// shows the rest.
QString pointName(const core::Scenario& scenario, const core::DesignPoint& point)
{
    const core::Parallelism& par = scenario.parallelism;
    QString name = QStringLiteral("TP%1 PP%2 DP%3 v%4 mb%5")
                       .arg(par.tp)
                       .arg(par.pp)
                       .arg(core::dataParallel(scenario))
                       .arg(par.virtualStages)
                       .arg(par.microBatch);
    if (par.cp > 1)
        name.replace(QStringLiteral(" PP"), QStringLiteral(" CP%1 PP").arg(par.cp));
    if (point.boundary != core::PlacementBoundary::Base)
        name += QStringLiteral(" %1-across")
                    .arg(QString::fromLatin1(toString(point.boundary)).toUpper());
    // One transport for every link ("lossy IP"), or one per link ("base/lossy IP").
    if (!point.dciTransport.isBase()) {
        QStringList transports;
        for (std::size_t i = 0; i < std::max<std::size_t>(1, point.dciTransport.each.size()); ++i) {
            const auto t = point.dciTransport.of(i);
            transports << (t ? views::transportName(*t) : QStringLiteral("base"));
        }
        name += QLatin1Char(' ') + transports.join(QLatin1Char('/'));
    }
    return name;
}

// A pin's name: the point's, with its index when a pin already has that name.
QString pinName(const core::Scenario& scenario, const core::DesignPoint& point,
                const std::vector<core::PinnedScenario>& pins)
{
    const QString name = pointName(scenario, point);
    const bool taken = std::any_of(pins.begin(), pins.end(), [&](const core::PinnedScenario& p) {
        return p.name == name.toStdString();
    });
    return taken ? QStringLiteral("%1 #%2").arg(name).arg(point.index) : name;
}

} // namespace

ExplorePanel::ExplorePanel(Document* document, EditController* edits, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_edits(edits)
{
    m_runner = new SweepRunner(this);
    connect(m_runner, &SweepRunner::progress, this, &ExplorePanel::onProgress);
    connect(m_runner, &SweepRunner::finished, this, &ExplorePanel::onFinished);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("ExploreSplitter"));
    splitter->setChildrenCollapsible(false);
    auto* scroll = new QScrollArea(splitter);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(makeEditor());
    scroll->setMinimumWidth(300);
    splitter->addWidget(scroll);
    m_scatter = new views::ParetoScatter(splitter);
    m_scatter->setObjectName(QStringLiteral("ExploreScatter"));
    m_scatter->setDescriber([this](std::uint64_t index) { return describe(index); });
    splitter->addWidget(m_scatter);
    splitter->addWidget(makeResults());
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    splitter->setSizes({300, 420, 460});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    connect(m_scatter, &views::ParetoScatter::pointClicked, this,
            [this](quint64 index) { previewPoint(index); });
    connect(m_table, &views::SweepTopTable::pointSelected, this, [this](int row) {
        const auto& list = topBy(static_cast<core::SweepObjective>(m_objective->currentIndex()));
        if (row >= 0 && static_cast<std::size_t>(row) < list.size())
            previewPoint(list[static_cast<std::size_t>(row)].point.index);
    });
    connect(m_document, &Document::changed, this, &ExplorePanel::onDocumentChanged);
    setRunning(false);
    m_generation = m_document->generation();
    showDocumentSweep();
    showLive();
}

ExplorePanel::~ExplorePanel()
{
    // The runner (a child) waits for its worker when it goes; nothing it says reaches a panel
    // half destroyed.
    disconnect(m_runner, nullptr, this, nullptr);
    m_runner->cancel();
}

QWidget* ExplorePanel::makeEditor()
{
    m_editor = new QWidget;
    auto* layout = new QVBoxLayout(m_editor);
    layout->setContentsMargins(0, 0, 6, 0);

    auto* top = new QHBoxLayout;
    m_runButton = new QPushButton(tr("Run"), m_editor);
    m_runButton->setObjectName(QStringLiteral("ExploreRun"));
    m_runButton->setToolTip(tr("Search the space around the current scenario"));
    m_resetButton = new QPushButton(tr("Reset"), m_editor);
    m_resetButton->setToolTip(tr("The default space for the current scenario"));
    m_spaceSize = new QLabel(m_editor);
    top->addWidget(m_runButton);
    top->addWidget(m_resetButton);
    top->addWidget(m_spaceSize, 1);
    layout->addLayout(top);
    m_progress = new QProgressBar(m_editor);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(true);
    m_progress->setFormat(QString());
    layout->addWidget(m_progress);
    m_rate = new QLabel(m_editor);
    m_rate->setObjectName(QStringLiteral("ExploreRate"));
    layout->addWidget(m_rate);
    m_message = new QLabel(m_editor);
    m_message->setObjectName(QStringLiteral("ExploreMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    layout->addWidget(m_message);

    m_space = new ExploreSpaceEditor(m_document, m_editor);
    connect(m_space, &ExploreSpaceEditor::edited, this, [this] {
        if (!m_settingSpace)
            m_spaceFollowsDocument = false; // the user's space: kept until Reset
        updateSpaceSize();
    });
    layout->addWidget(m_space);
    layout->addStretch(1);

    connect(m_runButton, &QPushButton::clicked, this, [this] {
        if (isRunning())
            cancel();
        else
            run();
    });
    connect(m_resetButton, &QPushButton::clicked, this, &ExplorePanel::resetSpace);
    return m_editor;
}

QWidget* ExplorePanel::makeResults()
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* live = new QHBoxLayout;
    m_live = new QLabel(box);
    m_live->setObjectName(QStringLiteral("ExploreLive"));
    m_live->setWordWrap(true);
    m_live->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_livePreview = new QPushButton(tr("Preview"), box);
    m_livePreview->setObjectName(QStringLiteral("ExploreLivePreview"));
    m_livePreview->setToolTip(
        tr("Preview the design the live front found, beside the current one"));
    connect(m_livePreview, &QPushButton::clicked, this, &ExplorePanel::previewLive);
    live->addWidget(m_live, 1);
    live->addWidget(m_livePreview);
    layout->addLayout(live);
    auto* row = new QHBoxLayout;
    m_axes = new QComboBox(box);
    m_axes->addItems({tr("Iteration time vs network capex"), tr("Time to train vs total cost"),
                      tr("Iteration time vs memory peak")});
    m_axes->setToolTip(tr("The pair of objectives the scatter and its front show"));
    connect(m_axes, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_scatter->setAxes(static_cast<views::ScatterAxes>(i)); });
    row->addWidget(new QLabel(tr("Scatter:"), box));
    row->addWidget(m_axes);
    row->addSpacing(12);
    row->addWidget(new QLabel(tr("Top %1 by").arg(kTop), box));
    m_objective = new QComboBox(box);
    // In core::SweepObjective's order.
    m_objective->addItems({tr("Iteration time"), tr("Time to train"),
                           tr("Time to train with failures"), tr("Total cost"), tr("Run cost"),
                           tr("Network capex"), tr("Memory peak")});
    Q_ASSERT(m_objective->count() == static_cast<int>(core::kSweepObjectives));
    connect(m_objective, &QComboBox::currentIndexChanged, this, &ExplorePanel::refreshTable);
    row->addWidget(m_objective);
    row->addStretch(1);
    layout->addLayout(row);

    m_table = new views::SweepTopTable(box);
    m_table->setObjectName(QStringLiteral("ExploreTopTable"));
    layout->addWidget(m_table, 1);

    auto* preview = new QHBoxLayout;
    m_previewLabel = new QLabel(tr("Click a point or a row to preview it."), box);
    m_previewLabel->setWordWrap(true);
    m_previewLabel->setObjectName(QStringLiteral("ExplorePreview"));
    m_pinButton = new QPushButton(tr("Pin"), box);
    m_pinButton->setToolTip(tr("Pin the previewed point for comparison (undoable)"));
    m_applyButton = new QPushButton(tr("Apply"), box);
    m_applyButton->setToolTip(tr("Make the previewed point the current design (one undo step)"));
    m_clearButton = new QPushButton(tr("Clear"), box);
    m_clearButton->setToolTip(tr("Stop previewing"));
    preview->addWidget(m_previewLabel, 1);
    preview->addWidget(m_pinButton);
    preview->addWidget(m_applyButton);
    preview->addWidget(m_clearButton);
    layout->addLayout(preview);
    connect(m_pinButton, &QPushButton::clicked, this, &ExplorePanel::pinPreview);
    connect(m_applyButton, &QPushButton::clicked, this, &ExplorePanel::applyPreview);
    connect(m_clearButton, &QPushButton::clicked, this, &ExplorePanel::clearPreview);

    m_counts = new QLabel(tr("No sweep yet: set the space on the left and press Run."), box);
    m_counts->setObjectName(QStringLiteral("ExploreCounts"));
    m_counts->setWordWrap(true);
    m_counts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_counts);
    return box;
}

QLineEdit* ExplorePanel::valuesEdit(const QString& key) const
{
    return m_space->valuesEdit(key);
}

QCheckBox* ExplorePanel::dimensionCheck(const QString& key) const
{
    return m_space->dimensionCheck(key);
}

void ExplorePanel::resetSpace()
{
    setSpace(core::defaultSearchSpace(m_document->scenario()));
    m_spaceFollowsDocument = true;
}

void ExplorePanel::setSpace(const core::SearchSpace& space)
{
    m_settingSpace = true;
    m_space->setSpace(space);
    m_settingSpace = false;
    m_spaceFollowsDocument = false;
    updateSpaceSize();
}

std::optional<core::SearchSpace> ExplorePanel::space(QString* error) const
{
    return m_space->space(error);
}

void ExplorePanel::updateSpaceSize()
{
    QString error;
    const std::optional<core::SearchSpace> s = space(&error);
    if (!s) {
        m_spaceSize->setText(tr("invalid space"));
        showMessage(error, true);
        m_message->setProperty("spaceError", true);
        m_runButton->setEnabled(isRunning());
        return;
    }
    m_spaceSize->setText(tr("%1 points")
                             .arg(views::formatCount(static_cast<std::int64_t>(
                                 std::min<std::uint64_t>(core::spacePoints(*s), INT64_MAX)))));
    if (m_message->property("spaceError").toBool())
        showMessage({}, false);
    m_runButton->setEnabled(true);
}

void ExplorePanel::showMessage(const QString& text, bool error)
{
    m_message->setProperty("error", error);
    m_message->setProperty("spaceError", false);
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: #c0392b;") : QString());
    m_message->setVisible(!text.isEmpty());
}

QString ExplorePanel::message() const
{
    return m_message->text();
}

bool ExplorePanel::isRunning() const
{
    // Until onFinished has taken the result (the runner's finished signal).
    return m_runner->isRunning();
}

void ExplorePanel::setRunning(bool running)
{
    const bool changed = running != m_runningShown;
    m_runningShown = running;
    m_runButton->setText(running ? tr("Cancel") : tr("Run"));
    m_runButton->setEnabled(true);
    m_resetButton->setEnabled(!running);
    m_space->setLocked(running);
    if (!running)
        updateSpaceSize();
    if (changed)
        emit runningChanged(running);
}

bool ExplorePanel::run()
{
    if (isRunning())
        return false;
    QString error;
    const std::optional<core::SearchSpace> s = space(&error);
    if (!s) {
        showMessage(error, true);
        m_message->setProperty("spaceError", true);
        return false;
    }
    showMessage({}, false);
    m_sweptSpace = *s;
    m_sweptBase = m_document->scenario();
    m_progress->setRange(0, 0); // placements and topology variants first: no count yet
    m_progress->setFormat(tr("preparing…"));
    m_rate->setText(tr("Making the placements and topology variants…"));
    m_discardRun = false;
    m_runner->start(m_sweptBase, m_sweptSpace, kTop);
    setRunning(true);
    return true;
}

void ExplorePanel::cancel()
{
    m_runner->cancel();
    m_rate->setText(tr("Cancelling…"));
}

bool ExplorePanel::runAndWait(int timeoutMs)
{
    if (!run())
        return false;
    QElapsedTimer clock;
    clock.start();
    while (isRunning()) {
        if (clock.elapsed() > timeoutMs)
            cancel();
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    QApplication::processEvents();
    return true;
}

void ExplorePanel::onProgress(const core::SweepProgress& p)
{
    if (!isRunning() || p.total == 0)
        return;
    m_progress->setRange(0, 1000);
    m_progress->setValue(static_cast<int>(1000.0 * static_cast<double>(p.considered) /
                                          static_cast<double>(p.total)));
    m_progress->setFormat(tr("%1 of %2")
                              .arg(views::formatCount(static_cast<std::int64_t>(p.considered)),
                                   views::formatCount(static_cast<std::int64_t>(p.total))));
    const double seconds = std::max(1e-3, m_runner->elapsedS());
    m_rate->setText(tr("%1 evaluated · %2 points/s")
                        .arg(views::formatCount(static_cast<std::int64_t>(p.evaluated)),
                             views::formatCount(static_cast<std::int64_t>(
                                 std::llround(static_cast<double>(p.considered) / seconds)))));
}

void ExplorePanel::onFinished(std::shared_ptr<SweepRunner::Outcome> outcome)
{
    setRunning(false);
    if (m_discardRun) {
        m_discardRun = false;
        m_progress->setValue(0);
        m_progress->setFormat(QString());
        m_rate->clear();
        showDocumentSweep(); // what the document now open holds
        return;
    }
    m_progress->setRange(0, 1000);
    if (!outcome->result.ok) {
        m_progress->setValue(0);
        m_progress->setFormat(QString());
        m_rate->clear();
        showMessage(
            tr("The sweep could not run: %1").arg(QString::fromStdString(outcome->result.error)),
            true);
        return;
    }
    const core::SweepResult& r = outcome->result;
    m_progress->setValue(r.cancelled ? m_progress->value() : 1000);
    m_progress->setFormat(r.cancelled ? tr("cancelled") : tr("done"));
    const double rate = r.wallS > 0.0 ? static_cast<double>(r.counts.considered) / r.wallS : 0.0;
    m_rate->setText(tr("%1 s · %2 points/s")
                        .arg(QString::number(r.wallS, 'f', 1),
                             views::formatCount(static_cast<std::int64_t>(std::llround(rate)))));
    showResult(r, std::move(outcome->samples));
    emit statusMessage(
        r.cancelled ? tr("Explore: cancelled; partial results shown")
                    : tr("Explore: %1 points evaluated")
                          .arg(views::formatCount(static_cast<std::int64_t>(r.counts.evaluated))));
    // Saved with the document: the space, the counts, the fronts and the top lists (not a
    // sweep cancelled before its first point: the saved one, if any, stays).
    if (r.counts.considered == 0)
        return;
    core::SweepRecord record = core::recordSweep(m_sweptSpace, r, m_sweptBase);
    m_onScreen = record.sweep; // the results on screen are the ones recorded
    m_document->undoStack()->push(new RecordSweep(m_document, std::move(record)));
}

void ExplorePanel::showResult(const core::SweepResult& result,
                              std::vector<core::SweepSample> samples)
{
    clearPreview();
    m_result = result;
    m_samples = std::move(samples);
    m_scatter->setSweep(m_samples, result.timeVsCapex, result.trainTimeVsCost, result.timeVsMemory);
    m_counts->setText(countsText());
    refreshTable();
    refreshMarkers();
}

const std::vector<core::SweepPoint>& ExplorePanel::topBy(core::SweepObjective objective) const
{
    static const std::vector<core::SweepPoint> none;
    return m_result ? m_result->topBy[static_cast<std::size_t>(objective)] : none;
}

QString ExplorePanel::countsText() const
{
    if (!m_result)
        return {};
    const core::SweepCounts& c = m_result->counts;
    const auto n = [](std::uint64_t v) { return views::formatCount(static_cast<std::int64_t>(v)); };
    QStringList reasons;
    for (std::size_t i = 0; i < c.pruned.size(); ++i)
        if (c.pruned[i] > 0)
            reasons << QStringLiteral("%1 %2").arg(
                QString::fromLatin1(core::toString(static_cast<core::PruneReason>(i))),
                n(c.pruned[i]));
    QString text;
    if (m_result->cancelled)
        text = tr("Cancelled after %1 of %2 points: the results cover those only. ")
                   .arg(n(c.considered), n(c.spacePoints));
    text += tr("Space %1 points; pruned %2%3; evaluated %4 (out of memory %5, over budget %6, "
               "failed %7); feasible %8.")
                .arg(n(c.spacePoints), n(c.prunedTotal()),
                     reasons.isEmpty() ? QString()
                                       : QStringLiteral(" (") + reasons.join(QStringLiteral(", ")) +
                                             QStringLiteral(")"),
                     n(c.evaluated), n(c.outOfMemory), n(c.overBudget), n(c.failed), n(c.feasible));
    if (m_samples.empty() && c.evaluated > 0)
        text += tr(" Saved sweep: the fronts and top lists only; run again to see every point.");
    if (m_result->baseRank > 0)
        text +=
            tr(" The searched scenario ranks #%1 by iteration time.").arg(n(m_result->baseRank));
    return text;
}

void ExplorePanel::refreshTable()
{
    std::optional<core::Evaluation> current;
    if (m_current)
        current = m_current->evaluation;
    m_table->setPoints(topBy(static_cast<core::SweepObjective>(m_objective->currentIndex())),
                       current);
}

void ExplorePanel::setDesignPoints(const QList<views::EvaluatedDesign>& pinned,
                                   const views::EvaluatedDesign& current)
{
    m_pinned = pinned;
    m_current = current;
    refreshTable();
    refreshMarkers();
}

void ExplorePanel::refreshMarkers()
{
    QList<views::ScatterMarker> markers;
    const auto add = [&markers](const views::EvaluatedDesign& p, bool preview) {
        const core::Evaluation& e = p.evaluation;
        if (!e.ok)
            return;
        views::ScatterMarker m{
            p.name,
            p.color,
            e.iterationTimeS,
            e.timeToTrainS,
            e.memoryPeakGib,
            e.networkCapexUsd,
            core::totalCostUsd(p.scenario, core::effectiveCatalog(p.scenario), e.networkCapexUsd),
            preview};
        markers.append(m);
    };
    for (const views::EvaluatedDesign& p : m_pinned)
        add(p, false);
    if (m_current)
        add(*m_current, false);
    if (m_preview)
        add(*m_preview, true);
    m_scatter->setMarkers(markers);
}

QString ExplorePanel::describe(std::uint64_t index) const
{
    if (!m_result)
        return {};
    for (const std::vector<core::SweepPoint>* list :
         {&m_result->timeVsCapex, &m_result->trainTimeVsCost, &m_result->timeVsMemory})
        for (const core::SweepPoint& p : *list)
            if (p.point.index == index)
                return QString::fromStdString(core::describeSweepPoint(p));
    for (const auto& list : m_result->topBy)
        for (const core::SweepPoint& p : list)
            if (p.point.index == index)
                return QString::fromStdString(core::describeSweepPoint(p));
    // Another evaluated point: its knobs from the index (DP as the point asks for it).
    const core::SpaceOdometer odometer(m_sweptSpace);
    if (index >= odometer.size())
        return {};
    core::SweepPoint p;
    p.point = odometer.at(index);
    p.dataParallel = p.point.dataParallel;
    QString text = QString::fromStdString(core::describeSweepPoint(p));
    if (p.point.dataParallel == 0)
        text.replace(QStringLiteral(" dp 0 "), QStringLiteral(" dp max "));
    return text;
}

bool ExplorePanel::previewPoint(std::uint64_t index)
{
    if (!m_result)
        return false;
    const core::Catalog catalog = core::effectiveCatalog(m_sweptBase);
    const std::optional<core::SweepPointScenario> made =
        core::sweepPointScenario(m_sweptBase, catalog, m_sweptSpace, index);
    if (!made) {
        emit statusMessage(tr("Point #%1 cannot be made for this scenario").arg(index));
        return false;
    }
    return showPreview(catalog, *made);
}

bool ExplorePanel::showPreview(const core::Catalog& catalog, const core::SweepPointScenario& made)
{
    QApplication::setOverrideCursor(Qt::WaitCursor);
    core::EvaluateOptions options;
    options.attribution = false;
    const core::Evaluation evaluation = core::evaluate(made.scenario, catalog, options);
    QApplication::restoreOverrideCursor();
    m_previewKnobs = made.point;
    m_preview = views::EvaluatedDesign{tr("Preview: %1").arg(pointName(made.scenario, made.point)),
                                       views::previewDesignColor(), made.scenario, evaluation};
    core::SweepPoint described;
    described.point = made.point;
    described.dataParallel = core::dataParallel(made.scenario);
    m_previewLabel->setText(tr("Previewing #%1: %2 — %3 per iteration")
                                .arg(made.point.index)
                                .arg(QString::fromStdString(core::describeSweepPoint(described)),
                                     evaluation.ok ? views::formatSeconds(evaluation.iterationTimeS)
                                                   : tr("not evaluated")));
    m_pinButton->setEnabled(true);
    m_applyButton->setEnabled(true);
    m_clearButton->setEnabled(true);
    refreshMarkers();
    emit previewChanged(m_preview);
    return true;
}

void ExplorePanel::setLiveFront(LiveFront* front)
{
    if (m_liveFront)
        disconnect(m_liveFront, nullptr, this, nullptr);
    m_liveFront = front;
    if (front) {
        connect(front, &LiveFront::searching, this, &ExplorePanel::showLive);
        connect(front, &LiveFront::found, this, &ExplorePanel::showLive);
        connect(front, &LiveFront::cleared, this, &ExplorePanel::showLive);
    }
    showLive();
}

void ExplorePanel::showLive()
{
    const bool on = m_liveFront && m_liveFront->isEnabled();
    m_live->setVisible(on);
    const std::optional<LiveFront::Finding>* finding = on ? &m_liveFront->finding() : nullptr;
    m_livePreview->setVisible(on && *finding && (*finding)->canPreview());
    if (!on)
        return;
    m_live->setText(*finding ? tr("Live front: %1").arg(LiveFront::text(**finding))
                             : tr("Live front: searching the default space around the design…"));
    m_live->setToolTip(
        tr("After each edit the default space around the design is searched in the background "
           "(View > Live Front turns it off). Faster is the time to train the same tokens; a "
           "gain of a few percent is within the model's error."));
}

QString ExplorePanel::liveText() const
{
    return m_live->isHidden() ? QString() : m_live->text();
}

bool ExplorePanel::previewLive()
{
    if (!m_liveFront || !m_liveFront->finding() || !m_liveFront->finding()->canPreview())
        return false;
    const LiveFront::Finding& f = *m_liveFront->finding();
    const core::Catalog catalog = core::effectiveCatalog(f.base);
    const std::optional<core::SweepPointScenario> made =
        core::sweepPointScenario(f.base, catalog, f.space, f.best->point.index);
    if (!made) {
        emit statusMessage(tr("The live front's design cannot be made for this scenario"));
        return false;
    }
    return showPreview(catalog, *made);
}

void ExplorePanel::clearPreview()
{
    m_pinButton->setEnabled(false);
    m_applyButton->setEnabled(false);
    m_clearButton->setEnabled(false);
    m_previewLabel->setText(tr("Click a point or a row to preview it."));
    if (!m_preview)
        return;
    m_preview.reset();
    m_table->selectPoint(-1);
    refreshMarkers();
    emit previewChanged(m_preview);
}

bool ExplorePanel::pinPreview()
{
    if (!m_preview)
        return false;
    const core::Scenario& pinned = m_preview->scenario;
    m_edits->pin(pinned, pinName(pinned, m_previewKnobs, m_document->pins()));
    return true;
}

bool ExplorePanel::applyPreview()
{
    if (!m_preview)
        return false;
    // The point's knobs on the document as it is now: its parallelism, placement, schedule,
    // global batch and topology variant (applied to the current topology).
    const core::Scenario& now = m_document->scenario();
    const core::Scenario& point = m_preview->scenario;
    core::Scenario target = now;
    target.parallelism = point.parallelism;
    target.placement = point.placement;
    target.schedule = point.schedule;
    target.workload.globalBatch = point.workload.globalBatch;
    const core::DesignPoint& p = m_previewKnobs;
    core::applyTopologyVariant(target.topology, now.topology, p.dciTransport, p.wavelengths,
                               p.fabric, p.ncclChannels);
    const QString text = tr("Apply Explore Point #%1").arg(p.index);
    if (!m_edits->apply(target, text, false))
        return false;
    clearPreview();
    return true;
}

void ExplorePanel::onDocumentChanged(const ChangeEvent& event)
{
    if (m_document->generation() != m_generation) {
        // Another document: its own sweep or none, and the space for it. A sweep running for
        // the document that was open is not this one's: it is cancelled, then this is shown.
        m_generation = m_document->generation();
        if (isRunning()) {
            m_discardRun = true;
            cancel();
            return;
        }
        showDocumentSweep();
        return;
    }
    if (isRunning())
        return;
    // The default space follows the design (a PP or a batch edited in the properties), unless
    // the user has edited the space since it was last reset.
    if (event.affectsCost() && m_spaceFollowsDocument)
        resetSpace();
    if (event.kind != ChangeEvent::Kind::Sweep)
        return;
    // A recording undone or redone. Undone to none, the results stay on screen (they are no
    // longer saved); to another saved sweep, that one is shown; redone to the results on
    // screen (the run's own, every point included), they stay.
    const core::SweepRecord& saved = m_document->sweep();
    if (saved.empty() || saved.sweep == m_onScreen)
        return;
    showDocumentSweep();
}

void ExplorePanel::showDocumentSweep()
{
    const core::SweepRecord& saved = m_document->sweep();
    m_onScreen = saved.sweep;
    clearPreview();
    m_result.reset();
    m_samples.clear();
    m_scatter->clearSweep();
    m_table->setPoints({}, std::nullopt);
    m_counts->setText(tr("No sweep yet: set the space on the left and press Run."));
    m_progress->setValue(0);
    m_progress->setFormat(QString());
    m_rate->clear();
    if (saved.empty()) {
        resetSpace();
        showMessage({}, false);
        return;
    }
    if (!saved.sweep) {
        resetSpace();
        QStringList lines;
        for (const core::Diagnostic& d : saved.errors)
            lines << QString::fromStdString(d.pointer + ": " + d.message);
        showMessage(tr("The saved sweep could not be read (the default space is shown):\n%1")
                        .arg(lines.join(QLatin1Char('\n'))),
                    true);
        return;
    }
    m_sweptBase = m_document->scenario();
    m_sweptSpace = saved.sweep->space;
    setSpace(saved.sweep->space);
    showMessage({}, false);
    showResult(core::sweepResultOf(*saved.sweep), {});
}

} // namespace archipelago::app
