// Scale-across behaviour the model must explain: moving the pipeline
// boundary or the data-parallel crossing between datacenters changes the iteration time, and a
// warning names the link and the parallel dimension that cause it.
#include "evaluation/costmodel.h"
#include "evaluation/evaluationfill.h"
#include "io/scenarioio.h"
#include "model/placementpresets.h"
#include "network/placement.h"

#include "presetfixture.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

using namespace archipelago;

namespace {

using tests::loadPreset;

bool hasWarning(const core::Evaluation& ev, const std::string& code, const std::string& text)
{
    const std::optional<core::WarningCode> key = core::warningCodeFromString(code);
    if (!key)
        qFatal("unknown warning code %s", code.c_str());
    return std::any_of(ev.warnings.begin(), ev.warnings.end(), [&](const core::Warning& w) {
        return w.code == *key && core::warningText(w).find(text) != std::string::npos;
    });
}

// Three datacenters in two regions: A1 and A2 (region a) 5 km apart, B1 (region b) 800 km from
// A1 and without a link to A2. Stages 0-5 in A1, 6-10 in A2 and 11-15 in B1, so boundary
// 10->11 is routed A2 -> A1 -> B1 (805 km) and the interleaved wrap 15->0 crosses B1 -> A1.
core::Scenario threeDatacenters()
{
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    s.topology.regions = {{0, "region-a"}, {1, "region-b"}};
    auto& dcs = s.topology.datacenters;
    dcs[0].name = "A1";
    dcs[1].name = "A2";
    core::Datacenter b1 = dcs[1];
    b1.id = 2;
    b1.name = "B1";
    b1.regionId = 1;
    for (std::size_t i = 0; i < b1.pods.size(); ++i)
        b1.pods[i].id = static_cast<core::Id>(10 + i);
    dcs.push_back(b1);
    core::DciLink& near = s.topology.links.front();
    near.distanceKm = 5.0;
    core::DciLink far = near;
    far.id = 1;
    far.a = 0;
    far.b = 2;
    far.distanceKm = 800.0;
    far.optic = "400ZR+";
    far.lineSystem = "Long-haul-DWDM-C+L";
    s.topology.links.push_back(far);
    auto& stages = s.placement.shards.front().stageDatacenters;
    stages.assign(16, 0);
    std::fill(stages.begin() + 6, stages.begin() + 11, 1);
    std::fill(stages.begin() + 11, stages.end(), 2);
    return s;
}

} // namespace

class TestScaleAcross : public QObject
{
    Q_OBJECT
private slots:
    void slowerDciLengthensPipelineAndSaysWhy();
    void ppBoundaryAcrossBuildingsNamesTheLink();
    void dpAcrossBuildingsSharesTheLink();
    void longerDistanceNeverFaster();
    void tpSplitAcrossBuildingsCrossesTheLink();
    void dciExposedNamesTheBoundarysDatacenters();
    void extremeFiguresStayShortInWarnings();
    void routedBoundaryWarningsNameTheRoute();
    void routedGradientsLoadEveryLinkOfTheRoute();
};

void TestScaleAcross::slowerDciLengthensPipelineAndSaysWhy()
{
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    const core::Evaluation wide = core::evaluate(s);
    QVERIFY(wide.ok);
    s.topology.links.front().wavelengths = 2; // 800 Gb/s shared by every pipeline
    const core::Evaluation narrow = core::evaluate(s);
    QVERIFY(narrow.ok);
    QVERIFY(narrow.iterationTimeS > wide.iterationTimeS * 1.05);
    // The loss shows up as exposed pipeline communication, not as schedule bubble.
    QVERIFY(narrow.breakdown.ppCommS > wide.breakdown.ppCommS);
    QCOMPARE(narrow.breakdown.bubbleS, wide.breakdown.bubbleS);
    QVERIFY(hasWarning(narrow, "dci-exposed", "building-a \u2192 building-b"));
}

void TestScaleAcross::ppBoundaryAcrossBuildingsNamesTheLink()
{
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    const core::Evaluation split = core::evaluate(s);
    QVERIFY(split.ok);
    QVERIFY(
        hasWarning(split, "dci-exposed", "stage 7 \u2192 8 crosses building-a \u2192 building-b"));
    // Moving the boundary: stages 0-3 in building A, 4-15 in building B would not fit the GPU
    // counts, so compare with the whole pipeline in one building instead (the 16k preset).
    const core::Evaluation one = core::evaluate(loadPreset("llama3-405b-16k-h100.json"));
    QVERIFY(one.ok);
    QVERIFY(split.iterationTimeS > one.iterationTimeS);
    QVERIFY(!hasWarning(one, "dci-exposed", ""));
}

