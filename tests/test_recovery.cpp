// Crash-recovery copies (app/gui/document/autosave.h) are deleted only on the user's word, and a
// live window owns its copy. Reproductions of what a robustness trial found:
// - `archipelago --screenshot x.png FILE` (the silent prompts) deleted FILE's recovery copy, so
//   a user who later answered "Yes, recover" got "cannot open the file";
// - a second window on the same file said the first "did not close normally" while it was
//   still open, and answering "No" deleted the first window's live copy.
#include "document/autosave.h"
#include "document/document.h"
#include "document/presetlibrary.h"
#include "editing/editcontroller.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace archipelago;
using Choice = app::Prompts::RecoverChoice;

namespace {

const QString kPreset = QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/gpt3-175b-1024-a100.json");

QByteArray contents(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A window whose prompts answer `choice`; `silent` points at them.
std::unique_ptr<app::MainWindow> window(Choice choice, app::SilentPrompts** silent = nullptr)
{
    auto prompts = std::make_unique<app::SilentPrompts>();
    prompts->recover = choice;
    if (silent)
        *silent = prompts.get();
    return std::make_unique<app::MainWindow>(std::move(prompts));
}

// Opens `path`, halves PP and writes the autosaved copy; the window is left open.
std::unique_ptr<app::MainWindow> editedWindow(const QString& path)
{
    auto w = window(Choice::Later);
    if (!w->openFile(path))
        return nullptr;
    const int pp = w->document()->scenario().parallelism.pp;
    if (!w->edits()->setPipelineParallel(pp / 2) || !w->autosave()->saveNow())
        return nullptr;
    return w;
}

} // namespace

class TestRecovery : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void silentPromptsKeepTheCopy();
    void laterKeepsDiscardDeletes();
    void liveWindowOwnsItsCopy();
    void crashCopyIsNotWrittenOver();
    void plainStartOffersEveryDocument();

private:
    QTemporaryDir m_dir;
    QString m_path;
};

void TestRecovery::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // autosaves stay out of $HOME
    QCoreApplication::setOrganizationName(QStringLiteral("ArchipelagoTest"));
    QCoreApplication::setApplicationName(QStringLiteral("test_recovery"));
    app::PresetLibrary::initResources();
    QVERIFY(m_dir.isValid());
}

void TestRecovery::init()
{
    // A fresh file, older than any copy, and no copies left from another case.
    static int n = 0;
    m_path = m_dir.filePath(QStringLiteral("work-%1.json").arg(++n));
    QVERIFY(QFile::copy(kPreset, m_path));
    QVERIFY(QFile::setPermissions(m_path, QFile::ReadOwner | QFile::WriteOwner));
    QFile file(m_path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                             QFileDevice::FileModificationTime));
}

void TestRecovery::silentPromptsKeepTheCopy()
{
    QString copy;
    {
        auto crashed = editedWindow(m_path);
        QVERIFY(crashed);
        copy = crashed->autosave()->path();
    } // destroyed without closing, as in a crash: the copy stays
    QVERIFY(QFile::exists(copy));
    {
        // What --screenshot does: open with the silent prompts.
        app::SilentPrompts* silent = nullptr;
        auto shot = window(app::SilentPrompts().recover, &silent);
        QVERIFY(shot->openFile(m_path));
        QCOMPARE(silent->recoverQuestions, 1);
        QVERIFY(!shot->document()->isModified());
    }
    QVERIFY2(QFile::exists(copy), "the silent prompts deleted the recovery copy");
    // A user who answers Recover afterwards gets the changes.
    auto later = window(Choice::Recover);
    QVERIFY(later->openFile(m_path));
    QVERIFY(later->document()->isModified());
    QCOMPARE(later->document()->scenario().parallelism.pp, 4);
    // Recovered: the window's own copy holds the changes, the crash's is gone.
    QVERIFY(QFile::exists(later->autosave()->path()));
    QVERIFY(later->autosave()->path() == copy || !QFile::exists(copy));
}

void TestRecovery::laterKeepsDiscardDeletes()
{
    QString copy;
    {
        auto crashed = editedWindow(m_path);
        QVERIFY(crashed);
        copy = crashed->autosave()->path();
    }
    {
        auto w = window(Choice::Later);
        QVERIFY(w->openFile(m_path));
    }
    QVERIFY(QFile::exists(copy));
    app::SilentPrompts* silent = nullptr;
    auto w = window(Choice::Discard, &silent);
    QVERIFY(w->openFile(m_path));
    QCOMPARE(silent->recoverQuestions, 1);
    QVERIFY(!QFile::exists(copy));
    QVERIFY(app::Autosave::recoverablePath(m_path).isEmpty());
}

