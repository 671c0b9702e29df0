// The explorer's sweep (core/explore; docs/explore.md): its best point at least as fast as the
// preset, the same result with 1 and 4 threads, counts that add up, valid reported points, exact
// Pareto fronts, cancellation, the saved sweep, and the lists by effective time and run cost.
#include "evaluation/costmodel.h"
#include "explore/memoryestimate.h"
#include "explore/paretofront.h"
#include "explore/spaceodometer.h"
#include "explore/sweep.h"
#include "explore/sweepjson.h"
#include "explore/sweeprecord.h"
#include "explore/sweepsave.h"
#include "explorefixtures.h"
#include "io/scenarioio.h"
#include "model/shapecheck.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

using namespace archipelago;
using namespace archipelago::core;

using tests::acrossSpace;
using tests::basePlacementSpace;
using tests::checkCountsAddUp;
using tests::loadPreset;
using tests::pinnedSpace;
using tests::presetPath;
using tests::sweepTop;

namespace {

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

std::vector<const SweepPoint*> reported(const SweepResult& r)
{
    std::vector<const SweepPoint*> all;
    for (const auto* list : {&r.top, &r.timeVsCapex, &r.timeVsMemory, &r.trainTimeVsCost})
        for (const SweepPoint& p : *list)
            all.push_back(&p);
    return all;
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
        int warned = 0;
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
                const std::vector<Diagnostic> checked =
                    checkScenario(sc, catalog, TopologyRules::Checked);
                QCOMPARE(errorsOf(checked), full);
                // The sweep's question, asked without composing a warning: the same verdict.
                QCOMPARE(scenarioRefused(sc, catalog, TopologyRules::Checked), !full.empty());
                ++(full.empty() ? passing : failing);
                if (full.empty() && checked.size() > full.size())
                    ++warned;
            }
        }
        QVERIFY(failing > 100);
        QVERIFY(passing > 10);
        QVERIFY(warned > 0); // passing candidates with warnings (spare GPUs, ...) among them
        // The rules it skips are the topology's own: a self-loop and a datacenter cut off.
        Scenario broken = loadPreset(presetPath("llama3-405b-two-buildings.json"));
        broken.topology.links.front().b = broken.topology.links.front().a;
        const Catalog catalog = effectiveCatalog(broken);
        QVERIFY(!errorsOf(checkTopology(broken.topology, catalog)).empty());
        QVERIFY(!errorsOf(checkScenario(broken, catalog)).empty());
        QVERIFY(errorsOf(checkScenario(broken, catalog, TopologyRules::Checked)).empty());
        QVERIFY(scenarioRefused(broken, catalog, TopologyRules::Run));
        QVERIFY(!scenarioRefused(broken, catalog, TopologyRules::Checked));
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
        // Batches run in regions (several per parallel loop, pruned against the results as of
        // the region's start) and merged one by one against the results as of each batch's
        // start: counts included, the same as merging every batch before running the next.
        for (const int perRegion : {1, 3, 64}) {
            SweepOptions regions = one;
            regions.threads = 4;
            regions.batchesPerRegion = perRegion;
            QCOMPARE(
                sweepResultToJson("f", runSweep(two, twoCatalog, defaultSearchSpace(two), regions))
                    .dump(),
                sweepResultToJson("f", c).dump());
        }
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

    void changesNameWhatDiffersInTheWindowsWords()
    {
        // The live front's "TP 4 PP 16 v 8": only what differs, the degrees as the points run
        // them, and nothing for the same design.
        core::SweepPoint from;
        from.point.tp = 8;
        from.point.pp = 16;
        from.point.virtualStages = 4;
        from.point.schedule = core::ScheduleKind::Interleaved1F1B;
        from.point.sequenceParallel = true;
        from.point.recompute = core::Recompute::Selective;
        from.dataParallel = 128;
        QVERIFY(core::sweepPointChanges(from, from).empty());
        core::SweepPoint to = from;
        to.point.tp = 4;
        to.dataParallel = 256;
        to.point.virtualStages = 8;
        to.point.recompute = core::Recompute::None;
        to.point.distributedOptimizer = true;
        to.point.wavelengths = 32;
        const std::vector<std::string> changes = core::sweepPointChanges(from, to);
        const std::vector<std::string> expected{
            "TP 4", "DP 256", "v 8", "recompute none", "distributed optimizer", "32 wavelengths"};
        QCOMPARE(changes, expected);
        // A schedule that does not interleave runs v 1 whatever the knob says: the change is
        // the schedule and the v it runs.
        to = from;
        to.point.schedule = core::ScheduleKind::ZeroBubbleH1;
        QCOMPARE(core::sweepPointChanges(from, to),
                 (std::vector<std::string>{"v 1", "Zero bubble (ZB-H1)"}));
        // Sequence parallelism means nothing at TP 1: TP 1 is the change, not "no sequence
        // parallel".
        to = from;
        to.point.tp = 1;
        to.point.sequenceParallel = false;
        QCOMPARE(core::sweepPointChanges(from, to), (std::vector<std::string>{"TP 1"}));
        to = from;
        to.point.sequenceParallel = false;
        QCOMPARE(core::sweepPointChanges(from, to),
                 (std::vector<std::string>{"no sequence parallel"}));
        to = from;
        to.point.boundary = core::PlacementBoundary::Dp;
        QCOMPARE(core::sweepPointChanges(from, to),
                 (std::vector<std::string>{"DP across buildings"}));
    }
};

QTEST_GUILESS_MAIN(TestExplore)
#include "test_explore.moc"