void TestScaleAcross::dpAcrossBuildingsSharesTheLink()
{
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    const core::Evaluation pp = core::evaluate(s);
    s.placement = core::dpAcrossDatacenters(s);
    QCOMPARE(core::checkScenario(s, core::effectiveCatalog(s)).size(), std::size_t{0});
    const core::Evaluation dp = core::evaluate(s);
    QVERIFY(pp.ok && dp.ok);
    // All DP groups now cross the campus link at once: the gradient reduction is exposed
    // longer and a warning says the link is shared.
    QVERIFY(dp.breakdown.dpCommS > pp.breakdown.dpCommS);
    QVERIFY(hasWarning(dp, "dci-shared", "building-a \u2194 building-b"));
    QVERIFY(!hasWarning(dp, "dci-exposed", ""));
}

void TestScaleAcross::longerDistanceNeverFaster()
{
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    double previous = 0.0;
    for (double km : {1.0, 10.0, 100.0, 1000.0}) {
        s.topology.links.front().distanceKm = km;
        const core::Evaluation ev = core::evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY2(ev.iterationTimeS >= previous, qPrintable(QString::number(km)));
        previous = ev.iterationTimeS;
    }
}

void TestScaleAcross::tpSplitAcrossBuildingsCrossesTheLink()
{
    // TP across datacenters is allowed with a warning. Every TP group of the
    // preset gets 4 ranks in each building, so every tensor-parallel collective crosses the DCI.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    const core::Evaluation pp = core::evaluate(s);
    s.placement.shards.front().splitDatacenters = {0, 1};
    s.placement.shards.front().splitDim = core::ParallelDim::Tp;
    const auto diagnostics = core::checkScenario(s, core::effectiveCatalog(s));
    QCOMPARE(diagnostics.size(), std::size_t{1});
    QCOMPARE(diagnostics.front().severity, core::Diagnostic::Severity::Warning);
    QCOMPARE(diagnostics.front().pointer, std::string("/placement/shards/0/split_dim"));
    QCOMPARE(diagnostics.front().message,
             std::string("TP 8 is split across building-a, building-b: every tensor-parallel "
                         "collective crosses the DCI link"));

    const core::PlacementAnalysis p = core::analyzePlacement(s, core::effectiveCatalog(s));
    QVERIFY(p.tp.crossesDci());
    QCOMPARE(p.tp.size(), 8);
    const core::LevelLink& dci = p.tp.levels.back();
    QCOMPARE(dci.linkClass, core::LinkClass::Dci);
    QCOMPARE(dci.participants, 2);
    // Every GPU of the shard (8 * 128 * 16 / 2 per building) runs a TP collective at once.
    QCOMPARE(dci.concurrentFlows, 8192);
    QVERIFY(!p.dp.crossesDci()); // each TP slice's DP group stays in its building

    const core::Evaluation tp = core::evaluate(s);
    QVERIFY(pp.ok && tp.ok);
    QVERIFY(hasWarning(tp, "tp-crosses-dc", "building-a \u2194 building-b"));
    QVERIFY(tp.breakdown.tpCommS > pp.breakdown.tpCommS * 10.0);
    QVERIFY(tp.iterationTimeS > pp.iterationTimeS * 2.0);
    qInfo("  iteration time: PP across %.2f s, TP split %.2f s (TP comm %.3f -> %.3f s)",
          pp.iterationTimeS, tp.iterationTimeS, pp.breakdown.tpCommS, tp.breakdown.tpCommS);
}

void TestScaleAcross::dciExposedNamesTheBoundarysDatacenters()
{
    // Two shards: the first keeps the whole pipeline in building A, the second crosses to B
    // at 7->8. The boundary's slowest shard is the second: the warning must name A<->B, not
    // the first shard's A<->A.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    core::PlacementShard local = s.placement.shards.front();
    local.dpReplicas = 32;
    local.stageDatacenters.assign(16, 0);
    s.placement.shards.front().dpReplicas = 96;
    s.placement.shards.insert(s.placement.shards.begin(), local);
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY2(ev.ok,
             ev.warnings.empty()
                 ? ""
                 : qPrintable(QString::fromStdString(core::warningText(ev.warnings.back()))));
    QVERIFY(hasWarning(ev, "dci-exposed", "stage 7 \u2192 8 crosses building-a \u2192 building-b"));
    QVERIFY(!hasWarning(ev, "dci-exposed", "building-a \u2192 building-a"));
    // The figures behind the text: the boundary's datacenter ids.
    const auto exposed = std::find_if(ev.warnings.begin(), ev.warnings.end(), [](const auto& w) {
        return w.code == core::WarningCode::DciExposed;
    });
    QVERIFY(exposed != ev.warnings.end());
    qInfo("  %s", core::warningText(*exposed).c_str());
    QCOMPARE(exposed->integer("from_datacenter_id"), std::int64_t{0});
    QCOMPARE(exposed->integer("to_datacenter_id"), std::int64_t{1});
}

