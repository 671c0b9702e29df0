// MainWindow: menus, keyboard shortcuts (every frequent action has one) and the status bar.
#include "window/mainwindow.h"

#include "common/format.h"
#include "document/evaluator.h"
#include "document/livefront.h"
#include "document/presetlibrary.h"
#include "document/recentfiles.h"
#include "editing/editcontroller.h"
#include "editing/quickedits.h"
#include "panels/explorepanel.h"
#include "tables/evaluationsummary.h"
#include "topology/topologycanvas.h"
#include "window/exportdata.h"
#include "window/helpdialogs.h"
#include "window/noticebar.h"
#include "window/theme.h"
#include "window/undorouting.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>

#include <array>
#include <utility>

namespace archipelago::app {

namespace {

QAction* menuAction(QMenu* menu, const QString& text, const QList<QKeySequence>& shortcuts,
                    const QString& tip)
{
    QAction* action = menu->addAction(text);
    action->setShortcuts(shortcuts);
    action->setStatusTip(tip);
    action->setToolTip(shortcuts.isEmpty()
                           ? tip
                           : QStringLiteral("%1 (%2)").arg(
                                 tip, shortcuts.front().toString(QKeySequence::NativeText)));
    return action;
}

} // namespace

void MainWindow::createActions()
{
    createFileMenu();
    createEditMenu();
    createViewMenu();
    addHelpMenu(this);
    for (QMenu* menu : menuBar()->findChildren<QMenu*>())
        menu->setToolTipsVisible(true);
}

void MainWindow::createFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    connect(menuAction(file, tr("&New"), QKeySequence::keyBindings(QKeySequence::New),
                       tr("A new scenario based on the built-in default")),
            &QAction::triggered, this, [this] {
                // A new document that looks like the last one says what it is.
                if (newDocument())
                    m_notice->showNotice(
                        NoticeBar::Kind::Adjusted,
                        tr("New untitled document from the default scenario, %1. File > New "
                           "Empty Document starts from one datacenter with one 8-GPU domain.")
                            .arg(QString::fromStdString(m_document->scenario().name)));
            });
    connect(menuAction(file, tr("New &Empty Document"), {QKeySequence(tr("Ctrl+Alt+N"))},
                       tr("A minimal scenario (one datacenter, one 8-GPU domain) to build up "
                          "from")),
            &QAction::triggered, this, [this] { newEmptyDocument(); });
    connect(menuAction(file, tr("&Open…"), QKeySequence::keyBindings(QKeySequence::Open),
                       tr("Open a scenario file (or drop one on the window)")),
            &QAction::triggered, this, [this] {
                const QString folder =
                    m_document->isUntitled()
                        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                        : QFileInfo(m_document->fileName()).absolutePath();
                const QString path = m_prompts->askOpenFileName(this, folder);
                if (!path.isEmpty())
                    openFile(path);
            });
    m_presetMenu = file->addMenu(tr("Open &Preset"));
    connect(m_presetMenu, &QMenu::aboutToShow, this, &MainWindow::fillPresetMenu);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    fillRecentMenu();
    file->addSeparator();
    connect(menuAction(file, tr("&Save"), QKeySequence::keyBindings(QKeySequence::Save),
                       tr("Save the scenario and its pins")),
            &QAction::triggered, this, [this] { save(); });
    connect(menuAction(file, tr("Save &As…"), {QKeySequence(tr("Ctrl+Shift+S"))},
                       tr("Save the scenario and its pins under a new name")),
            &QAction::triggered, this, [this] { saveAs(); });
    connect(menuAction(file, tr("Export &Report…"), {QKeySequence(tr("Ctrl+E"))},
                       tr("The review report (PDF or HTML): summary, drawings, plots, bill of "
                          "materials, pins compared, assumptions and the model's validation")),
            &QAction::triggered, this, [this] { exportReportInteractively(); });
    connect(menuAction(file, tr("Export &Data…"), {QKeySequence(tr("Ctrl+Shift+E"))},
                       tr("The current evaluation, the pinned comparison or the last sweep as "
                          "CSV or JSON (exportdata.h)")),
            &QAction::triggered, this, [this] {
                // The last sweep: the Explore panel's (nullptr when none: the dialog lists it
                // disabled).
                const QString folder =
                    m_document->isUntitled()
                        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                        : QFileInfo(m_document->fileName()).absolutePath();
                showExportDataDialog(this, exportInputOf(*this, m_explore->lastResult()), folder);
            });
    connect(menuAction(file, tr("Export &Launch Settings…"), {QKeySequence(tr("Ctrl+Shift+L"))},
                       tr("The design point as a script for sbatch: Megatron-LM, NeMo or "
                          "TorchTitan settings, the rank order across buildings, the NCCL "
                          "environment (launchdialog.h)")),
            &QAction::triggered, this, [this] { exportLaunchSettings(); });
    connect(menuAction(file, tr("&Import Launch Settings…"), {QKeySequence(tr("Ctrl+Shift+I"))},
                       tr("A Megatron-LM command line or script, NeMo overrides or recipe YAML, "
                          "or a TorchTitan TOML as this design's workload and parallelism "
                          "(importdialog.h)")),
            &QAction::triggered, this, [this] { importLaunchSettings(); });
    connect(menuAction(file, tr("&Calibrate from Measured Runs…"), {},
                       tr("Fit the accelerator's efficiency parameters on runs you measured "
                          "(archipelago-cli measure) and evaluate this design with them "
                          "(calibrationdialog.h)")),
            &QAction::triggered, this, [this] { calibrateFromMeasuredRuns(); });
    connect(menuAction(file, tr("Use &Built-in Calibration"), {},
                       tr("Evaluate this design with the catalog's efficiency parameters again")),
            &QAction::triggered, this, [this] { applyCalibration(std::nullopt); });
    file->addSeparator();
    QAction* quit = menuAction(file, tr("&Quit"), QKeySequence::keyBindings(QKeySequence::Quit),
                               tr("Quit Archipelago"));
    quit->setMenuRole(QAction::QuitRole);
    connect(quit, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::createEditMenu()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(tr("Ctrl+Shift+Z")), QKeySequence(tr("Ctrl+Y"))});
    edit->addAction(undo);
    edit->addAction(redo);
    // Line edits and spin boxes would keep Ctrl+Z for their own text: route it to the stack.
    new UndoRouting(m_document->undoStack(), this);
    edit->addSeparator();
    connect(menuAction(edit, tr("&Delete"), {QKeySequence::Delete},
                       tr("Remove the selected datacenters, pods and DCI links")),
            &QAction::triggered, m_canvas, &views::TopologyCanvas::requestRemoveSelected);
    connect(menuAction(edit, tr("Add &Datacenter"), {QKeySequence(tr("Ctrl+Shift+D"))},
                       tr("Add a copy of the selected (or first) datacenter, linked to it")),
            &QAction::triggered, m_canvas, &views::TopologyCanvas::requestAddDatacenter);
    connect(menuAction(edit, tr("Add P&od"), {QKeySequence(tr("Ctrl+Shift+O"))},
                       tr("Add a pod to the selected datacenter")),
            &QAction::triggered, m_canvas, &views::TopologyCanvas::requestAddPod);
    connect(menuAction(edit, tr("&Connect Mode"), {QKeySequence(tr("Ctrl+L"))},
                       tr("Drag from one datacenter to another to add a DCI link "
                          "(400ZR, 16 × 400 Gb/s)")),
            &QAction::triggered, this, [this] {
                m_tabs->setCurrentWidget(m_canvas);
                m_canvas->setConnectMode(!m_canvas->isConnectMode());
            });
    edit->addSeparator();
    connect(menuAction(edit, tr("&Pin Design Point"), {QKeySequence(tr("Ctrl+P"))},
                       tr("Snapshot the current scenario for comparison in every plot")),
            &QAction::triggered, this, &MainWindow::pinCurrent);
    edit->addSeparator();
    createBatchPolicyMenu(edit);
    edit->addSeparator();
    m_quickEdits = new QuickEdits(m_edits, edit, this);
}

