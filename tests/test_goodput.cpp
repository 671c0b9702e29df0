// The run, not the iteration: interruptions from per-component failure rates, checkpoints at
// Daly's interval, restarts, and the effective training time ratio (evaluation/goodput.h).
#include "evaluation/costmodel.h"
#include "evaluation/goodput.h"
#include "io/scenarioio.h"

#include "presetfixture.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace archipelago;

namespace {

using tests::loadPreset;

const core::ReliabilityAssumptions& reliability()
{
    return core::reliabilityOf(core::builtinCatalog());
}

} // namespace

class TestGoodput : public QObject
{
    Q_OBJECT
private slots:
    void dalyIntervalMinimisesDalysWallTime();
    void youngIsDalysFirstTerm();
    void llama3InterruptionsAndEffectiveTime();
    void noFailuresNoLoss();
    void moreGpusMoreInterruptions();
    void wallTimeSplitsIntoItsParts();
    void usersIntervalIsKept();
    void tooShortAnIntervalIsRaisedAndSaid();
    void synchronousCheckpointsWaitForTheWrite();
    void checkpointSettingsRoundTrip();
    void splitShardsWriteFromEveryDatacenter();
    void eachDatacenterHasItsOwnStorage();
    void catalogRatesAreEditable();
    void malformedRatesAreErrorsWithTheirPointer();
};

void TestGoodput::dalyIntervalMinimisesDalysWallTime()
{
    // Over checkpoint costs from a second to an hour and MTBFs from ten minutes to a week, the
    // higher-order interval is within 0.1% of the numerical optimum of the wall time it estimates.
    for (const double d : {1.0, 30.0, 300.0, 3600.0})
        for (const double m : {600.0, 3600.0, 86400.0, 604800.0}) {
            if (d >= 2.0 * m)
                continue;
            const double tau = core::dalyIntervalS(d, m);
            const double at = core::dalyWallTimeS(1e7, tau, d, 600.0, m);
            double best = at;
            for (double f = 0.2; f <= 5.0; f *= 1.01)
                best = std::min(best, core::dalyWallTimeS(1e7, tau * f, d, 600.0, m));
            QVERIFY2(at <= best * 1.001, qPrintable(QString("d %1 M %2").arg(d).arg(m)));
        }
}

void TestGoodput::youngIsDalysFirstTerm()
{
    // A cheap checkpoint against a long MTBF: Young's sqrt(2 d M) to within 1%.
    const double d = 10.0, m = 86400.0;
    QVERIFY(std::abs(core::dalyIntervalS(d, m) / std::sqrt(2.0 * d * m) - 1.0) < 0.01);
    // At d >= 2M the interval is M (Daly 2006, eq. 37).
    QCOMPARE(core::dalyIntervalS(500.0, 200.0), 200.0);
}

void TestGoodput::llama3InterruptionsAndEffectiveTime()
{
    // The 16k preset is Llama 3 405B's job: 16,384 GPUs in 2,048 hosts give the Table 5 rate
    // back (419 in 54 days), and the effective training time ratio is Meta's "higher than 90%".
    const core::Scenario s = loadPreset("llama3-405b-16k-h100.json");
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    QCOMPARE(ev.gpus, std::int64_t{16384});
    const core::Goodput g = core::goodput(s, ev, reliability(), core::builtinCatalog());
    qInfo("%.2f interruptions/day, MTBF %.0f min, checkpoint %.1f TB blocking %.1f s every %.0f "
          "min, restart %.0f s, ETTR %.3f",
          g.interruptionsPerDay, g.mtbfS / 60.0, g.checkpointBytes / 1e12, g.checkpointBlockingS,
          g.checkpointIntervalS / 60.0, g.restartS, g.ettr);
    // GPUs and hosts: Table 5's 384 of 419 exactly. The network's 35 now come from the
    // preset's own fabric (one NIC port per GPU, its leaf switches) and a building's outages
    // join them: the total stays within 3% of Table 5's.
    QVERIFY(std::abs(g.serverInterruptionsPerDay - 384.0 / 54.0) < 1e-9);
    QVERIFY(std::abs(g.interruptionsPerDay / (419.0 / 54.0) - 1.0) < 0.03);
    QCOMPARE(g.dciInterruptionsPerDay, 0.0);
    QVERIFY(g.buildingInterruptionsPerDay > 0.0);
    QVERIFY(std::abs(g.serverInterruptionsPerDay + g.fabricInterruptionsPerDay +
                     g.dciInterruptionsPerDay + g.buildingInterruptionsPerDay -
                     g.interruptionsPerDay) < 1e-12);
    QVERIFY(g.ettr > 0.9);
    QVERIFY(g.ettr < 1.0);
    // 405B parameters at 14 bytes each.
    QVERIFY(std::abs(g.checkpointBytes / (405e9 * 14.0) - 1.0) < 0.02);
    QVERIFY(g.effectiveTimeToTrainS > ev.timeToTrainS);
}

