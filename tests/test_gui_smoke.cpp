// GUI smoke test: open a preset, edit through undo commands, undo, redo, save
// atomically, reload; every command round-trips redo -> undo -> redo and emits changed(); a
// malformed file leaves the document intact; the main window builds offscreen.
#include "commands/datacentercommands.h"
#include "commands/linkcommands.h"
#include "commands/movedatacenters.h"
#include "commands/valuecommands.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "document/presetlibrary.h"
#include "editing/setpipelineparallel.h"
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "plots/timelineview.h"
#include "tables/evaluationsummary.h"
#include "tables/scenariotree.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidgetItemIterator>
#include <QUndoStack>

#include <functional>

#include <map>
#include <qcustomplot.h>

using namespace archipelago;
using app::ChangeEvent;
using app::Document;

namespace {

const QString kPreset =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");

using CommandFactory = std::function<QUndoCommand*(Document*)>;

// One edit per command class, each changing the scenario of the default preset.
const std::map<QString, std::pair<CommandFactory, ChangeEvent::Kind>>& commandTable()
{
    using Kind = ChangeEvent::Kind;
    static const std::map<QString, std::pair<CommandFactory, Kind>> table{
        {"SetParallelism",
         {[](Document* d) {
              core::Parallelism p = d->scenario().parallelism;
              p.pp *= 2;
              return new app::SetParallelism(d, p);
          },
          Kind::Parallelism}},
        {"SetWorkload",
         {[](Document* d) {
              core::Workload w = d->scenario().workload;
              w.globalBatch *= 2;
              return new app::SetWorkload(d, w);
          },
          Kind::Workload}},
        {"SetSchedule",
         {[](Document* d) {
              core::Schedule s = d->scenario().schedule;
              s.kind = s.kind == core::ScheduleKind::GPipe ? core::ScheduleKind::OneFOneB
                                                           : core::ScheduleKind::GPipe;
              return new app::SetSchedule(d, s);
          },
          Kind::Schedule}},
        {"SetPlacement",
         {[](Document* d) {
              core::Placement p = d->scenario().placement;
              std::swap(p.rankOrder.front(), p.rankOrder.back());
              return new app::SetPlacement(d, p);
          },
          Kind::Placement}},
        {"SetDatacenter",
         {[](Document* d) {
              core::Datacenter dc = d->scenario().topology.datacenters.front();
              dc.accelerator = "B200";
              return new app::SetDatacenter(d, dc);
          },
          Kind::Hardware}},
        {"SetLink",
         {[](Document* d) {
              core::DciLink link = d->scenario().topology.links.front();
              link.distanceKm += 90.0;
              return new app::SetLink(d, link);
          },
          Kind::Hardware}},
        {"MoveDatacenters",
         {[](Document* d) {
              const core::Datacenter& dc = d->scenario().topology.datacenters.front();
              return new app::MoveDatacenters(d, {{dc.id, dc.x + 40, dc.y - 10}});
          },
          Kind::Look}},
        {"AddDatacenter",
         {[](Document* d) {
              core::Datacenter dc = d->scenario().topology.datacenters.front();
              dc.id = -1;
              dc.name = "dc-new";
              return new app::AddDatacenter(d, dc);
          },
          Kind::Structure}},
        {"RemoveDatacenter",
         {[](Document* d) {
              return new app::RemoveDatacenter(d, d->scenario().topology.datacenters.front().id);
          },
          Kind::Structure}},
        {"AddLink",
         {[](Document* d) {
              core::DciLink link = d->scenario().topology.links.front();
              link.id = -1;
              link.distanceKm = 80.0;
              return new app::AddLink(d, link);
          },
          Kind::Structure}},
        {"RemoveLink",
         {[](Document* d) {
              return new app::RemoveLink(d, d->scenario().topology.links.front().id);
          },
          Kind::Structure}},
    };
    return table;
}

ChangeEvent lastEvent(const QSignalSpy& spy)
{
    return spy.last().at(0).value<ChangeEvent>();
}

QStringList treeTexts(const views::ScenarioTree* tree)
{
    QStringList texts;
    for (QTreeWidgetItemIterator it(const_cast<views::ScenarioTree*>(tree)); *it; ++it)
        texts << (*it)->text(0) << (*it)->text(1);
    return texts;
}

} // namespace