void MainWindow::createBatchPolicyMenu(QMenu* edit)
{
    // What an edit that changes DP does when the global batch no longer divides: ask each time
    // (the default), or one standing answer, set here or by the question's check box.
    QMenu* menu = edit->addMenu(tr("Global &Batch When DP Changes"));
    auto* group = new QActionGroup(menu);
    const std::array<std::pair<BatchPolicy, QString>, 3> choices{
        {{BatchPolicy::Ask, tr("&Ask Each Time")},
         {BatchPolicy::ChangeBatch, tr("&Change the Batch to Fit")},
         {BatchPolicy::KeepBatch, tr("&Keep the Batch, Leave GPUs Idle")}}};
    for (const auto& [policy, label] : choices) {
        QAction* action = menu->addAction(label);
        action->setCheckable(true);
        action->setChecked(m_edits->batchPolicy() == policy);
        action->setData(static_cast<int>(policy));
        group->addAction(action);
        connect(action, &QAction::triggered, this,
                [this, policy] { m_edits->setBatchPolicy(policy); });
    }
    connect(m_edits, &EditController::batchPolicyChanged, group, [group](BatchPolicy policy) {
        for (QAction* action : group->actions())
            action->setChecked(action->data().toInt() == static_cast<int>(policy));
    });
}

