// The explorer window's integration: every command class round-trips
// redo -> undo -> redo with one change signal per step; changing PP in the property editor
// reaches the plots and the status bar; 1,000 random edits with undo and redo never leave an
// invalid document and undo back to the original exactly; pins are saved and reloaded;
// an autosaved copy is offered after a crash.
#include "commands/pincommands.h"
#include "commands/scenarioedit.h"
#include "commands/valuecommands.h"
#include "common/format.h"
#include "document/autosave.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "document/presetlibrary.h"
#include "editing/editcontroller.h"
#include "editing/editvalidation.h"
#include "editing/setpipelineparallel.h"
#include "model/placementpresets.h"
#include "plots/plotbreakdown.h"
#include "plots/plotspanel.h"
#include "propertyeditor/propertyeditor.h"
#include "propertyeditor/propertyeditorfields.h"
#include "propertyeditor/propertyeditorparallelism.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <array>
#include <cmath>
#include <functional>

using namespace archipelago;
using app::ChangeEvent;
using app::Document;

namespace {

const QString kPreset =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");

using CommandFactory = std::function<QUndoCommand*(Document*)>;

core::PinnedScenario variantPin(const core::Scenario& base, const std::string& name)
{
    core::PinnedScenario pin{name, "#2ca02c", base};
    pin.scenario.schedule.kind = core::ScheduleKind::OneFOneB;
    pin.scenario.parallelism.virtualStages = 1;
    return pin;
}

struct Snapshot
{
    core::Scenario scenario;
    std::vector<core::PinnedScenario> pins;
    bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const Document& d)
{
    return {d.scenario(), d.pins()};
}

} // namespace

class TestExplorer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void commandRoundTrip_data();
    void commandRoundTrip();
    void invalidEditIsRefused();
    void ppEditReachesPlotsAndStatusBar();
    void randomEditsKeepDocumentValid();
    void pinsAreSavedAndReloaded();
    void autosaveIsOfferedAfterCrash();
};

void TestExplorer::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // settings and autosaves stay out of $HOME
    QCoreApplication::setOrganizationName(QStringLiteral("ArchipelagoTest"));
    QCoreApplication::setApplicationName(QStringLiteral("test_explorer"));
    app::PresetLibrary::initResources();
    QVERIFY(QFile::exists(kPreset));
}

void TestExplorer::commandRoundTrip_data()
{
    QTest::addColumn<CommandFactory>("factory");
    QTest::addColumn<int>("kind");
    using Kind = ChangeEvent::Kind;
    QTest::newRow("AddPin") << CommandFactory([](Document* d) {
        return new app::AddPin(d, variantPin(d->scenario(), "a"));
    }) << int(Kind::Pins);
    QTest::newRow("RemovePin") << CommandFactory([](Document* d) {
        return new app::RemovePin(d, 0);
    }) << int(Kind::Pins);
    QTest::newRow("RenamePin") << CommandFactory([](Document* d) {
        return new app::RenamePin(d, 0, "renamed");
    }) << int(Kind::Pins);
    QTest::newRow("SetScenario (restore pin)") << CommandFactory([](Document* d) {
        return new app::SetScenario(d, d->pins().front().scenario, QStringLiteral("Restore"));
    }) << int(Kind::Structure);
    QTest::newRow("MacroCommand (schedule and move)") << CommandFactory([](Document* d) {
        core::Scenario next = d->scenario();
        next.schedule.kind = core::ScheduleKind::OneFOneB;
        next.parallelism.virtualStages = 1;
        next.topology.datacenters.front().x += 100.0;
        return app::makeScenarioEdit(d, next, QStringLiteral("Edit")).release();
    }) << int(Kind::Structure);
    QTest::newRow("SetPipelineParallel") << CommandFactory([](Document* d) {
        return new app::SetPipelineParallel(d, d->scenario().parallelism.pp / 2);
    }) << int(Kind::Structure);
}