void TestGoodput::noFailuresNoLoss()
{
    const core::Scenario s = loadPreset("llama3-405b-16k-h100.json");
    const core::Evaluation ev = core::evaluate(s);
    core::ReliabilityAssumptions none = reliability();
    none.causes.clear();
    const core::Goodput g = core::goodput(s, ev, none, core::builtinCatalog());
    QCOMPARE(g.interruptionsPerDay, 0.0);
    QCOMPARE(g.ettr, 1.0);
    QCOMPARE(g.effectiveTimeToTrainS, ev.timeToTrainS);
    QCOMPARE(g.lostWorkS, 0.0);
}

void TestGoodput::moreGpusMoreInterruptions()
{
    // The same job on twice the data-parallel replicas: twice the GPUs, hosts and NIC ports,
    // so twice their interruptions (the one building's outages stay), and a lower ratio.
    core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    core::Scenario bigger = s;
    for (core::Datacenter& dc : bigger.topology.datacenters)
        for (core::Pod& pod : dc.pods)
            pod.count *= 2;
    for (core::PlacementShard& shard : bigger.placement.shards)
        shard.dpReplicas *= 2;
    const core::Evaluation twice = core::evaluate(bigger);
    QVERIFY(twice.ok);
    QCOMPARE(twice.gpus, 2 * ev.gpus);
    const core::Goodput& a = ev.goodput;
    const core::Goodput& b = twice.goodput;
    QVERIFY(std::abs(b.serverInterruptionsPerDay / a.serverInterruptionsPerDay - 2.0) < 1e-9);
    QVERIFY(b.fabricInterruptionsPerDay > 1.9 * a.fabricInterruptionsPerDay);
    QCOMPARE(b.buildingInterruptionsPerDay, a.buildingInterruptionsPerDay);
    QVERIFY(b.ettr < a.ettr);
}

void TestGoodput::wallTimeSplitsIntoItsParts()
{
    for (const char* preset : {"llama3-405b-16k-h100.json", "scale-across-100k-3-regions.json",
                               "gpt3-175b-1024-a100.json"}) {
        const core::Scenario s = loadPreset(preset);
        const core::Evaluation ev = core::evaluate(s);
        QVERIFY(ev.ok);
        const core::Goodput g = core::goodput(s, ev, reliability(), core::builtinCatalog());
        qInfo("%s: %.1f/day ETTR %.3f: useful %.1f d, checkpoints %.2f d, restarts %.2f d, lost "
              "%.2f d",
              preset, g.interruptionsPerDay, g.ettr, g.usefulS / 86400, g.checkpointS / 86400,
              g.restartTotalS / 86400, g.lostWorkS / 86400);
        const double sum = g.usefulS + g.convergenceS + g.degradedS + g.checkpointS +
                           g.restartTotalS + g.lostWorkS;
        QVERIFY(std::abs(sum / g.effectiveTimeToTrainS - 1.0) < 1e-9);
        QVERIFY(g.lostWorkS > 0.0);
    }
}

void TestGoodput::usersIntervalIsKept()
{
    // An hourly checkpoint, as production jobs take, in place of Daly's seconds: the interval
    // is the user's, and lost work grows with it (half an interval per failure).
    core::Scenario s = loadPreset("llama3-405b-16k-h100.json");
    const core::Evaluation daly = core::evaluate(s);
    s.workload.checkpointIntervalS = 3600.0;
    const core::Evaluation hourly = core::evaluate(s);
    QCOMPARE(hourly.goodput.checkpointIntervalS, 3600.0);
    QVERIFY(daly.goodput.checkpointIntervalS < 600.0);
    QVERIFY(hourly.goodput.lostWorkS > 10.0 * daly.goodput.lostWorkS);
    QVERIFY(hourly.goodput.ettr < daly.goodput.ettr);
    QVERIFY(hourly.goodput.ettr > 0.7);
    // Daly's interval is the optimum of the same wall time: no user's interval beats it.
    for (const double tau : {60.0, 600.0, 3600.0, 36000.0}) {
        s.workload.checkpointIntervalS = tau;
        QVERIFY(core::evaluate(s).goodput.effectiveTimeToTrainS >=
                daly.goodput.effectiveTimeToTrainS * (1.0 - 1e-12));
    }
    QVERIFY(std::none_of(hourly.warnings.begin(), hourly.warnings.end(), [](const auto& w) {
        return w.code == core::WarningCode::CheckpointInterval;
    }));
}

