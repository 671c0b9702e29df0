// The sweep's lower bound on iteration time (explore/lowerbound.h): never above the evaluated
// iteration time on any point of the default space of every preset and of the published runs,
// tight enough to prune, and the BoundFilter's decisions against a sweep's results.
#include "compute/computemodel.h"
#include "evaluation/costmodel.h"
#include "explore/lowerbound.h"
#include "explore/memoryestimate.h"
#include "explore/searchspace.h"
#include "io/placementrepair.h"
#include "io/scenarioio.h"
#include "model/shapecheck.h"
#include "validation/publishedruns.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

using namespace archipelago::core;

namespace {

struct Case
{
    Scenario scenario;
    Catalog catalog;
};

std::vector<Case> casesOf(const QString& source)
{
    std::vector<Case> out;
    if (source.endsWith(QStringLiteral("runs.json"))) {
        const PublishedRunsLoad load = loadPublishedRuns(source.toStdString());
        for (const PublishedRun& run : load.runs) {
            Scenario sc = scenarioForRun(run, builtinCatalog()).scenario;
            Catalog catalog = effectiveCatalog(sc);
            out.push_back({std::move(sc), std::move(catalog)});
        }
        return out;
    }
    const LoadResult load = loadScenarioFile(source.toStdString());
    if (load.ok())
        out.push_back({*load.scenario, effectiveCatalog(*load.scenario)});
    return out;
}

EvaluateOptions leanOptions()
{
    EvaluateOptions o;
    o.timeline = false;
    o.warnings = false;
    o.billOfMaterials = false;
    o.attribution = false;
    return o;
}

// Under AddressSanitizer (about ten times slower) every fourth point: the property is the same
// on each, the release run checks them all, and the sanitizers still see every code path.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kPointStride = 4;
#else
constexpr int kPointStride = 1;
#endif

// Every point of the default space (explore/searchspace.h) around `base` that the cost model
// evaluates: the placement re-made per (TP, CP, PP, EP) shape as the sweep does
// (io/placementrepair.h), then every schedule, v, micro-batch, extra warm-up, recompute, ZeRO
// stage and distributed optimizer; `visit` gets each scenario and its evaluation.
template <typename Visit>
void forEachPoint(const Scenario& base, const Catalog& catalog, Visit visit)
{
    const SearchSpace space = defaultSearchSpace(base);
    EvaluationWorkspace workspace;
    int visited = 0;
    for (const int tp : space.tp)
        for (const int cp : space.cp)
            for (const int pp : space.pp)
                for (const int ep : space.ep) {
                    Scenario edited = base;
                    edited.parallelism.tp = tp;
                    edited.parallelism.cp = cp;
                    edited.parallelism.pp = pp;
                    edited.parallelism.ep = ep;
                    edited.parallelism.virtualStages = 1;
                    edited.schedule.kind = ScheduleKind::OneFOneB;
                    edited.parallelism.sequenceParallel =
                        base.parallelism.sequenceParallel && tp > 1;
                    const PlacementRepair repair = repairPlacement(edited, base, catalog);
                    if (!repair.scenario)
                        continue;
                    Scenario sc = *repair.scenario;
                    for (const ScheduleKind kind : space.schedules)
                        for (const int v : space.virtualStages)
                            for (const int mb : space.microBatch)
                                for (const int extra : space.extraInFlightAtDci)
                                    for (const Recompute rc : space.recompute)
                                        for (const int zero : space.zeroStage)
                                            for (const bool dopt : space.distributedOptimizer) {
                                                sc.schedule.kind = kind;
                                                sc.schedule.extraInFlightAtDci = extra;
                                                sc.parallelism.virtualStages = v;
                                                sc.parallelism.microBatch = mb;
                                                sc.parallelism.recompute = rc;
                                                sc.parallelism.zeroStage = zero;
                                                sc.parallelism.distributedOptimizer = dopt;
                                                if (checkCostModelShape(sc, catalog).hasErrors() ||
                                                    ++visited % kPointStride != 0)
                                                    continue;
                                                const Evaluation ev = evaluate(
                                                    sc, catalog, leanOptions(), &workspace);
                                                if (ev.ok)
                                                    visit(sc, ev);
                                            }
                }
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    std::nth_element(values.begin(), values.begin() + std::ssize(values) / 2, values.end());
    return values[values.size() / 2];
}

BoundFilterState::TopList fullList(double lastValue, double lastTimeS)
{
    return {true, lastValue, lastTimeS};
}

} // namespace

