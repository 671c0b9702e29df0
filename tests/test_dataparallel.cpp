// The data-parallel pass (evaluation/datacost.cpp) on hand-built pipeline timings: gradient
// buckets reduce as the timeline makes them ready, weight all-gathers must land before each
// chunk's first forward, and a DCI link is shared with the pipeline's transfers.
#include "evaluation/datacost.h"
#include "io/scenarioio.h"
#include "network/placement.h"
#include "scenariofixtures.h"

#include <QtTest>

using namespace archipelago::core;

class TestDataParallel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void bucketsReadyEarlyHideEverything();
    void bucketsReadyLateExposeTheTail();
    void laterReadinessNeverExposesLess();
    void gatherHidesUnderALateFirstForward();
    void overlapOffExposesWhatTheDrainCannotHide();
    void dciLinkSharedWithPipelineTransfers();
};

namespace {

constexpr const char* kA100 = "A100-SXM4-80GB";

// One rank, one chunk of 24 layers, TP 8, DP 32 over one datacenter's leaves.
Scenario dpScenario()
{
    Scenario s = archipelago::tests::a100GptScenario(32);
    s.workload.globalBatch = 256;
    Parallelism& par = s.parallelism;
    par.tp = 8;
    par.pp = 1;
    par.distributedOptimizer = true;
    par.overlap = OverlapOptions{true, true, false, true, false, true};
    return s;
}

struct Fixture
{
    Scenario s = dpScenario();
    PlacementAnalysis pl;
    std::vector<const AcceleratorSpec*> accel;
    std::vector<ChunkSpec> chunks;
    std::vector<ChunkParts> parts;

    Fixture()
    {
        pl = analyzePlacement(s, builtinCatalog());
        accel = {builtinCatalog().accelerator(kA100)};
        ChunkSpec ch;
        ch.denseLayers = s.workload.layers;
        ch.first = ch.last = true;
        chunks = {ch};
        ChunkParts p;
        p.forwardPass = 0.1;
        p.backwardPass = 0.2;
        parts = {p};
    }

    // A pipeline that ends at `makespanS`; the chunk's last backward spans [readyStart,
    // readyEnd] and its first forward starts at `firstForward`.
    PipelineResult pipe(double makespanS, double readyStart, double readyEnd,
                        double firstForward = 0.0) const
    {
        PipelineResult r;
        r.makespanS = r.periodS = makespanS;
        r.finishS = {readyEnd};
        r.busyS = {makespanS};
        r.gradReadyStartS = {readyStart};
        r.gradReadyEndS = {readyEnd};
        r.firstForwardStartS = {firstForward};
        return r;
    }

    DataParallelCost cost(const PipelineResult& r) const
    {
        return dataParallelCost(s, s.parallelism, pl, accel, chunks, parts, r, nullptr);
    }
};

} // namespace

void TestDataParallel::initTestCase()
{
    if (!builtinCatalog().accelerator(kA100))
        QSKIP("the built-in catalog has no A100-SXM4-80GB entry");
    Fixture f;
    QVERIFY(f.pl.dp.size() == 32);
}

void TestDataParallel::bucketsReadyEarlyHideEverything()
{
    // Gradients final at 1 s of a 100 s pipeline: every bucket is reduced long before the end
    // (a plain all-reduce: no weight all-gather without the distributed optimizer).
    Fixture f;
    f.s.parallelism.distributedOptimizer = false;
    const DataParallelCost c = f.cost(f.pipe(100.0, 0.5, 1.0, 0.0));
    QVERIFY(c.gradientS > 0.0);
    QCOMPARE(c.exposedS, 0.0);
    // The same reduction with the last backward ending at the pipeline's end is exposed.
    QVERIFY(f.cost(f.pipe(100.0, 99.5, 100.0, 0.0)).exposedS > 0.0);
}

void TestDataParallel::bucketsReadyLateExposeTheTail()
{
    // The last backward ends at the makespan: at least the last bucket's reduction is exposed,
    // and at most the whole reduction.
    Fixture f;
    f.s.parallelism.overlap.dpParamGather = false;
    Fixture off;
    off.s.parallelism.overlap = f.s.parallelism.overlap;
    off.s.parallelism.overlap.dpGradReduce = false;
    const DataParallelCost late = f.cost(f.pipe(10.0, 9.8, 10.0));
    const DataParallelCost unhidden = off.cost(off.pipe(10.0, 9.8, 10.0));
    QVERIFY(late.exposedS > 0.0);
    QVERIFY(late.exposedS < unhidden.exposedS);
}