void TestExplorer::commandRoundTrip()
{
    QFETCH(CommandFactory, factory);
    QFETCH(int, kind);
    Document document;
    QVERIFY(document.load(kPreset).empty());
    document.insertPin(0, variantPin(document.scenario(), "pinned"));
    const Snapshot before = snapshot(document);
    QSignalSpy changed(&document, &Document::changed);
    QUndoStack* stack = document.undoStack();

    stack->push(factory(&document));
    QCOMPARE(stack->count(), 1);
    QCOMPARE(changed.count(), 1); // one signal per step, macros included
    const Snapshot after = snapshot(document);
    QVERIFY(!(after == before));
    const auto event = changed.takeFirst().at(0).value<ChangeEvent>();
    QCOMPARE(int(event.kind), kind);
    QVERIFY(document.isModified());

    stack->undo();
    QCOMPARE(changed.count(), 1);
    changed.clear();
    QVERIFY(snapshot(document) == before);
    QVERIFY(!document.isModified());

    stack->redo();
    QCOMPARE(changed.count(), 1);
    QVERIFY(snapshot(document) == after);
    QVERIFY(app::scenarioErrors(document.scenario()).empty() ||
            kind == int(ChangeEvent::Kind::Pins));
}

void TestExplorer::invalidEditIsRefused()
{
    Document document;
    QVERIFY(document.load(kPreset).empty());
    app::EditController edits(&document);
    QSignalSpy refused(&edits, &app::EditController::refused);
    core::Parallelism p = document.scenario().parallelism;
    p.tp = 3; // divides neither the heads nor the GPUs
    QVERIFY(!edits.setParallelism(p));
    QCOMPARE(refused.count(), 1);
    // In the user's words: what TP must be and what would be accepted.
    const QString reason = refused.first().at(0).toString();
    QVERIFY2(reason.contains(QStringLiteral("TP")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("1, 2, 4 or 8")), qPrintable(reason));
    QCOMPARE(document.undoStack()->count(), 0);
    // Removing every datacenter cannot leave a valid document.
    QList<core::Id> all;
    for (const core::Datacenter& dc : document.scenario().topology.datacenters)
        all << dc.id;
    QVERIFY(!edits.remove(all, {}, {}));
    QCOMPARE(document.undoStack()->count(), 0);
}

void TestExplorer::ppEditReachesPlotsAndStatusBar()
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    window.evaluator()->setDelay(0);
    QVERIFY(window.openFile(kPreset));
    window.resize(1600, 1000);
    window.show();
    QTRY_VERIFY_WITH_TIMEOUT(window.evaluator()->evaluation() && !window.evaluator()->isBusy(),
                             10000);
    const core::Scenario& s = window.document()->scenario();
    const QString before = window.statusIterationText();

    int pp = 0;
    for (int candidate : {8, 4, 32, 2})
        if (app::scenarioErrors(app::SetPipelineParallel::withPipelineParallel(s, candidate))
                .empty()) {
            pp = candidate;
            break;
        }
    QVERIFY2(pp != 0, "no valid PP to change to");

    views::PropertyEditor* editor = window.propertyEditor();
    editor->setSelection(views::PropertyEditor::Kind::Parallelism);
    views::IntField* field = editor->parallelismEditor()->intField(QStringLiteral("pp"));
    QVERIFY(field);
    QSignalSpy published(window.evaluator(), &app::Evaluator::evaluated);
    field->setValue(pp); // no keyboard tracking: one committed edit
    QCOMPARE(window.document()->scenario().parallelism.pp, pp);
    QCOMPARE(window.document()->undoStack()->count(), 1);

    QTRY_VERIFY_WITH_TIMEOUT(published.count() >= 1 && !window.evaluator()->isBusy(), 10000);
    const core::Evaluation& e = *window.evaluator()->evaluation();
    QVERIFY(e.ok);
    QCOMPARE(window.currentPoint().scenario.parallelism.pp, pp);
    QCOMPARE(window.currentPoint().evaluation.iterationTimeS, e.iterationTimeS);
    // The breakdown plot's bar for the current point stacks up to the new iteration time.
    const QList<double> totals = window.plotsPanel()->breakdownPlot()->stackTotals();
    QVERIFY(!totals.isEmpty());
    QVERIFY2(std::abs(totals.last() - e.iterationTimeS) <= 0.01 * e.iterationTimeS,
             qPrintable(QStringLiteral("%1 vs %2").arg(totals.last()).arg(e.iterationTimeS)));
    const QString expected =
        QStringLiteral("Iteration %1").arg(views::formatSeconds(e.iterationTimeS));
    QCOMPARE(window.statusIterationText(), expected);
    QVERIFY(window.statusIterationText() != before);

    // Undo brings the old figures back.
    window.document()->undoStack()->undo();
    QTRY_COMPARE_WITH_TIMEOUT(window.statusIterationText(), before, 10000);
}

