// The explorer (core/explore, `archipelago-cli sweep`; docs/explore.md): on every preset the
// best point of a small space around it is at least as fast as the preset; the result is the
// same with 1 and 4 threads; the counts add up; every reported point fits in HBM and passes
// the shape check with the global batch unchanged; a malformed --space file is an error with
// its JSON pointer and exit code 1; the Pareto fronts hold no dominated point and miss none
// (brute force on a small space); cancellation stops between batches.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "explore/memoryestimate.h"
#include "explore/paretofront.h"
#include "explore/spacereader.h"
#include "explore/sweep.h"
#include "explore/sweepjson.h"
#include "io/scenarioio.h"
#include "model/shapecheck.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace archipelago;
using namespace archipelago::core;

namespace {

std::string presetPath(const char* name)
{
    return std::string(ARCHIPELAGO_SOURCE_DIR) + "/presets/" + name;
}

Scenario loadPreset(const std::string& path)
{
    const LoadResult load = loadScenarioFile(path);
    if (!load.ok())
        qFatal("cannot load %s", path.c_str());
    return *load.scenario;
}

// The base's value of every dimension, and a few neighbours for the knobs that are cheap to
// vary: the base point is in the space.
SearchSpace smallSpace(const Scenario& base)
{
    const Parallelism& par = base.parallelism;
    SearchSpace s;
    s.tp = {par.tp};
    s.cp = {par.cp};
    s.pp = {par.pp};
    s.ep = {par.ep};
    s.virtualStages = {1};
    if (par.virtualStages > 1)
        s.virtualStages.push_back(par.virtualStages);
    s.microBatch = {par.microBatch};
    if (par.microBatch != 2)
        s.microBatch.push_back(2);
    s.schedules = {base.schedule.kind};
    if (base.schedule.kind != ScheduleKind::OneFOneB)
        s.schedules.push_back(ScheduleKind::OneFOneB);
    s.extraInFlightAtDci = {base.schedule.extraInFlightAtDci};
    s.recompute = {par.recompute};
    s.zeroStage = {par.zeroStage};
    s.distributedOptimizer = {par.distributedOptimizer};
    return s;
}

// A few hundred points on the 1,024-GPU preset, for the properties that need many points.
SearchSpace mediumSpace()
{
    SearchSpace s;
    s.tp = {4, 8};
    s.cp = {1};
    s.pp = {4, 8};
    s.ep = {1};
    s.virtualStages = {1, 2, 3};
    s.microBatch = {1, 2};
    s.schedules = {ScheduleKind::GPipe,           ScheduleKind::OneFOneB,
                   ScheduleKind::Interleaved1F1B, ScheduleKind::ZeroBubbleH1,
                   ScheduleKind::ZeroBubbleH2,    ScheduleKind::DualPipe};
    s.extraInFlightAtDci = {0};
    s.recompute = {Recompute::Selective, Recompute::Full};
    s.zeroStage = {0, 1};
    s.distributedOptimizer = {false, true};
    return s;
}

std::vector<const SweepPoint*> reported(const SweepResult& r)
{
    std::vector<const SweepPoint*> all;
    for (const auto* list : {&r.top, &r.timeVsCapex, &r.timeVsMemory, &r.trainTimeVsCost})
        for (const SweepPoint& p : *list)
            all.push_back(&p);
    return all;
}

int runCli(const std::vector<std::string>& args, std::string& out, std::string& err)
{
    std::ostringstream o, e;
    const int code = cli::run(args, o, e);
    out = o.str();
    err = e.str();
    return code;
}

} // namespace

class TestExplore : public QObject
{
    Q_OBJECT

private slots:
    void bestIsAtLeastTheBaseOnEveryPreset()
    {
        int presets = 0;
        for (const auto& entry : std::filesystem::directory_iterator(
                 std::string(ARCHIPELAGO_SOURCE_DIR) + "/presets")) {
            if (entry.path().extension() != ".json")
                continue;
            ++presets;
            const Scenario base = loadPreset(entry.path().string());
            const SweepResult r = runSweep(base, effectiveCatalog(base), smallSpace(base));
            const QByteArray name = QByteArray::fromStdString(entry.path().filename().string());
            QVERIFY2(r.ok, name.constData());
            QVERIFY2(r.baseFeasible, name.constData());
            QVERIFY2(!r.top.empty(), name.constData());
            QVERIFY2(r.top.front().evaluation.iterationTimeS <=
                         r.base.evaluation.iterationTimeS * (1.0 + 1e-12),
                     name.constData());
            QVERIFY2(!r.timeVsCapex.empty(), name.constData());
            QCOMPARE(r.timeVsCapex.front().evaluation.iterationTimeS,
                     r.top.front().evaluation.iterationTimeS);
            QVERIFY(r.baseRank >= 1 && r.baseRank <= r.counts.feasible + 1);
        }
        QVERIFY(presets >= 7);
    }