void TestGoodput::tooShortAnIntervalIsRaisedAndSaid()
{
    // A checkpoint every second cannot be: one is taken between iterations of several seconds.
    core::Scenario s = loadPreset("llama3-405b-16k-h100.json");
    s.workload.checkpointIntervalS = 1.0;
    const core::Evaluation ev = core::evaluate(s);
    QCOMPARE(ev.goodput.checkpointIntervalS, ev.iterationTimeS);
    const auto it = std::find_if(ev.warnings.begin(), ev.warnings.end(), [](const auto& w) {
        return w.code == core::WarningCode::CheckpointInterval;
    });
    QVERIFY(it != ev.warnings.end());
    const std::string text = core::warningText(*it);
    QVERIFY2(text.find("a checkpoint every 1 s is asked") != std::string::npos, text.c_str());
    QCOMPARE(core::toString(core::WarningCode::CheckpointInterval),
             std::string_view("checkpoint-interval"));
}

void TestGoodput::synchronousCheckpointsWaitForTheWrite()
{
    core::Scenario s = loadPreset("llama3-405b-16k-h100.json");
    const core::Evaluation async = core::evaluate(s);
    s.workload.checkpointAsynchronous = false;
    const core::Evaluation sync = core::evaluate(s);
    QCOMPARE(sync.goodput.checkpointBlockingS, sync.goodput.checkpointWriteS);
    QVERIFY(async.goodput.checkpointBlockingS < sync.goodput.checkpointBlockingS);
    QVERIFY(sync.goodput.ettr < async.goodput.ettr);
}

void TestGoodput::checkpointSettingsRoundTrip()
{
    core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    const std::string plain = core::serializeScenario(s);
    QVERIFY(plain.find("checkpoint_") == std::string::npos); // defaults are not written
    s.workload.checkpointIntervalS = 1800.0;
    s.workload.checkpointAsynchronous = false;
    const std::string text = core::serializeScenario(s);
    QVERIFY(text.find("\"checkpoint_interval_s\": 1800") != std::string::npos);
    QVERIFY(text.find("\"checkpoint_asynchronous\": false") != std::string::npos);
    const core::LoadResult back = core::parseScenario(text, "s.json");
    QVERIFY(back.ok());
    QVERIFY(back.scenario->workload == s.workload);
    // A negative interval is refused with its pointer; a string is not a number.
    core::Scenario bad = s;
    bad.workload.checkpointIntervalS = -1.0;
    const core::LoadResult negative = core::parseScenario(core::serializeScenario(bad), "b.json");
    QVERIFY(!negative.ok());
    bool named = false;
    for (const auto& d : negative.errors)
        named = named || d.toString().find("/workload/checkpoint_interval_s") != std::string::npos;
    QVERIFY(named);
}

void TestGoodput::splitShardsWriteFromEveryDatacenter()
{
    // Each datacenter writes what its GPUs hold. A shard whose stages all sit in building-a
    // but whose TP groups are split over both buildings puts half its GPUs in each, so each
    // building writes half the checkpoint, as when the pipeline crosses the boundary.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    const core::Evaluation across = core::evaluate(s);
    core::PlacementShard& shard = s.placement.shards.front();
    const core::Id home = shard.stageDatacenters.front();
    for (core::Id& dc : shard.stageDatacenters)
        dc = home;
    shard.splitDatacenters = {0, 1};
    shard.splitDim = core::ParallelDim::Tp;
    const core::Evaluation split = core::evaluate(s);
    QVERIFY(across.ok && split.ok);
    QVERIFY(across.goodput.checkpointWriteS > 0.0);
    QCOMPARE(split.goodput.checkpointWriteS, across.goodput.checkpointWriteS);
}

