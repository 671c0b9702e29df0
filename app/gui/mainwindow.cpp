#include "mainwindow.h"

#include "evaluationsummary.h"
#include "evaluator.h"
#include "format.h"
#include "presetlibrary.h"
#include "prompts.h"
#include "propertypanel.h"
#include "quickedits.h"
#include "recentfiles.h"
#include "scenariotree.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QUndoStack>
#include <QUndoView>

namespace archipelago::app {

namespace {

constexpr int kStatusMessageMs = 4000;

} // namespace

MainWindow::MainWindow(std::unique_ptr<Prompts> prompts, QWidget* parent)
    : QMainWindow(parent)
    , m_prompts(prompts ? std::move(prompts) : std::make_unique<Prompts>())
    , m_document(new Document(this))
    , m_evaluator(new Evaluator(this))
    , m_recent(new RecentFiles(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    createViews();
    createFileMenu();
    createEditMenu();
    createViewMenu();
    createStatusBar();

    connect(m_document, &Document::changed, this, &MainWindow::onChanged);
    connect(m_document, &Document::fileNameChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::modifiedChanged, this, &QWidget::setWindowModified);
    connect(m_evaluator, &Evaluator::pending, this, [this] {
        m_summary->setPending(true);
        statusBar()->showMessage(tr("Evaluating…"));
    });
    connect(m_evaluator, &Evaluator::evaluated, this, &MainWindow::onEvaluated);
    connect(m_recent, &RecentFiles::changed, this, &MainWindow::fillRecentMenu);
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::createViews()
{
    m_tree = new views::ScenarioTree(this);
    m_tree->setObjectName(QStringLiteral("ScenarioTree"));
    m_properties = new views::PropertyPanel(this);
    m_properties->setObjectName(QStringLiteral("PropertyPanel"));
    connect(m_tree, &views::ScenarioTree::selectedItemChanged, this,
            [this](const views::ScenarioItem& item) {
                m_properties->showItem(m_document->scenario(), item);
            });

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("CentralSplitter"));
    splitter->addWidget(m_tree);
    splitter->addWidget(m_properties);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({600, 400}); // the tree's summaries are the longer texts
    splitter->setChildrenCollapsible(false);
    setCentralWidget(splitter);

    m_summary = new views::EvaluationSummary(this);
    m_summary->setObjectName(QStringLiteral("EvaluationSummary"));
    auto* evaluationDock = new QDockWidget(tr("Evaluation"), this);
    evaluationDock->setObjectName(QStringLiteral("EvaluationDock"));
    evaluationDock->setWidget(m_summary);
    addDockWidget(Qt::RightDockWidgetArea, evaluationDock);

    auto* historyDock = new QDockWidget(tr("Undo History"), this);
    historyDock->setObjectName(QStringLiteral("UndoHistoryDock"));
    auto* history = new QUndoView(m_document->undoStack(), historyDock);
    history->setEmptyLabel(tr("<opened>"));
    historyDock->setWidget(history);
    addDockWidget(Qt::RightDockWidgetArea, historyDock);
    historyDock->hide();
}

void MainWindow::createFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, [this] { newDocument(); })
        ->setStatusTip(tr("A new scenario based on the built-in default"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
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
    file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { save(); });
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, [this] { saveAs(); });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setMenuRole(QAction::QuitRole);
}

void MainWindow::createEditMenu()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    m_quickEdits = new QuickEdits(m_document, edit, this);
}

void MainWindow::createViewMenu()
{
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        m_viewMenu->addAction(dock->toggleViewAction());
}

void MainWindow::createStatusBar()
{
    auto addField = [this] {
        auto* label = new QLabel(this);
        label->setContentsMargins(6, 0, 6, 0);
        statusBar()->addPermanentWidget(label);
        return label;
    };
    m_statusIteration = addField();
    m_statusMfu = addField();
    m_statusBubble = addField();
    m_statusMemory = addField();
    m_statusCapex = addField();
}

