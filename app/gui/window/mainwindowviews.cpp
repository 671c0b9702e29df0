// MainWindow: the views, their docks, the wiring of their intents to the EditController, and the
// refresh after each document change and each published evaluation.
#include "window/mainwindow.h"

#include "common/colors.h"
#include "common/format.h"
#include "document/evaluator.h"
#include "document/livefront.h"
#include "document/pinevaluations.h"
#include "editing/editcontroller.h"
#include "editing/quickedits.h"
#include "layout/layoutview.h"
#include "panels/explorepanel.h"
#include "panels/pinspanel.h"
#include "panels/warningspanel.h"
#include "plots/plotspanel.h"
#include "plots/timelineview.h"
#include "propertyeditor/propertyeditor.h"
#include "tables/comparisontable.h"
#include "tables/evaluationsummary.h"
#include "tables/scenariotree.h"
#include "topology/topologycanvas.h"
#include "window/noticebar.h"

#include <QDockWidget>
#include <QScrollArea>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <utility>

namespace archipelago::app {

namespace {

using ItemKind = views::ScenarioItem::Kind;

// A wide panel in a dock that may be narrower than the panel can be drawn (a 1280-pixel screen):
// it scrolls sideways rather than widening the window past the screen.
QScrollArea* scrollWhenNarrow(QWidget* panel, QWidget* parent)
{
    auto* scroll = new QScrollArea(parent);
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    return scroll;
}

} // namespace

void MainWindow::sizeDocks()
{
    auto dock = [this](const char* name) {
        return findChild<QDockWidget*>(QLatin1String(name), Qt::FindDirectChildrenOnly);
    };
    QDockWidget* tree = dock("ScenarioDock");
    QDockWidget* summary = dock("EvaluationDock");
    QDockWidget* plots = dock("PlotsDock");
    QDockWidget* comparison = dock("ComparisonDock");
    if (!tree || !summary || !plots || !comparison || !m_propertiesDock)
        return;
    // Proportions for 1600 x 1000, scaled to the window: the plots get the bottom 40 %, the
    // canvas the middle, the comparison wide enough for the current point and two pins (it
    // scrolls for more).
    const double x = std::max(width(), 800) / 1600.0;
    const double y = std::max(height(), 600) / 1000.0;
    auto px = [](double v) { return static_cast<int>(std::lround(v)); };
    resizeDocks({tree, m_propertiesDock}, {px(385 * x), px(370 * x)}, Qt::Horizontal);
    resizeDocks({tree, summary}, {px(250 * y), px(350 * y)}, Qt::Vertical);
    resizeDocks({plots}, {px(390 * y)}, Qt::Vertical);
    resizeDocks({plots, comparison}, {px(1120 * x), px(480 * x)}, Qt::Horizontal);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!std::exchange(m_docksSized, true))
        sizeDocks();
}

