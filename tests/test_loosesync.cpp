// Loosely coupled training across datacenters (evaluation/loosesync.h): DiLoCo and Streaming
// DiLoCo against the published loss tables, the outer step's exposure, and what they change in
// an evaluation (the DCI's per-step traffic, memory, the failure domain, the steps to train).
#include "evaluation/costmodel.h"
#include "evaluation/goodput.h"
#include "evaluation/loosesync.h"
#include "io/scenarioio.h"

#include "presetfixture.h"
#include "trafficfixture.h"

#include <QtTest>

#include <cmath>

using namespace archipelago;

namespace {

using tests::dciBytesPerIteration;
using tests::loadPreset;

// Llama 3 405B on two buildings 800 km apart over 16 wavelengths, 64 replicas in each: the
// data-parallel group crosses the DCI.
core::Scenario dataParallelAcrossTwoBuildings(core::DatacenterSync scheme)
{
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    s.placement.shards = {core::PlacementShard{64, std::vector<core::Id>(16, 0)},
                          core::PlacementShard{64, std::vector<core::Id>(16, 1)}};
    s.topology.links.front().distanceKm = 800.0;
    s.topology.links.front().wavelengths = 16;
    s.parallelism.datacenterSync.scheme = scheme;
    return s;
}

} // namespace

class TestLooseSync : public QObject
{
    Q_OBJECT
private slots:
    void lossRatioFollowsCharlesTable4();
    void longerInnerStepsCostLossAsStreamingTable6();
    void neverCreditedAndHeldPastTheFit();
    void computeMultiplierFollowsTheFrontier();
    void outerStepExposure();
    void fragmentsDefaultToThreeLayers();
    void dilocoKeepsEachStepInsideItsDatacenter();
    void failureStopsOnlyItsDatacenter();
    void outerStateNeedsMemory();
    void noEffectWhenDataParallelStaysInside();
    void workspaceNamesTheSchemeInItsWarnings();
    void roundTripAndBadInput();
};

void TestLooseSync::lossRatioFollowsCharlesTable4()
{
    // Charles et al. 2025, Table 4 (H = 30): DiLoCo's loss over data-parallel training's.
    struct Cell
    {
        double params;
        int replicas;
        double measured;
    };
    const Cell cells[] = {{335e6, 2, 2.788 / 2.784}, {335e6, 4, 2.808 / 2.784},
                          {335e6, 8, 2.841 / 2.784}, {1.3e9, 4, 2.472 / 2.460},
                          {1.3e9, 8, 2.493 / 2.460}, {2.4e9, 8, 2.351 / 2.326}};
    for (const Cell& c : cells) {
        const double model = core::diLoCoLossRatio(c.params, c.replicas, 30);
        QVERIFY2(std::abs(model - c.measured) < 0.003, qPrintable(QString("N %1 M %2: %3 vs %4")
                                                                      .arg(c.params)
                                                                      .arg(c.replicas)
                                                                      .arg(model)
                                                                      .arg(c.measured)));
    }
    // More replicas, more loss; between tabulated M, between their values.
    const double m2 = core::diLoCoLossRatio(335e6, 2, 30);
    const double m3 = core::diLoCoLossRatio(335e6, 3, 30);
    const double m4 = core::diLoCoLossRatio(335e6, 4, 30);
    QVERIFY(m2 < m3 && m3 < m4);
    QVERIFY(core::diLoCoLossRatio(335e6, 16, 30) > core::diLoCoLossRatio(335e6, 8, 30));
    QCOMPARE(core::diLoCoLossRatio(335e6, 1, 30), 1.0);
}

void TestLooseSync::longerInnerStepsCostLossAsStreamingTable6()
{
    // Streaming DiLoCo, Table 6 (500M): M = 2 2.67 -> 2.69, M = 4 2.70 -> 2.73 from H = 30 to 100.
    for (const auto& [replicas, measured] :
         {std::pair{2, 2.69 / 2.67}, std::pair{4, 2.73 / 2.70}}) {
        const double grown = core::diLoCoLossRatio(500e6, replicas, 100) /
                             core::diLoCoLossRatio(500e6, replicas, 30);
        QVERIFY2(std::abs(grown - measured) < 0.003,
                 qPrintable(QString("M %1: %2 vs %3").arg(replicas).arg(grown).arg(measured)));
    }
    QVERIFY(core::diLoCoLossRatio(1e9, 2, 500) > core::diLoCoLossRatio(1e9, 2, 100));
}

