// Properties the cost model must satisfy whatever its calibration.
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace archipelago::core;

namespace {

// 64 A100s in 8-GPU domains, a 13B-class GPT, TP 4 x PP 4 x DP 4.
Scenario baseScenario()
{
    Scenario s;
    Datacenter dc;
    dc.id = 0;
    dc.name = "dc";
    dc.accelerator = "A100-SXM4-80GB";
    dc.fabric.kind = FabricKind::Clos;
    Pod pod;
    pod.count = 1;
    pod.domainsPerPod = 8;
    pod.gpusPerDomain = 8;
    dc.pods.push_back(pod);
    s.topology.datacenters.push_back(dc);
    Workload& w = s.workload;
    w.layers = 40;
    w.hidden = 5120;
    w.heads = 40;
    w.kvHeads = 40;
    w.ffnHidden = 20480;
    w.vocab = 50304;
    w.seqLen = 2048;
    w.globalBatch = 128;
    s.parallelism.tp = 4;
    s.parallelism.pp = 4;
    s.parallelism.sequenceParallel = true;
    s.parallelism.recompute = Recompute::Selective;
    s.parallelism.distributedOptimizer = true;
    return s;
}

double partsSum(const Breakdown& b)
{
    return b.forwardS + b.backwardS + b.recomputeS + b.tpCommS + b.cpCommS + b.epCommS + b.ppCommS +
           b.dpCommS + b.optimizerS + b.bubbleS + b.interferenceS + b.variabilityS + b.overheadS;
}

} // namespace

class TestCostModelProperties : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void breakdownSumsToIterationTime_data();
    void breakdownSumsToIterationTime();
    void moreBandwidthNeverSlower();
    void moreMicroBatchesNeverRaiseBubble();
    void largerTpNeverRaisesWeightMemory();
    void utilisationBounded();
    void invalidScenariosAreRejected();
    void unrunnableSchedulesFallBackWithWarning();
};

void TestCostModelProperties::initTestCase()
{
    if (!builtinCatalog().accelerator("A100-SXM4-80GB"))
        QSKIP("the built-in catalog has no A100-SXM4-80GB entry");
}

void TestCostModelProperties::breakdownSumsToIterationTime_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("recompute");
    QTest::addColumn<bool>("overlapDp");
    QTest::newRow("1f1b selective") << int(ScheduleKind::OneFOneB) << 1 << 1 << true;
    QTest::newRow("1f1b full no overlap") << int(ScheduleKind::OneFOneB) << 1 << 2 << false;
    QTest::newRow("interleaved") << int(ScheduleKind::Interleaved1F1B) << 2 << 0 << true;
    QTest::newRow("gpipe") << int(ScheduleKind::GPipe) << 1 << 2 << true;
    QTest::newRow("zb-h1") << int(ScheduleKind::ZeroBubbleH1) << 1 << 1 << false;
}

void TestCostModelProperties::breakdownSumsToIterationTime()
{
    QFETCH(int, schedule);
    QFETCH(int, v);
    QFETCH(int, recompute);
    QFETCH(bool, overlapDp);
    Scenario s = baseScenario();
    s.schedule.kind = ScheduleKind(schedule);
    s.parallelism.virtualStages = v;
    s.parallelism.recompute = Recompute(recompute);
    s.parallelism.overlap.dpGradReduce = overlapDp;
    const Evaluation ev = evaluate(s);
    QVERIFY(ev.ok);
    QVERIFY(ev.iterationTimeS > 0.0);
    // Identity: every second of the iteration is in exactly one part (costmodel.cpp).
    QVERIFY(std::abs(partsSum(ev.breakdown) / ev.iterationTimeS - 1.0) < 1e-9);
    QVERIFY(ev.breakdown.bubbleS >= 0.0);
}