void TestGoodput::eachDatacenterHasItsOwnStorage()
{
    // Each building writes and reads its half of the checkpoint at its own storage's rate: an
    // older building with a tenth of the catalog's bandwidth decides the write and the restart's
    // read; the other building's faster storage changes nothing. The fields round-trip, are
    // absent when 0 (the catalog's), and a negative rate is refused with its pointer.
    core::Scenario s = loadPreset("llama3-405b-two-buildings.json");
    s.workload.checkpointAsynchronous = false; // training waits for the write
    const core::Evaluation same = core::evaluate(s);
    QVERIFY(same.ok && same.goodput.checkpointWriteS > 0.0);
    QVERIFY(core::serializeScenario(s).find("storage_write_GBps") == std::string::npos);
    const double catalogWrite = reliability().storageWriteGBps;
    const double catalogRead = reliability().storageReadGBps;
    s.topology.datacenters[1].storageWriteGBps = catalogWrite / 10.0;
    s.topology.datacenters[1].storageReadGBps = catalogRead / 10.0;
    const core::Evaluation slow = core::evaluate(s);
    QVERIFY(slow.ok);
    QCOMPARE(slow.goodput.checkpointWriteS, 10.0 * same.goodput.checkpointWriteS);
    QCOMPARE(slow.goodput.checkpointBlockingS, slow.goodput.checkpointWriteS);
    const double readS = same.goodput.checkpointWriteS * catalogWrite / catalogRead;
    QCOMPARE(slow.goodput.restartS - same.goodput.restartS, 9.0 * readS);
    QVERIFY(slow.goodput.ettr < same.goodput.ettr);
    s.topology.datacenters[0].storageWriteGBps = catalogWrite * 10.0;
    QCOMPARE(core::evaluate(s).goodput.checkpointWriteS, slow.goodput.checkpointWriteS);

    const std::string text = core::serializeScenario(s);
    QVERIFY(text.find("\"storage_write_GBps\": 200") != std::string::npos);
    const core::LoadResult back = core::parseScenario(text, "s.json");
    QVERIFY(back.ok());
    QVERIFY(back.scenario->topology == s.topology);
    nlohmann::json bad = nlohmann::json::parse(text);
    bad["topology"]["datacenters"][1]["storage_read_GBps"] = -5;
    const core::LoadResult refused = core::parseScenario(bad.dump(), "bad.json");
    QVERIFY(!refused.ok());
    bool named = false;
    for (const auto& d : refused.errors)
        named = named ||
                d.toString().find("/topology/datacenters/1/storage_read_GBps") != std::string::npos;
    QVERIFY(named);
}

void TestGoodput::catalogRatesAreEditable()
{
    // Every built-in rate has a source; a scenario's catalog replaces them whole, and the file
    // keeps its override through a round trip.
    QCOMPARE(reliability().causes.size(), std::size_t{24});
    for (const core::FailureCause& c : reliability().causes)
        QVERIFY2(!c.source.empty(), c.name.c_str());
    QVERIFY(!reliability().storageSource.empty() && !reliability().restartSource.empty());
    core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    core::ReliabilityAssumptions mine = reliability();
    mine.causes = {{"any", core::FailureUnit::Gpu, 1.0, 100.0, "our fleet, 2026"}};
    mine.relaunchS = 30.0;
    s.catalogOverrides.reliability = mine;
    const core::LoadResult back = core::parseScenario(core::serializeScenario(s), "s.json");
    QVERIFY(back.ok());
    QVERIFY(back.scenario->catalogOverrides.reliability == mine);
    const core::Evaluation ev = core::evaluate(*back.scenario);
    QCOMPARE(ev.goodput.interruptionsPerDay, 1024.0 / 100.0);
    QVERIFY(ev.goodput.restartS < reliability().relaunchS);
}

void TestGoodput::malformedRatesAreErrorsWithTheirPointer()
{
    core::Scenario s = loadPreset("gpt3-175b-1024-a100.json");
    s.catalogOverrides.reliability = reliability();
    nlohmann::json j = nlohmann::json::parse(core::serializeScenario(s));
    const auto errorAt = [&](const std::string& pointer, const nlohmann::json& value) {
        nlohmann::json bad = j;
        bad[nlohmann::json::json_pointer(pointer)] = value;
        const core::LoadResult r = core::parseScenario(bad.dump(), "bad.json");
        QVERIFY2(!r.ok(), pointer.c_str());
        bool named = false;
        for (const auto& d : r.errors)
            named = named || d.toString().find(pointer) != std::string::npos;
        QVERIFY2(named, pointer.c_str());
    };
    errorAt("/catalog/reliability/failures/0/per", "rack");
    errorAt("/catalog/reliability/failures/0/unit_days", 0);
    errorAt("/catalog/reliability/failures/1/events", -1);
    errorAt("/catalog/reliability/storage_write_GBps", "fast");
    errorAt("/catalog/reliability/gpus_per_host", 0);
    errorAt("/catalog/reliability/relaunch_s", 1e9);
    errorAt("/catalog/reliability/failures/0/effect", "degrade"); // a GPU cannot degrade
    errorAt("/catalog/reliability/failures/0/effect", "slow");
    errorAt("/catalog/reliability/failures/0/repair_h", -1);
    errorAt("/catalog/reliability/communicator_init_s_per_1k_gpus", "many");
    errorAt("/catalog/reliability/failures/1/name",
            j["catalog"]["reliability"]["failures"][0]["name"]);
}

QTEST_APPLESS_MAIN(TestGoodput)
#include "test_goodput.moc"
