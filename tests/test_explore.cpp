// The explorer (core/explore, `archipelago-cli sweep`; docs/explore.md): on every preset the
// best point of a small space around it is at least as fast as the preset; the result is the
// same with 1 and 4 threads; the counts add up; every reported point fits in HBM and passes
// the shape check with the global batch unchanged; a malformed --space file is an error with
// its JSON pointer and exit code 1; the Pareto fronts hold no dominated point and miss none
// (brute force on a small space); cancellation stops between batches.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "explore/lowerbound.h"
#include "explore/memoryestimate.h"
#include "explore/paretofront.h"
#include "explore/spacejson.h"
#include "explore/spaceodometer.h"
#include "explore/sweep.h"
#include "explore/sweepjson.h"
#include "explore/sweeprecord.h"
#include "explore/sweepsave.h"
#include "io/scenarioio.h"
#include "model/shapecheck.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace archipelago;
using namespace archipelago::core;

namespace {

std::string presetPath(const char* name)
{
    // Appended, not operator+: GCC 12 reports a false -Warray-bounds in the inlined
    // std::string concatenation once the tests share a precompiled header.
    std::string path = ARCHIPELAGO_SOURCE_DIR "/presets/";
    path += name;
    return path;
}

Scenario loadPreset(const std::string& path)
{
    const LoadResult load = loadScenarioFile(path);
    if (!load.ok())
        qFatal("cannot load %s", path.c_str());
    return *load.scenario;
}

// The base's topology, placement, rank order and global batch; every other dimension to set.
SearchSpace basePlacementSpace(const Scenario& base)
{
    SearchSpace s;
    s.dciTransports = {std::nullopt};
    s.wavelengths = {std::nullopt};
    s.fabrics = {std::nullopt};
    s.boundaries = {PlacementBoundary::Base};
    s.stageSplits = {0};
    RankOrder order = kMegatronRankOrder;
    std::copy(base.placement.rankOrder.begin(), base.placement.rankOrder.end(), order.begin());
    s.rankOrders = {order};
    s.dataParallel = {0};
    s.gradReduceDtype = {base.parallelism.gradReduceDtype};
    s.globalBatch = {base.workload.globalBatch, base.workload.globalBatch};
    return s;
}

// The base's value of every dimension, and a few neighbours for the knobs that are cheap to
// vary: the base point is in the space.
SearchSpace smallSpace(const Scenario& base)
{
    const Parallelism& par = base.parallelism;
    SearchSpace s = basePlacementSpace(base);
    s.tp = {par.tp};
    s.cp = {par.cp};
    s.pp = {par.pp};
    s.ep = {par.ep};
    s.sequenceParallel = {par.sequenceParallel};
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
SearchSpace mediumSpace(const Scenario& base)
{
    SearchSpace s = basePlacementSpace(base);
    s.tp = {4, 8};
    s.cp = {1};
    s.pp = {4, 8};
    s.ep = {1};
    s.sequenceParallel = {false};
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

// One value of every dimension, the base's: the tests below widen the dimension they test.
SearchSpace pinnedSpace(const Scenario& base)
{
    const Parallelism& par = base.parallelism;
    SearchSpace s = basePlacementSpace(base);
    s.tp = {par.tp};
    s.cp = {par.cp};
    s.pp = {par.pp};
    s.ep = {par.ep};
    s.sequenceParallel = {par.sequenceParallel};
    s.virtualStages = {par.virtualStages};
    s.microBatch = {par.microBatch};
    s.schedules = {base.schedule.kind};
    s.extraInFlightAtDci = {base.schedule.extraInFlightAtDci};
    s.recompute = {par.recompute};
    s.zeroStage = {par.zeroStage};
    s.distributedOptimizer = {par.distributedOptimizer};
    return s;
}

// Every new dimension with two values on the two-building preset (1F1B, so that any number of
// micro-batches runs).
SearchSpace acrossSpace(const Scenario& base)
{
    SearchSpace s = pinnedSpace(base);
    s.virtualStages = {1};
    s.schedules = {ScheduleKind::OneFOneB};
    s.recompute = {Recompute::Full}; // fits in HBM without sequence parallelism too
    s.sequenceParallel = {true, false};
    s.boundaries = {PlacementBoundary::Pp, PlacementBoundary::Dp};
    s.rankOrders = {kMegatronRankOrder, *rankOrderFromString("tp-cp-ep-pp-dp")};
    s.dataParallel = {0, 120};
    s.dciTransports = {std::nullopt, DciTransport::LossyIp};
    s.wavelengths = {std::nullopt, 32};
    s.fabrics = {std::nullopt, FabricKind::RailOptimized};
    s.globalBatch = {1024, 4096};
    return s;
}

bool pipelineCrossesDatacenter(const Placement& placement)
{
    for (const PlacementShard& shard : placement.shards)
        for (Id dc : shard.stageDatacenters)
            if (dc != shard.stageDatacenters.front())
                return true;
    return false;
}

void checkCountsAddUp(const SweepCounts& c)
{
    QCOMPARE(c.considered, c.prunedTotal() + c.evaluated);
    QCOMPARE(c.evaluated, c.failed + c.outOfMemory + c.overBudget + c.feasible);
}

// The sweep of `space` keeping the first `top` points of each list.
SweepResult sweepTop(const Scenario& base, const Catalog& catalog, const SearchSpace& space,
                     int top)
{
    SweepOptions options;
    options.top = top;
    return runSweep(base, catalog, space, options);
}

std::uint64_t prunedBy(const SweepResult& r, PruneReason reason)
{
    return r.counts.pruned[static_cast<std::size_t>(reason)];
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
    // SweepOptions::samples: one sample per evaluated point, in odometer order, each with its
    // outcome; the same with 1 and 4 threads; and the sweep's result unchanged by collecting.
    void samplesCoverEveryEvaluatedPoint()
    {
        const Scenario base = loadPreset(presetPath("gpt3-175b-1024-a100.json"));
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = mediumSpace(base);
        space.networkCapexBudgetUsd = 1.0; // every point over budget except a network-free one
        SearchSpace unbounded = mediumSpace(base);
        for (const SearchSpace& s : {unbounded, space}) {
            std::vector<SweepSample> one;
            std::vector<SweepSample> four;
            SweepOptions a;
            a.threads = 1;
            a.batchSize = 64;
            a.samples = &one;
            SweepOptions b = a;
            b.threads = 4;
            b.samples = &four;
            const SweepResult ra = runSweep(base, catalog, s, a);
            const SweepResult rb = runSweep(base, catalog, s, b);
            SweepOptions plain = a;
            plain.samples = nullptr;
            const SweepResult rc = runSweep(base, catalog, s, plain);
            QVERIFY(ra.counts.evaluated > 10);
            QCOMPARE(one.size(), static_cast<std::size_t>(ra.counts.evaluated));
            QVERIFY(one == four);
            QCOMPARE(sweepResultToJson("f", ra).dump(), sweepResultToJson("f", rc).dump());
            std::map<SweepSample::Kind, std::uint64_t> kinds;
            for (std::size_t i = 0; i < one.size(); ++i) {
                ++kinds[one[i].kind];
                if (i > 0)
                    QVERIFY(one[i - 1].index < one[i].index);
                if (one[i].kind == SweepSample::Kind::Feasible ||
                    one[i].kind == SweepSample::Kind::OverBudget) {
                    QVERIFY(one[i].iterationTimeS > 0.0);
                    QVERIFY(one[i].totalCostUsd > 0.0);
                }
            }
            QCOMPARE(kinds[SweepSample::Kind::Feasible], ra.counts.feasible);
            QCOMPARE(kinds[SweepSample::Kind::OverBudget], ra.counts.overBudget);
            QCOMPARE(kinds[SweepSample::Kind::OutOfMemory], ra.counts.outOfMemory);
            // Every front point is a feasible sample with the same figures.
            for (const SweepPoint& p : ra.timeVsCapex) {
                const auto it = std::find_if(one.begin(), one.end(), [&](const SweepSample& x) {
                    return x.index == p.point.index;
                });
                QVERIFY(it != one.end());
                QCOMPARE(it->kind, SweepSample::Kind::Feasible);
                QCOMPARE(it->iterationTimeS, p.evaluation.iterationTimeS);
                QCOMPARE(it->networkCapexUsd, p.networkCapexUsd);
            }
        }
    }

    // sweepPointScenario makes the scenario the sweep evaluated for a point of its result.
    void pointScenarioIsTheEvaluatedOne()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        const SearchSpace space = defaultSearchSpace(base);
        SweepOptions o;
        o.top = 5;
        const SweepResult r = runSweep(base, catalog, space, o);
        QVERIFY(!r.top.empty());
        for (const SweepPoint& p : r.top) {
            const std::optional<SweepPointScenario> made =
                sweepPointScenario(base, catalog, space, p.point.index);
            QVERIFY(made);
            QVERIFY(made->point == p.point);
            QVERIFY(made->scenario == applyPoint(base, p.point, p.placement));
            const Evaluation e = evaluate(made->scenario, catalog);
            QCOMPARE(e.iterationTimeS, p.evaluation.iterationTimeS);
        }
        QVERIFY(!sweepPointScenario(base, catalog, space, r.counts.spacePoints));
    }

    // The saved section (explore/sweepsave.h): the space reads back equal, the fronts and top
    // lists keep their points' knobs and figures; a bad value names its pointer under /explore.
    void savedSweepRoundTrips()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = defaultSearchSpace(base);
        space.networkCapexBudgetUsd = 5e9;
        space.maxDciUtilisation = 0.9;
        SweepOptions o;
        o.top = 4;
        const SweepResult r = runSweep(base, catalog, space, o);
        const std::string text = savedSweepText(space, r);
        DiagnosticSink sink("f.json");
        const std::optional<SavedSweep> saved = readSavedSweep(text, base, sink);
        QVERIFY2(saved, sink.errors().empty() ? "" : sink.errors().front().toString().c_str());
        QVERIFY(sink.warnings().empty());
        QVERIFY(saved->space.tp == space.tp);
        QVERIFY(saved->space.stageSplits == space.stageSplits);
        QVERIFY(saved->space.fabrics == space.fabrics);
        QCOMPARE(spacePoints(saved->space), spacePoints(space));
        QCOMPARE(*saved->space.networkCapexBudgetUsd, 5e9);
        QCOMPARE(saved->counts.evaluated, r.counts.evaluated);
        QCOMPARE(saved->counts.pruned, r.counts.pruned);
        QCOMPARE(saved->timeVsCapex.size(), r.timeVsCapex.size());
        for (std::size_t i = 0; i < r.timeVsCapex.size(); ++i) {
            QVERIFY(saved->timeVsCapex[i].point == r.timeVsCapex[i].point);
            QCOMPARE(saved->timeVsCapex[i].evaluation.iterationTimeS,
                     r.timeVsCapex[i].evaluation.iterationTimeS);
            QCOMPARE(saved->timeVsCapex[i].totalCostUsd, r.timeVsCapex[i].totalCostUsd);
        }
        for (std::size_t k = 0; k < kSweepObjectives; ++k)
            QCOMPARE(saved->topBy[k].size(), r.topBy[k].size());
        const auto effective = static_cast<std::size_t>(SweepObjective::EffectiveTimeToTrain);
        QVERIFY(!r.topBy[effective].empty());
        for (std::size_t i = 0; i < r.topBy[effective].size(); ++i)
            QCOMPARE(saved->topBy[effective][i].evaluation.goodput.effectiveTimeToTrainS,
                     r.topBy[effective][i].evaluation.goodput.effectiveTimeToTrainS);
        const auto cost = static_cast<std::size_t>(SweepObjective::RunCost);
        QVERIFY(!r.topBy[cost].empty());
        for (std::size_t i = 0; i < r.topBy[cost].size(); ++i)
            QCOMPARE(saved->topBy[cost][i].evaluation.runCost.effectiveRunCostUsd,
                     r.topBy[cost][i].evaluation.runCost.effectiveRunCostUsd);
        // A document saved before the run was priced: its points' run cost is unknown, not 0.
        nlohmann::json unpriced = nlohmann::json::parse(text);
        for (auto& [name, list] : unpriced["top_by_objective"].items())
            for (auto& p : list)
                p.erase("effective_run_cost_usd");
        unpriced["top_by_objective"].erase("run_cost");
        DiagnosticSink oldSink("old.json");
        const std::optional<SavedSweep> old = readSavedSweep(unpriced.dump(), base, oldSink);
        QVERIFY(old);
        QVERIFY(old->topBy[cost].empty());
        QVERIFY(std::isnan(old->topBy[effective].front().evaluation.runCost.effectiveRunCostUsd));
        // Written again, the same text.
        SweepResult again = r;
        QCOMPARE(savedSweepToJson(saved->space, r).dump(), savedSweepToJson(space, again).dump());

        // In a scenario file: the top-level "explore" section beside the scenario, kept exactly
        // through a round trip (with and without pins), never written inside a pin; not an
        // object: an error.
        const std::string file = serializeScenario(base, {}, text);
        QVERIFY(nlohmann::json::parse(file).contains("explore"));
        const LoadResult back = parseScenario(file, "f.json");
        QVERIFY(back.ok());
        QVERIFY(back.warnings.empty());
        QVERIFY(*back.scenario == base);
        QCOMPARE(back.explore, text);
        QCOMPARE(serializeScenario(*back.scenario, {}, back.explore), file);
        PinnedScenario pin{"p", "#112233", base};
        const std::string withPinsText = serializeScenario(base, {pin}, text);
        QVERIFY(!nlohmann::json::parse(withPinsText)["pins"][0]["scenario"].contains("explore"));
        const LoadResult withPins = parseScenario(withPinsText, "f.json");
        QVERIFY(withPins.ok());
        QVERIFY(*withPins.scenario == base);
        QCOMPARE(withPins.explore, text);
        QVERIFY(!nlohmann::json::parse(serializeScenario(base)).contains("explore"));
        // Read once into a record: the sweep typed, the section kept; unreadable, the section is
        // still kept (a save writes it back) with the reason.
        const SweepRecord record = readSweepRecord(back.explore, base, "f.json");
        QVERIFY(record.sweep);
        QVERIFY(record.errors.empty());
        QCOMPARE(record.section, text);
        QCOMPARE(record.sweep->counts.evaluated, r.counts.evaluated);
        const SweepRecord made = recordSweep(space, r, base);
        QCOMPARE(made.section, text);
        QVERIFY(made.sweep);
        QCOMPARE(made.sweep->topBy[effective].size(), r.topBy[effective].size());
        QVERIFY(readSweepRecord({}, base, "f.json").empty());
        nlohmann::json unreadable = nlohmann::json::parse(text);
        unreadable["space"]["tp"][0] = "x";
        const SweepRecord kept = readSweepRecord(unreadable.dump(), base, "f.json");
        QVERIFY(!kept.sweep);
        QVERIFY(!kept.empty());
        QCOMPARE(kept.section, unreadable.dump());
        QVERIFY(!kept.errors.empty());
        QCOMPARE(kept.errors.front().file, std::string("f.json"));
        nlohmann::json notObject = nlohmann::json::parse(file);
        notObject["explore"] = 3;
        const LoadResult refused = parseScenario(notObject.dump(), "f.json");
        QVERIFY(!refused.ok());
        QCOMPARE(refused.errors.front().pointer, std::string("/explore"));

        nlohmann::json bad = nlohmann::json::parse(text);
        bad["space"]["tp"][0] = "x";
        bad["fronts"]["iteration_time_vs_network_capex"][0]["index"] = -3;
        DiagnosticSink badSink("f.json");
        QVERIFY(!readSavedSweep(bad.dump(), base, badSink));
        bool tpNamed = false;
        for (const Diagnostic& d : badSink.errors())
            tpNamed = tpNamed || d.pointer == "/explore/space/tp/0";
        QVERIFY(tpNamed);
        bad = nlohmann::json::parse(text);
        bad["fronts"]["iteration_time_vs_network_capex"][0]["index"] = r.counts.spacePoints;
        DiagnosticSink indexSink("f.json");
        QVERIFY(!readSavedSweep(bad.dump(), base, indexSink));
        QCOMPARE(indexSink.errors().front().pointer,
                 std::string("/explore/fronts/iteration_time_vs_network_capex/0/index"));
    }

    void bestIsAtLeastTheBaseOnEveryPreset()
    {
        int presets = 0;
        for (const auto& entry :
             std::filesystem::directory_iterator(std::string(ARCHIPELAGO_SOURCE_DIR "/presets"))) {
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
            // The default space (placement and network dimensions included) keeps the base.
            const SweepResult d = runSweep(base, effectiveCatalog(base), defaultSearchSpace(base));
            QVERIFY2(d.ok && !d.top.empty(), name.constData());
            checkCountsAddUp(d.counts);
            QVERIFY2(d.top.front().evaluation.iterationTimeS <=
                         d.base.evaluation.iterationTimeS * (1.0 + 1e-12),
                     name.constData());
        }
        QVERIFY(presets >= 7);
    }

    // A candidate is checked without the rules on its topology alone, which its topology
    // variant passed once (core::checkScenario with TopologyRules::Checked): every error the
    // full check finds is still found. Over every preset and a spread of degrees,
    // micro-batches and knobs, each with the base's placement unrepaired (so that most break a
    // rule).
    void candidateCheckFindsEveryErrorOfTheFullCheck()
    {
        const auto errorsOf = [](const std::vector<Diagnostic>& all) {
            std::vector<std::string> out;
            for (const Diagnostic& d : all)
                if (d.severity == Diagnostic::Severity::Error)
                    out.push_back(d.toString());
            return out;
        };
        int failing = 0;
        int passing = 0;
        for (const auto& entry :
             std::filesystem::directory_iterator(std::string(ARCHIPELAGO_SOURCE_DIR "/presets"))) {
            if (entry.path().extension() != ".json")
                continue;
            const Scenario base = loadPreset(entry.path().string());
            const Catalog catalog = effectiveCatalog(base);
            QVERIFY(errorsOf(checkTopology(base.topology, catalog)).empty());
            const SearchSpace space = mediumSpace(base);
            const SpaceOdometer odometer(space);
            const std::uint64_t step = std::max<std::uint64_t>(1, odometer.size() / 400);
            for (std::uint64_t i = 0; i < odometer.size(); i += step) {
                const Scenario sc = applyPoint(base, odometer.at(i), base.placement);
                const std::vector<std::string> full = errorsOf(checkScenario(sc, catalog));
                QCOMPARE(errorsOf(checkScenario(sc, catalog, TopologyRules::Checked)), full);
                ++(full.empty() ? passing : failing);
            }
        }
        QVERIFY(failing > 100);
        QVERIFY(passing > 10);
        // The rules it skips are the topology's own: a self-loop and a datacenter cut off.
        Scenario broken = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        broken.topology.links.front().b = broken.topology.links.front().a;
        const Catalog catalog = effectiveCatalog(broken);
        QVERIFY(!errorsOf(checkTopology(broken.topology, catalog)).empty());
        QVERIFY(!errorsOf(checkScenario(broken, catalog)).empty());
        QVERIFY(errorsOf(checkScenario(broken, catalog, TopologyRules::Checked)).empty());
    }

    // A sweep's worker holds one topology variant's scenario and model for a run of points
    // (EvaluationWorkspace::holdTopology): with many parallel DCI links, several variants and
    // small batches on two threads (so that workers hop between variants), every ranked point
    // has the figures of its own scenario evaluated alone.
    void everyPointIsEvaluatedOnItsOwnTopologyVariant()
    {
        Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const DciLink first = base.topology.links.front();
        base.topology.links.clear();
        for (int i = 0; i < 2'000; ++i) {
            DciLink link = first;
            link.id = i;
            link.wavelengths = 1 + i % 2;
            base.topology.links.push_back(link);
        }
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = acrossSpace(base);
        space.wavelengths = {std::nullopt, 1, 4};
        space.dciTransports = {std::nullopt, DciTransport::LossyIp, DciTransport::RocePfc};
        space.fabrics = {std::nullopt};
        SweepOptions options;
        options.threads = 2;
        options.top = 1'000;
        options.batchSize = 3;
        const SweepResult r = runSweep(base, catalog, space, options);
        checkCountsAddUp(r.counts);
        std::set<std::uint64_t> variants;
        const SpaceOdometer odometer(space);
        for (const SweepPoint& p : r.top) {
            variants.insert(odometer.topologyIndex(p.point.index));
            const Scenario sc = applyPoint(base, p.point, p.placement);
            const Evaluation alone = evaluate(sc, catalog);
            QVERIFY(alone.ok);
            QCOMPARE(p.evaluation.iterationTimeS, alone.iterationTimeS);
            QCOMPARE(p.evaluation.memoryPeakGib, alone.memoryPeakGib);
            QCOMPARE(p.networkCapexUsd, alone.networkCapexUsd);
        }
        QCOMPARE(variants.size(), std::size_t{9});
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
        const SweepResult a = runSweep(base, catalog, mediumSpace(base), one);
        const SweepResult b = runSweep(base, catalog, mediumSpace(base), four);
        QVERIFY(a.counts.feasible > 10);
        QCOMPARE(sweepResultToJson("f", a).dump(), sweepResultToJson("f", b).dump());
        // The default space of the built-in default preset (sequence parallel on, two
        // datacenters: the extra in-flight count matters).
        const Scenario two = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog twoCatalog = effectiveCatalog(two);
        const SweepResult c = runSweep(two, twoCatalog, defaultSearchSpace(two), one);
        SweepOptions fourSameBatch = four;
        fourSameBatch.batchSize = one.batchSize;
        const SweepResult d = runSweep(two, twoCatalog, defaultSearchSpace(two), fourSameBatch);
        QVERIFY(c.counts.feasible > 100);
        QCOMPARE(sweepResultToJson("f", c).dump(), sweepResultToJson("f", d).dump());
        // Another batch size prunes by the bound against other intermediate fronts: the counts
        // split evaluated / bound differently, every result stays the same.
        const SweepResult e = runSweep(two, twoCatalog, defaultSearchSpace(two), four);
        nlohmann::json je = sweepResultToJson("f", e);
        nlohmann::json jc = sweepResultToJson("f", c);
        QCOMPARE(je["counts"]["considered"], jc["counts"]["considered"]);
        QVERIFY(jc["counts"]["pruned_by_reason"]["bound"].get<std::uint64_t>() > 0);
        je.erase("counts");
        jc.erase("counts");
        QCOMPARE(je.dump(), jc.dump());
        // One batch: the filter starts from empty results and prunes nothing; every point
        // is evaluated, and the results are again the same (the bound is exact, not a guess).
        SweepOptions oneBatch = four;
        oneBatch.batchSize = std::uint64_t{1} << 40;
        nlohmann::json jf =
            sweepResultToJson("f", runSweep(two, twoCatalog, defaultSearchSpace(two), oneBatch));
        QCOMPARE(jf["counts"]["pruned_by_reason"]["bound"].get<std::uint64_t>(), std::uint64_t{0});
        jf.erase("counts");
        QCOMPARE(jf.dump(), jc.dump());
    }

    void countsAddUpAndReportedPointsAreValid()
    {
        const Scenario base = loadPreset(presetPath("gpt3-175b-1024-a100.json"));
        const Catalog catalog = effectiveCatalog(base);
        const SweepResult r = runSweep(base, catalog, mediumSpace(base));
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
        const SweepResult r = sweepTop(base, effectiveCatalog(base), mediumSpace(base), 100000);
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
        const SweepResult r = runSweep(base, effectiveCatalog(base), mediumSpace(base), options);
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
        QTest::newRow("gradient precision") << R"({"grad_reduce_dtype": ["fp32", "fp16"]})"
                                            << "/grad_reduce_dtype/1";
        QTest::newRow("budget") << R"({"network_capex_budget_usd": -1})"
                                << "/network_capex_budget_usd";
        QTest::newRow("sequence parallel") << R"({"sequence_parallel": [1]})"
                                           << "/sequence_parallel/0";
        QTest::newRow("boundary") << R"({"boundary": ["pp", "tp"]})"
                                  << "/boundary/1";
        QTest::newRow("stage split") << R"({"stage_split": [0, 100]})"
                                     << "/stage_split/1";
        QTest::newRow("rank order") << R"({"rank_order": ["tp-cp-ep-dp"]})"
                                    << "/rank_order/0";
        QTest::newRow("rank order twice") << R"({"rank_order": ["tp-tp-ep-dp-pp"]})"
                                          << "/rank_order/0";
        QTest::newRow("dp") << R"({"dp": ["max", 0]})"
                            << "/dp/1";
        QTest::newRow("transport") << R"({"dci_transport": ["tcp"]})"
                                   << "/dci_transport/0";
        QTest::newRow("wavelengths") << R"({"wavelengths": [5000]})"
                                     << "/wavelengths/0";
        QTest::newRow("fabric") << R"({"fabric": ["torus"]})"
                                << "/fabric/0";
        QTest::newRow("dci capacity") << R"({"dci_capacity_gbps_min": 0})"
                                      << "/dci_capacity_gbps_min";
        QTest::newRow("dci utilisation") << R"({"max_dci_utilisation": "high"})"
                                         << "/max_dci_utilisation";
        QTest::newRow("gpus per datacenter") << R"({"max_gpus_per_datacenter": [8, 8]})"
                                             << "/max_gpus_per_datacenter";
        QTest::newRow("gpus per datacenter entry") << R"({"max_gpus_per_datacenter": [-8]})"
                                                   << "/max_gpus_per_datacenter/0";
        QTest::newRow("batch range") << R"({"global_batch": {"min": 2048, "max": 1024}})"
                                     << "/global_batch/max";
        QTest::newRow("batch range missing") << R"({"global_batch": {"min": 2048}})"
                                             << "/global_batch";
        QTest::newRow("batch range type") << R"({"global_batch": [1, 2]})"
                                          << "/global_batch";
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

    // The per-datacenter forms of `fabric` and `stage_split`: a wrong length or a bad entry is
    // an error naming its pointer and the form expected.
    void malformedPerDatacenterValueIsAnError_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("message");
        const QString two = "llama3-405b-two-buildings.json";
        const QString three = "scale-across-100k-3-regions.json";
        const QString one = "gpt3-175b-1024-a100.json";
        QTest::newRow("fabric per datacenter, length")
            << two << R"({"fabric": ["base", ["clos"]]})"
            << "/fabric/1"
            << "expected one of clos, rail-optimized, rail-only, base, or an array of 2 of them "
               "(one per datacenter), got an array of 1 value";
        QTest::newRow("fabric per datacenter, entry")
            << two << R"({"fabric": [["clos", "torus"]]})"
            << "/fabric/0/1"
            << "expected one of clos, rail-optimized, rail-only, base, got \"torus\"";
        QTest::newRow("fabric, type") << two << R"({"fabric": [7]})"
                                      << "/fabric/0"
                                      << "or an array of 2 of them (one per datacenter), got 7";
        QTest::newRow("fabric per datacenter, empty") << two << R"({"fabric": [[]]})"
                                                      << "/fabric/0"
                                                      << "or an array of 2 of them";
        QTest::newRow("stage split per boundary, length")
            << three << R"({"stage_split": [0, [1, -1, 0]]})"
            << "/stage_split/1"
            << "expected an integer in -64..64 or an array of 2 of them (one per boundary "
               "between datacenters), got an array of 3 values";
        QTest::newRow("stage split per boundary, entry")
            << three << R"({"stage_split": [[1, 100]]})"
            << "/stage_split/0/1"
            << "expected an integer in -64..64, got 100";
        QTest::newRow("stage split per boundary, type") << three << R"({"stage_split": [[1, "x"]]})"
                                                        << "/stage_split/0/1"
                                                        << "expected an integer in -64..64";
        QTest::newRow("stage split per boundary, one datacenter")
            << one << R"({"stage_split": [[1]]})"
            << "/stage_split/0"
            << "expected an integer in -64..64, got an array of 1 value";
        // Was: 34 s and 547 MB building placements of a million stages, then nothing evaluated.
        QTest::newRow("pp above the layer count")
            << one << R"({"pp": [1048576]})"
            << "/pp/0"
            << "expected a positive integer up to the model's 96 layers, got 1048576";
        QTest::newRow("virtual stages above the layer count")
            << one << R"({"virtual_stages": [1048576]})"
            << "/virtual_stages/0"
            << "expected a positive integer up to the model's 96 layers, got 1048576";
        QTest::newRow("tp above the GPU count") << one << R"({"tp": [2048]})"
                                                << "/tp/0"
                                                << "up to the scenario's 1024 GPUs, got 2048";
        QTest::newRow("dp above the GPU count") << one << R"({"dp": [4096]})"
                                                << "/dp/0"
                                                << "expected a positive integer or max";
        // Was: a sweep's output given as --space ran the default sweep at exit 0.
        QTest::newRow("a sweep's output")
            << one << R"({"top_by_objective": {}, "fronts": {}, "counts": {}})"
            << ""
            << "a sweep's output, not a search space";
        QTest::newRow("no key of a space") << one << R"({"tpp": [2]})"
                                           << ""
                                           << "no key of a search space";
    }

    void malformedPerDatacenterValueIsAnError()
    {
        QFETCH(QString, preset);
        QFETCH(QString, text);
        QFETCH(QString, pointer);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const std::string space = dir.filePath("space.json").toStdString();
        std::ofstream(space) << text.toStdString();
        std::string out, err;
        const int code =
            runCli({"sweep", presetPath(preset.toStdString().c_str()), "--space", space}, out, err);
        QCOMPARE(code, cli::kExitInvalidInput);
        QVERIFY2(err.find(space) != std::string::npos, err.c_str());
        QVERIFY2(err.find(pointer.toStdString() + ": ") != std::string::npos, err.c_str());
        QVERIFY2(err.find(message.toStdString()) != std::string::npos, err.c_str());
    }

    // The file's per-datacenter forms become the space's values; an array of one kind is that
    // kind (so a duplicate of the plain form is dropped).
    void perDatacenterFormsAreRead()
    {
        const Scenario three = loadPreset(presetPath("scale-across-100k-3-regions.json"));
        DiagnosticSink sink("space.json");
        const std::optional<SearchSpace> s = parseSearchSpace(
            R"({"fabric": ["clos", ["base", "rail-only", "clos"], ["clos", "clos", "clos"]],
                "stage_split": [0, [1, -2], 0]})",
            three, sink);
        QVERIFY(s);
        QCOMPARE(s->fabrics.size(), std::size_t{2});
        QCOMPARE(s->fabrics[0], FabricChoice(FabricKind::Clos));
        QCOMPARE(s->fabrics[1], FabricChoice(std::vector<std::optional<FabricKind>>{
                                    std::nullopt, FabricKind::RailOnly, FabricKind::Clos}));
        QCOMPARE(s->stageSplits.size(), std::size_t{2});
        QCOMPARE(s->stageSplits[1], StageSplit(std::vector<int>{1, -2}));
        // The JSON of a point prints the same forms.
        DesignPoint p;
        p.fabric = s->fabrics[1];
        p.stageSplit = s->stageSplits[1];
        const nlohmann::json j = designPointToJson(p);
        QCOMPARE(j["fabric"], nlohmann::json::parse(R"(["base", "rail-only", "clos"])"));
        QCOMPARE(j["stage_split"], nlohmann::json::parse("[1, -2]"));
        p.fabric = FabricKind::RailOnly;
        p.stageSplit = -1;
        QCOMPARE(designPointToJson(p)["fabric"], nlohmann::json("rail-only"));
        QCOMPARE(designPointToJson(p)["stage_split"], nlohmann::json(-1));
    }

    // A rail-only fabric in one building beside the other's Clos reaches the evaluated
    // scenario, and its bill of materials is its own: between the two uniform variants'.
    void perDatacenterFabricReachesTheScenario()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = pinnedSpace(base);
        const FabricChoice mixed(
            std::vector<std::optional<FabricKind>>{std::nullopt, FabricKind::RailOnly});
        space.fabrics = {std::nullopt, FabricKind::RailOnly, mixed};
        const SweepResult r = sweepTop(base, catalog, space, 10);
        QVERIFY(r.ok);
        checkCountsAddUp(r.counts);
        QCOMPARE(r.counts.feasible, std::uint64_t{3});
        std::map<std::string, const SweepPoint*> byFabric;
        for (const SweepPoint& p : r.top)
            byFabric[designPointToJson(p.point)["fabric"].dump()] = &p;
        QCOMPARE(byFabric.size(), std::size_t{3});
        const SweepPoint* clos = byFabric[R"("base")"];
        const SweepPoint* railOnly = byFabric[R"("rail-only")"];
        const SweepPoint* both = byFabric[R"(["base","rail-only"])"];
        QVERIFY(clos && railOnly && both);
        const Scenario sc = applyPoint(base, both->point, both->placement);
        QCOMPARE(sc.topology.datacenters[0].fabric.kind, FabricKind::Clos);
        QCOMPARE(sc.topology.datacenters[1].fabric.kind, FabricKind::RailOnly);
        QVERIFY(both->networkCapexUsd != clos->networkCapexUsd);
        QVERIFY(both->networkCapexUsd != railOnly->networkCapexUsd);
        QVERIFY(std::min(clos->networkCapexUsd, railOnly->networkCapexUsd) < both->networkCapexUsd);
        QVERIFY(both->networkCapexUsd < std::max(clos->networkCapexUsd, railOnly->networkCapexUsd));
        // The same figure as a full evaluation of the point's scenario.
        QCOMPARE(evaluate(sc).networkCapexUsd, both->networkCapexUsd);
        QVERIFY(describeSweepPoint(*both).find("fabric base/rail-only") != std::string::npos);
    }

    // On three datacenters each boundary moves on its own. With the middle one capped at
    // 20,000 of its 32,768 GPUs, 16 stages split 6/4/6 in proportion; [1, -2] moves the first
    // boundary one stage right and the second two left: 7/1/8. The GPUs placed stay within the
    // cap; a split that empties a datacenter is pruned (placement).
    void perBoundaryStageSplitReachesThePlacement()
    {
        const Scenario base = loadPreset(presetPath("scale-across-100k-3-regions.json"));
        const Catalog catalog = effectiveCatalog(base);
        QCOMPARE(base.topology.datacenters.size(), std::size_t{3});
        QCOMPARE(base.parallelism.pp, 16);
        SearchSpace space = pinnedSpace(base);
        space.virtualStages = {1};
        space.schedules = {ScheduleKind::OneFOneB};
        space.boundaries = {PlacementBoundary::Pp};
        space.stageSplits = {0, StageSplit(std::vector<int>{1, -2}),
                             StageSplit(std::vector<int>{-6, 0}),
                             StageSplit(std::vector<int>{2, 2})};
        space.maxGpusPerDatacenter = {std::int64_t{1} << 40, 20000, std::int64_t{1} << 40};
        space.globalBatch = {1, 1 << 20};
        const SweepResult r = sweepTop(base, catalog, space, 10);
        QVERIFY(r.ok);
        checkCountsAddUp(r.counts);
        QCOMPARE(prunedBy(r, PruneReason::Placement), std::uint64_t{1}); // {-6, 0}: 0/10/6
        QCOMPARE(r.counts.evaluated, std::uint64_t{3});
        std::map<std::string, std::vector<std::ptrdiff_t>> stagesBySplit;
        for (const SweepPoint& p : r.top) {
            const std::vector<Id>& stages = p.placement.shards.front().stageDatacenters;
            std::vector<std::ptrdiff_t> counts;
            for (const Datacenter& dc : base.topology.datacenters)
                counts.push_back(std::count(stages.begin(), stages.end(), dc.id));
            stagesBySplit[designPointToJson(p.point)["stage_split"].dump()] = counts;
            const Scenario sc = applyPoint(base, p.point, p.placement);
            QCOMPARE(sc.placement, p.placement);
            const std::vector<std::int64_t> placed = placedGpusPerDatacenter(sc);
            QVERIFY(placed[1] <= 20000);
        }
        using Counts = std::vector<std::ptrdiff_t>;
        QCOMPARE(stagesBySplit["0"], (Counts{6, 4, 6}));
        QCOMPARE(stagesBySplit["[1,-2]"], (Counts{7, 1, 8}));
        QCOMPARE(stagesBySplit["[2,2]"], (Counts{8, 4, 4}));
    }

    void eachDimensionReachesTheEvaluatedScenario()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        const SweepResult r = sweepTop(base, catalog, acrossSpace(base), 100000);
        QVERIFY(r.ok);
        checkCountsAddUp(r.counts);
        QVERIFY(r.counts.feasible > 0);
        std::set<std::string> seen;
        EvaluateOptions lean;
        lean.timeline = lean.warnings = lean.billOfMaterials = lean.attribution = false;
        for (const SweepPoint& p : r.top) {
            const DesignPoint& d = p.point;
            const Scenario sc = applyPoint(base, d, p.placement);
            QCOMPARE(sc.parallelism.sequenceParallel, d.sequenceParallel);
            QVERIFY(std::equal(d.rankOrder.begin(), d.rankOrder.end(),
                               sc.placement.rankOrder.begin(), sc.placement.rankOrder.end()));
            QCOMPARE(pipelineCrossesDatacenter(sc.placement), d.boundary == PlacementBoundary::Pp);
            QCOMPARE(dataParallel(sc), p.dataParallel);
            if (d.dataParallel > 0)
                QCOMPARE(p.dataParallel, std::int64_t{d.dataParallel});
            const DciLink& link = sc.topology.links.front();
            QCOMPARE(link.transport,
                     d.dciTransport.of(0).value_or(base.topology.links[0].transport));
            QCOMPARE(link.wavelengths, d.wavelengths.of(0).value_or(64));
            for (const Datacenter& dc : sc.topology.datacenters)
                QCOMPARE(dc.fabric.kind, d.fabric.all.value_or(FabricKind::Clos));
            const int batch = sc.workload.globalBatch;
            QVERIFY(batch >= 1024 && batch <= 4096);
            QCOMPARE(batch % (d.microBatch * p.dataParallel), std::int64_t{0});
            // The point's figures are those of its scenario.
            QCOMPARE(evaluate(sc, catalog, lean).iterationTimeS, p.evaluation.iterationTimeS);
            seen.insert(std::string("sp") + (d.sequenceParallel ? "1" : "0"));
            seen.insert(std::string("boundary ") + toString(d.boundary));
            seen.insert("order " + rankOrderToString(d.rankOrder));
            seen.insert("dp " + std::to_string(d.dataParallel));
            seen.insert(std::string("dci ") +
                        (d.dciTransport.all ? toString(*d.dciTransport.all) : "-"));
            seen.insert("wavelengths " + std::to_string(d.wavelengths.all.value_or(0)));
            seen.insert(std::string("fabric ") + (d.fabric.all ? toString(*d.fabric.all) : "-"));
        }
        // Every value of every dimension reaches a ranked point.
        std::string values;
        for (const std::string& v : seen)
            values += v + "; ";
        QVERIFY2(seen.size() == 14, values.c_str());
    }

    // The gradient-reduction precision is a dimension: absent from the default space (the base's
    // only, since bf16 trades accuracy), searched when asked, and carried to the point's scenario.
    // With DP across the buildings, bf16 halves the gradients on the DCI, so its best point is
    // no slower than fp32's.
    void gradientPrecisionIsSearchedWhenAsked()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        QCOMPARE(defaultSearchSpace(base).gradReduceDtype,
                 std::vector<GradReduceDtype>{base.parallelism.gradReduceDtype});
        SearchSpace space = pinnedSpace(base);
        space.boundaries = {PlacementBoundary::Dp};
        space.gradReduceDtype = {GradReduceDtype::Fp32, GradReduceDtype::Bf16};
        const SweepResult r = sweepTop(base, catalog, space, 1000);
        QVERIFY(r.ok);
        checkCountsAddUp(r.counts);
        std::map<GradReduceDtype, double> best;
        EvaluateOptions lean;
        lean.timeline = lean.warnings = lean.billOfMaterials = lean.attribution = false;
        for (const SweepPoint& p : r.top) {
            const Scenario sc = applyPoint(base, p.point, p.placement);
            QCOMPARE(sc.parallelism.gradReduceDtype, p.point.gradReduceDtype);
            QCOMPARE(evaluate(sc, catalog, lean).iterationTimeS, p.evaluation.iterationTimeS);
            QCOMPARE(describeSweepPoint(p).find("grads bf16") != std::string::npos,
                     p.point.gradReduceDtype == GradReduceDtype::Bf16);
            const double t = p.evaluation.iterationTimeS;
            auto [it, fresh] = best.try_emplace(p.point.gradReduceDtype, t);
            if (!fresh)
                it->second = std::min(it->second, t);
        }
        QCOMPARE(best.size(), std::size_t{2});
        qInfo("best fp32 %.3f s, bf16 %.3f s", best.at(GradReduceDtype::Fp32),
              best.at(GradReduceDtype::Bf16));
        QVERIFY(best.at(GradReduceDtype::Bf16) <= best.at(GradReduceDtype::Fp32));
        // The saved space says what was searched, and reads back.
        const std::string saved = searchSpaceToJson(space).dump();
        QVERIFY2(saved.find(R"("grad_reduce_dtype":["fp32","bf16"])") != std::string::npos,
                 saved.c_str());
        DiagnosticSink sink("space.json");
        const std::optional<SearchSpace> back = parseSearchSpace(saved, base, sink);
        QVERIFY(back);
        QCOMPARE(back->gradReduceDtype, space.gradReduceDtype);
    }

    // How the buildings stay in step, H and the checkpoint interval are dimensions: the base's
    // unless asked, carried to the point's scenario, and pruned where they cannot matter (a
    // loosely coupled scheme where DP crosses no building is synchronous training; H does
    // nothing to synchronous training). DiLoCo across the buildings steps faster than
    // synchronous DP across them and pays in extra steps, which only the effective time counts.
    void runKnobsAreSearchedWhenAsked()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        const SearchSpace defaults = defaultSearchSpace(base);
        QCOMPARE(defaults.datacenterSync, std::vector<std::optional<DatacenterSync>>{std::nullopt});
        QCOMPARE(defaults.innerSteps, std::vector<std::optional<int>>{std::nullopt});
        QCOMPARE(defaults.checkpointIntervalS, std::vector<std::optional<double>>{std::nullopt});
        SearchSpace space = pinnedSpace(base);
        space.boundaries = {PlacementBoundary::Base, PlacementBoundary::Dp};
        // Full recompute: room in HBM for DiLoCo's outer state and its optimizer sharded over
        // one building's replicas only (without it no loosely coupled point fits).
        space.recompute = {Recompute::Full};
        space.datacenterSync = {DatacenterSync::Synchronous, DatacenterSync::DiLoCo,
                                DatacenterSync::StreamingDiLoCo};
        space.innerSteps = {30, 300};
        space.checkpointIntervalS = {std::nullopt, 600.0};
        const SweepResult r = sweepTop(base, catalog, space, 1000);
        QVERIFY(r.ok);
        checkCountsAddUp(r.counts);
        // 2 boundaries x 3 schemes x 2 H x 2 intervals = 24. PP across (DP local): synchronous
        // with the first H only, 2 points, 10 redundant. DP across: synchronous with the first H
        // (2 points, 2 redundant), both loose schemes with both H (8 points).
        QCOMPARE(r.counts.spacePoints, std::uint64_t{24});
        QCOMPARE(prunedBy(r, PruneReason::Redundant), std::uint64_t{12});
        QCOMPARE(r.counts.feasible, std::uint64_t{12});
        std::map<std::pair<int, int>, double>
            stepS; // (scheme, H) over DP across, at base's interval
        for (const SweepPoint& p : r.top) {
            const Scenario sc = applyPoint(base, p.point, p.placement);
            QVERIFY(p.point.datacenterSync.has_value());
            QCOMPARE(sc.parallelism.datacenterSync.scheme, *p.point.datacenterSync);
            QCOMPARE(sc.parallelism.datacenterSync.innerSteps, *p.point.innerSteps);
            QCOMPARE(sc.workload.checkpointIntervalS,
                     p.point.checkpointIntervalS.value_or(base.workload.checkpointIntervalS));
            const Evaluation full = evaluate(sc, catalog);
            QCOMPARE(full.iterationTimeS, p.evaluation.iterationTimeS);
            QCOMPARE(full.goodput.effectiveTimeToTrainS,
                     p.evaluation.goodput.effectiveTimeToTrainS);
            // The bounds the search prunes on hold for the loosely coupled schemes too.
            QVERIFY(iterationTimeLowerBoundS(sc, catalog) <= full.iterationTimeS);
            QVERIFY(memoryLowerBoundGib(sc, p.dataParallel) <= full.memoryPeakGib);
            // What the point asks for is what runs: a loose scheme only where DP crosses.
            QCOMPARE(p.evaluation.datacenterSync.scheme, *p.point.datacenterSync);
            const bool dpAcross = p.point.boundary == PlacementBoundary::Dp;
            QVERIFY(dpAcross || *p.point.datacenterSync == DatacenterSync::Synchronous);
            if (*p.point.datacenterSync == DatacenterSync::Synchronous)
                QCOMPARE(*p.point.innerSteps, 30);
            if (p.point.checkpointIntervalS) {
                QVERIFY(p.evaluation.goodput.checkpointIntervalS >= 600.0);
                QVERIFY(describeSweepPoint(p).find("checkpoint 10 min") != std::string::npos);
            } else if (dpAcross) {
                stepS[{static_cast<int>(*p.point.datacenterSync), *p.point.innerSteps}] =
                    p.evaluation.iterationTimeS;
                // Synchronous training needs no extra steps; H 300 does (Charles et al. 2025).
                if (*p.point.datacenterSync == DatacenterSync::Synchronous)
                    QCOMPARE(p.evaluation.goodput.convergenceS, 0.0);
                else if (*p.point.innerSteps == 300)
                    QVERIFY(p.evaluation.goodput.convergenceS > 0.0);
            }
            if (*p.point.datacenterSync == DatacenterSync::DiLoCo)
                QVERIFY2(
                    describeSweepPoint(p).find("diloco H " + std::to_string(*p.point.innerSteps)) !=
                        std::string::npos,
                    describeSweepPoint(p).c_str());
        }
        QCOMPARE(stepS.size(), std::size_t{5});
        const double sync = stepS.at({static_cast<int>(DatacenterSync::Synchronous), 30});
        const double diloco30 = stepS.at({static_cast<int>(DatacenterSync::DiLoCo), 30});
        const double diloco300 = stepS.at({static_cast<int>(DatacenterSync::DiLoCo), 300});
        qInfo("step over DP across: synchronous %.3f s, DiLoCo H 30 %.3f s, H 300 %.3f s", sync,
              diloco30, diloco300);
        QVERIFY(diloco300 <= diloco30);
        QVERIFY(diloco30 < sync);
        // The saved space says what was searched, and reads back.
        const std::string saved = searchSpaceToJson(space).dump();
        for (const char* part :
             {R"("datacenter_sync":["synchronous","diloco","streaming-diloco"])",
              R"("inner_steps":[30,300])", R"("checkpoint_interval_s":["base",600.0])"})
            QVERIFY2(saved.find(part) != std::string::npos, saved.c_str());
        DiagnosticSink sink("space.json");
        const std::optional<SearchSpace> back = parseSearchSpace(saved, base, sink);
        QVERIFY(back);
        QCOMPARE(back->datacenterSync, space.datacenterSync);
        QCOMPARE(back->innerSteps, space.innerSteps);
        QCOMPARE(back->checkpointIntervalS, space.checkpointIntervalS);
        // "daly" is 0, Daly's optimum.
        DiagnosticSink daly("space.json");
        const auto withDaly =
            parseSearchSpace(R"({"checkpoint_interval_s": ["daly", 3600]})", base, daly);
        QVERIFY(withDaly);
        QCOMPARE(withDaly->checkpointIntervalS, (std::vector<std::optional<double>>{0.0, 3600.0}));
    }

    void runKnobsRefuseBadValues_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("expected");
        QTest::newRow("scheme") << R"({"datacenter_sync": ["diloco", "async"]})"
                                << "/datacenter_sync/1"
                                << "expected one of synchronous, diloco, streaming-diloco, base";
        QTest::newRow("H zero") << R"({"inner_steps": [0]})"
                                << "/inner_steps/0"
                                << "expected an integer in 1..100000 or base";
        QTest::newRow("H text") << R"({"inner_steps": ["often"]})"
                                << "/inner_steps/0"
                                << "expected an integer in 1..100000 or base";
        QTest::newRow("interval negative") << R"({"checkpoint_interval_s": [1800, -5]})"
                                           << "/checkpoint_interval_s/1"
                                           << "expected a positive number of seconds, daly or base";
        QTest::newRow("interval zero") << R"({"checkpoint_interval_s": [0]})"
                                       << "/checkpoint_interval_s/0"
                                       << "expected a positive number of seconds, daly or base";
        QTest::newRow("not a list") << R"({"inner_steps": 100})"
                                    << "/inner_steps"
                                    << "expected a non-empty array";
    }

    void runKnobsRefuseBadValues()
    {
        QFETCH(QString, text);
        QFETCH(QString, pointer);
        QFETCH(QString, expected);
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        DiagnosticSink sink("space.json");
        QVERIFY(!parseSearchSpace(text.toStdString(), base, sink));
        const std::vector<Diagnostic> errors = sink.takeErrors();
        QVERIFY(!errors.empty());
        QCOMPARE(QString::fromStdString(errors.front().pointer), pointer);
        QVERIFY2(QString::fromStdString(errors.front().message).startsWith(expected),
                 errors.front().message.c_str());
    }

    void ranksByEffectiveTimeToTrain()
    {
        // The list by time to train with failures holds every ranked point (top 1000 > all),
        // in increasing effective time, each the full evaluation's goodput, never below the
        // failure-free time.
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        const SweepResult r = sweepTop(base, catalog, defaultSearchSpace(base), 100'000);
        QVERIFY(r.ok);
        const auto& list = r.topBy[static_cast<std::size_t>(SweepObjective::EffectiveTimeToTrain)];
        QCOMPARE(list.size(), static_cast<std::size_t>(r.counts.feasible));
        QVERIFY(list.size() > 1);
        QCOMPARE(std::string(toString(SweepObjective::EffectiveTimeToTrain)),
                 std::string("effective_time_to_train"));
        for (std::size_t i = 0; i < list.size(); ++i) {
            const Goodput& g = list[i].evaluation.goodput;
            QVERIFY(g.effectiveTimeToTrainS >= list[i].evaluation.timeToTrainS);
            QVERIFY(g.ettr > 0.0 && g.ettr < 1.0);
            if (i > 0)
                QVERIFY(list[i - 1].evaluation.goodput.effectiveTimeToTrainS <=
                        g.effectiveTimeToTrainS);
        }
        for (std::size_t i : {std::size_t{0}, list.size() - 1}) {
            const Scenario sc = applyPoint(base, list[i].point, list[i].placement);
            QCOMPARE(evaluate(sc, catalog).goodput.effectiveTimeToTrainS,
                     list[i].evaluation.goodput.effectiveTimeToTrainS);
        }
    }

    void ranksByRunCost()
    {
        // The list by the run's cost with failures holds every ranked point, in increasing
        // cost, each priced as evaluate() prices it (the cost per hour from its GPUs and its
        // topology variant's network), never below its cost per hour over the failure-free time
        // (the bound filter's lower bound).
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        const SweepResult r = sweepTop(base, catalog, defaultSearchSpace(base), 100'000);
        QVERIFY(r.ok);
        const auto& list = r.topBy[static_cast<std::size_t>(SweepObjective::RunCost)];
        QCOMPARE(list.size(), static_cast<std::size_t>(r.counts.feasible));
        QVERIFY(list.size() > 1);
        QCOMPARE(std::string(toString(SweepObjective::RunCost)), std::string("run_cost"));
        for (std::size_t i = 0; i < list.size(); ++i) {
            const RunCost& c = list[i].evaluation.runCost;
            QVERIFY(c.priced);
            QVERIFY(c.effectiveRunCostUsd >= c.runCostUsd);
            QVERIFY(c.runCostUsd >=
                    c.usdPerHour * list[i].evaluation.timeToTrainS / 3600.0 * 0.999);
            if (i > 0)
                QVERIFY(list[i - 1].evaluation.runCost.effectiveRunCostUsd <=
                        c.effectiveRunCostUsd);
        }
        for (std::size_t i : {std::size_t{0}, list.size() - 1}) {
            const Scenario sc = applyPoint(base, list[i].point, list[i].placement);
            const Evaluation full = evaluate(sc, catalog);
            QVERIFY(std::abs(full.runCost.effectiveRunCostUsd /
                                 list[i].evaluation.runCost.effectiveRunCostUsd -
                             1.0) < 1e-12);
        }
    }

    void dpAcrossAndPpAcrossDiffer()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        SearchSpace space = pinnedSpace(base);
        space.boundaries = {PlacementBoundary::Base, PlacementBoundary::Pp, PlacementBoundary::Dp};
        const SweepResult r = runSweep(base, effectiveCatalog(base), space);
        checkCountsAddUp(r.counts);
        // The base's placement is PP across: the preset repeats it.
        QCOMPARE(prunedBy(r, PruneReason::Redundant), std::uint64_t{1});
        QCOMPARE(r.counts.feasible, std::uint64_t{2});
        const SweepPoint& a = r.top[0];
        const SweepPoint& b = r.top[1];
        QVERIFY(a.placement != b.placement);
        QVERIFY(a.evaluation.iterationTimeS != b.evaluation.iterationTimeS);
        QCOMPARE(a.dataParallel, b.dataParallel);
        const SweepPoint& dp = a.point.boundary == PlacementBoundary::Dp ? a : b;
        QVERIFY(!pipelineCrossesDatacenter(dp.placement));
        QCOMPARE(dp.placement.shards.size(), std::size_t{2});
    }

    void unequalStageSplitMovesTheBoundary()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        SearchSpace space = pinnedSpace(base);
        space.virtualStages = {1};
        space.schedules = {ScheduleKind::OneFOneB};
        space.boundaries = {PlacementBoundary::Pp};
        space.stageSplits = {0, -2, 1};
        space.globalBatch = {1024, 4096};
        const SweepResult r = sweepTop(base, effectiveCatalog(base), space, 100);
        checkCountsAddUp(r.counts);
        QCOMPARE(r.counts.evaluated, std::uint64_t{3});
        for (const SweepPoint& p : r.top) {
            const std::vector<Id>& stages = p.placement.shards.front().stageDatacenters;
            const auto first = std::count(stages.begin(), stages.end(), Id{0});
            QCOMPARE(first, std::ptrdiff_t{8 + p.point.stageSplit.offset});
            // The datacenter with more stages holds fewer replicas of them: 8,192 GPUs each.
            const auto most = std::max<std::ptrdiff_t>(first, 16 - first);
            QCOMPARE(p.dataParallel, std::int64_t{8192 / (8 * most)});
        }
    }

    void spareGpusWarnAndEvaluate()
    {
        const Scenario base = loadPreset(presetPath("gpt3-175b-1024-a100.json"));
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = pinnedSpace(base);
        space.dataParallel = {0, 8};
        const SweepResult r = runSweep(base, catalog, space);
        checkCountsAddUp(r.counts);
        QCOMPARE(r.counts.feasible, std::uint64_t{2});
        const SweepPoint& spare = r.top[0].dataParallel == 8 ? r.top[0] : r.top[1];
        QCOMPARE(spare.dataParallel, std::int64_t{8});
        QCOMPARE(spare.evaluation.gpus, std::int64_t{512});
        const Scenario sc = applyPoint(base, spare.point, spare.placement);
        const Evaluation full = evaluate(sc, catalog);
        QVERIFY(full.ok);
        const auto warning =
            std::find_if(full.warnings.begin(), full.warnings.end(),
                         [](const Warning& w) { return w.code == WarningCode::SpareGpus; });
        QVERIFY(warning != full.warnings.end());
        QCOMPARE(warning->integer("spare_gpus"), std::int64_t{512});
        QCOMPARE(toString(WarningCode::SpareGpus), std::string_view("spare-gpus"));
        // The loader accepts it with a warning; more GPUs than held stays an error.
        bool warned = false;
        for (const Diagnostic& d : checkScenario(sc, catalog)) {
            QVERIFY2(d.severity != Diagnostic::Severity::Error, d.toString().c_str());
            warned = warned || d.message.find("512 stay idle") != std::string::npos;
        }
        QVERIFY(warned);
        Scenario over = sc;
        over.placement.shards.front().dpReplicas = 32;
        over.workload.globalBatch = 2048;
        const std::vector<Diagnostic> errors = checkScenario(over, catalog);
        QVERIFY(std::any_of(errors.begin(), errors.end(), [](const Diagnostic& d) {
            return d.severity == Diagnostic::Severity::Error;
        }));
    }

    void networkCapexIsEachVariantsOwn()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        SearchSpace space = pinnedSpace(base);
        space.wavelengths = {std::nullopt, 16, 32};
        const SweepResult r = runSweep(base, effectiveCatalog(base), space);
        checkCountsAddUp(r.counts);
        QCOMPARE(r.counts.feasible, std::uint64_t{3});
        std::map<int, const SweepPoint*> byCount;
        for (const SweepPoint& p : r.top)
            byCount[p.point.wavelengths.all.value_or(0)] = &p;
        QCOMPARE(byCount.size(), std::size_t{3});
        QCOMPARE(byCount[0]->networkCapexUsd, r.base.networkCapexUsd);
        // The base's 64 wavelengths fill its line system: fewer cost less.
        QVERIFY(byCount[16]->networkCapexUsd < byCount[32]->networkCapexUsd);
        QVERIFY(byCount[32]->networkCapexUsd < byCount[0]->networkCapexUsd);
        QVERIFY(byCount[32]->networkPowerW > byCount[16]->networkPowerW);
        QCOMPARE(byCount[32]->totalCostUsd - byCount[16]->totalCostUsd,
                 byCount[32]->networkCapexUsd - byCount[16]->networkCapexUsd);
        // The same figures as a full evaluation of the variant's scenario.
        const Scenario sc = applyPoint(base, byCount[32]->point, byCount[32]->placement);
        QCOMPARE(evaluate(sc).networkCapexUsd, byCount[32]->networkCapexUsd);
    }

    void constraintsPruneWithTheirReason()
    {
        const Scenario two = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog twoCatalog = effectiveCatalog(two);
        SearchSpace space = pinnedSpace(two);
        space.dciCapacityGbpsMin = 1e9;
        SweepResult r = runSweep(two, twoCatalog, space);
        checkCountsAddUp(r.counts);
        QCOMPARE(prunedBy(r, PruneReason::DciCapacity), r.counts.considered);

        space = pinnedSpace(two);
        space.maxDciUtilisation = 1e-9;
        r = runSweep(two, twoCatalog, space);
        checkCountsAddUp(r.counts);
        QCOMPARE(r.counts.overBudget, std::uint64_t{1});
        QVERIFY(!r.baseFeasible);

        // The base's placement puts 8,192 GPUs in each building; DP across fits the cap.
        space = pinnedSpace(two);
        space.maxGpusPerDatacenter = {4096};
        space.boundaries = {PlacementBoundary::Base, PlacementBoundary::Dp};
        space.globalBatch = {1, 4096};
        SweepOptions options;
        options.top = 10;
        r = runSweep(two, twoCatalog, space, options);
        checkCountsAddUp(r.counts);
        QCOMPARE(prunedBy(r, PruneReason::DatacenterGpus), std::uint64_t{1});
        QCOMPARE(r.counts.evaluated, std::uint64_t{1});

        const Scenario gpt = loadPreset(presetPath("gpt3-175b-1024-a100.json"));
        space = pinnedSpace(gpt);
        space.globalBatch = {1, 10}; // no multiple of DP 16
        r = runSweep(gpt, effectiveCatalog(gpt), space);
        checkCountsAddUp(r.counts);
        QCOMPARE(prunedBy(r, PruneReason::GlobalBatch), std::uint64_t{1});
        space.globalBatch = {1000, 1100}; // 1,024 and 1,088: the nearest to 1,536
        space.schedules = {ScheduleKind::OneFOneB};
        r = runSweep(gpt, effectiveCatalog(gpt), space);
        QCOMPARE(r.counts.evaluated, std::uint64_t{1});
        if (!r.top.empty())
            QCOMPARE(r.top.front().point.globalBatch, 1088);
    }

    void sameResultWhateverTheThreadsWithTheNewDimensions()
    {
        const Scenario base = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = acrossSpace(base);
        space.boundaries = {PlacementBoundary::Base, PlacementBoundary::Pp, PlacementBoundary::Dp};
        space.stageSplits = {0, -1, 1};
        space.maxGpusPerDatacenter = {8192, 7680};
        SweepOptions one;
        one.threads = 1;
        one.top = 50;
        one.batchSize = 29;
        SweepOptions two = one;
        two.threads = 2;
        two.batchSize = 128;
        const SweepResult a = runSweep(base, catalog, space, one);
        const SweepResult b = runSweep(base, catalog, space, two);
        QVERIFY(a.counts.feasible > 10);
        QCOMPARE(sweepResultToJson("f", a).dump(), sweepResultToJson("f", b).dump());
    }

    // The scale-across comparison (README, scripts/scale_across.py): a production-style
    // baseline (Megatron's rank order, DP across the buildings, 1F1B, the transport as given),
    // the best of one dimension at a time, and the joint search. The joint space holds every
    // single-dimension space, so its best is at least as fast as each; each holds the baseline.
    void jointSearchIsAtLeastEverySingleDimension()
    {
        Scenario two = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        for (DciLink& link : two.topology.links)
            link.distanceKm = 500.0; // where placement and transport both matter
        const Catalog catalog = effectiveCatalog(two);
        SearchSpace baseline = pinnedSpace(two);
        baseline.rankOrders = {kMegatronRankOrder};
        baseline.boundaries = {PlacementBoundary::Dp};
        baseline.stageSplits = {0};
        // What a Megatron-LM team launches: interleaved, with the chunks per rank it tunes
        // (scripts/scale_across.py, README "Across buildings").
        baseline.schedules = {ScheduleKind::Interleaved1F1B};
        baseline.virtualStages = {2, 4};
        baseline.extraInFlightAtDci = {0};
        baseline.dciTransports = {std::nullopt};
        SearchSpace placement = baseline;
        placement.boundaries = {PlacementBoundary::Dp, PlacementBoundary::Pp};
        placement.stageSplits = {0, -1, 1};
        placement.rankOrders = {kMegatronRankOrder, *rankOrderFromString("tp-cp-ep-pp-dp")};
        SearchSpace schedule = baseline;
        schedule.schedules = {ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B,
                              ScheduleKind::ZeroBubbleH1};
        schedule.virtualStages = {1, 2, 4};
        SearchSpace transport = baseline;
        transport.dciTransports = {std::nullopt, DciTransport::LossyIp, DciTransport::RocePfc};
        SearchSpace joint = placement;
        joint.schedules = schedule.schedules;
        joint.virtualStages = schedule.virtualStages;
        joint.dciTransports = transport.dciTransports;
        SweepOptions options;
        options.top = 1;
        const auto best = [&](const SearchSpace& space) {
            const SweepResult r = runSweep(two, catalog, space, options);
            return r.top.empty() ? std::numeric_limits<double>::infinity()
                                 : r.top.front().evaluation.iterationTimeS;
        };
        const double baselineS = best(baseline);
        QVERIFY(std::isfinite(baselineS));
        const double jointS = best(joint);
        for (const SearchSpace* single : {&placement, &schedule, &transport}) {
            const double singleS = best(*single);
            QVERIFY(singleS <= baselineS);
            QVERIFY(jointS <= singleS);
        }
        QVERIFY(jointS < baselineS);
    }

    void cliWritesJsonAndRefusesBadOptions()
    {
        QTemporaryDir dir;
        const std::string space = dir.filePath("space.json").toStdString();
        std::ofstream(space) << R"({"tp": [8], "pp": [8], "sequence_parallel": [false],
            "virtual_stages": [1, 3],
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