void TestRecovery::liveWindowOwnsItsCopy()
{
    auto first = editedWindow(m_path);
    QVERIFY(first);
    const QString firstCopy = first->autosave()->path();
    const QByteArray firstText = contents(firstCopy);
    QVERIFY(!firstText.isEmpty());
    // The first window's copy is not a crash's leftover.
    QVERIFY(app::Autosave::recoverablePath(m_path).isEmpty());
    for (const Choice answer : {Choice::Discard, Choice::Recover}) {
        app::SilentPrompts* silent = nullptr;
        auto second = window(answer, &silent);
        QVERIFY(second->openFile(m_path));
        QCOMPARE(silent->recoverQuestions, 0);
        QVERIFY(!second->document()->isModified());
        QCOMPARE(contents(firstCopy), firstText);
        // Its own edits go to a copy of its own.
        QVERIFY(second->edits()->setPipelineParallel(2));
        QVERIFY(second->autosave()->saveNow());
        QVERIFY(second->autosave()->path() != firstCopy);
        QCOMPARE(contents(firstCopy), firstText);
        second->autosave()->discard();
    }
}

void TestRecovery::crashCopyIsNotWrittenOver()
{
    QString copy;
    QByteArray crashText;
    {
        auto crashed = editedWindow(m_path);
        QVERIFY(crashed);
        copy = crashed->autosave()->path();
        crashText = contents(copy);
    }
    // Not now, then other edits autosaved: the crash's copy is still the crash's.
    auto w = window(Choice::Later);
    QVERIFY(w->openFile(m_path));
    QVERIFY(w->edits()->setPipelineParallel(2));
    QVERIFY(w->autosave()->saveNow());
    QVERIFY(w->autosave()->path() != copy);
    QCOMPARE(contents(copy), crashText);
}

// After kill -9, starting the app with no file named opened the default scenario without a word:
// only untitled work was offered, and a file's copy only when that file was opened again.
void TestRecovery::plainStartOffersEveryDocument()
{
    // Only this case's copies (the others leave theirs, as a crash would).
    QVERIFY(QDir(QFileInfo(app::Autosave::pathFor({})).absolutePath()).removeRecursively());
    QString fileCopy;
    QString untitledCopy;
    core::Scenario untitledWork;
    {
        auto crashed = editedWindow(m_path);
        QVERIFY(crashed);
        fileCopy = crashed->autosave()->path();
    }
    {
        auto crashed = window(Choice::Later);
        QVERIFY(crashed->newDocument());
        QVERIFY(crashed->edits()->setPipelineParallel(
            crashed->document()->scenario().parallelism.pp / 2));
        QVERIFY(crashed->autosave()->saveNow());
        untitledCopy = crashed->autosave()->path();
        untitledWork = crashed->document()->scenario();
    }
    // The untitled work is the newer of the two.
    for (const auto& [copy, ageS] : {std::pair{fileCopy, -120}, std::pair{untitledCopy, -60}}) {
        QFile file(copy);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(ageS),
                                 QFileDevice::FileModificationTime));
    }
    const std::vector<QString> files = app::Autosave::recoverableFiles();
    QCOMPARE(files.size(), std::size_t{2});
    QCOMPARE(files[0], QString());
    QCOMPARE(files[1], QFileInfo(m_path).absoluteFilePath());

    // Not now: both are offered, newest first, and both copies stay.
    app::SilentPrompts* silent = nullptr;
    {
        auto start = window(Choice::Later, &silent);
        QVERIFY(start->newDocument());
        QVERIFY(!start->offerRecoveryAtStart());
        QCOMPARE(silent->recoverFiles,
                 (QStringList{QString(), QFileInfo(m_path).absoluteFilePath()}));
        QVERIFY(QFile::exists(fileCopy));
        QVERIFY(QFile::exists(untitledCopy));
    }
    // Recover: the newest (the untitled work) comes back; the file's copy is offered again.
    {
        auto start = window(Choice::Recover, &silent);
        QVERIFY(start->newDocument());
        QVERIFY(start->offerRecoveryAtStart());
        QCOMPARE(silent->recoverQuestions, 1);
        QVERIFY(start->document()->isUntitled());
        QVERIFY(start->document()->scenario() == untitledWork);
        QVERIFY(start->document()->isModified());
        start->autosave()->discard();
    }
    QCOMPARE(app::Autosave::recoverableFiles(),
             std::vector<QString>{QFileInfo(m_path).absoluteFilePath()});
    // Then the file's: it opens as that file, modified.
    {
        auto start = window(Choice::Recover, &silent);
        QVERIFY(start->newDocument());
        QVERIFY(start->offerRecoveryAtStart());
        QCOMPARE(start->document()->fileName(), QFileInfo(m_path).absoluteFilePath());
        QVERIFY(start->document()->isModified());
        QVERIFY(!QFile::exists(fileCopy + QStringLiteral(".origin")) ||
                start->autosave()->path() == fileCopy);
        start->autosave()->discard();
    }
    QVERIFY(app::Autosave::recoverableFiles().empty());
}

QTEST_MAIN(TestRecovery)
#include "test_recovery.moc"