    void sameResultWhateverTheThreads()
    {
        const Scenario base = loadPreset(presetPath("gpt3-175b-1024-a100.json"));
        const Catalog catalog = effectiveCatalog(base);
        SweepOptions one;
        one.threads = 1;
        one.top = 20;
        one.batchSize = 37;
        SweepOptions four = one;
        four.threads = 4;
        four.batchSize = 256;
        const SweepResult a = runSweep(base, catalog, mediumSpace(), one);
        const SweepResult b = runSweep(base, catalog, mediumSpace(), four);
        QVERIFY(a.counts.feasible > 10);
        QCOMPARE(sweepResultToJson("f", a).dump(), sweepResultToJson("f", b).dump());
        // The default space of the built-in default preset (sequence parallel on, two
        // datacenters: the extra in-flight count matters).
        const Scenario two = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog twoCatalog = effectiveCatalog(two);
        const SweepResult c = runSweep(two, twoCatalog, defaultSearchSpace(two), one);
        const SweepResult d = runSweep(two, twoCatalog, defaultSearchSpace(two), four);
        QVERIFY(c.counts.feasible > 100);
        QCOMPARE(sweepResultToJson("f", c).dump(), sweepResultToJson("f", d).dump());
    }

    void countsAddUpAndReportedPointsAreValid()
    {
        const Scenario base = loadPreset(presetPath("gpt3-175b-1024-a100.json"));
        const Catalog catalog = effectiveCatalog(base);
        const SweepResult r = runSweep(base, catalog, mediumSpace());
        const SweepCounts& c = r.counts;
        QCOMPARE(c.considered, c.spacePoints);
        QCOMPARE(c.considered, c.prunedTotal() + c.evaluated);
        QCOMPARE(c.evaluated, c.failed + c.outOfMemory + c.overBudget + c.feasible);
        QVERIFY(c.pruned[static_cast<std::size_t>(PruneReason::Redundant)] > 0);
        QVERIFY(c.evaluated > 0);
        for (const SweepPoint* p : reported(r)) {
            QVERIFY(p->evaluation.ok);
            QVERIFY(p->evaluation.fitsInMemory);
            QVERIFY(p->evaluation.memoryPeakGib <= p->evaluation.hbmGib);
            const Scenario sc = applyPoint(base, p->point, p->placement);
            QCOMPARE(sc.workload.globalBatch, base.workload.globalBatch);
            QVERIFY(!checkCostModelShape(sc, catalog).hasErrors());
            // The memory prune's bound stays below the cost model's peak.
            QVERIFY(memoryLowerBoundGib(sc, p->dataParallel) <= p->evaluation.memoryPeakGib);
            for (const Diagnostic& d : checkScenario(sc, catalog))
                QVERIFY2(d.severity != Diagnostic::Severity::Error, d.toString().c_str());
        }
    }

    void frontsHoldNoDominatedPointAndMissNone()
    {
        const Scenario base = loadPreset(presetPath("gpt3-175b-1024-a100.json"));
        SweepOptions options;
        options.top = 100000; // every ranked point
        const SweepResult r = runSweep(base, effectiveCatalog(base), mediumSpace(), options);
        QCOMPARE(static_cast<std::uint64_t>(r.top.size()), r.counts.feasible);
        using Obj = double (*)(const SweepPoint&);
        const auto check = [&](const std::vector<SweepPoint>& front, Obj x, Obj y) {
            QVERIFY(!front.empty());
            for (const SweepPoint& f : front)
                for (const SweepPoint& q : r.top)
                    QVERIFY(!dominates(x(q), y(q), x(f), y(f)));
            for (const SweepPoint& q : r.top) {
                bool covered = false;
                for (const SweepPoint& f : front)
                    covered = covered || (x(f) <= x(q) && y(f) <= y(q));
                QVERIFY(covered);
            }
        };
        check(
            r.timeVsMemory, [](const SweepPoint& p) { return p.evaluation.iterationTimeS; },
            [](const SweepPoint& p) { return p.evaluation.memoryPeakGib; });
        check(
            r.timeVsCapex, [](const SweepPoint& p) { return p.evaluation.iterationTimeS; },
            [](const SweepPoint& p) { return p.networkCapexUsd; });
        check(
            r.trainTimeVsCost, [](const SweepPoint& p) { return p.evaluation.timeToTrainS; },
            [](const SweepPoint& p) { return p.totalCostUsd; });
    }