QDockWidget* MainWindow::addDock(QWidget* widget, const QString& title, const QString& name,
                                 Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::createViews()
{
    m_canvas = new views::TopologyCanvas(this);
    m_layout = new views::LayoutView(this);
    m_timeline = new views::TimelineView(this);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("CentralTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_canvas, tr("Topology"));
    m_tabs->addTab(m_layout, tr("Parallelism Layout"));
    m_tabs->addTab(m_timeline, tr("Pipeline Timeline"));
    m_tabs->setTabToolTip(0, tr("Datacenters, pods and DCI links (Ctrl+1)"));
    m_tabs->setTabToolTip(1, tr("TP × CP × PP × DP on domains and datacenters (Ctrl+2)"));
    m_tabs->setTabToolTip(2, tr("Stages × time of one iteration, DCI transfers in red (Ctrl+3)"));
    // Refusals and adjustments are said over the views, where the edit was made.
    m_notice = new NoticeBar(this);
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_notice);
    centralLayout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_tree = new views::ScenarioTree(this);
    m_tree->setObjectName(QStringLiteral("ScenarioTree"));
    m_pinsPanel = new PinsPanel(this);
    m_editor = new views::PropertyEditor(this);
    m_editor->setObjectName(QStringLiteral("PropertyEditor"));
    m_summary = new views::EvaluationSummary(this);
    m_summary->setObjectName(QStringLiteral("EvaluationSummary"));
    m_plots = new views::PlotsPanel(this);
    m_plots->setObjectName(QStringLiteral("PlotsPanel"));
    m_comparison = new views::ComparisonTable(this);
    m_comparison->setObjectName(QStringLiteral("ComparisonTable"));
    m_warnings = new WarningsPanel(this);
    m_warnings->setObjectName(QStringLiteral("WarningsPanel"));

    // Left: what the scenario is and what it costs; right: the editor of the selection (tall:
    // the parallelism page has many rows); bottom: the plots, and the comparison, warnings and
    // pins tabbed beside them.
    QDockWidget* treeDock =
        addDock(m_tree, tr("Scenario"), QStringLiteral("ScenarioDock"), Qt::LeftDockWidgetArea);
    // Scrolls rather than squeezing the tree: the summary is tall.
    auto* summaryScroll = new QScrollArea(this);
    summaryScroll->setWidget(m_summary);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    QDockWidget* summaryDock = addDock(summaryScroll, tr("Evaluation"),
                                       QStringLiteral("EvaluationDock"), Qt::LeftDockWidgetArea);
    splitDockWidget(treeDock, summaryDock, Qt::Vertical);
    m_propertiesDock = addDock(m_editor, tr("Properties"), QStringLiteral("PropertiesDock"),
                               Qt::RightDockWidgetArea);
    auto* history = new QUndoView(m_document->undoStack(), this);
    history->setEmptyLabel(tr("<opened>"));
    QDockWidget* historyDock = addDock(history, tr("Undo History"),
                                       QStringLiteral("UndoHistoryDock"), Qt::RightDockWidgetArea);
    tabifyDockWidget(m_propertiesDock, historyDock);
    m_propertiesDock->raise();
    QDockWidget* plotsDock = addDock(scrollWhenNarrow(m_plots, this), tr("Plots"),
                                     QStringLiteral("PlotsDock"), Qt::BottomDockWidgetArea);
    QDockWidget* comparisonDock = addDock(
        m_comparison, tr("Comparison"), QStringLiteral("ComparisonDock"), Qt::BottomDockWidgetArea);
    splitDockWidget(plotsDock, comparisonDock, Qt::Horizontal);
    m_warningsDock = addDock(m_warnings, tr("Warnings"), QStringLiteral("WarningsDock"),
                             Qt::BottomDockWidgetArea);
    QDockWidget* pinsDock =
        addDock(m_pinsPanel, tr("Pins"), QStringLiteral("PinsDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(comparisonDock, m_warningsDock);
    tabifyDockWidget(m_warningsDock, pinsDock);
    comparisonDock->raise();
    // The design-space search: a tab beside the plots (Ctrl+4 raises it).
    m_explore = new ExplorePanel(m_document, m_edits, this);
    m_explore->setObjectName(QStringLiteral("ExplorePanel"));
    m_exploreDock = addDock(scrollWhenNarrow(m_explore, this), tr("Explore"),
                            QStringLiteral("ExploreDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(plotsDock, m_exploreDock);
    plotsDock->raise();

    sizeDocks();

    wireCanvas();
    wireEditors();
    wirePins();
    connect(m_explore, &ExplorePanel::previewChanged, this,
            [this](const std::optional<views::EvaluatedDesign>& preview) {
                m_previewPoint = preview;
                refreshDesignPoints();
            });
    connect(m_explore, &ExplorePanel::statusMessage, this,
            [this](const QString& message) { statusBar()->showMessage(message, 8000); });
    // The live front waits while the Explore panel's own sweep has the cores.
    m_explore->setLiveFront(m_liveFront);
    connect(m_explore, &ExplorePanel::runningChanged, m_liveFront, &LiveFront::setSuspended);
}

void MainWindow::showExplore()
{
    m_exploreDock->show();
    m_exploreDock->raise();
}

void MainWindow::wireCanvas()
{
    connect(m_canvas, &views::TopologyCanvas::moveDatacentersRequested, m_edits,
            &EditController::moveDatacenters);
    connect(m_canvas, &views::TopologyCanvas::connectRequested, m_edits,
            &EditController::connectDatacenters);
    connect(m_canvas, &views::TopologyCanvas::removeRequested, m_edits, &EditController::remove);
    connect(m_canvas, &views::TopologyCanvas::addDatacenterRequested, this, [this](QPointF pos) {
        const QList<core::Id> selected = m_canvas->selection().datacenters;
        m_edits->addDatacenter(pos, selected.isEmpty() ? core::Id{-1} : selected.front());
    });
    connect(m_canvas, &views::TopologyCanvas::addRegionRequested, this, [this](QPointF pos) {
        const QList<core::Id> selected = m_canvas->selection().datacenters;
        m_edits->addRegion(pos, selected.isEmpty() ? core::Id{-1} : selected.front());
    });
    connect(m_canvas, &views::TopologyCanvas::addPodRequested, m_edits, &EditController::addPod);
    connect(m_canvas, &views::TopologyCanvas::selectionChanged, this,
            &MainWindow::onCanvasSelection);
    connect(m_canvas, &views::TopologyCanvas::editRequested, this,
            [this](views::TopologyItemKind kind, core::Id id) {
                const ItemKind editorKind = kind == views::TopologyItemKind::Link  ? ItemKind::Link
                                            : kind == views::TopologyItemKind::Pod ? ItemKind::Pod
                                            : kind == views::TopologyItemKind::Region
                                                ? ItemKind::Region
                                                : ItemKind::Datacenter;
                m_editor->setSelection(editorKind, {id});
                m_propertiesDock->show();
                m_propertiesDock->raise();
            });
    connect(m_tree, &views::ScenarioTree::selectedItemChanged, this, &MainWindow::onTreeSelection);

    connect(m_layout, &views::LayoutView::layersPerStageRequested, m_edits,
            &EditController::setLayersPerStage);
    connect(m_layout, &views::LayoutView::stageDatacenterRequested, m_edits,
            &EditController::setStageDatacenter);
    connect(m_layout, &views::LayoutView::placementRequested, m_edits,
            &EditController::setPlacement);
}

void MainWindow::wireEditors()
{
    using views::PropertyEditor;
    // One intent from the property editor. When the app refuses what the editor accepted (the
    // user declined a batch change), the editor shows the document again.
    connect(m_editor, &PropertyEditor::edited, this, [this](const views::ProposedEdit& edit) {
        if (!m_edits->applyEdit(edit.candidate, edit.fields, edit.repairPlacement))
            m_editor->setScenario(m_document->scenario());
    });
    connect(m_editor, &PropertyEditor::editRefused, this,
            [this](const QString& reason) { statusBar()->showMessage(reason, 8000); });
    // An edit valid only with another global batch asks first: a different batch is a
    // different job.
    m_edits->setBatchConfirmation([this](const BatchQuestion& question) {
        return m_prompts->askChangeGlobalBatch(this, question);
    });
}

void MainWindow::wirePins()
{
    connect(m_pinsPanel, &PinsPanel::pinRequested, this, &MainWindow::pinCurrent);
    connect(m_pinsPanel, &PinsPanel::restoreRequested, m_edits, &EditController::restorePin);
    connect(m_pinsPanel, &PinsPanel::renameRequested, m_edits, &EditController::renamePin);
    connect(m_pinsPanel, &PinsPanel::removeRequested, m_edits, &EditController::removePin);
}

void MainWindow::onTreeSelection(const views::ScenarioItem& item)
{
    if (m_syncingSelection)
        return;
    m_syncingSelection = true;
    const QList<core::Id> ids = item.id >= 0 ? QList<core::Id>{item.id} : QList<core::Id>{};
    m_editor->setSelection(item.kind, ids);
    views::TopologySelection selection;
    if (item.kind == ItemKind::Datacenter)
        selection.datacenters = ids;
    else if (item.kind == ItemKind::Pod)
        selection.pods = ids;
    else if (item.kind == ItemKind::Link)
        selection.links = ids;
    m_canvas->setSelection(selection);
    m_syncingSelection = false;
}

void MainWindow::onCanvasSelection(const views::TopologySelection& selection)
{
    if (m_syncingSelection || selection.isEmpty())
        return;
    m_syncingSelection = true;
    if (!selection.datacenters.isEmpty()) {
        m_editor->setSelection(ItemKind::Datacenter, selection.datacenters);
        m_tree->selectItem({ItemKind::Datacenter, selection.datacenters.front()});
    } else if (!selection.links.isEmpty()) {
        m_editor->setSelection(ItemKind::Link, selection.links);
        m_tree->selectItem({ItemKind::Link, selection.links.front()});
    } else {
        m_editor->setSelection(ItemKind::Pod, selection.pods);
        for (const core::Datacenter& dc : m_document->scenario().topology.datacenters)
            for (const core::Pod& pod : dc.pods)
                if (pod.id == selection.pods.front())
                    m_tree->selectItem({ItemKind::Pod, pod.id, dc.id});
    }
    m_syncingSelection = false;
}

void MainWindow::onChanged(const ChangeEvent& event)
{
    const core::Scenario& s = m_document->scenario();
    // Pins and the saved sweep are beside the scenario: its views stay as they are.
    if (event.kind != ChangeEvent::Kind::Pins && event.kind != ChangeEvent::Kind::Sweep) {
        m_syncingSelection = true; // a rebuild re-announces the same selection
        m_canvas->setTopology(s.topology, &s);
        if (event.kind != ChangeEvent::Kind::Look) {
            m_tree->setScenario(s);
            m_layout->setScenario(s);
        }
        m_editor->setScenario(s);
        m_syncingSelection = false;
        if (m_editor->selectionKind() == ItemKind::None) // a new document: show the degrees
            m_tree->selectItem({ItemKind::Parallelism});
    }
    if (event.affectsCost()) {
        m_evaluator->request(s);
        m_summary->setPending(true);
        // A message that explains an edit (what was adjusted or refused) stays readable.
        if (statusBar()->currentMessage().isEmpty())
            statusBar()->showMessage(tr("Evaluating…"));
    }
    if (event.kind == ChangeEvent::Kind::Pins || event.kind == ChangeEvent::Kind::Structure)
        refreshPins();
    updateTitle();
    m_quickEdits->update();
}

void MainWindow::refreshPins()
{
    m_pinEvaluations->setPins(m_document->pins());
    refreshDesignPoints();
}

void MainWindow::onEvaluated(const std::shared_ptr<const core::Evaluation>& evaluation)
{
    const core::Evaluation& e = *evaluation;
    m_summary->setEvaluation(e);
    m_warnings->setEvaluation(e);
    m_warningsDock->setWindowTitle(e.warnings.empty() ? tr("Warnings")
                                                      : tr("Warnings (%1)").arg(e.warnings.size()));
    m_layout->setEvaluation(e);
    if (statusBar()->currentMessage() == tr("Evaluating…"))
        statusBar()->clearMessage();
    updateStatusBar(e);
    refreshDesignPoints();
}

void MainWindow::refreshDesignPoints()
{
    m_pinnedPoints.clear();
    QList<PinsPanel::Row> rows;
    const std::vector<core::PinnedScenario>& pins = m_document->pins();
    for (std::size_t i = 0; i < pins.size(); ++i) {
        const core::PinnedScenario& pin = pins[i];
        const QColor color = EditController::pinColor(pin, static_cast<int>(i));
        const QString name = QString::fromStdString(pin.name);
        const std::shared_ptr<const core::Evaluation> e =
            m_pinEvaluations->evaluationFor(pin.scenario);
        QString summary;
        if (e) {
            m_pinnedPoints.append({name, color, pin.scenario, *e});
            summary =
                e->ok ? tr("%1 per iteration, MFU %2, network %3")
                            .arg(views::formatSeconds(e->iterationTimeS),
                                 views::formatPercent(e->mfu), views::formatUsd(e->networkCapexUsd))
                      : tr("not evaluated");
        }
        rows.append({name, color, summary});
    }
    m_pinsPanel->setRows(rows);

    const std::shared_ptr<const core::Evaluation> current = m_evaluator->evaluation();
    if (!current)
        return;
    const std::shared_ptr<const core::Scenario> scenario = m_evaluator->evaluatedScenario();
    m_currentPoint = {tr("Current"), views::currentDesignColor(),
                      scenario ? *scenario : m_document->scenario(), *current};
    // The Explore panel's preview beside the pins, until it is cleared.
    QList<views::EvaluatedDesign> shown = m_pinnedPoints;
    if (m_previewPoint)
        shown.append(*m_previewPoint);
    m_plots->setDesignPoints(shown, m_currentPoint);
    m_comparison->setDesignPoints(shown, m_currentPoint);
    m_explore->setDesignPoints(m_pinnedPoints, m_currentPoint);
    m_timeline->setDesignPoint(m_currentPoint);
}

} // namespace archipelago::app