void TestLooseSync::neverCreditedAndHeldPastTheFit()
{
    // The laws cross below 1 past 2.4B (M = 2 near 2.5B); no credit, and past the fit the
    // 2.4B value holds.
    QVERIFY(core::diLoCoLossRatio(2.4e9, 2, 30) >= 1.0);
    QCOMPARE(core::diLoCoLossRatio(405e9, 8, 30), core::diLoCoLossRatio(2.4e9, 8, 30));
    QVERIFY(core::diLoCoLossRatio(405e9, 8, 30) > 1.005);
}

void TestLooseSync::computeMultiplierFollowsTheFrontier()
{
    // L ~ C^(-0.0953 / 2): 1% more loss is 1.23x the compute.
    QVERIFY(std::abs(core::convergenceComputeMultiplier(1.01) - 1.232) < 0.002);
    QCOMPARE(core::convergenceComputeMultiplier(1.0), 1.0);
    QCOMPARE(core::convergenceComputeMultiplier(0.99), 1.0);
}

void TestLooseSync::outerStepExposure()
{
    core::DatacenterSyncOptions d;
    d.scheme = core::DatacenterSync::DiLoCo;
    d.innerSteps = 100;
    // Blocking: the whole all-reduce every 100 steps.
    QCOMPARE(core::outerExposedPerStepS(d, 1, 50.0, 10.0, 10.0), 0.5);
    d.scheme = core::DatacenterSync::StreamingDiLoCo;
    d.overlapSteps = 1;
    // 10 fragments of 5 s each under one 10 s step: hidden.
    QCOMPARE(core::outerExposedPerStepS(d, 10, 50.0, 10.0, 10.0), 0.0);
    // 2 fragments of 25 s: 15 s of each exposed, twice per 100 steps.
    QCOMPARE(core::outerExposedPerStepS(d, 2, 50.0, 10.0, 10.0), 0.3);
    // The link is busy with the pipeline for 9 of the 10 s: 4 s of each of 10 fragments exposed.
    QCOMPARE(core::outerExposedPerStepS(d, 10, 50.0, 10.0, 1.0), 0.4);
    // More than the link can carry in 100 steps' idle time: the excess is exposed whatever tau.
    d.overlapSteps = 1000;
    QCOMPARE(core::outerExposedPerStepS(d, 10, 5000.0, 10.0, 10.0), 40.0);
    // No overlap: as blocking.
    d.overlapSteps = 0;
    QCOMPARE(core::outerExposedPerStepS(d, 10, 50.0, 10.0, 10.0), 0.5);
}

void TestLooseSync::fragmentsDefaultToThreeLayers()
{
    core::Workload w;
    w.layers = 126;
    core::DatacenterSyncOptions d;
    d.scheme = core::DatacenterSync::StreamingDiLoCo;
    QCOMPARE(core::syncFragments(w, d), 42);
    d.fragments = 8;
    QCOMPARE(core::syncFragments(w, d), 8);
    d.fragments = 1000;
    QCOMPARE(core::syncFragments(w, d), 126);
    d.scheme = core::DatacenterSync::DiLoCo;
    QCOMPARE(core::syncFragments(w, d), 1);
}

