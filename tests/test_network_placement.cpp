// Network area tests, part 2: placement of parallel groups onto scale-up, fabric and
// DCI levels, and the rail-only study (Wang et al. 2023) on the bill of materials.
#include "test_network.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "network/bom.h"
#include "network/collectives.h"
#include "network/dcimodel.h"
#include "network/fabric.h"
#include "network/placement.h"
#include "network/topologymodel.h"

#include <QtTest>

#include <algorithm>
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
    // 16 replicas x 8 TP ranks send across at once. Their 256 QPs (2 send/recv channels per
    // flow) hashed onto 16 ports leave (15/16)^256 ~ 7e-8 of a port empty.
    const LevelLink& dci = p.stageBoundaries[static_cast<std::size_t>(dciBoundary)];
    QCOMPARE(dci.concurrentFlows, 128);
    QVERIFY(fuzzy(dci.bandwidthGBps, 800.0 / 128, 1e-6));
    QVERIFY(std::any_of(p.warnings.begin(), p.warnings.end(), [&](const Warning& w) {
        return w.code == WarningCode::PpCrossesDc && w.integer("from_stage") == dciBoundary &&
               w.integer("to_stage") == dciBoundary + 1 &&
               warningText(w).starts_with("stage " + std::to_string(dciBoundary) + " → " +
                                          std::to_string(dciBoundary + 1) + " crosses ");
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

void TestNetwork::declaredPodsChangeLayout()
{
    // 4,096 GPUs on a 3-tier Clos of 64-port switches at 1:1: the radix builds spine blocks of
    // 32 leaves x 32 GPUs = 1,024 GPUs. TP 8, PP 2 outermost: a DP group of 256 spans 2,048
    // consecutive GPUs.
    const auto scenario = [](int pods, int domainsPerPod) {
        Scenario s = singleDc(512, 8, FabricKind::Clos, 8, 2);
        Datacenter& dc = s.topology.datacenters[0];
        dc.fabric.tiers = 3;
        dc.pods = {{0, "pod", pods, domainsPerPod, 8}};
        s.placement.rankOrder = {ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Ep, ParallelDim::Dp,
                                 ParallelDim::Pp};
        return s;
    };
    const auto topClass = [](const GroupPath& p) { return p.levels.back().linkClass; };
    // One pod declared: the fabric's own spine blocks, as before; the group crosses two.
    const Scenario one = scenario(1, 512);
    const PlacementAnalysis p1 = analyzePlacement(one, testCatalog());
    QCOMPARE(p1.dp.size(), 256);
    QCOMPARE(topClass(p1.dp), LinkClass::Core);
    QCOMPARE(p1.dp.levels.back().participants, 2);
    QVERIFY(!designFabric(one.topology.datacenters[0], testCatalog()).declaredPods);
    // Two 2,048-GPU pods: the group fits in one, no core.
    const Scenario two = scenario(2, 256);
    const PlacementAnalysis p2 = analyzePlacement(two, testCatalog());
    QCOMPARE(p2.dp.size(), 256);
    QCOMPARE(topClass(p2.dp), LinkClass::Spine);
    // Eight 512-GPU pods: the group crosses four.
    const PlacementAnalysis p8 = analyzePlacement(scenario(8, 64), testCatalog());
    QCOMPARE(topClass(p8.dp), LinkClass::Core);
    QCOMPARE(p8.dp.levels.back().participants, 4);
    // The bill of materials follows the declared pods: each 2,048-GPU pod has 64 leaves and the
    // 64 spines their 2,048 uplinks need; 4,096 spine uplinks on 64 core switches.
    const FabricDesign f = designFabric(two.topology.datacenters[0], testCatalog());
    QVERIFY(f.declaredPods);
    QCOMPARE(qint64(f.domainsPerPod), qint64(256));
    QCOMPARE(qint64(f.plane.pods), qint64(2));
    QCOMPARE(qint64(f.leaves), qint64(128));
    QCOMPARE(qint64(f.spines), qint64(128));
    QCOMPARE(qint64(f.cores), qint64(64));
    QCOMPARE(qint64(f.spineCoreLinks), qint64(4096));
    // Unequal pods (Llama 3: 3,072 and 2,048 GPUs at 1:7): the smaller one bounds the layout,
    // each pod's spines are sized for its own leaves.
    Datacenter meta = makeDc(0, "meta", 0, 8, FabricKind::Clos, 3);
    meta.fabric.spineOversubscription = 7.0;
    meta.pods = {{0, "pod-3072", 2, 384, 8}, {1, "pod-2048", 1, 256, 8}};
    const FabricDesign m = designFabric(meta, testCatalog());
    QVERIFY(m.declaredPods);
    QCOMPARE(qint64(m.domainsPerPod), qint64(256));
    QCOMPARE(qint64(m.leaves), qint64(2 * 96 + 64));
    // 56 down and 8 up per spine at 1:7: ceil(96 x 32 / 56) = 55, ceil(64 x 32 / 56) = 37.
    QCOMPARE(qint64(m.spines), qint64(2 * 55 + 37));
    QCOMPARE(qint64(m.spineCoreLinks), qint64((2 * 55 + 37) * 8));
    // Pod boundaries where the scenario puts them: GPUs 0-3071, 3072-6143, 6144-8191.
    QVERIFY(m.samePod(0, 3071));
    QVERIFY(!m.samePod(3071, 3072));
    QVERIFY(m.samePod(6144, 8191));
    QVERIFY(!m.samePod(5120, 7167));
    QVERIFY(!m.samePod(8000, 8192));
}

namespace {

// Llama-3-405B-like job on the 16k preset, DP outermost (TP 8, PP 16, DP over `pods` declared
// 3,072-GPU pods), at spine oversubscription `spine`.
std::optional<Scenario> dpOverPods(int pods, double spine)
{
    const LoadResult loaded =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-16k-h100.json");
    if (!loaded.ok())
        return std::nullopt;
    Scenario s = *loaded.scenario;
    Datacenter& dc = s.topology.datacenters.at(0);
    dc.fabric.spineOversubscription = spine;
    if (pods > 0) {
        dc.pods = {{0, "pod-3072", pods, 384, 8}};
        s.placement.shards.at(0).dpReplicas = pods * 3072 / 128;
        s.workload.globalBatch = pods * 3072 / 128 * 16;
    }
    s.placement.rankOrder = {ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Ep, ParallelDim::Pp,
                             ParallelDim::Dp};
    return s;
}

} // namespace

void TestNetwork::dpAcrossOversubscribedPods()
{
    // network-physics.md A5: a DP ring over P pods crosses each pod boundary with one edge per
    // ring, so per pod about 2(P-1)/P x M crosses, whatever the pod holds. Six 3,072-GPU pods,
    // DP 144 (24 members per pod), fp32 gradients of 405B / (TP 8 x PP 16) per GPU.
    const Catalog& catalog = builtinCatalog();
    const auto at1 = dpOverPods(6, 1.0);
    const auto at7 = dpOverPods(6, 7.0);
    if (!at1 || !at7)
        QSKIP("preset llama3-405b-16k-h100 is not available");
    const PlacementAnalysis p1 = analyzePlacement(*at1, catalog);
    const PlacementAnalysis p7 = analyzePlacement(*at7, catalog);
    QCOMPARE(p7.dp.size(), 144);
    QCOMPARE(p7.dp.levels.back().linkClass, LinkClass::Core);
    QCOMPARE(p7.dp.levels.back().participants, 6);
    const EfficiencyParams eff;
    const double bytes = 4.0 * 405e9 / 128.0;
    const double t1 = hierarchicalAllReduce(bytes, p1.dp, eff).timeS;
    const double t7 = hierarchicalAllReduce(bytes, p7.dp, eff).timeS;
    // A5 worked example: per pod, the 128 DP groups' boundary edges move 128 x 2(n-1)/n x S
    // (~3.2 TB) over the pod's uplinks, 3,072 x 50 GB/s / 7: ~0.15 s (A5: ~0.12 s with the
    // hierarchical algorithm's 2(P-1)/P).
    const double edge = 2.0 * 143.0 / 144.0 * bytes;
    const double crossPodS = 128.0 * edge / (3072.0 * 50e9 / 7.0);
    qInfo("DP all-reduce over 6 pods: %.3f s at 1:1, %.3f s at 1:7; cross-pod transfer %.3f s", t1,
          t7, crossPodS);
    QVERIFY2(crossPodS > 0.06 && crossPodS < 0.25, QByteArray::number(crossPodS));
    // The wide inner levels carry the rest: 1:7 costs little more than 1:1 (it was ~7x when the
    // whole volume went at the core's per-GPU share).
    QVERIFY2(t7 <= t1 * 1.1, QByteArray::number(t7 / t1));
    QVERIFY(t7 - t1 <= crossPodS);
    // Thin enough, the core binds: the time is the cross-pod bytes over the pod's uplinks.
    const auto at48 = dpOverPods(6, 48.0);
    const PlacementAnalysis p48 = analyzePlacement(*at48, catalog);
    const double t48 = hierarchicalAllReduce(bytes, p48.dp, eff).timeS;
    const double bound = 128.0 * edge / (3072.0 * 50e9 / 48.0) / eff.scaleOutBusEfficiency;
    QVERIFY2(t48 >= bound && t48 <= bound * 1.1, QByteArray::number(t48 / bound));
}

void TestNetwork::oversubscriptionMonotonic()
{
    // Iteration time and DP collective time never fall as the tier above the pods thins, for
    // a DP group crossing pods (the 16k preset's own pods, DP outermost).
    const Catalog& catalog = builtinCatalog();
    double previousIteration = 0.0;
    double previousDp = 0.0;
    double previousDpComm = 0.0;
    for (const double spine : {1.0, 2.0, 4.0, 7.0, 14.0, 28.0, 100.0}) {
        const auto s = dpOverPods(0, spine);
        if (!s)
            QSKIP("preset llama3-405b-16k-h100 is not available");
        const PlacementAnalysis p = analyzePlacement(*s, catalog);
        QCOMPARE(p.dp.levels.back().linkClass, LinkClass::Core);
        const double dp = hierarchicalReduceScatter(4e9, p.dp, EfficiencyParams{}).timeS;
        const Evaluation e = evaluate(*s, catalog);
        QVERIFY(e.ok);
        qInfo("spine 1:%g: DP reduce-scatter %.3f s, dp_comm %.3f s, iteration %.3f s", spine, dp,
              e.breakdown.dpCommS, e.iterationTimeS);
        QVERIFY(dp >= previousDp);
        QVERIFY(e.breakdown.dpCommS >= previousDpComm * (1.0 - 1e-12));
        QVERIFY(e.iterationTimeS >= previousIteration * (1.0 - 1e-12));
        previousDp = dp;
        previousDpComm = e.breakdown.dpCommS;
        previousIteration = e.iterationTimeS;
    }
}

void TestNetwork::parallelLinksShareTheirHop()
{
    // The default preset's 64-wavelength link drawn as two of 32, the second 2 km longer:
    // alike but for distance, they carry the hop together (core::bundleParallelLinks), as one
    // link of 64 wavelengths at the longer distance would, rather than one of them carrying
    // everything while the canvas and the bill count both.
    const LoadResult loaded =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    QVERIFY(loaded.ok());
    const Scenario preset = *loaded.scenario;
    const Catalog catalog = effectiveCatalog(preset);
    const Evaluation asDrawn = evaluate(preset, catalog);
    QVERIFY(!hasWarning(asDrawn.warnings, "parallel-dci-links"));
    Scenario split = preset;
    DciLink first = split.topology.links.at(0);
    first.wavelengths = 32;
    DciLink second = first;
    second.id = 7;
    second.distanceKm += 2.0;
    split.topology.links = {second, first};
    Scenario longer = preset;
    longer.topology.links.at(0).distanceKm = second.distanceKm;
    longer.topology.links.at(0).id = second.id;
    const Evaluation bundled = evaluate(split, catalog);
    const Evaluation one = evaluate(longer, catalog);
    QVERIFY(bundled.ok && one.ok);
    QVERIFY(!hasWarning(bundled.warnings, "parallel-dci-links"));
    QCOMPARE(bundled.iterationTimeS, one.iterationTimeS);
    QCOMPARE(bundled.breakdown.ppCommS, one.breakdown.ppCommS);
    // Half the wavelengths alone are slower; the bill counts both links.
    Scenario half = preset;
    half.topology.links.at(0).wavelengths = 32;
    QVERIFY(evaluate(half, catalog).iterationTimeS > bundled.iterationTimeS);
    QVERIFY(bundled.networkCapexUsd > evaluate(half, catalog).networkCapexUsd);
    // The traffic is on the bundle, busy against its 64 wavelengths.
    const auto dci =
        std::find_if(bundled.traffic.begin(), bundled.traffic.end(),
                     [](const LinkTraffic& t) { return t.linkClass == LinkClass::Dci; });
    const auto dciOne =
        std::find_if(one.traffic.begin(), one.traffic.end(),
                     [](const LinkTraffic& t) { return t.linkClass == LinkClass::Dci; });
    QVERIFY(dci != bundled.traffic.end() && dciOne != one.traffic.end());
    QCOMPARE(dci->busyS, dciOne->busyS);
}

void TestNetwork::parallelLinksOfOtherSettingsAreNamed()
{
    // Two links whose transports differ cannot share a hop: the route takes the shorter, and
    // the evaluation names the link it takes and the capacity left idle.
    const LoadResult loaded =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    QVERIFY(loaded.ok());
    Scenario split = *loaded.scenario;
    const Catalog catalog = effectiveCatalog(split);
    DciLink first = split.topology.links.at(0);
    first.wavelengths = 32;
    DciLink second = first;
    second.id = 7;
    second.distanceKm += 2.0;
    second.transport = DciTransport::LossyIp;
    split.topology.links = {second, first};
    const Evaluation e = evaluate(split, catalog);
    QVERIFY(e.ok);
    const auto named = std::count_if(e.warnings.begin(), e.warnings.end(), [](const Warning& w) {
        return w.code == WarningCode::ParallelDciLinks;
    });
    QCOMPARE(named, 1);
    const Warning& w = *std::find_if(e.warnings.begin(), e.warnings.end(), [](const Warning& x) {
        return x.code == WarningCode::ParallelDciLinks;
    });
    QCOMPARE(w.integer("links"), std::int64_t{2});
    QCOMPARE(w.integer("link_id"), std::int64_t{first.id}); // the shorter one
    QCOMPARE(w.integer("idle_links"), std::int64_t{1});
    QVERIFY(fuzzy(w.number("used_tbps"), 32 * first.gbpsPerWavelength / 1000.0));
    QVERIFY(fuzzy(w.number("idle_tbps"), 32 * first.gbpsPerWavelength / 1000.0));
    QVERIFY(warningText(w).find("is billed but carries nothing") != std::string::npos);
}

void TestNetwork::bundlesKeepUnlikeLinksApart()
{
    // core::bundleParallelLinks over a hand-made topology: alike links of one pair merge into
    // the first (wavelengths summed, the longest distance and latency), in either direction;
    // other pairs, other rates and self-loops stay as they are, in order.
    Topology t;
    for (Id i = 0; i < 3; ++i)
        t.datacenters.push_back(makeDc(i, std::string(1, char('A' + i)), 1, 8));
    t.links = {makeLink(0, 0, 1, 10, 16), makeLink(1, 1, 0, 30, 8), makeLink(2, 1, 2, 50, 4),
               makeLink(3, 0, 1, 20, 4)};
    t.links[3].gbpsPerWavelength = 800.0;
    t.links[1].equipmentLatencyS = 1e-3;
    const Topology b = bundleParallelLinks(t);
    QCOMPARE(b.links.size(), std::size_t{3});
    QCOMPARE(b.links[0].id, Id{0});
    QCOMPARE(b.links[0].wavelengths, 24);
    QCOMPARE(b.links[0].distanceKm, 30.0);
    QCOMPARE(b.links[0].equipmentLatencyS, 1e-3);
    QVERIFY(b.links[1] == t.links[2]);
    QVERIFY(b.links[2] == t.links[3]);
    QVERIFY(b.datacenters == t.datacenters);
    QVERIFY(bundleParallelLinks(b) == b); // nothing left to bundle
}
