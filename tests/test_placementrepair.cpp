// core::repairPlacement, the one placement repair of the property editor and the edit
// controller: which fallback wins for each placement shape, what it makes, and what it says
// when a TP split has to go. Every scenario starts from the two-buildings preset, reduced to a
// 128-layer, pp 4, 1F1B job so that the stage counts stay readable.
#include "evaluation/costmodel.h"
#include "io/placementrepair.h"
#include "io/scenarioio.h"

#include <QtTest>

#include <string>
#include <vector>

using namespace archipelago;

using Shards = std::vector<core::PlacementShard>;
Q_DECLARE_METATYPE(core::Scenario)
Q_DECLARE_METATYPE(Shards)

namespace {

using core::PlacementFallback;

core::Scenario preset()
{
    const core::LoadResult r =
        core::loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    if (!r.ok())
        qFatal("cannot load the two-buildings preset");
    return *r.scenario;
}

// Datacenter i holds gpus[i] GPUs (8-GPU domains in one pod); the job is tp x 1 x pp over
// `shards`. The global batch of 12,288 divides by every DP below, so only the rows that mean
// to see the batch follow DP see it.
core::Scenario scenario(const std::vector<int>& gpus, int tp, int pp, const Shards& shards)
{
    core::Scenario s = preset();
    s.workload.layers = 128;
    s.workload.globalBatch = 12'288;
    s.parallelism.tp = tp;
    s.parallelism.pp = pp;
    s.parallelism.virtualStages = 1;
    s.schedule.kind = core::ScheduleKind::OneFOneB;
    s.placement.layersPerStage.clear();
    s.placement.shards = shards;
    const core::Datacenter templateDc = s.topology.datacenters.back();
    const core::DciLink templateLink = s.topology.links.front();
    s.topology.datacenters.clear();
    s.topology.links.clear();
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        core::Datacenter dc = templateDc;
        dc.id = static_cast<core::Id>(i);
        dc.name = std::string("building-") + static_cast<char>('a' + i);
        dc.pods = {{static_cast<core::Id>(100 * i), "pod", 1, gpus[i] / 8, 8}};
        s.topology.datacenters.push_back(dc);
        if (i > 0) {
            core::DciLink link = templateLink;
            link.id = static_cast<core::Id>(i - 1);
            link.a = static_cast<core::Id>(i - 1);
            link.b = static_cast<core::Id>(i);
            s.topology.links.push_back(link);
        }
    }
    return s;
}

core::Scenario withGpus(core::Scenario s, std::size_t dc, int gpus)
{
    s.topology.datacenters[dc].pods.front().domainsPerPod = gpus / 8;
    return s;
}

core::Scenario withDegrees(core::Scenario s, int tp, int pp)
{
    s.parallelism.tp = tp;
    s.parallelism.pp = pp;
    return s;
}

std::string firstError(const core::Scenario& s)
{
    for (const core::Diagnostic& d : core::checkScenario(s, core::effectiveCatalog(s)))
        if (d.severity == core::Diagnostic::Severity::Error)
            return d.pointer + ": " + d.message;
    return {};
}

QString describe(const Shards& shards)
{
    QStringList out;
    for (const core::PlacementShard& shard : shards) {
        QStringList stages, split;
        for (core::Id id : shard.stageDatacenters)
            stages << QString::number(id);
        for (core::Id id : shard.splitDatacenters)
            split << QString::number(id);
        out << QStringLiteral("%1x[%2]%3")
                   .arg(shard.dpReplicas)
                   .arg(stages.join(QLatin1Char(',')))
                   .arg(split.isEmpty() ? QString()
                                        : QStringLiteral(" split[%1]").arg(split.join(',')));
    }
    return out.join(QStringLiteral("; "));
}

const core::PlacementShard ppAcross{512, {0, 0, 1, 1}};
const core::PlacementShard ppAcrossSplit{512, {0, 0, 1, 1}, {0, 1}, core::ParallelDim::Tp};

} // namespace

class TestPlacementRepair : public QObject
{
    Q_OBJECT
private slots:
    void fixturesAreValid();
    void repair_data();
    void repair();
};

void TestPlacementRepair::fixturesAreValid()
{
    // The "before" scenarios of the table, as a file would hold them.
    for (const core::Scenario& s :
         {scenario({8192, 8192}, 8, 4, {ppAcross}), scenario({8192, 8192}, 8, 4, {ppAcrossSplit}),
          scenario({12288, 4096}, 8, 4, {{256, {0, 0, 0, 0}}, {256, {0, 0, 1, 1}}}),
          scenario({8192, 4096}, 8, 4, {{256, {0, 0, 0, 0}}, {128, {1, 1, 1, 1}}})})
        QVERIFY2(firstError(s).empty(), firstError(s).c_str());
}

