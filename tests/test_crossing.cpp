// "Which dimension crosses each boundary", chosen per boundary: the placement it makes
// (core::pipelinesPerGroup and its readings), the choices the window lists, and the user's
// question "PP inside region A, DP across the long-haul link" answered in two clicks on the
// layout view and on the parallelism page.
#include "common/crossingchoices.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "editing/editcontroller.h"
#include "io/scenarioio.h"
#include "layout/layoutview.h"
#include "model/placementpresets.h"
#include "propertyeditor/propertyeditor.h"
#include "propertyeditor/propertyeditorparallelism.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QComboBox>
#include <QStandardPaths>
#include <QTest>

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
