// Build preset (c) (llama3-405b-two-buildings.json) from an empty document
// through the same intents the canvas and the property editor emit, then pin two variants (PP
// boundary across the buildings vs the pipeline inside one building) and read the difference in
// the plots and the comparison table. Also: the empty document is valid, and an edit that
// changes DP moves the global batch to a valid multiple instead of being refused.
#include "document/document.h"
#include "document/evaluator.h"
#include "document/pinevaluations.h"
#include "document/presetlibrary.h"
#include "editing/editcontroller.h"
#include "editing/editvalidation.h"
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "model/placementpresets.h"
#include "model/scenariotemplates.h"
#include "plots/plotbreakdown.h"
#include "plots/plotbubble.h"
#include "plots/plotnetworkcost.h"
#include "plots/plotspanel.h"
#include "propertyeditor/propertyeditor.h"
#include "tables/comparisontable.h"
#include "topology/topologycanvas.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace archipelago;

namespace {

const std::string kPresetC = ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json";

core::Scenario loadPresetC()
{
    core::LoadResult result = core::loadScenarioFile(kPresetC);
    return result.scenario ? *result.scenario : core::Scenario{};
}

// The scenario without what does not affect cost: names, descriptions, canvas positions, ids
// of links (nothing refers to them).
core::Scenario costRelevant(core::Scenario s)
{
    s.name.clear();
    s.description.clear();
    s.workload.name.clear();
    for (core::Region& r : s.topology.regions)
        r.name.clear();
    for (core::Datacenter& dc : s.topology.datacenters) {
        dc.name.clear();
        dc.x = dc.y = 0.0;
        for (core::Pod& pod : dc.pods)
            pod.name.clear();
    }
    for (core::DciLink& link : s.topology.links)
        link.id = 0;
    return s;
}

QString firstError(const core::Scenario& s)
{
    const std::vector<core::Diagnostic> errors = app::scenarioErrors(s);
    return errors.empty() ? QString() : QString::fromStdString(errors.front().toString());
}

} // namespace

class TestBuildFromEmpty : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void minimalScenarioIsValid();
    void dpChangeFitsGlobalBatch();
    void explicitInvalidBatchIsRefused();
    void buildPresetCFromEmpty();
};

void TestBuildFromEmpty::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ArchipelagoTest"));
    QCoreApplication::setApplicationName(QStringLiteral("test_buildfromempty"));
    app::PresetLibrary::initResources();
    QVERIFY(loadPresetC().topology.datacenters.size() == 2);
}

void TestBuildFromEmpty::minimalScenarioIsValid()
{
    const core::Scenario s = core::minimalScenario();
    const std::vector<core::Diagnostic> all = core::checkScenario(s, core::effectiveCatalog(s));
    for (const core::Diagnostic& d : all)
        QVERIFY2(d.severity != core::Diagnostic::Severity::Error, d.toString().c_str());
    QCOMPARE(core::totalGpus(s.topology), std::int64_t{8});
    QCOMPARE(s.topology.datacenters.front().name, std::string("dc-1"));
    QVERIFY(core::evaluate(s).ok);
}

void TestBuildFromEmpty::dpChangeFitsGlobalBatch()
{
    app::Document document;
    document.reset(core::minimalScenario());
    app::EditController edits(&document);
    QSignalSpy adjusted(&edits, &app::EditController::adjusted);
    QSignalSpy refused(&edits, &app::EditController::refused);
    QVERIFY(edits.addPod(0)); // 8 -> 16 GPUs: DP 16 no longer divides global batch 8
    QCOMPARE(refused.count(), 0);
    QCOMPARE(document.scenario().workload.globalBatch, 16);
    QCOMPARE(core::dataParallel(document.scenario()), std::int64_t{16});
    QCOMPARE(adjusted.count(), 1);
    const QString message = adjusted.first().at(0).toString();
    QVERIFY2(message.contains(QStringLiteral("global batch 8 → 16")), qPrintable(message));
    QVERIFY(app::scenarioErrors(document.scenario()).empty());
    QCOMPARE(document.undoStack()->count(), 1); // one step, undone as one
    document.undoStack()->undo();
    QVERIFY(document.scenario() == core::minimalScenario());
}

void TestBuildFromEmpty::explicitInvalidBatchIsRefused()
{
    app::Document document;
    document.reset(core::minimalScenario());
    app::EditController edits(&document);
    QSignalSpy refused(&edits, &app::EditController::refused);
    core::Workload w = document.scenario().workload;
    w.globalBatch = 12; // the user's own value: not second-guessed
    QVERIFY(!edits.setWorkload(w));
    QCOMPARE(refused.count(), 1);
    // In the user's words: the field and the rule, not the JSON pointer.
    const QString reason = refused.first().at(0).toString();
    QVERIFY2(reason.contains(QStringLiteral("global batch"), Qt::CaseInsensitive),
             qPrintable(reason));
    QVERIFY2(!reason.contains(QStringLiteral("/workload")), qPrintable(reason));
    QVERIFY2(!reason.contains(QStringLiteral("global_batch")), qPrintable(reason));
    QCOMPARE(document.undoStack()->count(), 0);
}