void TestPlacementRepair::repair_data()
{
    QTest::addColumn<core::Scenario>("before");
    QTest::addColumn<core::Scenario>("edited");
    QTest::addColumn<bool>("keepPlacement"); // PlacementRepairMode::KeepPlacement
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("fallback");
    QTest::addColumn<Shards>("shards");
    QTest::addColumn<int>("globalBatch");
    QTest::addColumn<QString>("note"); // expected in the notes (or the error); "" = none

    const auto row = [](const char* name, const core::Scenario& before,
                        const core::Scenario& edited, PlacementFallback fallback,
                        const Shards& shards, const QString& note = {}, int batch = 12'288) {
        QTest::newRow(name) << before << edited << false << true << int(fallback) << shards << batch
                            << note;
    };

    // One shard whose pipeline spans the two buildings.
    const core::Scenario pp2 = scenario({8192, 8192}, 8, 4, {ppAcross});
    row("pp-across: pp 4 -> 8 rescales the stages", pp2, withDegrees(pp2, 8, 8),
        PlacementFallback::Rescaled, {{256, {0, 0, 0, 0, 1, 1, 1, 1}}});
    row("pp-across: tp 8 -> 4 doubles the replicas", pp2, withDegrees(pp2, 4, 4),
        PlacementFallback::Rescaled, {{1024, {0, 0, 1, 1}}});
    // Only building-b grows: no common ratio, so the PP preset re-apportions the stages.
    row("pp-across: building-b x3, same-shape preset", pp2, withGpus(pp2, 1, 24576),
        PlacementFallback::SameShape, {{1024, {0, 1, 1, 1}}});
    // 3:1 buildings at pp 2: a stage each is 1:1, so neither the rescale nor the PP preset
    // fits; data parallel across them does, and the notes say the layout changed.
    const core::Scenario uneven = scenario({12288, 4096}, 8, 4, {{512, {0, 0, 0, 1}}});
    row("pp-across: 3:1 buildings, pp 2, the other shape", uneven, withDegrees(uneven, 8, 2),
        PlacementFallback::OtherShape, {{768, {0, 0}}, {256, {1, 1}}},
        QStringLiteral("placement re-made with data parallelism across datacenters"));

    // A shard per building, every stage at home.
    const core::Scenario dp2 =
        scenario({8192, 4096}, 8, 4, {{256, {0, 0, 0, 0}}, {128, {1, 1, 1, 1}}});
    row("dp-across: tp 8 -> 4 rescales each shard", dp2, withDegrees(dp2, 4, 4),
        PlacementFallback::Rescaled, {{512, {0, 0, 0, 0}}, {256, {1, 1, 1, 1}}});
    row("dp-across: building-b x2 rescales its shard only", dp2, withGpus(dp2, 1, 8192),
        PlacementFallback::Rescaled, {{256, {0, 0, 0, 0}}, {256, {1, 1, 1, 1}}});
    {
        core::Scenario three = scenario({8192, 4096, 4096}, 8, 4, {});
        three.placement = dp2.placement;
        row("dp-across: a third building, same-shape preset", dp2, three,
            PlacementFallback::SameShape,
            {{256, {0, 0, 0, 0}}, {128, {1, 1, 1, 1}}, {128, {2, 2, 2, 2}}});
    }

    // Hand-made: one shard at home in building-a, one split 2:2 over both; the presets would
    // make a single shard.
    const core::Scenario mixed =
        scenario({12288, 4096}, 8, 4, {{256, {0, 0, 0, 0}}, {256, {0, 0, 1, 1}}});
    row("multi-shard, uneven buildings: pp 4 -> 8 keeps both shards", mixed,
        withDegrees(mixed, 8, 8), PlacementFallback::Rescaled,
        {{128, {0, 0, 0, 0, 0, 0, 0, 0}}, {128, {0, 0, 0, 0, 1, 1, 1, 1}}});
    row("multi-shard, uneven buildings: tp 8 -> 2", mixed, withDegrees(mixed, 2, 4),
        PlacementFallback::Rescaled, {{1024, {0, 0, 0, 0}}, {1024, {0, 0, 1, 1}}});

    // A TP split over both buildings: kept while 2 divides TP, dropped (and said) otherwise.
    const core::Scenario split = scenario({8192, 8192}, 8, 4, {ppAcrossSplit});
    row("split kept: tp 8 -> 4", split, withDegrees(split, 4, 4), PlacementFallback::Rescaled,
        {{1024, {0, 0, 1, 1}, {0, 1}, core::ParallelDim::Tp}});
    row("split kept: pp 4 -> 8", split, withDegrees(split, 8, 8), PlacementFallback::Rescaled,
        {{256, {0, 0, 0, 0, 1, 1, 1, 1}, {0, 1}, core::ParallelDim::Tp}});
    row("split dropped: tp 8 -> 1", split, withDegrees(split, 1, 4), PlacementFallback::Rescaled,
        {{4096, {0, 0, 1, 1}}},
        "TP split across building-a, building-b dropped: tp = 1 is not divisible");
    row("split dropped by the preset: building-b x3", split, withGpus(split, 1, 24576),
        PlacementFallback::SameShape, {{1024, {0, 1, 1, 1}}},
        "TP split across building-a, building-b dropped: the placement was re-made with "
        "pipeline stages across datacenters");

    // An edit that adds up as it is stays as it is.
    {
        core::Scenario swapped = pp2;
        swapped.parallelism.tp = 4;
        swapped.parallelism.cp = 2;
        row("kept: tp 8 -> 4 with cp 1 -> 2", pp2, swapped, PlacementFallback::Kept, {ppAcross});
    }
    // 8,320 GPUs in building-b: its shard rescales to 260 replicas, DP 516 no longer divides
    // 12,288 sequences, and the batch follows DP to the nearest multiple.
    row("batch follows DP", dp2, withGpus(dp2, 1, 8320), PlacementFallback::Rescaled,
        {{256, {0, 0, 0, 0}}, {260, {1, 1, 1, 1}}}, "global batch 12288 → 12384", 12'384);

    // The edit set the placement itself (the layout view's PP preset): applied as it is, and
    // the lost split is said.
    core::Scenario presetChosen = split;
    presetChosen.placement.shards = {ppAcross};
    QTest::newRow("keep placement: a preset without the split")
        << split << presetChosen << true << true << int(PlacementFallback::Kept) << Shards{ppAcross}
        << 12'288
        << "TP split across building-a, building-b dropped: the new placement does not split it";

    // Nothing valid: TP 3 divides neither the heads nor the GPUs.
    QTest::newRow("impossible: tp 3")
        << pp2 << withDegrees(pp2, 3, 4) << false << false << 0 << Shards{} << 0 << "tp";
    // The edit set the placement itself: it is checked, not re-made.
    {
        // More GPUs than the buildings hold (fewer would be legal: spare GPUs, a warning).
        core::Scenario wrong = pp2;
        wrong.placement.shards = {{100'000, {0, 0, 1, 1}}};
        QTest::newRow("keep placement: a wrong placement is refused")
            << pp2 << wrong << true << false << 0 << Shards{} << 0 << "GPUs";
    }
}

void TestPlacementRepair::repair()
{
    QFETCH(core::Scenario, before);
    QFETCH(core::Scenario, edited);
    QFETCH(bool, keepPlacement);
    QFETCH(bool, valid);
    QFETCH(int, fallback);
    QFETCH(Shards, shards);
    QFETCH(int, globalBatch);
    QFETCH(QString, note);
    QVERIFY2(firstError(before).empty(), firstError(before).c_str());

    const core::PlacementRepair r =
        core::repairPlacement(edited, before, core::effectiveCatalog(edited),
                              keepPlacement ? core::PlacementRepairMode::KeepPlacement
                                            : core::PlacementRepairMode::Repair);
    QCOMPARE(r.scenario.has_value(), valid);
    if (!valid) {
        QVERIFY(!r.errors.empty());
        QVERIFY2(QString::fromStdString(r.errors.front().message).contains(note) ||
                     QString::fromStdString(r.errors.front().pointer).contains(note),
                 r.errors.front().message.c_str());
        return;
    }
    const core::Scenario& got = *r.scenario;
    QVERIFY2(firstError(got).empty(), firstError(got).c_str());
    QCOMPARE(int(r.fallback), fallback);
    QVERIFY2(got.placement.shards == shards, qPrintable(describe(got.placement.shards)));
    QCOMPARE(got.workload.globalBatch, globalBatch);
    QCOMPARE(r.globalBatchFitted, globalBatch != edited.workload.globalBatch);
    // Only the placement and the batch move; the edit itself is kept.
    QVERIFY(got.parallelism == edited.parallelism);
    QVERIFY(got.topology == edited.topology);
    QVERIFY(got.placement.rankOrder == edited.placement.rankOrder);
    if (note.isEmpty()) {
        QVERIFY2(r.notes.empty(), r.notes.empty() ? "" : r.notes.front().c_str());
    } else {
        QCOMPARE(r.notes.size(), std::size_t{1});
        QVERIFY2(QString::fromStdString(r.notes.front()).contains(note), r.notes.front().c_str());
    }
    // A repaired scenario needs no further repair.
    const core::PlacementRepair again =
        core::repairPlacement(got, before, core::effectiveCatalog(got));
    QVERIFY(again.scenario && *again.scenario == got);
    QCOMPARE(int(again.fallback), int(PlacementFallback::Kept));
}

QTEST_APPLESS_MAIN(TestPlacementRepair)
#include "test_placementrepair.moc"
