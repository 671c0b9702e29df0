// Network area tests, part 2: placement of parallel groups onto scale-up, fabric and
// DCI levels, and the rail-only study (Wang et al. 2023) on the bill of materials.
#include "test_network.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "network/bom.h"
#include "network/dcimodel.h"
#include "network/fabric.h"
#include "network/placement.h"

#include <QtTest>

#include <optional>

using namespace archipelago::core;
using namespace nettest;

namespace {

std::vector<LinkClass> classes(const GroupPath& p)
{
    std::vector<LinkClass> out;
    for (const LevelLink& l : p.levels)
        out.push_back(l.linkClass);
    return out;
}

std::vector<int> participants(const GroupPath& p)
{
    std::vector<int> out;
    for (const LevelLink& l : p.levels)
        out.push_back(l.participants);
    return out;
}

} // namespace

void TestNetwork::tpInsideScaleUp()
{
    const Scenario s = singleDc(128, 8, FabricKind::Clos, 8, 1);
    const PlacementAnalysis p = analyzePlacement(s, testCatalog());
    QCOMPARE(classes(p.tp), std::vector<LinkClass>{LinkClass::ScaleUp});
    QCOMPARE(p.tp.size(), 8);
    QCOMPARE(p.tp.levels[0].bandwidthGBps, 450.0);
    QVERIFY(!p.tp.crossesDci());
    QVERIFY(!hasWarning(p.warnings, "tp-exceeds-scale-up"));
    QVERIFY(p.stageBoundaries.empty());
}

void TestNetwork::tpExceedsScaleUp()
{
    const Scenario s = singleDc(128, 8, FabricKind::Clos, 16, 1);
    const PlacementAnalysis p = analyzePlacement(s, testCatalog());
    QCOMPARE(classes(p.tp), (std::vector<LinkClass>{LinkClass::ScaleUp, LinkClass::Leaf}));
    QCOMPARE(participants(p.tp), (std::vector<int>{8, 2}));
    QVERIFY(hasWarning(p.warnings, "tp-exceeds-scale-up"));
}

void TestNetwork::dpAcrossFabric_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<std::vector<int>>("levels");
    // 1,024 GPUs, TP 8, DP 128 (stride 8: one member per domain), radix 64, 2 tiers.
    // Clos: 32 ports per leaf hold 4 domains -> 4 on a leaf, 32 leaves through the spine.
    QTest::newRow("clos") << int(FabricKind::Clos) << std::vector<int>{4, 32};
    // Rail-optimized: a rail leaf joins the same local rank of 32 domains.
    QTest::newRow("rail-optimized") << int(FabricKind::RailOptimized) << std::vector<int>{32, 4};
    // Rail-only: the rail's own leaf-spine, same shape.
    QTest::newRow("rail-only") << int(FabricKind::RailOnly) << std::vector<int>{32, 4};
}

void TestNetwork::dpAcrossFabric()
{
    QFETCH(int, kind);
    QFETCH(std::vector<int>, levels);
    const Scenario s = singleDc(128, 8, static_cast<FabricKind>(kind), 8, 1);
    const PlacementAnalysis p = analyzePlacement(s, testCatalog());
    QCOMPARE(classes(p.dp), (std::vector<LinkClass>{LinkClass::Leaf, LinkClass::Spine}));
    QCOMPARE(participants(p.dp), levels);
    QCOMPARE(p.dp.size(), 128);
    QCOMPARE(p.dp.levels[0].bandwidthGBps, 50.0); // 400 Gb/s NIC
}

void TestNetwork::dpAcrossTwoDatacenters()
{
    Scenario s = twoDcs(64); // 512 GPUs each
    s.placement.shards = {{64, {0}}, {64, {1}}};
    const PlacementAnalysis p = analyzePlacement(s, testCatalog());
    QCOMPARE(p.dp.size(), 128);
    QVERIFY(p.dp.crossesDci());
    const LevelLink& dci = p.dp.levels.back();
    QCOMPARE(dci.linkClass, LinkClass::Dci);
    QCOMPARE(dci.participants, 2);
    QCOMPARE(dci.dciLinkId, 0);
    // All 8 DP groups x 64 local rings cross the one link at once: 800 GB/s / 512.
    QCOMPARE(dci.concurrentFlows, 512);
    QVERIFY(fuzzy(dci.bandwidthGBps, 800.0 / 512));
    QVERIFY(dci.latencyS > fibreLatencyS(10.0) + 20e-6);
    QVERIFY(hasWarning(p.warnings, "dci-shared"));
    QVERIFY(!p.tp.crossesDci());

    // Twice the wavelengths, twice the share.
    s.topology.links[0].wavelengths = 32;
    QVERIFY(fuzzy(analyzePlacement(s, testCatalog()).dp.levels.back().bandwidthGBps, 1600.0 / 512));
}