class TestLowerBound : public QObject
{
    Q_OBJECT

private slots:
    void boundNeverExceedsEvaluation_data();
    void boundNeverExceedsEvaluation();
    void layerFlopsAreTheComputeModels();
    void pipelineFillIsCounted();
    void timeToTrainIsTheCostModels();
    void stopIfOutOfMemoryKeepsFittingPoints();
    void filter_data();
    void filter();
    void effectiveTimeToTrainIsBoundedByTimeToTrain();
    void filterUsesTheBestFrontPoint();
};

void TestLowerBound::boundNeverExceedsEvaluation_data()
{
    // minMedian: the median of bound / iteration time must exceed it (tight enough to prune).
    // The MoE preset's iteration is mostly expert all-to-all and memory-bound expert work,
    // which compute at peak leaves out.
    QTest::addColumn<QString>("source");
    QTest::addColumn<double>("minMedian");
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(fs::path(ARCHIPELAGO_SOURCE_DIR) / "presets"))
        if (entry.path().extension() == ".json")
            files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
        const std::string name = fs::path(f).stem().string();
        QTest::newRow(name.c_str())
            << QString::fromStdString(f) << (name.find("moe") != std::string::npos ? 0.15 : 0.6);
    }
    QTest::newRow("published-runs")
        << QStringLiteral(ARCHIPELAGO_VALIDATION_DIR "/published-runs.json") << 0.6;
    QTest::newRow("hopper-runs") << QStringLiteral(ARCHIPELAGO_TEST_DATA "/hopper-runs.json")
                                 << 0.6;
}

void TestLowerBound::boundNeverExceedsEvaluation()
{
    QFETCH(QString, source);
    QFETCH(double, minMedian);
    const std::vector<Case> cases = casesOf(source);
    QVERIFY(!cases.empty());
    std::vector<double> ratios;
    int checked = 0;
    for (const Case& c : cases) {
        forEachPoint(c.scenario, c.catalog, [&](const Scenario& sc, const Evaluation& ev) {
            const double bound = iterationTimeLowerBoundS(sc, c.catalog);
            if (!(bound <= ev.iterationTimeS))
                QFAIL(qPrintable(QStringLiteral("bound %1 s > evaluated %2 s (tp %3 pp %4 v %5 "
                                                "mb %6 schedule %7 recompute %8)")
                                     .arg(bound, 0, 'g', 17)
                                     .arg(ev.iterationTimeS, 0, 'g', 17)
                                     .arg(sc.parallelism.tp)
                                     .arg(sc.parallelism.pp)
                                     .arg(sc.parallelism.virtualStages)
                                     .arg(sc.parallelism.microBatch)
                                     .arg(static_cast<int>(sc.schedule.kind))
                                     .arg(static_cast<int>(sc.parallelism.recompute))));
            // The filter also trusts the memory bound (explore/memoryestimate.h).
            QVERIFY(memoryLowerBoundGib(sc, dataParallel(sc)) <= ev.memoryPeakGib);
            QVERIFY(timeToTrainS(sc.workload, bound) <= ev.timeToTrainS);
            ratios.push_back(bound / ev.iterationTimeS);
            ++checked;
        });
    }
    QVERIFY(checked > 0);
    const double med = median(ratios);
    qInfo("%s: %d points, bound / iteration time: median %.3f, min %.3f, max %.3f",
          qPrintable(QFileInfo(source).baseName()), checked, med,
          *std::min_element(ratios.begin(), ratios.end()),
          *std::max_element(ratios.begin(), ratios.end()));
    // Tight enough to prune: compute at peak is most of an iteration of a sensible point.
    QVERIFY2(med > minMedian, qPrintable(QString::number(med)));
}

