// The explorer window: the topology canvas, the layout view and the pipeline timeline
// as central tabs; the scenario tree and the pins on the left; the property editor and the
// evaluation summary on the right; the three plots, the comparison table and the warnings along
// the bottom; key figures in the status bar. Views show core data and emit intents; the
// EditController turns intents into undo commands on the Document; every document change
// refreshes the views and (when it affects cost) re-runs the Evaluator, whose published
// Evaluation feeds the plots, the timeline, the table, the summary and the status bar.
//
// The implementation is split by concern: mainwindow.cpp (files, settings, recovery, drops),
// mainwindowviews.cpp (views, docks, wiring, refresh), mainwindowactions.cpp (menus, shortcuts,
// status bar).
#pragma once

#include "common/evaluateddesign.h"
#include "document/changeevent.h"
#include "document/document.h"
#include "launch/launchimport.h"
#include "model/evaluation.h"
#include "window/prompts.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QTabWidget;

namespace archipelago::views {
class ComparisonTable;
class EvaluationSummary;
class LayoutView;
class PlotsPanel;
class PropertyEditor;
class ScenarioTree;
class TimelineView;
class TopologyCanvas;
struct ScenarioItem;
struct TopologySelection;
} // namespace archipelago::views

namespace archipelago::app {

class Autosave;
class EditController;
class Evaluator;
class ExplorePanel;
class LiveFront;
class NoticeBar;
class PinEvaluations;
class PinsPanel;
class QuickEdits;
class RecentFiles;
class WarningsPanel;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    // `prompts` answers the window's questions; nullptr asks the user with dialogs.
    explicit MainWindow(std::unique_ptr<Prompts> prompts = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return m_document; }
    Evaluator* evaluator() const { return m_evaluator; }
    EditController* edits() const { return m_edits; }
    PinEvaluations* pinEvaluations() const { return m_pinEvaluations; }
    Autosave* autosave() const { return m_autosave; }
    views::ScenarioTree* scenarioTree() const { return m_tree; }
    views::PropertyEditor* propertyEditor() const { return m_editor; }
    views::EvaluationSummary* evaluationSummary() const { return m_summary; }
    views::TopologyCanvas* topologyCanvas() const { return m_canvas; }
    views::LayoutView* layoutView() const { return m_layout; }
    views::TimelineView* timelineView() const { return m_timeline; }
    views::PlotsPanel* plotsPanel() const { return m_plots; }
    views::ComparisonTable* comparisonTable() const { return m_comparison; }
    WarningsPanel* warningsPanel() const { return m_warnings; }
    PinsPanel* pinsPanel() const { return m_pinsPanel; }
    ExplorePanel* explorePanel() const { return m_explore; }
    QDockWidget* exploreDock() const { return m_exploreDock; }
    LiveFront* liveFront() const { return m_liveFront; }
    QLabel* liveFrontStatus() const { return m_statusLive; }
    // Previews the design the live front found (the status bar's link).
    bool previewLiveFront();
    // Shows the Explore dock and raises it above the docks it is tabbed with (Ctrl+4).
    void showExplore();
    // The Explore panel's previewed point, shown by the plots and the table beside the pins
    // until cleared; never part of the document.
    const std::optional<views::EvaluatedDesign>& previewPoint() const { return m_previewPoint; }
    QTabWidget* centralTabs() const { return m_tabs; }
    // What the last edit refused or adjusted, over the central views.
    NoticeBar* noticeBar() const { return m_notice; }
    // The design points the plots and the table show: the evaluated pins, then the current one.
    const QList<views::EvaluatedDesign>& pinnedPoints() const { return m_pinnedPoints; }
    const views::EvaluatedDesign& currentPoint() const { return m_currentPoint; }
    // The status bar's iteration-time field ("Iteration 1.23 s").
    QString statusIterationText() const;