void TestLooseSync::dilocoKeepsEachStepInsideItsDatacenter()
{
    const core::Evaluation sync =
        core::evaluate(dataParallelAcrossTwoBuildings(core::DatacenterSync::Synchronous));
    const core::Evaluation loose =
        core::evaluate(dataParallelAcrossTwoBuildings(core::DatacenterSync::DiLoCo));
    QVERIFY(sync.ok && loose.ok);
    QCOMPARE(sync.datacenterSync.replicas, 1);
    QCOMPARE(loose.datacenterSync.replicas, 2);
    QCOMPARE(loose.datacenterSync.innerSteps, 100);
    QVERIFY(loose.datacenterSync.outerStepS > 0.0);
    // bf16 pseudo-gradient of the GPU's 1/64 share of its 1/(8 x 16) of the model.
    const double params =
        core::modelParams(dataParallelAcrossTwoBuildings(core::DatacenterSync::DiLoCo).workload);
    QVERIFY(std::abs(loose.datacenterSync.outerBytesPerGpu / (2.0 * params / (8 * 16) / 64) - 1.0) <
            0.1);
    // The step no longer waits for the DCI: faster, and the DCI carries the outer all-reduce
    // once per H steps instead of the gradients every step.
    QVERIFY2(loose.iterationTimeS < sync.iterationTimeS,
             qPrintable(QString("%1 vs %2").arg(loose.iterationTimeS).arg(sync.iterationTimeS)));
    QVERIFY(dciBytesPerIteration(loose) < dciBytesPerIteration(sync) / 50.0);
    // The gradient-norm all-reduce for clipping stays in the datacenter: no 800 km round trip.
    QVERIFY2(
        loose.breakdown.overheadS < sync.breakdown.overheadS - 0.005,
        qPrintable(
            QString("%1 vs %2 s").arg(loose.breakdown.overheadS).arg(sync.breakdown.overheadS)));
    QVERIFY(loose.datacenterSync.outerExposedS > 0.0);
    QVERIFY(loose.datacenterSync.outerExposedS < loose.datacenterSync.outerStepS);
    // And pays in steps: 405B, M = 2, H = 100.
    QVERIFY(loose.datacenterSync.lossRatio > 1.0);
    QVERIFY(loose.datacenterSync.computeMultiplier > 1.05);
    QVERIFY(std::abs(loose.goodput.convergenceS -
                     loose.timeToTrainS * (loose.datacenterSync.computeMultiplier - 1.0)) <
            1e-6 * loose.timeToTrainS);
    const core::Goodput& g = loose.goodput;
    QVERIFY(std::abs(g.usefulS + g.convergenceS + g.degradedS + g.checkpointS + g.restartTotalS +
                     g.lostWorkS - g.effectiveTimeToTrainS) < 1e-6 * g.effectiveTimeToTrainS);
    // Streaming with 4-bit fragments hides its transfers under the next step.
    core::Scenario streaming =
        dataParallelAcrossTwoBuildings(core::DatacenterSync::StreamingDiLoCo);
    streaming.parallelism.datacenterSync.outerGradientBits = 4;
    const core::Evaluation st = core::evaluate(streaming);
    QVERIFY(st.ok);
    QVERIFY(
        std::abs(st.datacenterSync.outerBytesPerGpu * 4.0 / loose.datacenterSync.outerBytesPerGpu -
                 1.0) < 1e-9);
    QVERIFY(st.datacenterSync.outerExposedS < loose.datacenterSync.outerExposedS);
    QCOMPARE(st.datacenterSync.fragments, 42);
}

void TestLooseSync::failureStopsOnlyItsDatacenter()
{
    const core::Evaluation sync =
        core::evaluate(dataParallelAcrossTwoBuildings(core::DatacenterSync::Synchronous));
    const core::Evaluation loose =
        core::evaluate(dataParallelAcrossTwoBuildings(core::DatacenterSync::DiLoCo));
    QCOMPARE(sync.goodput.stalledShare, 1.0);
    QCOMPARE(loose.goodput.stalledShare, 0.5);
    // As many interruptions inside the buildings, but each stops half the job: a higher
    // effective training time. A cut of the DCI fibre stops the synchronous job until it is
    // spliced; under DiLoCo the buildings train on and the outer step waits.
    QVERIFY(sync.goodput.dciInterruptionsPerDay > 0.0);
    QCOMPARE(loose.goodput.dciInterruptionsPerDay, 0.0);
    QCOMPARE(loose.goodput.absorbedPerDay, sync.goodput.dciInterruptionsPerDay);
    QCOMPARE(loose.goodput.interruptionsPerDay,
             sync.goodput.interruptionsPerDay - sync.goodput.dciInterruptionsPerDay);
    QVERIFY(loose.goodput.ettr > sync.goodput.ettr);
}

void TestLooseSync::outerStateNeedsMemory()
{
    const core::Evaluation sync =
        core::evaluate(dataParallelAcrossTwoBuildings(core::DatacenterSync::Synchronous));
    const core::Evaluation loose =
        core::evaluate(dataParallelAcrossTwoBuildings(core::DatacenterSync::DiLoCo));
    // The optimizer shards over one building's 64 replicas, not 128, and the outer weights and
    // momentum (8 bytes a parameter) shard with it: (12 + 8) / 12 x 2 the optimizer memory.
    QVERIFY(std::abs(loose.memory.optimizerGib / sync.memory.optimizerGib - 20.0 / 12.0 * 2.0) <
            0.01);
    QCOMPARE(loose.memory.weightsGib, sync.memory.weightsGib);
    // Adam updates a twice larger shard (beside the gradient passes over all local parameters).
    QVERIFY2(
        loose.breakdown.optimizerS > sync.breakdown.optimizerS,
        qPrintable(
            QString("%1 vs %2 s").arg(loose.breakdown.optimizerS).arg(sync.breakdown.optimizerS)));
}

