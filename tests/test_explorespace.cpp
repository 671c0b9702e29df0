// The explorer's search space (`archipelago-cli sweep --space`): a malformed file is an error with
// its JSON pointer; the per-datacenter forms; each dimension (placement, network, gradient
// precision, run knobs) reaches the evaluated scenario; the constraints prune with their reason.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "explore/lowerbound.h"
#include "explore/memoryestimate.h"
#include "explore/spacejson.h"
#include "explore/sweep.h"
#include "explore/sweepjson.h"
#include "explorefixtures.h"
#include "io/scenarioio.h"
#include "model/shapecheck.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace archipelago;
using namespace archipelago::core;

using tests::acrossSpace;
using tests::checkCountsAddUp;
using tests::loadPreset;
using tests::pinnedSpace;
using tests::presetPath;
using tests::sweepTop;

namespace {

bool pipelineCrossesDatacenter(const Placement& placement)
{
    for (const PlacementShard& shard : placement.shards)
        for (Id dc : shard.stageDatacenters)
            if (dc != shard.stageDatacenters.front())
                return true;
    return false;
}

std::uint64_t prunedBy(const SweepResult& r, PruneReason reason)
{
    return r.counts.pruned[static_cast<std::size_t>(reason)];
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

class TestExploreSpace : public QObject
{
    Q_OBJECT

private slots:
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

QTEST_GUILESS_MAIN(TestExploreSpace)
#include "test_explorespace.moc"
