// Fixed per-iteration work and the wait for the slowest GPU (evaluation/iterationoverhead.h):
// the order statistics, the tied embedding's all-reduce between the first and last stage, the
// gradient norm's collective, and how both rows grow with the job.
#include "evaluation/costmodel.h"
#include "evaluation/iterationoverhead.h"
#include "io/scenarioio.h"

#include <QtTest>

#include <cmath>

using namespace archipelago::core;

namespace {

// `domains` 8-GPU A100 domains in one datacenter (or split over two joined by a DCI link), a
// GPT-3-like 24-layer model, TP 8 x PP 4.
Scenario scenario(int domains, bool twoBuildings = false, double km = 10.0)
{
    Scenario s;
    for (int i = 0; i < (twoBuildings ? 2 : 1); ++i) {
        Datacenter dc;
        dc.id = i;
        dc.name = i == 0 ? "a" : "b";
        dc.accelerator = "A100-SXM4-80GB";
        dc.fabric.kind = FabricKind::Clos;
        Pod pod;
        pod.domainsPerPod = twoBuildings ? domains / 2 : domains;
        pod.gpusPerDomain = 8;
        dc.pods.push_back(pod);
        s.topology.datacenters.push_back(dc);
    }
    if (twoBuildings) {
        DciLink link;
        link.id = 0;
        link.a = 0;
        link.b = 1;
        link.distanceKm = km;
        s.topology.links.push_back(link);
    }
    Workload& w = s.workload;
    w.layers = 24;
    w.hidden = 4096;
    w.heads = 32;
    w.kvHeads = 32;
    w.ffnHidden = 16384;
    w.vocab = 51200;
    w.seqLen = 2048;
    w.globalBatch = domains * 2;
    s.parallelism.tp = 8;
    s.parallelism.pp = 4;
    s.parallelism.sequenceParallel = true;
    s.parallelism.distributedOptimizer = true;
    if (twoBuildings) {
        // PP across: stages 0-1 in a, 2-3 in b.
        const int replicas = domains / 4;
        s.placement.shards.push_back(PlacementShard(replicas, {0, 0, 1, 1}));
    }
    return s;
}

} // namespace

class TestIterationOverhead : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void normalQuantileInvertsTheCdf();
    void expectedMaximumOfNormals();
    void variabilityGrowsWithTheJob();
    void variabilityIsItsOwnRow();
    void tiedEmbeddingAllReduceOnlyWithPipelines();
    void tiedEmbeddingCrossesTheDciWhenStagesDo();
    void gradientNormGrowsWithTheJob();
};

void TestIterationOverhead::initTestCase()
{
    if (!builtinCatalog().accelerator("A100-SXM4-80GB"))
        QSKIP("the built-in catalog has no A100-SXM4-80GB entry");
}

void TestIterationOverhead::normalQuantileInvertsTheCdf()
{
    for (double p : {1e-12, 1e-6, 0.01, 0.02425, 0.1, 0.5, 0.7, 0.97575, 0.999, 1.0 - 1e-9}) {
        const double x = normalQuantile(p);
        const double back = 0.5 * std::erfc(-x / std::sqrt(2.0));
        QVERIFY2(std::abs(back - p) <= 1e-12 * std::max(1.0, p / (1.0 - p)) + 1e-15 * p,
                 qPrintable(QString("p %1 -> x %2 -> %3").arg(p).arg(x).arg(back)));
    }
    QCOMPARE(normalQuantile(0.5), 0.0);
    QVERIFY(std::isinf(normalQuantile(0.0)) && normalQuantile(0.0) < 0.0);
    QVERIFY(std::isinf(normalQuantile(1.0)) && normalQuantile(1.0) > 0.0);
}

void TestIterationOverhead::expectedMaximumOfNormals()
{
    // Exact expected maxima of n standard normals (Harter 1961, "Expected values of normal
    // order statistics", Biometrika 48, Table 1): 0.5642 (n = 2), 1.5388 (10), 2.5076 (100),
    // 3.2414 (1000). Blom's position is within 5% at n = 2 and 1% from n = 10.
    QCOMPARE(expectedMaxStandardNormal(1.0), 0.0);
    QVERIFY(std::abs(expectedMaxStandardNormal(2.0) / 0.5642 - 1.0) < 0.05);
    QVERIFY(std::abs(expectedMaxStandardNormal(10.0) / 1.5388 - 1.0) < 0.01);
    QVERIFY(std::abs(expectedMaxStandardNormal(100.0) / 2.5076 - 1.0) < 0.01);
    QVERIFY(std::abs(expectedMaxStandardNormal(1000.0) / 3.2414 - 1.0) < 0.01);
    // Growth like sqrt(2 ln n): never faster.
    for (double n : {1e4, 1e5, 1e6})
        QVERIFY(expectedMaxStandardNormal(n) < std::sqrt(2.0 * std::log(n)));
}