void TestLooseSync::noEffectWhenDataParallelStaysInside()
{
    // The preset's pipeline crosses the DCI, its data parallelism does not.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    QVERIFY(!core::dataParallelCrossesDatacenters(s));
    const core::Evaluation before = core::evaluate(s);
    s.parallelism.datacenterSync.scheme = core::DatacenterSync::DiLoCo;
    const core::Evaluation after = core::evaluate(s);
    QCOMPARE(after.datacenterSync.scheme, core::DatacenterSync::Synchronous);
    QCOMPARE(after.iterationTimeS, before.iterationTimeS);
    QCOMPARE(after.goodput.effectiveTimeToTrainS, before.goodput.effectiveTimeToTrainS);
    QVERIFY(core::dataParallelCrossesDatacenters(
        dataParallelAcrossTwoBuildings(core::DatacenterSync::DiLoCo)));
}

// The window evaluates every edit in one workspace: switching the scheme must not reuse the
// placement analysed (and warned about) under the other one.
void TestLooseSync::workspaceNamesTheSchemeInItsWarnings()
{
    const auto sharedDciWarning = [](const core::Evaluation& ev) {
        for (const core::Warning& w : ev.warnings)
            if (w.code == core::WarningCode::DciShared)
                return core::warningText(w);
        return std::string();
    };
    core::EvaluationWorkspace workspace;
    const core::Catalog& catalog = core::builtinCatalog();
    const core::Evaluation sync = core::evaluate(
        dataParallelAcrossTwoBuildings(core::DatacenterSync::Synchronous), catalog, {}, &workspace);
    QVERIFY2(sharedDciWarning(sync).find("DP all-reduce") != std::string::npos,
             sharedDciWarning(sync).c_str());
    const core::Evaluation loose = core::evaluate(
        dataParallelAcrossTwoBuildings(core::DatacenterSync::DiLoCo), catalog, {}, &workspace);
    QVERIFY2(sharedDciWarning(loose).find("DiLoCo outer all-reduce") != std::string::npos,
             sharedDciWarning(loose).c_str());
}

void TestLooseSync::roundTripAndBadInput()
{
    core::Scenario s = dataParallelAcrossTwoBuildings(core::DatacenterSync::StreamingDiLoCo);
    s.parallelism.datacenterSync.innerSteps = 30;
    s.parallelism.datacenterSync.outerGradientBits = 4;
    s.parallelism.datacenterSync.fragments = 12;
    s.parallelism.datacenterSync.overlapSteps = 2;
    const std::string text = core::serializeScenario(s);
    QVERIFY(text.find("\"streaming-diloco\"") != std::string::npos);
    const core::LoadResult back = core::parseScenario(text, "s.json");
    QVERIFY(back.ok());
    QVERIFY(back.scenario->parallelism.datacenterSync == s.parallelism.datacenterSync);
    // Synchronous is not written: older readers and files stay as they were.
    const std::string plain = core::serializeScenario(loadPreset("llama3-405b-two-buildings.json"));
    QVERIFY(plain.find("datacenter_sync") == std::string::npos);

    const auto firstError = [&](const std::string& from, const std::string& to) {
        std::string bad = text;
        const auto at = bad.find(from);
        if (at == std::string::npos)
            return std::string("not found: ") + from;
        bad.replace(at, from.size(), to);
        const core::LoadResult r = core::parseScenario(bad, "bad.json");
        return r.errors.empty() ? std::string("no error")
                                : r.errors.front().pointer + ": " + r.errors.front().message;
    };
    const std::string bits = firstError("\"outer_gradient_bits\": 4", "\"outer_gradient_bits\": 5");
    QVERIFY2(bits.rfind("/parallelism/datacenter_sync/outer_gradient_bits:", 0) == 0, bits.c_str());
    const std::string scheme = firstError("\"streaming-diloco\"", "\"localsgd\"");
    QVERIFY2(scheme.rfind("/parallelism/datacenter_sync/scheme:", 0) == 0, scheme.c_str());
    QVERIFY2(scheme.find("diloco") != std::string::npos, scheme.c_str());
    const std::string steps = firstError("\"inner_steps\": 30", "\"inner_steps\": 0");
    QVERIFY2(steps.rfind("/parallelism/datacenter_sync/inner_steps:", 0) == 0, steps.c_str());
}

QTEST_APPLESS_MAIN(TestLooseSync)
#include "test_loosesync.moc"