void TestCostModelProperties::moreBandwidthNeverSlower()
{
    Scenario s = baseScenario();
    AcceleratorSpec a = *builtinCatalog().accelerator("A100-SXM4-80GB");
    double previous = 1e300;
    for (double scale : {0.25, 0.5, 1.0, 2.0, 4.0}) {
        AcceleratorSpec faster = a;
        faster.scaleUpGBpsPerDirection = a.scaleUpGBpsPerDirection * scale;
        faster.nicGbps = a.nicGbps * scale;
        s.catalogOverrides.accelerators = {faster};
        const Evaluation ev = evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY2(ev.iterationTimeS <= previous * (1.0 + 1e-12),
                 qPrintable(QString("x%1: %2 s").arg(scale).arg(ev.iterationTimeS)));
        previous = ev.iterationTimeS;
    }
}

void TestCostModelProperties::moreMicroBatchesNeverRaiseBubble()
{
    Scenario s = baseScenario();
    double previous = 1.0;
    for (int batch : {16, 32, 64, 128, 256, 512}) {
        s.workload.globalBatch = batch;
        const Evaluation ev = evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY(ev.bubbleRatio <= previous + 1e-12);
        previous = ev.bubbleRatio;
    }
}

void TestCostModelProperties::largerTpNeverRaisesWeightMemory()
{
    Scenario s = baseScenario();
    s.parallelism.pp = 1;
    s.workload.globalBatch = 512;
    double previous = 1e300;
    for (int tp : {1, 2, 4, 8}) {
        s.parallelism.tp = tp;
        const Evaluation ev = evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY(ev.memory.weightsGib <= previous);
        previous = ev.memory.weightsGib;
    }
}

void TestCostModelProperties::utilisationBounded()
{
    Scenario s = baseScenario();
    for (int rc : {0, 1, 2}) {
        s.parallelism.recompute = Recompute(rc);
        const Evaluation ev = evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY(ev.mfu > 0.0 && ev.mfu <= 1.0);
        QVERIFY(ev.hfu >= ev.mfu && ev.hfu <= 1.0);
        QVERIFY(ev.bubbleRatio >= 0.0 && ev.bubbleRatio < 1.0);
        QCOMPARE(ev.gpus, std::int64_t{64});
        QVERIFY(ev.tokensPerS > 0.0 && ev.gpuHoursToTrain > 0.0);
    }
}

void TestCostModelProperties::invalidScenariosAreRejected()
{
    Scenario s = baseScenario();
    s.parallelism.tp = 3; // does not divide 40 heads nor 64 GPUs
    QVERIFY(!evaluate(s).ok);
    s = baseScenario();
    s.topology.datacenters[0].accelerator = "no-such-gpu";
    const Evaluation ev = evaluate(s);
    QVERIFY(!ev.ok);
    QVERIFY(!ev.warnings.empty());
    s = baseScenario();
    s.workload.globalBatch = 100; // not a multiple of dp 4 x micro-batch... 100/4 ok, 25 mb
    s.parallelism.microBatch = 8;
    QVERIFY(!evaluate(s).ok);
}

// evaluate() never fails on a schedule the pipeline simulator cannot run as given: it adjusts
// and says why.
void TestCostModelProperties::unrunnableSchedulesFallBackWithWarning()
{
    auto hasWarning = [](const Evaluation& ev, const char* key) {
        const std::optional<WarningCode> code = warningCodeFromString(key);
        if (!code)
            qFatal("unknown warning code %s", key);
        return std::any_of(ev.warnings.begin(), ev.warnings.end(),
                           [&](const Warning& w) { return w.code == *code; });
    };
    Scenario s = baseScenario();
    s.schedule.kind = ScheduleKind::OneFOneB;
    s.parallelism.virtualStages = 2; // v > 1 without interleaving: evaluated with v = 1
    Evaluation ev = evaluate(s);
    QVERIFY(ev.ok);
    QVERIFY(hasWarning(ev, "virtual-stages-ignored"));
    s = baseScenario();
    s.schedule.kind = ScheduleKind::Interleaved1F1B;
    s.parallelism.virtualStages = 2;
    s.workload.globalBatch = 24; // dp 4 -> 6 micro-batches, not a multiple of pp 4
    ev = evaluate(s);
    QVERIFY(ev.ok);
    QVERIFY(hasWarning(ev, "interleaving-fallback"));
    QVERIFY(ev.iterationTimeS > 0.0);
}

QTEST_APPLESS_MAIN(TestCostModelProperties)
#include "test_costmodel_properties.moc"