void TestScaleAcross::extremeFiguresStayShortInWarnings()
{
    // Exposed TP of 1e300 s: printed with %f it ran to hundreds of digits.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    core::Evaluation ev;
    ev.iterationTimeS = 2e300;
    ev.breakdown.tpCommS = 1e300;
    ev.breakdown.dpCommS = 1e300;
    ev.breakdown.bubbleS = 1e300;
    core::addWarnings(s, s.parallelism, ev);
    QCOMPARE(ev.warnings.size(), std::size_t{3});
    for (const core::Warning& w : ev.warnings) {
        const std::string text = core::warningText(w);
        qInfo("  %s", text.c_str());
        QVERIFY2(text.size() < 160, text.c_str());
    }
    QVERIFY(hasWarning(ev, "tp-exposed", "1e+300 s per iteration (50%) at TP 8"));
    // Ordinary figures keep their fixed decimals.
    const core::Warning dp = core::Warning{core::WarningCode::DpExposed}
                                 .num("dp_comm_s", 1.234)
                                 .num("dp_comm_pct", 12.5)
                                 .num("iteration_s", 9.87);
    QCOMPARE(core::warningText(dp),
             std::string("data-parallel gradient reduction exposes 1.23 s per iteration (12% of "
                         "9.87 s)"));
    // Short times in the unit that reads, not "0.00 s ... (11% of 0.01 s)".
    const core::Warning small = core::Warning{core::WarningCode::DpExposed}
                                    .num("dp_comm_s", 0.00123)
                                    .num("dp_comm_pct", 11.0)
                                    .num("iteration_s", 0.0112);
    QCOMPARE(core::warningText(small),
             std::string("data-parallel gradient reduction exposes 1.23 ms per iteration (11% of "
                         "11.2 ms)"));
}

void TestScaleAcross::routedBoundaryWarningsNameTheRoute()
{
    // Boundary 10->11 has no direct link: its warnings name the route A2 -> A1 -> B1 and its
    // 805 km, each DCI link gets one transport line naming the boundaries that use it, and each
    // boundary says what its own transfers lengthen the pipeline by.
    const core::Scenario s = threeDatacenters();
    for (const core::Diagnostic& d : core::checkScenario(s, core::effectiveCatalog(s)))
        QVERIFY2(d.severity != core::Diagnostic::Severity::Error, d.message.c_str());
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    for (const core::Warning& w : ev.warnings)
        qInfo("  %s", core::warningText(w).c_str());
    QVERIFY(hasWarning(ev, "pp-crosses-dc", "stage 5 \u2192 6 crosses A1 \u2192 A2 (5 km,"));
    QVERIFY(hasWarning(ev, "pp-crosses-dc",
                       "stage 10 \u2192 11 crosses A2 \u2192 A1 \u2192 B1 (805 km,"));
    QVERIFY(hasWarning(ev, "pp-crosses-dc", "stage 15 \u2192 0 crosses B1 \u2192 A1 (800 km,"));

    // One transport line per physical link, with one connection count.
    std::map<std::int64_t, int> perLink;
    for (const core::Warning& w : ev.warnings)
        if (w.code == core::WarningCode::DciTransportBound)
            ++perLink[w.integer("link_id")];
    QCOMPARE(perLink.size(), std::size_t{2});
    for (const auto& [link, n] : perLink)
        QCOMPARE(n, 1);
    // A1<->A2 is bound only for the routed boundary, at the 805 km route's round trip; the
    // 5 km link's own distance is what the line gives as the link's. 1,024 GPU flows, each on
    // NCCL's 2 send/recv channels per peer (network/dcimodel.h): 2,048 connections.
    QVERIFY(
        hasWarning(ev, "dci-transport-bound", "on A1 \u2194 A2 (5 km, loss 0): 2048 connections"));
    QVERIFY(hasWarning(ev, "dci-transport-bound", "RTT of A2 \u2192 A1 \u2192 B1"));
    QVERIFY(hasWarning(ev, "dci-transport-bound", "used by stage 5 \u2192 6, stage 10 \u2192 11"));
    QVERIFY(hasWarning(ev, "dci-transport-bound", "on A1 \u2194 B1 (800 km"));
    QVERIFY(hasWarning(ev, "dci-transport-bound", "used by stage 10 \u2192 11, stage 15 \u2192 0"));

    // Each boundary (the interleaved wrap too) with its route and its own lengthening.
    std::map<std::int64_t, const core::Warning*> exposed; // by from_stage
    for (const core::Warning& w : ev.warnings)
        if (w.code == core::WarningCode::DciExposed)
            exposed[w.integer("from_stage")] = &w;
    QCOMPARE(exposed.size(), std::size_t{3});
    QVERIFY(hasWarning(ev, "dci-exposed",
                       "stage 10 \u2192 11 crosses A2 \u2192 A1 \u2192 B1 (805 km, RTT 7.96 ms)"));
    QVERIFY(hasWarning(ev, "dci-exposed", "stage 5 \u2192 6 crosses A1 \u2192 A2 (5 km,"));
    QVERIFY(hasWarning(ev, "dci-exposed", "stage 15 \u2192 0 crosses B1 \u2192 A1 (800 km,"));
    const double near = exposed.at(5)->number("exposed_ms");
    const double routed = exposed.at(10)->number("exposed_ms");
    const double all = exposed.at(10)->number("all_exposed_ms");
    qInfo("  lengthening: 5->6 %.1f ms, 10->11 %.1f ms, all %.1f ms", near, routed, all);
    QVERIFY(routed > 0.0);
    QVERIFY(near < routed);
    QVERIFY(routed <= all + 1e-9);
    QCOMPARE(exposed.at(5)->number("all_exposed_ms"), all);

    // Traffic: every link of the route carries the routed boundary. A1<->A2 carries 5->6 and
    // 10->11, each crossed by all four chunks of a micro-batch; A1<->B1 carries 10->11 and the
    // wrap 15->0, crossed by three of them: 8 to 7.
    std::map<std::int64_t, double> bytes;
    for (const core::LinkTraffic& t : ev.traffic)
        if (t.dciLinkId >= 0)
            bytes[t.dciLinkId] = t.bytesPerIteration;
    QCOMPARE(bytes.size(), std::size_t{2});
    QVERIFY(bytes.at(1) > 0.0);
    QVERIFY(std::abs(bytes.at(0) / bytes.at(1) - 8.0 / 7.0) < 1e-9);
}