class TestGuiSmoke : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void openEditUndoSaveReload();
    void commandRoundTrip_data();
    void commandRoundTrip();
    void noOpEditIsDropped();
    void dragMergesIntoOneStep();
    void removeDatacenterRestoresLinks();
    void malformedFileLeavesDocumentIntact();
    void mainWindowShowsScenario();
    void unsavedChangesPrompt();
    void evaluationIsPublished();
    void hiddenPlotReplotsWhenShown();
};

void TestGuiSmoke::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings (recent files) stay out of $HOME
    QCoreApplication::setOrganizationName(QStringLiteral("ArchipelagoTest"));
    QVERIFY2(QFile::exists(kPreset), qPrintable(kPreset));
    app::PresetLibrary::initResources();
    QVERIFY(QFile::exists(app::PresetLibrary::defaultScenarioPath()));
}

void TestGuiSmoke::openEditUndoSaveReload()
{
    auto prompts = std::make_unique<app::SilentPrompts>();
    app::SilentPrompts* silent = prompts.get();
    app::MainWindow window(std::move(prompts));
    QVERIFY(window.openFile(kPreset));
    Document* document = window.document();
    QCOMPARE(document->fileName(), kPreset);
    QVERIFY(!document->isModified());
    QVERIFY(!window.isWindowModified());
    QVERIFY(window.windowTitle().contains(QStringLiteral("llama3-405b-two-buildings.json[*]")));

    const core::Scenario original = document->scenario();
    QSignalSpy changed(document, &Document::changed);
    QSignalSpy modified(document, &Document::modifiedChanged);
    // PP 16 -> 8: the degree and the placement change together, as one undo step.
    const int pp = original.parallelism.pp / 2;
    document->undoStack()->push(new app::SetPipelineParallel(document, pp));

    QCOMPARE(document->undoStack()->count(), 1);
    QCOMPARE(document->scenario().parallelism.pp, pp);
    for (const core::PlacementShard& shard : document->scenario().placement.shards)
        QCOMPARE(shard.stageDatacenters.size(), std::size_t(pp));
    QVERIFY(document->isModified());
    QVERIFY(window.isWindowModified());
    QVERIFY(window.windowTitle().contains(QStringLiteral("[*]")));
    // Parallelism and placement change in one batch: one signal, merged to a structural change.
    QCOMPARE(changed.count(), 1);
    QCOMPARE(lastEvent(changed).kind, ChangeEvent::Kind::Structure);
    QVERIFY(lastEvent(changed).affectsCost());
    QCOMPARE(modified.count(), 1);
    const std::vector<core::Diagnostic> problems =
        core::checkScenario(document->scenario(), core::effectiveCatalog(document->scenario()));
    for (const core::Diagnostic& d : problems)
        QVERIFY2(d.severity != core::Diagnostic::Severity::Error, d.toString().c_str());

    document->undoStack()->undo();
    QVERIFY(document->scenario() == original);
    QVERIFY(!document->isModified());
    QVERIFY(!window.isWindowModified());
    QCOMPARE(changed.count(), 2); // one per step

    document->undoStack()->redo();
    QCOMPARE(document->scenario().parallelism.pp, pp);
    QVERIFY(window.isWindowModified());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("edited.json"));
    silent->saveAsPath = path;
    QVERIFY(window.saveAs());
    QVERIFY(!document->isModified());
    QVERIFY(!window.isWindowModified());
    QCOMPARE(document->fileName(), path);
    QVERIFY(window.windowTitle().startsWith(QStringLiteral("edited.json[*]")));

    Document reloaded;
    const std::vector<core::Diagnostic> errors = reloaded.load(path);
    QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().toString().c_str());
    QVERIFY(reloaded.scenario() == document->scenario());
    QCOMPARE(reloaded.scenario().parallelism.pp, pp);
}

void TestGuiSmoke::commandRoundTrip_data()
{
    QTest::addColumn<QString>("command");
    for (const auto& [name, entry] : commandTable())
        QTest::newRow(qPrintable(name)) << name;
}