void TestLowerBound::layerFlopsAreTheComputeModels()
{
    // The bound counts exactly the GEMM work the compute model times (a drift would make the
    // bound unsafe or loose): every layer shape of every preset's default space.
    namespace fs = std::filesystem;
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(ARCHIPELAGO_SOURCE_DIR) / "presets")) {
        if (entry.path().extension() != ".json")
            continue;
        const std::vector<Case> cases = casesOf(QString::fromStdString(entry.path().string()));
        for (const Case& c : cases) {
            const AcceleratorSpec* accel =
                c.catalog.accelerator(c.scenario.topology.datacenters.front().accelerator);
            QVERIFY(accel);
            const SearchSpace space = defaultSearchSpace(c.scenario);
            for (const int tp : space.tp)
                for (const int mb : space.microBatch)
                    for (const bool moe : {false, true}) {
                        Parallelism par = c.scenario.parallelism;
                        par.tp = tp;
                        par.microBatch = mb;
                        const LayerGemmFlops f = layerGemmFlops(
                            c.scenario.workload, par, moe, fusedAttention(*accel, par.kernels));
                        const double model =
                            layerCompute(c.scenario.workload, par, moe, *accel).forwardFlops;
                        QVERIFY2(std::abs(f.gemm + f.attention - model) <= 1e-12 * model,
                                 qPrintable(entry.path().stem().string().c_str()));
                        ++checked;
                    }
        }
    }
    QVERIFY(checked > 0);
}

void TestLowerBound::pipelineFillIsCounted()
{
    // 1F1B on equal stages: the bound is the busiest rank's work times (m + p - 1) / m, the
    // schedule's minimal makespan, so fewer micro-batches per iteration raise its share.
    const LoadResult load =
        loadScenarioFile(std::string(ARCHIPELAGO_SOURCE_DIR "/presets/gpt3-175b-1024-a100.json"));
    QVERIFY(load.ok());
    Scenario sc = *load.scenario;
    const Catalog catalog = effectiveCatalog(sc);
    sc.schedule.kind = ScheduleKind::OneFOneB;
    sc.parallelism.virtualStages = 1;
    sc.placement.layersPerStage.clear();
    const double oneFOneB = iterationTimeLowerBoundS(sc, catalog);
    sc.schedule.kind = ScheduleKind::ZeroBubbleH2; // its period has no fill
    const double steady = iterationTimeLowerBoundS(sc, catalog);
    QVERIFY(steady > 0.0);
    const double m = static_cast<double>(microBatchesPerIteration(sc));
    const double p = sc.parallelism.pp;
    // The output layer makes the last stage the busiest, and the fill sums the others: at
    // least (m + p - 2) / m of the busiest rank, at most (m + p - 1) / m.
    QVERIFY(oneFOneB > steady * (m + p - 2.0) / m);
    QVERIFY(oneFOneB <= steady * (m + p - 1.0) / m * (1.0 + 1e-12));
    const Evaluation ev = evaluate(sc, catalog);
    QVERIFY(ev.ok);
    QVERIFY(steady <= ev.iterationTimeS);
}

void TestLowerBound::timeToTrainIsTheCostModels()
{
    const LoadResult load = loadScenarioFile(std::string(ARCHIPELAGO_SOURCE_DIR) +
                                             "/presets/llama3-405b-16k-h100.json");
    QVERIFY(load.ok());
    const Evaluation ev = evaluate(*load.scenario);
    QVERIFY(ev.ok);
    QCOMPARE(timeToTrainS(load.scenario->workload, ev.iterationTimeS), ev.timeToTrainS);
}