void TestBuildFromEmpty::buildPresetCFromEmpty()
{
    const core::Scenario preset = loadPresetC();
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    window.evaluator()->setDelay(0);
    window.resize(1600, 1000);
    window.show();
    QVERIFY(window.newEmptyDocument());
    app::Document* doc = window.document();
    QVERIFY(doc->scenario() == core::minimalScenario());
    QSignalSpy refused(window.edits(), &app::EditController::refused);
    QSignalSpy adjusted(window.edits(), &app::EditController::adjusted);
    views::TopologyCanvas* canvas = window.topologyCanvas();
    views::PropertyEditor* editor = window.propertyEditor();
    // What the property editor sends when an edit is accepted: the scenario as the edit makes
    // it, the values it set, and whether the placement may be re-made.
    auto propose = [&](const core::Scenario& candidate, std::vector<std::string> fields,
                       bool repairPlacement) {
        emit editor->edited({candidate, std::move(fields), repairPlacement});
    };
    auto check = [&](const char* step) {
        QVERIFY2(refused.isEmpty(),
                 qPrintable(QStringLiteral("%1: %2").arg(
                     QLatin1String(step),
                     refused.isEmpty() ? QString() : refused.first().at(0).toString())));
        QVERIFY2(
            app::scenarioErrors(doc->scenario()).empty(),
            qPrintable(QLatin1String(step) + QStringLiteral(": ") + firstError(doc->scenario())));
    };

    // Building A: a second pod, then the pods, accelerator and fabric of the preset.
    emit canvas->addPodRequested(0);
    check("add pod");
    QCOMPARE(doc->scenario().topology.datacenters.front().pods.size(), std::size_t{2});
    {
        core::Datacenter a = doc->scenario().topology.datacenters.front();
        const core::Datacenter& want = preset.topology.datacenters[0];
        a.name = want.name;
        a.accelerator = want.accelerator;
        a.fabric = want.fabric;
        a.pods = want.pods;
        // The view sends the placement it had; the controller re-makes it for the new GPUs.
        core::Scenario next = doc->scenario();
        next.topology.datacenters.front() = a;
        propose(next, {"/topology/datacenters/0"}, true);
    }
    check("building A");
    QCOMPARE(core::totalGpus(doc->scenario().topology), std::int64_t{8192});
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("global batch")),
             qPrintable(window.statusBar()->currentMessage()));

    // Building B: a copy of A (the canvas adds one at a drop point), connected by a DCI link.
    emit canvas->addDatacenterRequested(QPointF(320, 0));
    check("add datacenter");
    QCOMPARE(doc->scenario().topology.datacenters.size(), std::size_t{2});
    QCOMPARE(core::totalGpus(doc->scenario().topology), std::int64_t{16384});
    // Adding from a template links it to the template (the graph must stay connected); draw
    // the link by hand, then drop the automatic one.
    QCOMPARE(doc->scenario().topology.links.size(), std::size_t{1});
    const core::Id autoLink = doc->scenario().topology.links.front().id;
    emit canvas->connectRequested(0, 1);
    check("connect");
    QCOMPARE(doc->scenario().topology.links.size(), std::size_t{2});
    emit canvas->removeRequested({}, {autoLink}, {});
    check("remove template link");
    QCOMPARE(doc->scenario().topology.links.size(), std::size_t{1});
    {
        core::DciLink link = preset.topology.links.front();
        link.id = doc->scenario().topology.links.front().id;
        core::Scenario next = doc->scenario();
        next.topology.links.front() = link;
        propose(next, {"/topology/dci_links/0"}, false);
    }
    check("link");
    {
        core::Datacenter b = doc->scenario().topology.datacenters[1];
        b.name = preset.topology.datacenters[1].name;
        core::Scenario next = doc->scenario();
        next.topology.datacenters[1] = b;
        propose(next, {"/topology/datacenters/1/name"}, true);
    }
    check("rename B");

    // The 405B shape (keeping the batch), the parallelism, then the preset's batch.
    {
        core::Workload w = preset.workload;
        w.globalBatch = doc->scenario().workload.globalBatch;
        core::Scenario next = doc->scenario();
        next.workload = w;
        propose(next, {"/workload"}, true);
    }
    check("workload shape");
    {
        core::Scenario next = doc->scenario();
        next.parallelism = preset.parallelism;
        next.placement.layersPerStage = preset.placement.layersPerStage;
        next.placement = core::ppAcrossDatacenters(next);
        propose(next, {"/parallelism"}, true);
    }
    check("parallelism");
    QCOMPARE(core::dataParallel(doc->scenario()), std::int64_t{128});
    {
        core::Scenario next = doc->scenario();
        next.workload = preset.workload;
        propose(next, {"/workload/global_batch"}, true);
    }
    check("global batch");
    {
        core::Scenario next = doc->scenario();
        next.placement = preset.placement;
        propose(next, {"/placement"}, false);
    }
    check("placement");
    {
        core::Scenario next = doc->scenario();
        next.schedule = preset.schedule;
        propose(next, {"/schedule"}, false);
    }
    check("schedule");
    QVERIFY(adjusted.count() >= 1);

    // Everything that costs is the preset's.
    const core::Scenario built = costRelevant(doc->scenario());
    const core::Scenario want = costRelevant(preset);
    QVERIFY(built.topology == want.topology);
    QVERIFY(built.workload == want.workload);
    QVERIFY(built.parallelism == want.parallelism);
    QVERIFY(built.placement == want.placement);
    QVERIFY(built.schedule == want.schedule);
    QVERIFY(built.catalogOverrides == want.catalogOverrides);
    const core::Evaluation expected = core::evaluate(preset);
    QVERIFY(expected.ok);
    const core::Evaluation got = core::evaluate(doc->scenario());
    QVERIFY(got.ok);
    QVERIFY(std::abs(got.iterationTimeS - expected.iterationTimeS) <=
            1e-9 * expected.iterationTimeS);
    QTRY_VERIFY_WITH_TIMEOUT(window.evaluator()->evaluation() && !window.evaluator()->isBusy() &&
                                 window.currentPoint().scenario == doc->scenario(),
                             20000);
    QVERIFY(std::abs(window.currentPoint().evaluation.iterationTimeS - expected.iterationTimeS) <=
            1e-9 * expected.iterationTimeS);

    // Pin the PP-across-buildings point, then keep each pipeline inside one building.
    window.pinCurrent();
    const core::Placement inside = core::dpAcrossDatacenters(doc->scenario());
    for (const core::PlacementShard& shard : inside.shards)
        for (core::Id dc : shard.stageDatacenters)
            QCOMPARE(dc, shard.stageDatacenters.front());
    {
        core::Scenario next = doc->scenario();
        next.placement = inside;
        propose(next, {"/placement"}, false);
    }
    check("PP inside one building");
    QCOMPARE(core::dataParallel(doc->scenario()), std::int64_t{128});
    window.pinCurrent();
    QCOMPARE(doc->pins().size(), std::size_t{2});

    QTRY_VERIFY_WITH_TIMEOUT(window.pinnedPoints().size() == 2 && !window.evaluator()->isBusy() &&
                                 window.currentPoint().scenario == doc->scenario(),
                             30000);
    const QList<views::EvaluatedDesign>& pins = window.pinnedPoints();
    const double across = pins[0].evaluation.iterationTimeS;
    const double within = pins[1].evaluation.iterationTimeS;
    QVERIFY(std::abs(across - expected.iterationTimeS) <= 1e-9 * expected.iterationTimeS);
    QVERIFY2(std::abs(across - within) > 1e-6 * across,
             qPrintable(QStringLiteral("%1 vs %2").arg(across).arg(within)));

    // The three plots: a bar (or point) per pin and one for the current design point.
    views::PlotsPanel* plots = window.plotsPanel();
    QTRY_COMPARE_WITH_TIMEOUT(plots->breakdownPlot()->stackTotals().size(), 3, 10000);
    const QList<double> totals = plots->breakdownPlot()->stackTotals();
    QVERIFY(std::abs(totals[0] - totals[1]) > 1e-6 * totals[0]);
    QCOMPARE(plots->bubblePlot()->bubblePercents().size(), 3);
    QCOMPARE(plots->networkCostPlot()->stackTotals().size(), 3);
    // Same buildings and link: the network bill is the same; the time is not.
    const QList<double> network = plots->networkCostPlot()->stackTotals();
    QVERIFY(network[0] > 0.0);

    // The comparison table: a column per pin (and the current point), differences highlighted.
    views::ComparisonTable* table = window.comparisonTable();
    QVERIFY(table->columnCount() >= 2);
    int iterationRow = -1;
    for (int row = 0; row < table->rowCount(); ++row)
        if (table->verticalHeaderItem(row) &&
            table->verticalHeaderItem(row)->text().startsWith(QStringLiteral("Iteration time")))
            iterationRow = row;
    QVERIFY2(iterationRow >= 0, qPrintable(table->toTsv()));
    // The current design point (last) is the baseline: the other pin's time differs from it.
    QCOMPARE(table->baseline(), table->pointCount() - 1);
    QVERIFY2(table->isHighlighted(iterationRow, 0), qPrintable(table->toTsv()));
    QVERIFY(table->item(iterationRow, 0)->text() != table->item(iterationRow, 1)->text());
}

QTEST_MAIN(TestBuildFromEmpty)
#include "test_buildfromempty.moc"