void MainWindow::createViewMenu()
{
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    connect(menuAction(m_viewMenu, tr("&Fit to View"),
                       {QKeySequence(tr("Ctrl+0")), QKeySequence(tr("F"))},
                       tr("Show the whole topology")),
            &QAction::triggered, this, [this] {
                m_tabs->setCurrentWidget(m_canvas);
                m_canvas->fitToView();
            });
    connect(menuAction(m_viewMenu, tr("Zoom &In"),
                       {QKeySequence::ZoomIn, QKeySequence(tr("Ctrl+="))},
                       tr("Zoom the canvas in")),
            &QAction::triggered, m_canvas, &views::TopologyCanvas::zoomIn);
    connect(
        menuAction(m_viewMenu, tr("Zoom &Out"), {QKeySequence::ZoomOut}, tr("Zoom the canvas out")),
        &QAction::triggered, m_canvas, &views::TopologyCanvas::zoomOut);
    m_viewMenu->addSeparator();
    for (int i = 0; i < m_tabs->count(); ++i)
        connect(menuAction(m_viewMenu, m_tabs->tabText(i), {QKeySequence(tr("Ctrl+%1").arg(i + 1))},
                           m_tabs->tabToolTip(i)),
                &QAction::triggered, this, [this, i] { m_tabs->setCurrentIndex(i); });
    connect(menuAction(m_viewMenu, tr("&Explore"), {QKeySequence(tr("Ctrl+4"))},
                       tr("The design-space search: sweep the space around the scenario, "
                          "preview, pin or apply a point (Ctrl+4)")),
            &QAction::triggered, this, &MainWindow::showExplore);
    QAction* live = m_viewMenu->addAction(tr("&Live Front"));
    live->setObjectName(QStringLiteral("LiveFrontAction"));
    live->setCheckable(true);
    live->setChecked(m_liveFront->isEnabled());
    live->setStatusTip(tr("After each edit, search the default space in the background and say "
                          "whether a faster design exists"));
    connect(live, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue(kLiveFrontSetting, on);
        m_liveFront->setEnabled(on);
    });
    m_viewMenu->addSeparator();
    QMenu* panels = m_viewMenu->addMenu(tr("&Panels"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        panels->addAction(dock->toggleViewAction());
    addThemeMenu(m_viewMenu);
}

void MainWindow::createStatusBar()
{
    auto addField = [this](const QString& toolTip) {
        auto* label = new QLabel(this);
        label->setContentsMargins(6, 0, 6, 0);
        label->setToolTip(toolTip);
        statusBar()->addPermanentWidget(label);
        return label;
    };
    m_statusLive = addField(QString());
    m_statusLive->setObjectName(QStringLiteral("LiveFrontStatus"));
    m_statusLive->setTextFormat(Qt::RichText);
    m_statusLive->setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    connect(m_statusLive, &QLabel::linkActivated, this, [this] { previewLiveFront(); });
    connect(m_liveFront, &LiveFront::searching, this, &MainWindow::updateLiveStatus);
    connect(m_liveFront, &LiveFront::found, this, &MainWindow::updateLiveStatus);
    connect(m_liveFront, &LiveFront::cleared, this, &MainWindow::updateLiveStatus);
    updateLiveStatus();
    m_statusIteration = addField(tr("Time of one training iteration (seconds)"));
    m_statusMfu = addField(tr("Model FLOPs utilisation: model FLOPs / (GPUs × peak FLOP/s)"));
    m_statusBubble = addField(views::bubbleRatioToolTip());
    m_statusMemory = addField(tr("Peak memory per GPU against its HBM (GiB)"));
    m_statusCapex = addField(tr("Network capital expense (US$): switches, NICs, optics, DCI"));
}

void MainWindow::updateLiveStatus()
{
    const std::optional<LiveFront::Finding>& f = m_liveFront->finding();
    m_statusLive->setVisible(m_liveFront->isEnabled());
    if (!f) {
        m_statusLive->setText(tr("Live front: searching…"));
        m_statusLive->setToolTip(
            tr("The default space around the edited design is being searched"));
        return;
    }
    // Three changes at most in the status bar; all of them in the tooltip and the Explore panel.
    QString text = LiveFront::text(*f, 3).toHtmlEscaped();
    if (f->canPreview())
        text += QStringLiteral(" · <a href=\"preview\">%1</a>").arg(tr("Preview"));
    m_statusLive->setText(text);
    m_statusLive->setToolTip(
        tr("%1\nLive front: the default space (%2 points) searched in %3 after the last edit. "
           "Faster is the time to train the same tokens; a gain of a few percent is within the "
           "model's error.")
            .arg(LiveFront::text(*f), views::formatCount(static_cast<std::int64_t>(f->spacePoints)),
                 views::formatSeconds(f->wallS)));
}

bool MainWindow::previewLiveFront()
{
    if (!m_explore->previewLive())
        return false;
    statusBar()->showMessage(
        tr("Previewing the live front's design beside the current one: Pin or Apply it in the "
           "Explore panel"),
        8000);
    return true;
}

QString MainWindow::statusIterationText() const
{
    return m_statusIteration->text();
}

void MainWindow::updateStatusBar(const core::Evaluation& e)
{
    const QString none = QStringLiteral("—");
    m_statusIteration->setText(
        tr("Iteration %1").arg(e.ok ? views::formatSeconds(e.iterationTimeS) : none));
    m_statusMfu->setText(tr("MFU %1").arg(e.ok ? views::formatPercent(e.mfu) : none));
    m_statusBubble->setText(QStringLiteral("%1 %2").arg(
        views::bubbleRatioName(), e.ok ? views::formatBubbleRatio(e.bubbleRatio) : none));
    m_statusMemory->setText(
        e.ok ? tr("Memory %1 / %2 %3")
                   .arg(views::formatGib(e.memoryPeakGib), views::formatGib(e.hbmGib),
                        views::memoryFit(e) == views::MemoryFit::Fits ? tr("(fits)")
                        : e.fitsInMemory                              ? tr("(tight)")
                                                                      : tr("(OUT OF MEMORY)"))
             : tr("Memory %1").arg(none));
    // Red reads on light and dark palettes alike.
    m_statusMemory->setStyleSheet(e.ok && !e.fitsInMemory ? QStringLiteral("color: #e53935")
                                                          : QString());
    m_statusCapex->setText(tr("Network %1").arg(views::formatUsd(e.networkCapexUsd)));
}

void MainWindow::fillPresetMenu()
{
    m_presetMenu->clear();
    for (const PresetLibrary::Preset& preset : PresetLibrary::presets()) {
        QAction* action = m_presetMenu->addAction(preset.title, this,
                                                  [this, path = preset.path] { openPreset(path); });
        // The scenario it opens, not the resource path (":/presets/…") it is read from.
        action->setStatusTip(tr("Open an untitled copy of the preset “%1”").arg(preset.title));
    }
    if (m_presetMenu->isEmpty())
        m_presetMenu->addAction(tr("No presets found"))->setEnabled(false);
}

void MainWindow::fillRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_recent->files();
    for (int i = 0; i < files.size(); ++i) {
        const QString& path = files.at(i);
        const QString text = QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName());
        m_recentMenu->addAction(text, this, [this, path] { openFile(path); })->setStatusTip(path);
    }
    m_recentMenu->addSeparator();
    QAction* clear = m_recentMenu->addAction(tr("Clear Menu"), m_recent, &RecentFiles::clear);
    clear->setEnabled(!files.isEmpty());
}

} // namespace archipelago::app