void TestLowerBound::stopIfOutOfMemoryKeepsFittingPoints()
{
    // The sweep's early exit (EvaluateOptions::stopIfOutOfMemory): the same verdict on every
    // point, and the same numbers for those that fit.
    const LoadResult load =
        loadScenarioFile(std::string(ARCHIPELAGO_SOURCE_DIR "/presets/gpt3-175b-1024-a100.json"));
    QVERIFY(load.ok());
    const Catalog catalog = effectiveCatalog(*load.scenario);
    EvaluateOptions early = leanOptions();
    early.stopIfOutOfMemory = true;
    EvaluationWorkspace workspace;
    int fit = 0;
    int oom = 0;
    forEachPoint(*load.scenario, catalog, [&](const Scenario& sc, const Evaluation& ev) {
        const Evaluation e = evaluate(sc, catalog, early, &workspace);
        QVERIFY(e.ok);
        QCOMPARE(e.fitsInMemory, ev.fitsInMemory);
        QCOMPARE(e.memoryPeakGib, ev.memoryPeakGib);
        if (ev.fitsInMemory) {
            QCOMPARE(e.iterationTimeS, ev.iterationTimeS);
            QCOMPARE(e.timeToTrainS, ev.timeToTrainS);
            ++fit;
        } else {
            ++oom;
        }
    });
    QVERIFY(fit > 0);
    QVERIFY(oom > 0);
}

void TestLowerBound::filter_data()
{
    // The state: fronts time-capex {(10, 100), (20, 50)}, time-memory {(10, 60)}, train-cost
    // {(1000, 5e6)}; top lists full, their last points: iteration time 10 (at 10 s), time to
    // train 1000 (10 s), total cost 6e6 (12 s), run cost 8e6 (12 s), capex 100 (12 s), memory
    // 70 (12 s); base 11 s.
    QTest::addColumn<double>("timeS");
    QTest::addColumn<double>("trainS");
    QTest::addColumn<double>("memoryGib");
    QTest::addColumn<double>("capexUsd");
    QTest::addColumn<double>("costUsd");
    QTest::addColumn<double>("runUsd");
    QTest::addColumn<bool>("prunable");
    // Dominated everywhere, ranked after every last: prunable.
    QTest::newRow("slow") << 30.0 << 3000.0 << 80.0 << 120.0 << 7e6 << 9e6 << true;
    // Faster than the base: counts in the base's rank.
    QTest::newRow("faster than base") << 10.5 << 3000.0 << 80.0 << 120.0 << 7e6 << 9e6 << false;
    // As fast as the base: not strictly faster, and dominated: prunable.
    QTest::newRow("as fast as base") << 11.0 << 3000.0 << 80.0 << 120.0 << 7e6 << 9e6 << true;
    // Cheaper network than any front point of its time: may enter time vs capex.
    QTest::newRow("cheap capex") << 30.0 << 3000.0 << 80.0 << 40.0 << 7e6 << 9e6 << false;
    // Less memory than the front's point at time <= its bound: may enter time vs memory.
    QTest::newRow("small memory") << 30.0 << 3000.0 << 50.0 << 120.0 << 7e6 << 9e6 << false;
    // Cheaper in total than the train-cost front: may enter it (and the cost top list).
    QTest::newRow("cheap total") << 30.0 << 3000.0 << 80.0 << 120.0 << 4e6 << 9e6 << false;
    // Same capex as the capex list's last, possibly faster than it: may enter that list.
    QTest::newRow("capex tie, faster") << 11.5 << 3000.0 << 80.0 << 100.0 << 7e6 << 9e6 << false;
    // Equal to a front point on both objectives: the kept (earlier) point wins; and ties the
    // lists' last values with a time no better: prunable.
    QTest::newRow("equal to front point") << 20.0 << 3000.0 << 80.0 << 100.0 << 7e6 << 9e6 << true;
    // A run cheaper than the run-cost list's last (its cost per hour over its failure-free
    // time): may enter that list.
    QTest::newRow("cheap run") << 30.0 << 3000.0 << 80.0 << 120.0 << 7e6 << 7e6 << false;
    // A NaN bound proves nothing.
    QTest::newRow("nan") << std::nan("") << 3000.0 << 80.0 << 120.0 << 7e6 << 9e6 << false;
}