void TestGuiSmoke::commandRoundTrip()
{
    QFETCH(QString, command);
    const auto& [factory, kind] = commandTable().at(command);
    Document document;
    QVERIFY(document.load(kPreset).empty());
    const core::Scenario before = document.scenario();
    QSignalSpy changed(&document, &Document::changed);

    document.undoStack()->push(factory(&document));
    QCOMPARE(document.undoStack()->count(), 1);
    const core::Scenario after = document.scenario();
    QVERIFY(!(after == before));
    const qsizetype perStep = changed.count(); // 1, or one per part of a compound edit
    QVERIFY(perStep >= 1);
    QCOMPARE(lastEvent(changed).kind, kind);
    QCOMPARE(lastEvent(changed).affectsCost(), kind != ChangeEvent::Kind::Look);
    QVERIFY(document.isModified());

    document.undoStack()->undo();
    QVERIFY(document.scenario() == before);
    QCOMPARE(changed.count(), 2 * perStep);
    QVERIFY(!document.isModified());

    document.undoStack()->redo();
    QVERIFY(document.scenario() == after);
    QCOMPARE(changed.count(), 3 * perStep);
    QCOMPARE(lastEvent(changed).kind, kind);
    QVERIFY(document.isModified());
}

void TestGuiSmoke::noOpEditIsDropped()
{
    Document document;
    QVERIFY(document.load(kPreset).empty());
    QSignalSpy changed(&document, &Document::changed);
    document.undoStack()->push(new app::SetParallelism(&document, document.scenario().parallelism));
    document.undoStack()->push(new app::RemoveLink(&document, 12345)); // no such link
    QCOMPARE(document.undoStack()->count(), 0);
    QCOMPARE(changed.count(), 0);
    QVERIFY(!document.isModified());
}

void TestGuiSmoke::dragMergesIntoOneStep()
{
    Document document;
    QVERIFY(document.load(kPreset).empty());
    const core::Datacenter start = document.scenario().topology.datacenters.front();
    QSignalSpy changed(&document, &Document::changed);
    for (int step = 1; step <= 5; ++step)
        document.undoStack()->push(
            new app::MoveDatacenters(&document, {{start.id, start.x + 10.0 * step, start.y}}));
    QCOMPARE(document.undoStack()->count(), 1);
    QCOMPARE(changed.count(), 5);
    QVERIFY(!lastEvent(changed).affectsCost());
    QCOMPARE(document.scenario().topology.datacenters.front().x, start.x + 50.0);
    document.undoStack()->undo();
    QCOMPARE(document.scenario().topology.datacenters.front().x, start.x);
    QCOMPARE(document.scenario().topology.datacenters.front().y, start.y);
}

void TestGuiSmoke::removeDatacenterRestoresLinks()
{
    Document document;
    QVERIFY(document.load(kPreset).empty());
    const core::Scenario before = document.scenario();
    const core::Id id = before.topology.datacenters.back().id;
    document.undoStack()->push(new app::RemoveDatacenter(&document, id));
    QVERIFY(!core::findDatacenter(document.scenario().topology, id));
    for (const core::DciLink& link : document.scenario().topology.links)
        QVERIFY(link.a != id && link.b != id);
    QCOMPARE(document.scenario().topology.datacenters.size(),
             before.topology.datacenters.size() - 1);
    document.undoStack()->undo();
    QVERIFY(document.scenario() == before);
}

void TestGuiSmoke::malformedFileLeavesDocumentIntact()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "archipelago-scenario", "version": 1, "topology": {"datacenters": [)");
    file.close();

    Document document;
    QVERIFY(document.load(kPreset).empty());
    document.undoStack()->push(new app::SetSchedule(&document, {core::ScheduleKind::GPipe, 1}));
    const core::Scenario before = document.scenario();
    QSignalSpy changed(&document, &Document::changed);

    std::vector<core::Diagnostic> errors = document.load(path);
    QVERIFY(!errors.empty());
    QCOMPARE(QString::fromStdString(errors.front().file), path);
    errors = document.load(dir.filePath(QStringLiteral("missing.json")));
    QVERIFY(!errors.empty());
    errors = document.load(dir.path());
    QVERIFY(!errors.empty());

    QVERIFY(document.scenario() == before);
    QCOMPARE(document.fileName(), kPreset);
    QVERIFY(document.isModified());
    QCOMPARE(document.undoStack()->count(), 1);
    QCOMPARE(changed.count(), 0);

    // The window reports the problems and keeps its document.
    auto prompts = std::make_unique<app::SilentPrompts>();
    app::SilentPrompts* silent = prompts.get();
    app::MainWindow window(std::move(prompts));
    QVERIFY(window.openFile(kPreset));
    QVERIFY(!window.openFile(path));
    QVERIFY(!silent->errors.isEmpty());
    QCOMPARE(window.document()->fileName(), kPreset);
}