    // File actions; each asks about unsaved changes first and returns whether it happened.
    bool newDocument();
    // An untitled minimal scenario (core::minimalScenario) to build a design up from.
    bool newEmptyDocument();
    bool openFile(const QString& path);
    bool openPreset(const QString& path); // an untitled copy of the preset
    bool save();
    bool saveAs();
    // At a start with no file named: offers, one after the other, every document a crash left
    // a copy of (files and untitled work, newest first) until one is recovered into this
    // window; the others are kept and offered again. Returns whether one was recovered.
    bool offerRecoveryAtStart();
    // Pins the current design point (name "Pin N", next colour).
    void pinCurrent();
    // File > Export Report…: the review report of the current design point, its pins and the
    // document's sweep, as PDF or HTML by the suffix (app/report, the CLI's `report` code).
    bool exportReport(const QString& path, QString* error = nullptr);
    void exportReportInteractively();
    // File > Export Launch Settings…: the dialog on the current design point (launchdialog.h).
    void exportLaunchSettings();
    // File > Import Launch Settings…: the dialog, then one undoable edit (importdialog.h).
    void importLaunchSettings();
    bool applyImportedSettings(const core::ImportedSettings& imported, core::Framework framework);
    // File > Calibrate from Measured Runs…: the dialog (calibrationdialog.h), then the saved
    // calibration as the design's, one undoable edit; Use Built-in Calibration drops it.
    void calibrateFromMeasuredRuns();
    bool applyCalibration(const std::optional<core::Calibration>& calibration);

    void restoreLayout();

protected:
    void closeEvent(QCloseEvent* event) override;
    // The first time the window is shown at its size: the docks in the default proportions
    // for that width (sizeDocks), unless a saved layout was restored.
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // The default dock proportions (designed at 1600 x 1000), scaled to the window's width.
    void sizeDocks();
    bool m_docksSized = false; // by sizeDocks or a restored layout
    // mainwindowviews.cpp
    void createViews();
    QDockWidget* addDock(QWidget* widget, const QString& title, const QString& name,
                         Qt::DockWidgetArea area);
    void wireCanvas();
    void wireEditors();
    void wirePins();
    void onChanged(const ChangeEvent& event);
    void onEvaluated(const std::shared_ptr<const core::Evaluation>& evaluation);
    void refreshDesignPoints();
    void refreshPins();
    void onTreeSelection(const views::ScenarioItem& item);
    void onCanvasSelection(const views::TopologySelection& selection);

    // mainwindowactions.cpp
    void createActions();
    void createFileMenu();
    void createEditMenu();
    void createBatchPolicyMenu(QMenu* edit);
    void createViewMenu();
    void createStatusBar();
    void fillPresetMenu();
    void fillRecentMenu();
    void updateStatusBar(const core::Evaluation& evaluation);
    void updateLiveStatus();

    // mainwindow.cpp
    bool maybeSave();
    bool load(const QString& path, Document::LoadMode mode);
    bool offerRecovery(const QString& fileName);
    bool saveTo(const QString& path);
    QString suggestedSavePath() const;
    void updateTitle();

    std::unique_ptr<Prompts> m_prompts;
    Document* m_document = nullptr;
    Evaluator* m_evaluator = nullptr;
    LiveFront* m_liveFront = nullptr;
    EditController* m_edits = nullptr;
    PinEvaluations* m_pinEvaluations = nullptr;
    RecentFiles* m_recent = nullptr;
    Autosave* m_autosave = nullptr;

    QTabWidget* m_tabs = nullptr;
    NoticeBar* m_notice = nullptr;
    views::TopologyCanvas* m_canvas = nullptr;
    views::LayoutView* m_layout = nullptr;
    views::TimelineView* m_timeline = nullptr;
    views::ScenarioTree* m_tree = nullptr;
    views::PropertyEditor* m_editor = nullptr;
    views::EvaluationSummary* m_summary = nullptr;
    views::PlotsPanel* m_plots = nullptr;
    views::ComparisonTable* m_comparison = nullptr;
    WarningsPanel* m_warnings = nullptr;
    PinsPanel* m_pinsPanel = nullptr;
    QDockWidget* m_propertiesDock = nullptr;
    QDockWidget* m_warningsDock = nullptr;
    QList<views::EvaluatedDesign> m_pinnedPoints;
    views::EvaluatedDesign m_currentPoint;
    ExplorePanel* m_explore = nullptr;
    QDockWidget* m_exploreDock = nullptr;
    std::optional<views::EvaluatedDesign> m_previewPoint;
    bool m_syncingSelection = false;
    // What an untitled document was made from ("Default scenario", "Preset"), for its title.
    QString m_origin;

    QMenu* m_presetMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QuickEdits* m_quickEdits = nullptr;

    QLabel* m_statusIteration = nullptr;
    QLabel* m_statusMfu = nullptr;
    QLabel* m_statusBubble = nullptr;
    QLabel* m_statusMemory = nullptr;
    QLabel* m_statusCapex = nullptr;
    QLabel* m_statusLive = nullptr;
};

} // namespace archipelago::app