void TestExplorer::randomEditsKeepDocumentValid()
{
    Document document;
    QVERIFY(document.load(kPreset).empty());
    app::EditController edits(&document);
    const Snapshot original = snapshot(document);
    QUndoStack* stack = document.undoStack();
    QRandomGenerator random(20240521);
    auto pick = [&random](const auto& list) {
        return list[static_cast<qsizetype>(random.bounded(static_cast<int>(list.size())))];
    };
    auto datacenterIds = [&document] {
        QList<core::Id> ids;
        for (const core::Datacenter& dc : document.scenario().topology.datacenters)
            ids << dc.id;
        return ids;
    };
    int applied = 0;
    std::array<int, 16> accepted{};
    for (int step = 0; step < 1000; ++step) {
        const core::Scenario& s = document.scenario();
        core::Parallelism p = s.parallelism;
        const QList<core::Id> dcs = datacenterIds();
        const int op = random.bounded(16);
        bool ok = true;
        switch (op) {
        case 0:
            p.tp = pick(QList<int>{1, 2, 4, 8, 16});
            ok = edits.setParallelism(p);
            break;
        case 1:
            ok = edits.setPipelineParallel(pick(QList<int>{1, 2, 4, 8, 16, 32}));
            break;
        case 2:
            p.microBatch = pick(QList<int>{1, 2, 4});
            ok = edits.setParallelism(p);
            break;
        case 3: {
            core::Schedule schedule = s.schedule;
            schedule.kind = static_cast<core::ScheduleKind>(random.bounded(5));
            ok = edits.setSchedule(schedule);
            break;
        }
        case 4:
            p.recompute = static_cast<core::Recompute>(random.bounded(3));
            ok = edits.setParallelism(p);
            break;
        case 5:
            edits.moveDatacenters({pick(dcs)}, {QPointF(random.bounded(1000), random.bounded(800))},
                                  step);
            break;
        case 6:
            ok = edits.addDatacenter(QPointF(random.bounded(1000), 400), pick(dcs));
            break;
        case 7:
            ok = edits.remove({pick(dcs)}, {}, {});
            break;
        case 8:
            ok = edits.connectDatacenters(pick(dcs), pick(dcs));
            break;
        case 9:
            if (!s.topology.links.empty())
                ok = edits.remove({}, {pick(s.topology.links).id}, {});
            break;
        case 10:
            ok = edits.addPod(pick(dcs));
            break;
        case 11:
            edits.pin(s);
            break;
        case 12:
            if (!document.pins().empty())
                edits.removePin(random.bounded(static_cast<int>(document.pins().size())));
            break;
        case 13:
            if (!document.pins().empty())
                ok = edits.restorePin(random.bounded(static_cast<int>(document.pins().size())));
            break;
        case 14:
            stack->undo();
            break;
        case 15:
            stack->redo();
            break;
        }
        applied += ok ? 1 : 0;
        accepted[op] += ok && op != 14 && op != 15 ? 1 : 0;
        const std::vector<core::Diagnostic> errors = app::scenarioErrors(document.scenario());
        QVERIFY2(errors.empty(),
                 qPrintable(QStringLiteral("step %1 (op %2): %3")
                                .arg(step)
                                .arg(op)
                                .arg(QString::fromStdString(
                                    errors.empty() ? "" : errors.front().toString()))));
    }
    QString counts;
    for (int n : accepted)
        counts += QString::number(n) + QLatin1Char(' ');
    qInfo("accepted per operation: %s; %lld steps on the stack", qPrintable(counts),
          static_cast<long long>(stack->count()));
    // Every kind of structural edit got through at least once (not only refusals).
    for (int op : {0, 1, 3, 6, 7, 8, 9, 13})
        QVERIFY2(accepted[static_cast<std::size_t>(op)] > 0, qPrintable(counts));
    QVERIFY(applied > 500);
    QVERIFY(stack->count() > 50);
    stack->setIndex(0);
    QVERIFY(snapshot(document) == original);
    QVERIFY(!document.isModified());
}