void TestGuiSmoke::mainWindowShowsScenario()
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    QVERIFY(window.newDocument());
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.document()->isUntitled());
    // The built-in default is named by its scenario, not by its resource file.
    QVERIFY(window.windowTitle().startsWith(QStringLiteral("Default scenario: ")));

    const QStringList texts = treeTexts(window.scenarioTree());
    const core::Scenario& scenario = window.document()->scenario();
    QVERIFY(scenario.topology.datacenters.size() >= 2);
    for (const core::Datacenter& dc : scenario.topology.datacenters)
        QVERIFY2(texts.contains(QString::fromStdString(dc.name)), dc.name.c_str());

    // An edit reaches the tree: remove a datacenter, its name disappears; undo brings it back.
    const core::Id lastId = scenario.topology.datacenters.back().id;
    const QString name = QString::fromStdString(scenario.topology.datacenters.back().name);
    window.document()->undoStack()->push(new app::RemoveDatacenter(window.document(), lastId));
    QVERIFY(!treeTexts(window.scenarioTree()).contains(name));
    window.document()->undoStack()->undo();
    QVERIFY(treeTexts(window.scenarioTree()).contains(name));
}

void TestGuiSmoke::unsavedChangesPrompt()
{
    auto prompts = std::make_unique<app::SilentPrompts>();
    app::SilentPrompts* silent = prompts.get();
    app::MainWindow window(std::move(prompts));
    QVERIFY(window.openFile(kPreset));
    window.show();
    QVERIFY(window.close()); // unmodified: no question
    QCOMPARE(silent->saveQuestions, 0);

    window.show();
    Document* document = window.document();
    document->undoStack()->push(new app::SetSchedule(document, {core::ScheduleKind::GPipe, 2}));
    silent->saveChoice = app::Prompts::SaveChoice::Cancel;
    QVERIFY(!window.close());
    QVERIFY(!window.newDocument());
    QCOMPARE(silent->saveQuestions, 2);
    QVERIFY(document->isModified());
    QCOMPARE(document->fileName(), kPreset);

    silent->saveChoice = app::Prompts::SaveChoice::Discard;
    QVERIFY(window.newDocument());
    QVERIFY(document->isUntitled());
    QVERIFY(!document->isModified());
}

void TestGuiSmoke::evaluationIsPublished()
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    QSignalSpy published(window.evaluator(), &app::Evaluator::evaluated);
    QVERIFY(window.openFile(kPreset));
    // Three quick edits inside the debounce interval: one evaluation, of the last scenario.
    Document* document = window.document();
    for (core::ScheduleKind kind : {core::ScheduleKind::GPipe, core::ScheduleKind::OneFOneB,
                                    core::ScheduleKind::Interleaved1F1B})
        document->undoStack()->push(new app::SetSchedule(document, {kind, 0}));
    QVERIFY(published.wait(20'000));
    QTest::qWait(2 * window.evaluator()->delay());
    QCOMPARE(published.count(), 1);
    QVERIFY(!window.evaluator()->isBusy());
    QVERIFY(window.evaluator()->evaluation() != nullptr);
    QVERIFY(window.evaluationSummary()->figure(QStringLiteral("GPUs")) != QStringLiteral("—"));
}

void TestGuiSmoke::hiddenPlotReplotsWhenShown()
{
    // The pipeline timeline sits behind the topology tab: an edit does not redraw it (a redraw
    // nobody sees costs as much as a visible one), showing the tab does.
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    QVERIFY(window.openFile(kPreset));
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy published(window.evaluator(), &app::Evaluator::evaluated);
    QVERIFY(published.wait(20'000));
    QTabWidget* tabs = window.centralTabs();
    QVERIFY(tabs->currentIndex() != tabs->indexOf(window.timelineView()));
    QSignalSpy replots(window.timelineView()->customPlot(), &QCustomPlot::afterReplot);
    Document* document = window.document();
    document->undoStack()->push(new app::SetSchedule(document, {core::ScheduleKind::GPipe, 0}));
    QVERIFY(published.wait(20'000));
    QTest::qWait(50);
    QCOMPARE(replots.count(), 0);
    tabs->setCurrentWidget(window.timelineView());
    QTRY_VERIFY(replots.count() > 0);
}

QTEST_MAIN(TestGuiSmoke)
#include "test_gui_smoke.moc"