    void cancellationStopsBetweenBatches()
    {
        const Scenario base = loadPreset(presetPath("gpt3-175b-1024-a100.json"));
        std::atomic<bool> cancel{false};
        int calls = 0;
        SweepOptions options;
        options.batchSize = 64;
        options.cancel = &cancel;
        options.progress = [&](const SweepProgress& p) {
            ++calls;
            QVERIFY(p.considered <= p.total);
            cancel = true;
        };
        const SweepResult r = runSweep(base, effectiveCatalog(base), mediumSpace(), options);
        QVERIFY(r.cancelled);
        QCOMPARE(calls, 1);
        QCOMPARE(r.counts.considered, std::uint64_t{64});
        QCOMPARE(r.counts.considered, r.counts.prunedTotal() + r.counts.evaluated);
    }

    void malformedSpaceIsAnErrorWithItsPointer_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("zero degree") << R"({"tp": [8, 0]})"
                                     << "/tp/1";
        QTest::newRow("not an array") << R"({"pp": 4})"
                                      << "/pp";
        QTest::newRow("empty array") << R"({"micro_batch": []})"
                                     << "/micro_batch";
        QTest::newRow("unknown schedule") << R"({"schedule": ["1f1b", "2f2b"]})"
                                          << "/schedule/1";
        QTest::newRow("zero stage") << R"({"zero_stage": [4]})"
                                    << "/zero_stage/0";
        QTest::newRow("budget") << R"({"network_capex_budget_usd": -1})"
                                << "/network_capex_budget_usd";
        QTest::newRow("syntax") << R"({"tp": [1,)"
                                << "";
        QTest::newRow("array at the top") << "[1]"
                                          << "";
    }

    void malformedSpaceIsAnErrorWithItsPointer()
    {
        QFETCH(QString, text);
        QFETCH(QString, pointer);
        QTemporaryDir dir;
        const std::string space = dir.filePath("space.json").toStdString();
        std::ofstream(space) << text.toStdString();
        std::string out, err;
        const int code =
            runCli({"sweep", presetPath("gpt3-175b-1024-a100.json"), "--space", space}, out, err);
        QCOMPARE(code, cli::kExitInvalidInput);
        QVERIFY2(err.find(space) != std::string::npos, err.c_str());
        if (!pointer.isEmpty())
            QVERIFY2(err.find(pointer.toStdString() + ":") != std::string::npos ||
                         err.find(pointer.toStdString()) != std::string::npos,
                     err.c_str());
    }

    void cliWritesJsonAndRefusesBadOptions()
    {
        QTemporaryDir dir;
        const std::string space = dir.filePath("space.json").toStdString();
        std::ofstream(space) << R"({"tp": [8], "pp": [8], "virtual_stages": [1, 3],
            "micro_batch": [1], "extra_in_flight_at_dci": [0], "schedule": ["1f1b", "interleaved-1f1b"],
            "recompute": ["full"], "zero_stage": [0], "distributed_optimizer": [false]})";
        const std::string outFile = dir.filePath("out.json").toStdString();
        std::string out, err;
        QCOMPARE(runCli({"sweep", presetPath("gpt3-175b-1024-a100.json"), "--space", space,
                         "--json", "--top", "3", "--threads", "2", "-o", outFile},
                        out, err),
                 cli::kExitOk);
        const nlohmann::json j = nlohmann::json::parse(out);
        QCOMPARE(j["counts"]["space_points"].get<int>(), 4);
        QVERIFY(j["top"].size() >= 1);
        std::ifstream in(outFile);
        QCOMPARE(nlohmann::json::parse(in), j);
        QCOMPARE(runCli({"sweep", presetPath("gpt3-175b-1024-a100.json"), "--top", "x"}, out, err),
                 cli::kExitUsage);
        QCOMPARE(runCli({"sweep"}, out, err), cli::kExitUsage);
        QCOMPARE(runCli({"sweep", "/nonexistent.json"}, out, err), cli::kExitInvalidInput);
    }
};

QTEST_GUILESS_MAIN(TestExplore)
#include "test_explore.moc"
