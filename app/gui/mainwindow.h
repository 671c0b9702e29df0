// The main window: the scenario tree and the property panel in the centre, the evaluation
// summary beside them, key figures in the status bar; File and Edit menus drive the Document.
// Views show core data and emit intents; this window turns intents into undo commands.
#pragma once

#include "changeevent.h"
#include "document.h"
#include "evaluation.h"
#include "prompts.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QLabel;
class QMenu;

namespace archipelago::views {
class EvaluationSummary;
class PropertyPanel;
class ScenarioTree;
} // namespace archipelago::views

namespace archipelago::app {

class Evaluator;
class QuickEdits;
class RecentFiles;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    // `prompts` answers the window's questions; nullptr asks the user with dialogs.
    explicit MainWindow(std::unique_ptr<Prompts> prompts = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return m_document; }
    Evaluator* evaluator() const { return m_evaluator; }
    views::ScenarioTree* scenarioTree() const { return m_tree; }
    views::PropertyPanel* propertyPanel() const { return m_properties; }
    views::EvaluationSummary* evaluationSummary() const { return m_summary; }

    // File actions; each asks about unsaved changes first and returns whether it happened.
    bool newDocument();
    bool openFile(const QString& path);
    bool openPreset(const QString& path); // an untitled copy of the preset
    bool save();
    bool saveAs();

    void restoreLayout();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createViews();
    void createFileMenu();
    void createEditMenu();
    void createViewMenu();
    void createStatusBar();
    void fillPresetMenu();
    void fillRecentMenu();

    bool maybeSave();
    bool load(const QString& path, Document::LoadMode mode);
    bool saveTo(const QString& path);
    QString suggestedSavePath() const;

    void onChanged(const ChangeEvent& event);
    void onEvaluated(const std::shared_ptr<const core::Evaluation>& evaluation);
    void updateTitle();

    std::unique_ptr<Prompts> m_prompts;
    Document* m_document = nullptr;
    Evaluator* m_evaluator = nullptr;
    RecentFiles* m_recent = nullptr;

    views::ScenarioTree* m_tree = nullptr;
    views::PropertyPanel* m_properties = nullptr;
    views::EvaluationSummary* m_summary = nullptr;

    QMenu* m_presetMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QuickEdits* m_quickEdits = nullptr;

    QLabel* m_statusIteration = nullptr;
    QLabel* m_statusMfu = nullptr;
    QLabel* m_statusBubble = nullptr;
    QLabel* m_statusMemory = nullptr;
    QLabel* m_statusCapex = nullptr;
};

} // namespace archipelago::app