void TestNetwork::ppBoundaryMoves_data()
{
    QTest::addColumn<std::vector<Id>>("stages");
    QTest::addColumn<int>("dciBoundary");
    QTest::newRow("2+2") << std::vector<Id>{0, 0, 1, 1} << 1;
    QTest::newRow("1+3") << std::vector<Id>{0, 1, 1, 1} << 0;
    QTest::newRow("3+1") << std::vector<Id>{0, 0, 0, 1} << 2;
}

void TestNetwork::ppBoundaryMoves()
{
    QFETCH(std::vector<Id>, stages);
    QFETCH(int, dciBoundary);
    Scenario s = twoDcs(256);
    s.parallelism.pp = 4;
    s.placement.shards = {{16, stages}};
    const PlacementAnalysis p = analyzePlacement(s, testCatalog());
    QCOMPARE(p.stageBoundaries.size(), std::size_t(3));
    for (int i = 0; i < 3; ++i) {
        const LevelLink& b = p.stageBoundaries[static_cast<std::size_t>(i)];
        QCOMPARE(b.linkClass == LinkClass::Dci, i == dciBoundary);
        QCOMPARE(b.participants, 2);
    }
    // 16 replicas x 8 TP ranks send across at once.
    const LevelLink& dci = p.stageBoundaries[static_cast<std::size_t>(dciBoundary)];
    QCOMPARE(dci.concurrentFlows, 128);
    QVERIFY(fuzzy(dci.bandwidthGBps, 800.0 / 128));
    const std::string name =
        "stage " + std::to_string(dciBoundary) + "->" + std::to_string(dciBoundary + 1);
    QVERIFY(std::any_of(p.warnings.begin(), p.warnings.end(), [&](const Warning& w) {
        return w.code == WarningCode::PpCrossesDc && w.message.find(name) != std::string::npos;
    }));
    // DP stays home: every stage's replicas are in one datacenter.
    QVERIFY(!p.dp.crossesDci());
}

void TestNetwork::railOnlyAllToAllForwarding()
{
    // EP 16 over two 8-GPU domains (TP 1): 7/8 of the inter-domain bytes change rail.
    const Scenario railOnly = singleDc(64, 8, FabricKind::RailOnly, 1, 1, 16);
    const Scenario railOpt = singleDc(64, 8, FabricKind::RailOptimized, 1, 1, 16);
    const PlacementAnalysis a = analyzePlacement(railOnly, testCatalog());
    const PlacementAnalysis b = analyzePlacement(railOpt, testCatalog());
    QCOMPARE(participants(a.ep), (std::vector<int>{8, 2}));
    QCOMPARE(classes(b.ep), classes(a.ep));
    const double slowdown = b.ep.levels[1].bandwidthGBps / a.ep.levels[1].bandwidthGBps;
    // Wang et al. 2023 report 8.2-11.2% longer all-to-all; here 1 + (7/8) * 50/450 = 9.7%.
    QVERIFY2(slowdown > 1.08 && slowdown < 1.12, QByteArray::number(slowdown));
    QVERIFY(hasWarning(a.warnings, "rail-only-forwarding"));
    // DP groups keep the same local rank: no forwarding, same bandwidth.
    QCOMPARE(a.dp.levels.back().bandwidthGBps, b.dp.levels.back().bandwidthGBps);
}

namespace {

// Preset pair (e) (presets/rail-*-32k.json: GPT-3 175B, TP 8 inside 8-GPU H100 domains, PP 8)
// rescaled to `gpus`; with `domain` = 72 the same cluster built from GB200 NVL72 racks with
// 800G NICs on 144-port switches. Rail-only may use up to 3 tiers per rail.
std::optional<Scenario> studyScenario(std::int64_t gpus, FabricKind kind, int domain)
{
    const LoadResult loaded =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/rail-optimized-32k.json");
    if (!loaded.ok())
        return std::nullopt;
    Scenario s = *loaded.scenario;
    Datacenter& dc = s.topology.datacenters.at(0);
    dc.fabric.kind = kind;
    dc.fabric.tiers = 3;
    Pod& pod = dc.pods.at(0);
    pod.count = 1;
    pod.gpusPerDomain = domain;
    pod.domainsPerPod = static_cast<int>(gpus / domain);
    if (domain != 8) {
        dc.accelerator = "GB200-NVL72";
        dc.fabric.nicModel = "ConnectX-8-800G";
        dc.fabric.switchModel = "Quantum-X800-144x800G";
    }
    s.placement.shards.at(0).dpReplicas =
        static_cast<int>(gpusInDatacenter(dc) / (s.parallelism.tp * s.parallelism.pp));
    return s;
}

} // namespace