QTEST_GUILESS_MAIN(TestScaleAcross)
#include "test_scaleacross.moc"

void TestScaleAcross::routedGradientsLoadEveryLinkOfTheRoute()
{
    // Half the replicas in A2, half in B1, every stage in one building: the DP rings join A2 and
    // B1 over A2 -> A1 -> B1, so both links carry the gradients, as much each way. The traffic
    // used to be charged to the route's bottleneck link only, leaving A1<->A2 idle.
    core::Scenario s = threeDatacenters();
    s.placement.shards = {core::PlacementShard(64, std::vector<core::Id>(16, 1)),
                          core::PlacementShard(64, std::vector<core::Id>(16, 2))};
    for (const core::Diagnostic& d : core::checkScenario(s, core::effectiveCatalog(s)))
        QVERIFY2(d.severity != core::Diagnostic::Severity::Error, d.message.c_str());
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    std::map<std::int64_t, const core::LinkTraffic*> dci;
    for (const core::LinkTraffic& t : ev.traffic)
        if (t.dciLinkId >= 0)
            dci[t.dciLinkId] = &t;
    QCOMPARE(dci.size(), std::size_t{2});
    const core::LinkTraffic& near = *dci.at(0);
    const core::LinkTraffic& far = *dci.at(1);
    qInfo("  A1<->A2 %.3g B, A1<->B1 %.3g B per iteration", near.bytesPerIteration,
          far.bytesPerIteration);
    QVERIFY(far.bytesPerIteration > 0.0);
    QVERIFY(std::abs(near.bytesPerIteration / far.bytesPerIteration - 1.0) < 1e-9);
    for (const core::LinkTraffic* t : {&near, &far})
        QVERIFY(std::abs(t->bytesAToB / t->bytesBToA - 1.0) < 1e-9);
    // The same bytes cross the route as when A2 and B1 had a direct link: one ring, two hops.
    core::Scenario direct = s;
    direct.topology.links[1].a = 1;
    const core::Evaluation one = core::evaluate(direct);
    QVERIFY(one.ok);
    const auto only = std::find_if(one.traffic.begin(), one.traffic.end(),
                                   [](const auto& t) { return t.dciLinkId == 1; });
    QVERIFY(only != one.traffic.end());
    QVERIFY(std::abs(only->bytesPerIteration / far.bytesPerIteration - 1.0) < 1e-9);
    // The near link's busy time is its own capacity's, not the far link's.
    QVERIFY(near.busyS > 0.0);
    QVERIFY(near.utilisation <= 1.0);
}
