// "Which dimension crosses each boundary", chosen per boundary: the placement it makes
// (core::pipelinesPerGroup and its readings), the choices the window lists, and the user's
// question "PP inside region A, DP across the long-haul link" answered in two clicks on the
// layout view and on the parallelism page.
#include "common/crossingchoices.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "editing/editcontroller.h"
#include "evaluation/runcost.h"
#include "io/scenarioio.h"
#include "layout/layoutview.h"
#include "model/placementpresets.h"
#include "propertyeditor/propertyeditor.h"
#include "propertyeditor/propertyeditorparallelism.h"
#include "window/mainwindow.h"
#include "window/noticebar.h"
#include "window/prompts.h"

#include <QAction>
#include <QComboBox>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace archipelago;

namespace {

const QString kTwoBuildings =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
const QString kThreeRegions =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/scale-across-100k-3-regions.json");

core::Scenario load(const QString& path)
{
    core::LoadResult result = core::loadScenarioFile(path.toStdString());
    return result.scenario ? *result.scenario : core::Scenario{};
}

// The datacenters each shard's stages run in, in stage order.
std::vector<std::vector<core::Id>> stagesOf(const core::Placement& placement)
{
    std::vector<std::vector<core::Id>> out;
    for (const core::PlacementShard& shard : placement.shards)
        out.push_back(shard.stageDatacenters);
    return out;
}

int indexOf(const std::vector<views::CrossingChoice>& choices, const QString& label)
{
    for (std::size_t i = 0; i < choices.size(); ++i)
        if (choices[i].label == label)
            return static_cast<int>(i);
    return -1;
}

} // namespace

