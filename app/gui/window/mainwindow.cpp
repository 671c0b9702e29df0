#include "window/mainwindow.h"

#include "document/autosave.h"
#include "document/evaluator.h"
#include "document/livefront.h"
#include "document/pinevaluations.h"
#include "document/presetlibrary.h"
#include "document/recentfiles.h"
#include "editing/editcontroller.h"
#include "model/scenariotemplates.h"
#include "topology/topologycanvas.h"
#include "window/noticebar.h"

#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMimeData>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QUndoStack>

namespace archipelago::app {

namespace {

constexpr int kStatusMessageMs = 4000;

// The first local .json file among dropped URLs, or "".
QString droppedScenario(const QMimeData* mime)
{
    if (!mime || !mime->hasUrls())
        return {};
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile() &&
            url.toLocalFile().endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
            return url.toLocalFile();
    return {};
}

} // namespace

MainWindow::MainWindow(std::unique_ptr<Prompts> prompts, QWidget* parent)
    : QMainWindow(parent)
    , m_prompts(prompts ? std::move(prompts) : std::make_unique<Prompts>())
    , m_document(new Document(this))
    , m_evaluator(new Evaluator(this))
    , m_liveFront(new LiveFront(m_document, m_evaluator, this))
    , m_edits(new EditController(m_document, this))
    , m_pinEvaluations(new PinEvaluations(this))
    , m_recent(new RecentFiles(this))
    , m_autosave(new Autosave(m_document, this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    m_liveFront->setEnabled(QSettings().value(kLiveFrontSetting, true).toBool());
    createViews();
    createActions();
    createStatusBar();

    connect(m_document, &Document::changed, this, &MainWindow::onChanged);
    connect(m_document, &Document::fileNameChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::modifiedChanged, this, &QWidget::setWindowModified);
    connect(m_evaluator, &Evaluator::evaluated, this, &MainWindow::onEvaluated);
    connect(m_pinEvaluations, &PinEvaluations::updated, this, &MainWindow::refreshDesignPoints);
    connect(m_edits, &EditController::refused, this, [this](const QString& reason) {
        statusBar()->showMessage(reason, 3 * kStatusMessageMs);
        m_notice->showNotice(NoticeBar::Kind::Refused, reason);
    });
    connect(m_edits, &EditController::adjusted, this, [this](const QString& message) {
        statusBar()->showMessage(message, 3 * kStatusMessageMs);
        m_notice->showNotice(NoticeBar::Kind::Adjusted, message);
    });
    // A notice is about the edit before: the next change of the document retires it (an
    // adjustment is announced after its own change).
    connect(m_document, &Document::changed, m_notice, &NoticeBar::dismiss);
    connect(m_recent, &RecentFiles::changed, this, &MainWindow::fillRecentMenu);
    updateTitle();
}

MainWindow::~MainWindow() = default;

bool MainWindow::newDocument()
{
    return maybeSave() && load(PresetLibrary::defaultScenarioPath(), Document::LoadMode::Template);
}

bool MainWindow::newEmptyDocument()
{
    if (!maybeSave())
        return false;
    m_document->reset(core::minimalScenario());
    m_origin.clear();
    updateTitle();
    m_canvas->fitWhenReady();
    statusBar()->showMessage(tr("New empty document: one datacenter with one 8-GPU domain"),
                             kStatusMessageMs);
    return true;
}

bool MainWindow::openFile(const QString& path)
{
    if (!maybeSave() || !load(path, Document::LoadMode::Open))
        return false;
    offerRecovery(path);
    return true;
}

bool MainWindow::openPreset(const QString& path)
{
    return maybeSave() && load(path, Document::LoadMode::Template);
}

bool MainWindow::offerRecoveryAtStart()
{
    const std::vector<QString> files = Autosave::recoverableFiles();
    for (std::size_t i = 0; i < files.size(); ++i)
        if (offerRecovery(files[i])) {
            if (i + 1 < files.size())
                statusBar()->showMessage(
                    tr("%n more document(s) with autosaved changes: offered again at the next "
                       "start, or when the file is opened",
                       nullptr, static_cast<int>(files.size() - i - 1)),
                    kStatusMessageMs);
            return true;
        }
    return false;
}

bool MainWindow::offerRecovery(const QString& fileName)
{
    // Copies owned by a live window (this one's included) are not offered: only a crash's.
    const QString copy = Autosave::recoverablePath(fileName);
    if (copy.isEmpty())
        return false;
    const QString name = fileName.isEmpty() ? tr("Untitled") : QFileInfo(fileName).fileName();
    switch (m_prompts->askRecover(this, fileName, QFileInfo(copy).lastModified())) {
    case Prompts::RecoverChoice::Later:
        return false; // kept: asked again the next time
    case Prompts::RecoverChoice::Discard:
        Autosave::removeCopy(copy); // the user's word
        return false;
    case Prompts::RecoverChoice::Recover:
        break;
    }
    const std::vector<core::Diagnostic> errors = m_document->recover(copy, fileName);
    if (!errors.empty()) {
        m_prompts->showLoadErrors(this, copy, errors);
        return false;
    }
    // The recovered changes now live in the document; its own copy holds them before the
    // crash's copy goes, so that a second crash loses nothing either.
    if (m_autosave->saveNow() && m_autosave->path() != copy)
        Autosave::removeCopy(copy);
    m_origin.clear();
    statusBar()->showMessage(tr("Recovered the autosaved changes of %1").arg(name),
                             kStatusMessageMs);
    updateTitle();
    return true;
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
    // A template (the default, a preset) is named by its scenario, not by its resource file.
    const QString scenarioName = QString::fromStdString(m_document->scenario().name);
    if (mode == Document::LoadMode::Open)
        m_origin.clear();
    else
        m_origin =
            path == PresetLibrary::defaultScenarioPath() ? tr("Default scenario") : tr("Preset");
    const QString what = m_origin.isEmpty()
                             ? tr("Opened %1").arg(QFileInfo(path).fileName())
                             : QStringLiteral("%1: %2").arg(
                                   m_origin, scenarioName.isEmpty() ? tr("unnamed") : scenarioName);
    const std::size_t warnings = m_document->loadWarnings().size();
    statusBar()->showMessage(
        warnings == 0 ? what
                      : tr("%1 (%n warning(s))", nullptr, static_cast<int>(warnings)).arg(what),
        kStatusMessageMs);
    updateTitle();
    m_canvas->fitWhenReady();
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
        m_autosave->discard();
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

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!droppedScenario(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QString path = droppedScenario(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    openFile(path);
}

void MainWindow::restoreLayout()
{
    const QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray())) {
        // 1600 x 1000, or the screen's available area when it is smaller (a 1280 x 800 laptop).
        QSize size(1600, 1000);
        if (const QScreen* screen = QGuiApplication::primaryScreen())
            size = size.boundedTo(screen->availableGeometry().size());
        resize(size);
    }
    if (restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray()))
        m_docksSized = true; // the user's own proportions
}

void MainWindow::pinCurrent()
{
    const core::Scenario& scenario = m_document->scenario();
    // Reuse the published evaluation when it belongs to this very scenario.
    if (m_evaluator->evaluatedScenario() && *m_evaluator->evaluatedScenario() == scenario)
        m_pinEvaluations->seed(scenario, m_evaluator->evaluation());
    m_edits->pin(scenario);
}

void MainWindow::updateTitle()
{
    const QString scenarioName = QString::fromStdString(m_document->scenario().name);
    QString title;
    if (m_document->isUntitled() && !m_origin.isEmpty() && !scenarioName.isEmpty()) {
        // "Default scenario: 405B on 3 regions": what it is, not an internal file name.
        title = QStringLiteral("%1: %2[*]").arg(m_origin, scenarioName);
    } else {
        title = m_document->displayName() + QStringLiteral("[*]");
        if (!scenarioName.isEmpty())
            title += QStringLiteral(" — ") + scenarioName;
    }
    setWindowTitle(title + QStringLiteral(" — Archipelago"));
    setWindowModified(m_document->isModified());
}

} // namespace archipelago::app