void MainWindow::fillPresetMenu()
{
    m_presetMenu->clear();
    for (const PresetLibrary::Preset& preset : PresetLibrary::presets()) {
        QAction* action = m_presetMenu->addAction(preset.title, this,
                                                  [this, path = preset.path] { openPreset(path); });
        action->setStatusTip(preset.path);
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

bool MainWindow::newDocument()
{
    return maybeSave() && load(PresetLibrary::defaultScenarioPath(), Document::LoadMode::Template);
}

bool MainWindow::openFile(const QString& path)
{
    return maybeSave() && load(path, Document::LoadMode::Open);
}

bool MainWindow::openPreset(const QString& path)
{
    return maybeSave() && load(path, Document::LoadMode::Template);
}

bool MainWindow::load(const QString& path, Document::LoadMode mode)
{
    const std::vector<core::Diagnostic> errors = m_document->load(path, mode);
    if (!errors.empty()) {
        if (!QFileInfo::exists(path))
            m_recent->remove(path);
        m_prompts->showLoadErrors(this, path, errors);
        return false;
    }
    if (mode == Document::LoadMode::Open)
        m_recent->add(path);
    const std::size_t warnings = m_document->loadWarnings().size();
    statusBar()->showMessage(
        warnings == 0 ? tr("Opened %1").arg(QFileInfo(path).fileName())
                      : tr("Opened %1 with %n warning(s)", nullptr, static_cast<int>(warnings))
                            .arg(QFileInfo(path).fileName()),
        kStatusMessageMs);
    return true;
}

bool MainWindow::save()
{
    if (m_document->isUntitled())
        return saveAs();
    return saveTo(m_document->fileName());
}

bool MainWindow::saveAs()
{
    const QString path = m_prompts->askSaveFileName(this, suggestedSavePath());
    return !path.isEmpty() && saveTo(path);
}

bool MainWindow::saveTo(const QString& path)
{
    QString error;
    if (!m_document->save(path, &error)) {
        m_prompts->showError(this, tr("Cannot Save Scenario"),
                             tr("“%1” could not be written: %2").arg(path, error));
        return false;
    }
    m_recent->add(path);
    statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), kStatusMessageMs);
    return true;
}

QString MainWindow::suggestedSavePath() const
{
    if (!m_document->isUntitled())
        return m_document->fileName();
    QString base = QString::fromStdString(m_document->scenario().name).toLower();
    base.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    if (base.isEmpty())
        base = QStringLiteral("scenario");
    return QDir(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
        .filePath(base + QStringLiteral(".json"));
}

bool MainWindow::maybeSave()
{
    if (!m_document->isModified())
        return true;
    switch (m_prompts->askSaveChanges(this, m_document->displayName())) {
    case Prompts::SaveChoice::Save:
        return save();
    case Prompts::SaveChoice::Discard:
        return true;
    case Prompts::SaveChoice::Cancel:
        return false;
    }
    return false;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    event->accept();
}

void MainWindow::restoreLayout()
{
    const QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(1400, 900);
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
}

void MainWindow::onChanged(const ChangeEvent& event)
{
    // Positions are not in the tree: a look change only refreshes the property rows.
    if (event.kind == ChangeEvent::Kind::Look)
        m_properties->showItem(m_document->scenario(), m_tree->selectedItem());
    else
        m_tree->setScenario(m_document->scenario());
    if (event.affectsCost())
        m_evaluator->request(m_document->scenario());
    updateTitle();
    m_quickEdits->update();
}

void MainWindow::onEvaluated(const std::shared_ptr<const core::Evaluation>& evaluation)
{
    const core::Evaluation& e = *evaluation;
    m_summary->setEvaluation(e);
    statusBar()->clearMessage();
    const QString none = QStringLiteral("—");
    m_statusIteration->setText(
        tr("Iteration %1").arg(e.ok ? views::formatSeconds(e.iterationTimeS) : none));
    m_statusMfu->setText(tr("MFU %1").arg(e.ok ? views::formatPercent(e.mfu) : none));
    m_statusBubble->setText(tr("Bubble %1").arg(e.ok ? views::formatPercent(e.bubbleRatio) : none));
    m_statusMemory->setText(e.ok ? tr("Memory %1 / %2 %3")
                                       .arg(views::formatGib(e.memoryPeakGib),
                                            views::formatGib(e.hbmGib),
                                            e.fitsInMemory ? tr("(fits)") : tr("(OUT OF MEMORY)"))
                                 : tr("Memory %1").arg(none));
    m_statusMemory->setStyleSheet(e.ok && !e.fitsInMemory ? QStringLiteral("color: #c62828")
                                                          : QString());
    m_statusCapex->setText(tr("Network %1").arg(views::formatUsd(e.networkCapexUsd)));
}

void MainWindow::updateTitle()
{
    const QString scenarioName = QString::fromStdString(m_document->scenario().name);
    QString title = m_document->displayName() + QStringLiteral("[*]");
    if (!scenarioName.isEmpty())
        title += QStringLiteral(" — ") + scenarioName;
    setWindowTitle(title + QStringLiteral(" — Archipelago"));
    setWindowModified(m_document->isModified());
}

} // namespace archipelago::app