class TestCrossing : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void groupsGeneraliseTheUniformPresets()
    {
        const core::Scenario s = load(kThreeRegions);
        QVERIFY(s.topology.datacenters.size() == 3);
        QCOMPARE(core::pipelinesPerGroup(s, {0, 0, 0}), core::ppAcrossDatacenters(s));
        QCOMPARE(core::pipelinesPerGroup(s, {0, 1, 2}), core::dpAcrossDatacenters(s));
        // Missing entries are groups of their own.
        QCOMPARE(core::pipelinesPerGroup(s, {}), core::dpAcrossDatacenters(s));
        QCOMPARE(core::groupsFromBoundaries(s, {core::ParallelDim::Pp, core::ParallelDim::Dp}),
                 (std::vector<int>{0, 0, 1}));
    }

    void mixedPlacementKeepsEachGroupsPipelines()
    {
        core::Scenario s = load(kThreeRegions);
        const core::Id a = s.topology.datacenters[0].id;
        const core::Id b = s.topology.datacenters[1].id;
        const core::Id c = s.topology.datacenters[2].id;
        // PP across a|b, DP across b|c: one pipeline over a and b, whole pipelines in c.
        s.placement = core::pipelinesPerGroup(s, {0, 0, 1});
        const std::vector<std::vector<core::Id>> stages = stagesOf(s.placement);
        QCOMPARE(stages.size(), std::size_t{2});
        const int pp = s.parallelism.pp;
        QCOMPARE(std::count(stages[0].begin(), stages[0].end(), a), pp / 2);
        QCOMPARE(std::count(stages[0].begin(), stages[0].end(), b), pp / 2);
        QCOMPARE(stages[1], std::vector<core::Id>(static_cast<std::size_t>(pp), c));
        // Every group fills its GPUs as far as whole replicas go.
        const std::int64_t perReplica = std::int64_t{s.parallelism.tp} * s.parallelism.cp * pp;
        const std::int64_t gpus = core::gpusInDatacenter(s.topology.datacenters[0]);
        QCOMPARE(std::int64_t{s.placement.shards[0].dpReplicas}, 2 * gpus / perReplica);
        QCOMPARE(std::int64_t{s.placement.shards[1].dpReplicas}, gpus / perReplica);
        const std::vector<std::optional<core::ParallelDim>> dims = core::boundaryDims(s);
        QCOMPARE(dims.size(), std::size_t{2});
        QVERIFY(dims[0] == core::ParallelDim::Pp);
        QVERIFY(dims[1] == core::ParallelDim::Dp);
        QCOMPARE(views::crossingChain(s), QStringLiteral("dc-a ─PP─ dc-b ─DP─ dc-c"));
    }

    void renumberingComparesPartitions()
    {
        // One partition, two labellings: equal once renumbered; no group (-1) stays so.
        QCOMPARE(core::renumberedGroups({5, 5, 2, -1, 2}), (std::vector<int>{0, 0, 1, -1, 1}));
        QCOMPARE(core::renumberedGroups({1, 1, 0}), core::renumberedGroups({7, 7, 3}));
        QVERIFY(core::renumberedGroups({0, 1, 1}) != core::renumberedGroups({0, 0, 1}));
    }

    void choicesListEveryMixOnce()
    {
        const core::Scenario s = load(kThreeRegions);
        const std::vector<views::CrossingChoice> choices = views::crossingChoices(s);
        // Three datacenters, two boundaries: 4 mixes; the uniform two and one region each (the
        // same as DP everywhere) are not listed twice.
        QCOMPARE(choices.size(), std::size_t{4});
        QVERIFY(indexOf(choices, QStringLiteral("dc-a ─PP─ dc-b ─DP─ dc-c")) >= 0);
        QVERIFY(indexOf(choices, QStringLiteral("dc-a ─DP─ dc-b ─PP─ dc-c")) >= 0);
        QVERIFY(indexOf(choices, QStringLiteral("PP inside each region, DP between regions")) < 0);
        QCOMPARE(views::currentCrossingChoice(s, choices),
                 indexOf(choices, QStringLiteral("DP crosses — one pipeline per datacenter")));
        // One datacenter: nothing to choose.
        core::Scenario one = s;
        one.topology.datacenters.resize(1);
        one.topology.links.clear();
        QVERIFY(views::crossingChoices(one).empty());
    }

    void keepingTheBatchCutsReplicas()
    {
        core::Scenario s = load(kThreeRegions);
        s.placement = core::dpAcrossDatacenters(s); // 256 replicas in each of 3 datacenters
        QCOMPARE(core::dataParallel(s), std::int64_t{768});
        QCOMPARE(core::largestDividingDataParallel(1024, 1, 768), std::int64_t{512});
        QCOMPARE(core::largestDividingDataParallel(1024, 2, 768), std::int64_t{512});
        QCOMPARE(core::largestDividingDataParallel(1020, 1, 255), std::int64_t{255});
        QCOMPARE(core::largestDividingDataParallel(1023, 2, 255), std::int64_t{0});
        s.placement = core::withDataParallelAtMost(s, 512);
        QCOMPARE(core::dataParallel(s), std::int64_t{512});
        QCOMPARE(s.placement.shards.size(), std::size_t{3});
        for (const core::PlacementShard& shard : s.placement.shards)
            QVERIFY(shard.dpReplicas == 171 || shard.dpReplicas == 170);
        // Fewer replicas than shards: the smallest shares are dropped.
        s.placement = core::withDataParallelAtMost(s, 2);
        QCOMPARE(s.placement.shards.size(), std::size_t{2});
        QCOMPARE(core::dataParallel(s), std::int64_t{2});
    }

    // The first-time user's refusal: three buildings of 8,192 GPUs, TP 8, PP 12, a global batch
    // of 1,024 sequences, and "DP crosses" chosen: 3 x 85 = 255 replicas do not divide 1,024.
    // The window offers the batch that divides and the batch kept with GPUs idle, and says what
    // it did over the views; a PP change that flips the layout says so too.
    void dpCrossesOffersTheBatchOrIdleGpus()
    {
        auto prompts = std::make_unique<app::SilentPrompts>();
        app::SilentPrompts* silent = prompts.get();
        app::MainWindow window(std::move(prompts));
        window.evaluator()->setDelay(0);
        QVERIFY(window.openPreset(kTwoBuildings));
        app::Document* doc = window.document();
        app::EditController* edits = window.edits();
        QVERIFY(edits->addRegion(QPointF(1400, 0), -1));
        QCOMPARE(core::totalGpus(doc->scenario().topology), std::int64_t{24576});

        // PP 12 does not fit the layout it had (DP across leaves 8,192 mod 96 GPUs idle in each
        // building): the placement is re-made the other way, and the window says so.
        core::Parallelism par = doc->scenario().parallelism;
        par.pp = 12;
        par.virtualStages = 1;
        QVERIFY(edits->setParallelism(par));
        QCOMPARE(window.noticeBar()->kind(), app::NoticeBar::Kind::Adjusted);
        QVERIFY2(window.noticeBar()->text().contains(QStringLiteral("placement re-made")),
                 qPrintable(window.noticeBar()->text()));
        core::Workload workload = doc->scenario().workload;
        workload.globalBatch = 1024;
        QVERIFY(edits->setWorkload(workload));
        QCOMPARE(core::dataParallel(doc->scenario()), std::int64_t{256});
        QVERIFY(window.noticeBar()->text().isEmpty()); // the next edit retired it

        QComboBox* combo = window.layoutView()->crossingCombo();
        const int dpItem =
            combo->findText(QStringLiteral("DP crosses — one pipeline per datacenter"));
        QVERIFY(dpItem >= 0);
        const core::Scenario ppAcross = doc->scenario();

        // Cancel: refused, and said over the views with the batch it would need.
        silent->batchAnswer = app::BatchAnswer::Cancel;
        const qsizetype asked = silent->batchOffers.size();
        emit combo->activated(dpItem);
        QCOMPARE(doc->scenario(), ppAcross);
        QCOMPARE(silent->batchOffers.size(), asked + 1);
        const app::BatchQuestion offer = silent->batchOffers.back();
        QCOMPARE(offer.batchAfter, std::int64_t{1020});
        QCOMPARE(offer.keepDataParallel, std::int64_t{128});
        QCOMPARE(offer.keepIdleGpus, std::int64_t{24576 - 128 * 96});
        // What the idle GPUs cost: their share of the cluster's hourly cost, and over the run.
        core::Scenario keptShape = ppAcross;
        keptShape.placement = core::withDataParallelAtMost(ppAcross, 128);
        const core::RunCost perHour =
            core::runCostPerHour(keptShape, core::effectiveCatalog(keptShape), 0.0, 0.0);
        QVERIFY(perHour.priced && perHour.usdPerGpuHour > 0.0);
        QVERIFY2(std::abs(offer.keepIdleUsdPerHour / (perHour.usdPerGpuHour * 12288.0) - 1.0) <
                     1e-3,
                 qPrintable(QString::number(offer.keepIdleUsdPerHour)));
        QVERIFY2(offer.keepIdleRunUsd > 24.0 * offer.keepIdleUsdPerHour,
                 qPrintable(QString::number(offer.keepIdleRunUsd))); // a run lasts days
        QCOMPARE(window.noticeBar()->kind(), app::NoticeBar::Kind::Refused);
        QVERIFY2(window.noticeBar()->text().contains(QStringLiteral("1,020")),
                 qPrintable(window.noticeBar()->text()));

        // Keep the batch: DP 128 over the three buildings, 12,288 GPUs idle, said so.
        silent->batchAnswer = app::BatchAnswer::KeepBatch;
        emit combo->activated(dpItem);
        const core::Scenario& kept = doc->scenario();
        QCOMPARE(kept.workload.globalBatch, 1024);
        QCOMPARE(core::dataParallel(kept), std::int64_t{128});
        QCOMPARE(kept.placement.shards.size(), std::size_t{3});
        QCOMPARE(window.noticeBar()->kind(), app::NoticeBar::Kind::Adjusted);
        QVERIFY2(
            window.noticeBar()->text().contains(QStringLiteral("12,288 of 24,576 GPUs idle, $")),
            qPrintable(window.noticeBar()->text()));
        QVERIFY2(window.noticeBar()->text().contains(QStringLiteral(" an hour")),
                 qPrintable(window.noticeBar()->text()));
        QCOMPARE(doc->undoStack()->undoText(),
                 QStringLiteral(
                     "Set Layout to building-a ─DP─ building-b ─DP─ dc-3, DP 128 (Batch Kept)"));
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario(), ppAcross);

        // The same answer for the rest of the session: asked once, then not; the Edit menu shows
        // the standing answer and takes it back.
        QAction* askEachTime = nullptr;
        QAction* keepAlways = nullptr;
        for (QAction* action : window.findChildren<QAction*>()) {
            if (action->text() == QStringLiteral("&Ask Each Time"))
                askEachTime = action;
            if (action->text() == QStringLiteral("&Keep the Batch, Leave GPUs Idle"))
                keepAlways = action;
        }
        QVERIFY(askEachTime && keepAlways);
        QVERIFY(askEachTime->isChecked() && !keepAlways->isChecked());
        silent->batchRemember = true;
        emit combo->activated(dpItem);
        QCOMPARE(core::dataParallel(doc->scenario()), std::int64_t{128});
        QVERIFY(keepAlways->isChecked() && !askEachTime->isChecked());
        doc->undoStack()->undo();
        silent->batchRemember = false;
        silent->batchAnswer = app::BatchAnswer::Cancel; // not asked: the standing answer holds
        const qsizetype askedBefore = silent->batchOffers.size();
        emit combo->activated(dpItem);
        QCOMPARE(silent->batchOffers.size(), askedBefore);
        QCOMPARE(core::dataParallel(doc->scenario()), std::int64_t{128});
        QVERIFY2(window.noticeBar()->text().contains(
                     QStringLiteral("as set in Edit > Global Batch When DP Changes")),
                 qPrintable(window.noticeBar()->text()));
        doc->undoStack()->undo();
        askEachTime->trigger(); // asked again, and the user cancels
        QVERIFY(!keepAlways->isChecked());
        emit combo->activated(dpItem);
        QCOMPARE(silent->batchOffers.size(), askedBefore + 1);
        QCOMPARE(doc->scenario(), ppAcross);

        // Change the batch: DP 255 and 1,020 sequences.
        silent->batchAnswer = app::BatchAnswer::ChangeBatch;
        emit combo->activated(dpItem);
        QCOMPARE(doc->scenario().workload.globalBatch, 1020);
        QCOMPARE(core::dataParallel(doc->scenario()), std::int64_t{255});
    }

    // The question of the first-time user: region A of two buildings, region B one building far
    // away; PP inside region A, DP across the long-haul link.
    void ppInsideTheRegionDpAcrossIt()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        window.evaluator()->setDelay(0);
        QVERIFY(window.openPreset(kTwoBuildings));
        app::Document* doc = window.document();
        QVERIFY(window.edits()->addRegion(QPointF(1400, 0), -1));
        const core::Topology& t = doc->scenario().topology;
        QCOMPARE(t.datacenters.size(), std::size_t{3});
        QCOMPARE(t.regions.size(), std::size_t{2});

        views::LayoutView* layout = window.layoutView();
        QComboBox* combo = layout->crossingCombo();
        const QString byRegion = QStringLiteral("PP inside each region, DP between regions");
        const int item = combo->findText(byRegion);
        QVERIFY2(item >= 0, qPrintable(combo->itemText(0)));
        combo->setCurrentIndex(item);
        emit combo->activated(item);

        const core::Scenario& s = doc->scenario();
        const std::vector<std::optional<core::ParallelDim>> dims = core::boundaryDims(s);
        QCOMPARE(dims.size(), std::size_t{2});
        QVERIFY(dims[0] == core::ParallelDim::Pp);
        QVERIFY(dims[1] == core::ParallelDim::Dp);
        QCOMPARE(combo->currentText(), byRegion);
        QVERIFY(core::dataParallelCrossesDatacenters(s));
        // The batch still divides (fitted, with the user's word, when DP changed).
        QCOMPARE(s.workload.globalBatch % (s.parallelism.microBatch * core::dataParallel(s)), 0);

        // The parallelism page reads the same, and sets a per-boundary chain back.
        views::PropertyEditor* editor = window.propertyEditor();
        editor->setSelection(views::ScenarioItem::Kind::Parallelism);
        auto* page = editor->parallelismEditor();
        views::ChoiceField* crossing = nullptr;
        for (views::ChoiceField* f : page->findChildren<views::ChoiceField*>())
            if (f->findText(byRegion) >= 0)
                crossing = f;
        QVERIFY(crossing);
        QCOMPARE(crossing->currentText(), byRegion);
        const QString chain = QStringLiteral("building-a ─DP─ building-b ─PP─ dc-3");
        const int chainItem = crossing->findText(chain);
        QVERIFY(chainItem >= 0);
        crossing->setCurrentIndex(chainItem);
        emit crossing->activated(chainItem);
        const std::vector<std::optional<core::ParallelDim>> after =
            core::boundaryDims(doc->scenario());
        QVERIFY(after[0] == core::ParallelDim::Dp);
        QVERIFY(after[1] == core::ParallelDim::Pp);
        QCOMPARE(combo->currentText(), chain);
    }
};

QTEST_MAIN(TestCrossing)
#include "test_crossing.moc"