void TestDataParallel::laterReadinessNeverExposesLess()
{
    Fixture f;
    f.s.parallelism.overlap.dpParamGather = false;
    double previous = -1.0;
    for (double end : {2.0, 5.0, 8.0, 9.5, 9.9, 10.0}) {
        const DataParallelCost c = f.cost(f.pipe(10.0, end - 0.2, end));
        QVERIFY2(c.exposedS >= previous - 1e-12,
                 qPrintable(
                     QString("ready at %1 s: %2 s < %3 s").arg(end).arg(c.exposedS).arg(previous)));
        previous = c.exposedS;
    }
}

void TestDataParallel::gatherHidesUnderALateFirstForward()
{
    // A rank whose first forward waits (a later pipeline stage) has the gather done by then;
    // rank 0, starting at once, waits for at least its first bucket.
    Fixture f;
    f.s.parallelism.overlap.dpGradReduce = false;
    const DataParallelCost atOnce = f.cost(f.pipe(10.0, 0.0, 0.0, 0.0));
    const DataParallelCost waited = f.cost(f.pipe(10.0, 0.0, 0.0, 5.0));
    QVERIFY(atOnce.exposedS > waited.exposedS);
    QCOMPARE(waited.exposedS, 0.0);
}

void TestDataParallel::overlapOffExposesWhatTheDrainCannotHide()
{
    // Without overlap the reduction starts when the rank's own last backward ends: the drain
    // of the other ranks (makespan - finish) hides that much of it, no more.
    Fixture f;
    f.s.parallelism.overlap.dpGradReduce = false;
    f.s.parallelism.overlap.dpParamGather = false;
    const DataParallelCost atEnd = f.cost(f.pipe(10.0, 10.0, 10.0));
    const double drain = 0.5 * atEnd.exposedS;
    const DataParallelCost early = f.cost(f.pipe(10.0, 10.0 - drain, 10.0 - drain));
    QVERIFY(atEnd.exposedS > 0.0);
    QVERIFY2(
        std::abs(atEnd.exposedS - early.exposedS - drain) < 1e-9 * atEnd.exposedS + 1e-12,
        qPrintable(QString("%1 - %2 vs %3").arg(atEnd.exposedS).arg(early.exposedS).arg(drain)));
}

void TestDataParallel::dciLinkSharedWithPipelineTransfers()
{
    // Two datacenters, DP across the link: the pipeline's transfers keep the link busy for a
    // while; the gradient reduction over it cannot finish before the link has carried both.
    Fixture f;
    Datacenter second = f.s.topology.datacenters.front();
    second.id = 1;
    second.name = "dc-b";
    f.s.topology.datacenters.front().pods.front().domainsPerPod = 16;
    second.pods.front().domainsPerPod = 16;
    f.s.topology.datacenters.push_back(second);
    DciLink link;
    link.id = 0;
    link.a = 0;
    link.b = 1;
    link.wavelengths = 1;
    f.s.topology.links.push_back(link);
    f.s.placement.shards = {PlacementShard{}, PlacementShard{}};
    f.s.placement.shards[0].dpReplicas = 16;
    f.s.placement.shards[0].stageDatacenters = {0};
    f.s.placement.shards[1].dpReplicas = 16;
    f.s.placement.shards[1].stageDatacenters = {1};
    f.s.parallelism.overlap.dpParamGather = false;
    f.pl = analyzePlacement(f.s, builtinCatalog());
    QVERIFY(f.pl.dp.crossesDci());

    PipelineResult quiet = f.pipe(10.0, 1.0, 2.0);
    PipelineResult busy = quiet;
    for (const bool fromA : {true, false}) {
        PipelineResourceUsage u;
        u.dciLinkId = 0;
        u.fromA = fromA;
        u.busyS = 9.0;
        u.busyIntervals = {{1.0, 10.0}};
        busy.resources.push_back(u);
    }
    const DataParallelCost alone = f.cost(quiet);
    const DataParallelCost shared = f.cost(busy);
    // The link is busy with pipeline transfers for 9 of the 10 s: what the gradients need of it
    // spills past the pipeline's end.
    QVERIFY2(shared.exposedS > alone.exposedS,
             qPrintable(QString("%1 vs %2 s").arg(shared.exposedS).arg(alone.exposedS)));
}

QTEST_GUILESS_MAIN(TestDataParallel)
#include "test_dataparallel.moc"