void TestIterationOverhead::variabilityGrowsWithTheJob()
{
    EfficiencyParams eff;
    eff.gpuSpeedCv = 0.01;
    QCOMPARE(variabilityS(10.0, 1, eff), 0.0);
    double previous = 0.0;
    for (std::int64_t gpus : {8, 64, 1024, 16384, 131072}) {
        const double v = variabilityS(10.0, gpus, eff);
        QVERIFY(v > previous);
        previous = v;
    }
    // 1% spread over 16,384 GPUs: the slowest is about 4 standard deviations out.
    const double at16k = variabilityS(10.0, 16384, eff) / 10.0;
    QVERIFY2(at16k > 0.037 && at16k < 0.043, qPrintable(QString::number(at16k)));
    eff.gpuSpeedCv = 0.0;
    QCOMPARE(variabilityS(10.0, 16384, eff), 0.0);
}

void TestIterationOverhead::variabilityIsItsOwnRow()
{
    const Evaluation small = evaluate(scenario(8));
    const Evaluation large = evaluate(scenario(64));
    QVERIFY(small.ok && large.ok);
    const auto share = [](const Evaluation& e) {
        const Breakdown& b = e.breakdown;
        return b.variabilityS / (b.forwardS + b.backwardS + b.recomputeS);
    };
    QVERIFY(small.breakdown.variabilityS > 0.0);
    QVERIFY(share(large) > share(small));
}

void TestIterationOverhead::tiedEmbeddingAllReduceOnlyWithPipelines()
{
    Scenario s = scenario(8);
    const Evaluation untied = evaluate(s);
    s.workload.tiedEmbeddings = true;
    const Evaluation tied = evaluate(s);
    QVERIFY(untied.ok && tied.ok);
    // V x h / TP fp32 gradients, 51,200 x 4,096 / 8 x 4 B = 105 MB, once each way over the
    // fabric between the first and last stage's nodes (25 GB/s HDR at NCCL's bus efficiency).
    const double added = tied.breakdown.overheadS - untied.breakdown.overheadS;
    QVERIFY2(added > 105e6 / 25e9 && added < 2.0 * 105e6 / 25e9,
             qPrintable(QString::number(added)));
    QVERIFY(tied.iterationTimeS > untied.iterationTimeS);
    // No pipeline: one copy of the embedding, nothing to all-reduce.
    s.parallelism.pp = 1;
    const Evaluation onePipe = evaluate(s);
    s.workload.tiedEmbeddings = false;
    const Evaluation onePipeUntied = evaluate(s);
    QVERIFY(onePipe.ok && onePipeUntied.ok);
    QCOMPARE(onePipe.breakdown.overheadS, onePipeUntied.breakdown.overheadS);
}

void TestIterationOverhead::tiedEmbeddingCrossesTheDciWhenStagesDo()
{
    Scenario near = scenario(16, true, 10.0);
    Scenario far = scenario(16, true, 1000.0);
    near.workload.tiedEmbeddings = far.workload.tiedEmbeddings = true;
    const Evaluation n = evaluate(near);
    const Evaluation f = evaluate(far);
    QVERIFY(n.ok && f.ok);
    // The first stage is in a, the last in b: the all-reduce pays the DCI route, 1,000 km
    // being ~4.9 ms one way, twice (n = 2 ring) at the least.
    QVERIFY2(f.breakdown.overheadS - n.breakdown.overheadS > 2.0 * 990.0 * 4.8e-6,
             qPrintable(QString("%1 vs %2").arg(f.breakdown.overheadS).arg(n.breakdown.overheadS)));
}

void TestIterationOverhead::gradientNormGrowsWithTheJob()
{
    Scenario s = scenario(8);
    const Evaluation small = evaluate(s);
    const Evaluation large = evaluate(scenario(512));
    QVERIFY(small.ok && large.ok);
    // Untied, single building: the norm's all-reduce alone, tens of microseconds, growing with
    // log2 of the nodes (NCCL's tree).
    QVERIFY(small.breakdown.overheadS > 10e-6 && small.breakdown.overheadS < 200e-6);
    QVERIFY(large.breakdown.overheadS > small.breakdown.overheadS);
    // Unsharded optimizer: only the model-parallel group (TP x PP) takes part.
    s.parallelism.distributedOptimizer = false;
    const Evaluation unsharded = evaluate(s);
    QVERIFY(unsharded.ok);
    QVERIFY(unsharded.breakdown.overheadS <= small.breakdown.overheadS);
}

QTEST_GUILESS_MAIN(TestIterationOverhead)
#include "test_iterationoverhead.moc"