void TestExplorer::pinsAreSavedAndReloaded()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("pinned.json"));
    Document document;
    QVERIFY(document.load(kPreset).empty());
    app::EditController edits(&document);
    edits.pin(document.scenario()); // "Pin 1"
    QVERIFY(edits.setPipelineParallel(document.scenario().parallelism.pp / 2));
    edits.pin(document.scenario(), QStringLiteral("Half PP")); // named
    edits.renamePin(0, QStringLiteral("Baseline"));
    QCOMPARE(document.pins().size(), std::size_t{2});
    QCOMPARE(document.pins()[0].name, std::string("Baseline"));
    QVERIFY(document.pins()[0].color != document.pins()[1].color);
    QVERIFY(document.save(path));
    QVERIFY(!document.isModified());

    Document reloaded;
    QVERIFY(reloaded.load(path).empty());
    QVERIFY(reloaded.pins() == document.pins());
    QVERIFY(reloaded.scenario() == document.scenario());

    // A pin edit is a document change: modified, and undone like any other.
    edits.removePin(1);
    QVERIFY(document.isModified());
    document.undoStack()->undo();
    QVERIFY(!document.isModified());
    // Restoring a pin replaces the scenario, undoably.
    QVERIFY(edits.restorePin(0));
    QVERIFY(document.scenario() == document.pins()[0].scenario);
    document.undoStack()->undo();
    QVERIFY(document.scenario() == reloaded.scenario());
}

void TestExplorer::autosaveIsOfferedAfterCrash()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("work.json"));
    QVERIFY(QFile::copy(kPreset, path));
    QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
    {
        QFile file(path); // the file is older than any autosave
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                                 QFileDevice::FileModificationTime));
    }
    core::Scenario edited;
    const QString copy = app::Autosave::pathFor(path);
    {
        app::MainWindow crashed(std::make_unique<app::SilentPrompts>());
        QVERIFY(crashed.openFile(path));
        QVERIFY(crashed.edits()->setPipelineParallel(crashed.document()->scenario().parallelism.pp /
                                                     2));
        QVERIFY(crashed.autosave()->saveNow());
        edited = crashed.document()->scenario();
        // A live window's copy is its work in progress, not a crash's (autosave.h).
        QCOMPARE(crashed.autosave()->path(), copy);
        QVERIFY(app::Autosave::recoverablePath(path).isEmpty());
    } // destroyed without closing, as in a crash: the copy stays
    QCOMPARE(app::Autosave::recoverablePath(path), copy);
    auto prompts = std::make_unique<app::SilentPrompts>();
    prompts->recover = app::Prompts::RecoverChoice::Recover;
    app::SilentPrompts* silent = prompts.get();
    app::MainWindow window(std::move(prompts));
    QVERIFY(window.openFile(path));
    QCOMPARE(silent->recoverQuestions, 1);
    QVERIFY(window.document()->scenario() == edited);
    QCOMPARE(window.document()->fileName(), path);
    QVERIFY(window.document()->isModified());
}

QTEST_MAIN(TestExplorer)
#include "test_explorer.moc"