void TestNetwork::railOnlyStudy_data()
{
    QTest::addColumn<qint64>("gpus");
    QTest::addColumn<int>("domain");
    QTest::addColumn<double>("minFall");
    QTest::addColumn<double>("maxFall");
    // Wang et al. 2023 (abstract, section 6): rail-only cuts network cost by 38-77%.
    QTest::newRow("8k H100") << qint64(8192) << 8 << 0.37 << 0.77;
    QTest::newRow("32k H100 (preset e)") << qint64(32768) << 8 << 0.37 << 0.77;
    // 16,384 GPUs per rail need a third tier per rail at radix 128: no tier is saved.
    QTest::newRow("128k H100") << qint64(131072) << 8 << -0.05 << 0.05;
    // 114 domains: each of the 72 rails fits one 144-port switch, a whole tier fewer than the
    // paper's cases; with this catalog's prices the fall (~81%) exceeds the paper's 77%.
    QTest::newRow("8k NVL72") << qint64(72 * 114) << 72 << 0.77 << 0.85;
    QTest::newRow("32k NVL72") << qint64(72 * 455) << 72 << 0.37 << 0.77;
    QTest::newRow("128k NVL72") << qint64(72 * 1820) << 72 << 0.37 << 0.77;
}

void TestNetwork::railOnlyStudy()
{
    QFETCH(qint64, gpus);
    QFETCH(int, domain);
    QFETCH(double, minFall);
    QFETCH(double, maxFall);
    const Catalog& catalog = builtinCatalog();
    const auto opt = studyScenario(gpus, FabricKind::RailOptimized, domain);
    const auto only = studyScenario(gpus, FabricKind::RailOnly, domain);
    if (!opt || !only || !catalog.switchSpec(opt->topology.datacenters[0].fabric.switchModel))
        QSKIP("preset (e) or its catalog entries are not available");
    std::vector<Warning> warnOpt, warnOnly;
    const auto bomOpt = billOfMaterials(*opt, catalog, warnOpt);
    const auto bomOnly = billOfMaterials(*only, catalog, warnOnly);
    QVERIFY(!hasWarning(warnOpt, "fabric-over-capacity"));
    QVERIFY(!hasWarning(warnOnly, "fabric-over-capacity"));
    QVERIFY(!hasWarning(warnOpt, "catalog-missing"));
    // NICs are the same in both designs; the study compares switches, optics and cables.
    const double costOpt = bomTotal(bomOpt, {"nic"}).capexUsd;
    const double costOnly = bomTotal(bomOnly, {"nic"}).capexUsd;
    const double fall = 1.0 - costOnly / costOpt;
    const double powerFall =
        1.0 - bomTotal(bomOnly, {"nic"}).powerW / bomTotal(bomOpt, {"nic"}).powerW;
    const FabricDesign fo = designFabric(opt->topology.datacenters[0], catalog);
    const FabricDesign fr = designFabric(only->topology.datacenters[0], catalog);
    qInfo("%lld GPUs, %d-GPU domains: rail-optimized %lld switches (%d tiers) $%.1fM; "
          "rail-only %lld switches (%d tiers per rail) $%.1fM; cost -%.1f%%, power -%.1f%%",
          static_cast<long long>(gpus), domain, static_cast<long long>(fo.switches()), fo.tiers,
          costOpt / 1e6, static_cast<long long>(fr.switches()), fr.tiers, costOnly / 1e6,
          100 * fall, 100 * powerFall);
    QVERIFY2(fall >= minFall && fall <= maxFall, QByteArray::number(fall));

    // Iteration time: the same job with TP inside the domain stays within 1%.
    const Evaluation a = evaluate(*opt, catalog);
    const Evaluation b = evaluate(*only, catalog);
    // NVL72 rows do not divide into TP 8 x PP 8 replicas; the 128k row has fewer micro-batches
    // than stages: the cost model refuses those, which is right.
    if (!a.ok || !b.ok || a.iterationTimeS <= 0.0)
        QSKIP("the cost model does not evaluate this design point");
    qInfo("  iteration time: rail-optimized %.3f s, rail-only %.3f s", a.iterationTimeS,
          b.iterationTimeS);
    QVERIFY(std::fabs(b.iterationTimeS / a.iterationTimeS - 1.0) <= 0.01);
}