void TestLowerBound::filter()
{
    QFETCH(double, timeS);
    QFETCH(double, trainS);
    QFETCH(double, memoryGib);
    QFETCH(double, capexUsd);
    QFETCH(double, costUsd);
    QFETCH(double, runUsd);
    QFETCH(bool, prunable);
    BoundFilterState state;
    state.timeVsCapex = {{20.0, 50.0}, {10.0, 100.0}};
    state.timeVsMemory = {{10.0, 60.0}};
    state.trainTimeVsCost = {{1000.0, 5e6}};
    state.top[static_cast<std::size_t>(SweepObjective::IterationTime)] = fullList(10.0, 10.0);
    state.top[static_cast<std::size_t>(SweepObjective::TimeToTrain)] = fullList(1000.0, 10.0);
    state.top[static_cast<std::size_t>(SweepObjective::EffectiveTimeToTrain)] =
        fullList(1000.0, 10.0);
    state.top[static_cast<std::size_t>(SweepObjective::TotalCost)] = fullList(6e6, 12.0);
    state.top[static_cast<std::size_t>(SweepObjective::RunCost)] = fullList(8e6, 12.0);
    state.top[static_cast<std::size_t>(SweepObjective::NetworkCapex)] = fullList(100.0, 12.0);
    state.top[static_cast<std::size_t>(SweepObjective::MemoryPeak)] = fullList(70.0, 12.0);
    state.baseTimeS = 11.0;
    const BoundFilter filter(state);
    QCOMPARE(filter.prunable({timeS, trainS, memoryGib, capexUsd, costUsd, runUsd}), prunable);
}

void TestLowerBound::effectiveTimeToTrainIsBoundedByTimeToTrain()
{
    // Nothing bounds a run's interruptions from below, so the list by time to train with
    // failures keeps every point whose failure-free time could still beat its last.
    BoundFilterState state;
    state.timeVsCapex = {{1.0, 1.0}};
    state.timeVsMemory = {{1.0, 1.0}};
    state.trainTimeVsCost = {{1.0, 1.0}};
    const double inf = std::numeric_limits<double>::infinity();
    for (auto& list : state.top)
        list = fullList(-inf, -inf);
    const auto effective = static_cast<std::size_t>(SweepObjective::EffectiveTimeToTrain);
    state.top[effective] = fullList(1200.0, 10.0);
    state.baseTimeS = 1.0;
    QVERIFY(!BoundFilter(state).prunable({12.0, 1100.0, 9.0, 9.0, 9.0}));
    QVERIFY(BoundFilter(state).prunable({12.0, 1300.0, 9.0, 9.0, 9.0}));
}

void TestLowerBound::filterUsesTheBestFrontPoint()
{
    // A list not yet full takes anything; N = 0 takes nothing; nothing found yet prunes nothing.
    BoundFilterState state;
    state.timeVsCapex = {{1.0, 1.0}};
    state.timeVsMemory = {{1.0, 1.0}};
    state.trainTimeVsCost = {{1.0, 1.0}};
    const PointBounds slow{9.0, 9.0, 9.0, 9.0, 9.0};
    QVERIFY(!BoundFilter(state).prunable(slow)); // lists not full
    const double inf = std::numeric_limits<double>::infinity();
    for (auto& list : state.top)
        list = fullList(-inf, -inf);
    QVERIFY(BoundFilter(state).prunable(slow));
    QVERIFY(!BoundFilter(BoundFilterState{}).prunable(slow)); // empty fronts
    // The front point that dominates is the one with the smallest second objective among
    // those at most as slow, whatever the order they come in.
    state.timeVsCapex = {{5.0, 20.0}, {2.0, 30.0}, {8.0, 9.0}, {3.0, 10.0}};
    QVERIFY(BoundFilter(state).prunable({4.0, 9.0, 9.0, 10.0, 9.0}));
    QVERIFY(!BoundFilter(state).prunable({4.0, 9.0, 9.0, 9.5, 9.0}));
    QVERIFY(!BoundFilter(state).prunable({1.5, 9.0, 9.0, 100.0, 9.0}));
}

QTEST_GUILESS_MAIN(TestLowerBound)
#include "test_lowerbound.moc"
