// The explorer's candidates are designs that can be built, each counted once (core/explore,
// docs/explore.md): every reported point passes the checks `archipelago-cli check` runs on a
// scenario (a point that does not is pruned `check`); `dp: "max"` and the explicit DP it comes
// to are one design (pruned `redundant`, so that top lists hold distinct designs and the counts
// are not inflated); the cross-DC-aware schedule's extra forwards are a design of their own with
// interleaving; and wavelengths and transport are set per DCI link.
#include "evaluation/costmodel.h"
#include "explore/spacejson.h"
#include "explore/sweep.h"
#include "explore/sweepjson.h"
#include "explore/sweepsave.h"
#include "io/diagnosticsink.h"
#include "io/scenarioio.h"
#include "model/scheduletraits.h"

#include <QtTest>

#include <algorithm>
#include <set>
#include <string>

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

Scenario loadPreset(const char* name)
{
    const LoadResult load = loadScenarioFile(presetPath(name));
    if (!load.ok())
        qFatal("cannot load %s", name);
    return *load.scenario;
}

// One value of every dimension, the base's: each test widens the dimensions it tests.
SearchSpace pinnedSpace(const Scenario& base)
{
    const Parallelism& par = base.parallelism;
    SearchSpace s;
    s.dciTransports = {std::nullopt};
    s.wavelengths = {std::nullopt};
    s.fabrics = {std::nullopt};
    s.tp = {par.tp};
    s.cp = {par.cp};
    s.pp = {par.pp};
    s.ep = {par.ep};
    s.boundaries = {PlacementBoundary::Base};
    s.stageSplits = {0};
    RankOrder order = kMegatronRankOrder;
    std::copy(base.placement.rankOrder.begin(), base.placement.rankOrder.end(), order.begin());
    s.rankOrders = {order};
    s.dataParallel = {0};
    s.sequenceParallel = {par.sequenceParallel};
    s.virtualStages = {par.virtualStages};
    s.microBatch = {par.microBatch};
    s.schedules = {base.schedule.kind};
    s.extraInFlightAtDci = {base.schedule.extraInFlightAtDci};
    s.recompute = {par.recompute};
    s.zeroStage = {par.zeroStage};
    s.distributedOptimizer = {par.distributedOptimizer};
    s.gradReduceDtype = {par.gradReduceDtype};
    s.globalBatch = {base.workload.globalBatch, base.workload.globalBatch};
    return s;
}

std::uint64_t prunedBy(const SweepResult& r, PruneReason reason)
{
    return r.counts.pruned[static_cast<std::size_t>(reason)];
}

void checkCountsAddUp(const SweepCounts& c)
{
    QCOMPARE(c.considered, c.prunedTotal() + c.evaluated);
    QCOMPARE(c.evaluated, c.failed + c.outOfMemory + c.overBudget + c.feasible);
}

// Every list a sweep reports: the top lists by objective and the fronts.
std::vector<const std::vector<SweepPoint>*> reportedLists(const SweepResult& r)
{
    std::vector<const std::vector<SweepPoint>*> lists{&r.timeVsCapex, &r.timeVsMemory,
                                                      &r.trainTimeVsCost};
    for (const std::vector<SweepPoint>& list : r.topBy)
        lists.push_back(&list);
    return lists;
}

bool hasErrors(const std::vector<Diagnostic>& diagnostics)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& d) {
        return d.severity == Diagnostic::Severity::Error;
    });
}

std::string errorsOf(const std::vector<Diagnostic>& diagnostics)
{
    std::string text;
    for (const Diagnostic& d : diagnostics)
        if (d.severity == Diagnostic::Severity::Error)
            text += d.toString() + "\n";
    return text;
}

std::optional<SearchSpace> readSpace(const std::string& text, const Scenario& base,
                                     std::string& errors)
{
    DiagnosticSink sink("space.json");
    std::optional<SearchSpace> space = parseSearchSpace(text, base, sink);
    for (const Diagnostic& d : sink.takeErrors())
        errors += d.toString() + "\n";
    return space;
}

} // namespace

class TestExploreChecks : public QObject
{
    Q_OBJECT

private slots:
    // The reported defect: the two-building preset's DCI line system carries 64 wavelengths,
    // and the default space's "twice the base" (128) ranked first although `check` refuses
    // its scenario. Every reported point now passes the checks; the 128 points are pruned
    // `check`.
    void everyReportedPointPassesTheScenarioChecks()
    {
        const Scenario base = loadPreset("llama3-405b-two-buildings.json");
        const Catalog catalog = effectiveCatalog(base);
        const int lineSystemMax =
            catalog.lineSystem(base.topology.links[0].lineSystem)->maxWavelengths;
        SearchSpace space = pinnedSpace(base);
        space.wavelengths = {std::nullopt, lineSystemMax / 2, 2 * lineSystemMax};
        space.microBatch = {1, 2};
        SweepOptions options;
        options.top = 100;
        const SweepResult r = runSweep(base, catalog, space, options);
        QVERIFY(r.ok);
        checkCountsAddUp(r.counts);
        QVERIFY(r.counts.feasible > 0);
        QVERIFY(prunedBy(r, PruneReason::Check) > 0);
        for (const std::vector<SweepPoint>* list : reportedLists(r))
            for (const SweepPoint& p : *list) {
                const Scenario sc = applyPoint(base, p.point, p.placement);
                const std::vector<Diagnostic> found = checkScenario(sc, catalog);
                QVERIFY2(!hasErrors(found),
                         (describeSweepPoint(p) + ":\n" + errorsOf(found)).c_str());
                QVERIFY(sc.topology.links[0].wavelengths <= lineSystemMax);
            }
    }

    // dp "max" and the explicit DP it comes to are one design: counted once, never twice in a
    // list, and the counts and the base's rank are those of the space without the duplicate.
    void maxAndItsExplicitDpAreOneDesign()
    {
        const Scenario base = loadPreset("llama3-405b-two-buildings.json");
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace plain = pinnedSpace(base);
        plain.microBatch = {1, 2};
        plain.recompute = {Recompute::None, Recompute::Selective, Recompute::Full};
        plain.schedules = {ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B};
        plain.virtualStages = {1, 2, 4};
        SearchSpace twice = plain;
        twice.dataParallel = {0, static_cast<int>(dataParallel(base))};
        SweepOptions options;
        options.top = 100;
        const SweepResult one = runSweep(base, catalog, plain, options);
        const SweepResult two = runSweep(base, catalog, twice, options);
        QVERIFY(one.ok && two.ok);
        checkCountsAddUp(two.counts);
        QVERIFY(one.counts.feasible > 1);
        QCOMPARE(two.counts.considered, 2 * one.counts.considered);
        QCOMPARE(two.counts.feasible, one.counts.feasible);
        QCOMPARE(two.counts.evaluated, one.counts.evaluated);
        QCOMPARE(two.baseRank, one.baseRank);
        QCOMPARE(prunedBy(two, PruneReason::Redundant),
                 prunedBy(one, PruneReason::Redundant) + one.counts.considered);
        for (std::size_t k = 0; k < kSweepObjectives; ++k)
            QCOMPARE(two.topBy[k].size(), one.topBy[k].size());
    }

    // No list holds the same design twice (the scenarios the points stand for all differ).
    void topListsHoldDistinctDesigns()
    {
        const Scenario base = loadPreset("llama3-405b-two-buildings.json");
        const Catalog catalog = effectiveCatalog(base);
        std::string errors;
        // The default space with dp both ways and the transport both ways.
        const std::optional<SearchSpace> space =
            readSpace(R"({"dp": ["max", )" + std::to_string(dataParallel(base)) +
                          R"(], "dci_transport": ["base", "rdma-otn"], "tp": [8], "pp": [16],
                "boundary": ["base", "pp"], "stage_split": [0],
                "schedule": ["1f1b", "interleaved-1f1b"], "zero_stage": [1, 2]})",
                      base, errors);
        QVERIFY2(space, errors.c_str());
        SweepOptions options;
        options.top = 20;
        const SweepResult r = runSweep(base, catalog, *space, options);
        QVERIFY(r.ok);
        checkCountsAddUp(r.counts);
        QVERIFY(r.counts.feasible > 20);
        for (const std::vector<SweepPoint>* list : reportedLists(r)) {
            std::vector<Scenario> designs;
            for (const SweepPoint& p : *list) {
                const Scenario sc = applyPoint(base, p.point, p.placement);
                QVERIFY2(std::find(designs.begin(), designs.end(), sc) == designs.end(),
                         describeSweepPoint(p).c_str());
                designs.push_back(sc);
            }
        }
    }

    // The cross-DC-aware schedule's extra warm-up forwards change an interleaved pipeline that
    // crosses the datacenters (the simulator runs them on every rank): not redundant.
    void extraInFlightWithInterleavingIsADesign()
    {
        const Scenario base = loadPreset("llama3-405b-two-buildings.json");
        QCOMPARE(base.schedule.kind, ScheduleKind::Interleaved1F1B);
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = pinnedSpace(base);
        space.extraInFlightAtDci = {0, 4};
        const SweepResult r = runSweep(base, catalog, space);
        QVERIFY(r.ok);
        checkCountsAddUp(r.counts);
        QCOMPARE(prunedBy(r, PruneReason::Redundant), std::uint64_t{0});
        QCOMPARE(r.counts.evaluated, std::uint64_t{2});
        QCOMPARE(r.counts.feasible, std::uint64_t{2});
        std::set<double> times;
        for (const SweepPoint& p : r.top)
            times.insert(p.evaluation.iterationTimeS);
        QCOMPARE(times.size(), std::size_t{2});
        // The same figures as the scenario with the extra forwards, evaluated alone.
        Scenario extra = base;
        extra.schedule.extraInFlightAtDci = 4;
        const double alone = evaluate(extra, catalog).iterationTimeS;
        QVERIFY(times.contains(alone));
    }

    // Every point the search drops for its extra forwards evaluates as the same point without
    // them: over every schedule, chunk count and boundary of the two-building preset.
    void extraInFlightIsRedundantOnlyWhereItChangesNothing()
    {
        const Scenario base = loadPreset("llama3-405b-two-buildings.json");
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = pinnedSpace(base);
        space.schedules.clear();
        for (const ScheduleTraits& t : allScheduleTraits())
            space.schedules.push_back(t.kind);
        space.virtualStages = {1, 2, 4};
        space.boundaries = {PlacementBoundary::Base, PlacementBoundary::Pp, PlacementBoundary::Dp};
        space.stageSplits = {0, 1};
        space.extraInFlightAtDci = {0, 4};
        space.recompute = {Recompute::Full};
        SweepOptions options;
        options.top = 100000; // no list fills: the bound filter prunes nothing
        std::vector<SweepSample> samples;
        options.samples = &samples;
        const SweepResult r = runSweep(base, catalog, space, options);
        QVERIFY(r.ok);
        std::set<std::uint64_t> evaluated;
        for (const SweepSample& s : samples)
            evaluated.insert(s.index);
        EvaluateOptions lean;
        lean.timeline = lean.warnings = lean.billOfMaterials = lean.attribution = false;
        int distinct = 0;
        // extra_in_flight_at_dci turns fastest here (recompute, ZeRO stage and distributed
        // optimizer have one value each): its twin without extras is the index before.
        for (std::uint64_t index = 0; index < r.counts.spacePoints; ++index) {
            const std::optional<SweepPointScenario> withExtra =
                sweepPointScenario(base, catalog, space, index);
            if (!withExtra || withExtra->point.extraInFlightAtDci == 0 ||
                !evaluated.contains(index - 1))
                continue;
            Scenario without = withExtra->scenario;
            without.schedule.extraInFlightAtDci = 0;
            const Evaluation a = evaluate(withExtra->scenario, catalog, lean);
            const Evaluation b = evaluate(without, catalog, lean);
            if (a.iterationTimeS == b.iterationTimeS && a.memoryPeakGib == b.memoryPeakGib)
                continue;
            ++distinct;
            QVERIFY2(evaluated.contains(index), ("pruned although the extra forwards change it: " +
                                                 designPointToJson(withExtra->point).dump())
                                                    .c_str());
        }
        QVERIFY(distinct > 0);
    }

    // The per-link forms of `wavelengths` and `dci_transport`: one value for every link, or an
    // array of one per link (an array of one value is that value); read, written back the
    // same, and errors naming the pointer and the form expected.
    void perLinkFormsAreRead()
    {
        const Scenario base = loadPreset("scale-across-100k-3-regions.json");
        QCOMPARE(base.topology.links.size(), std::size_t{3});
        std::string errors;
        const std::optional<SearchSpace> s = readSpace(
            R"({"wavelengths": ["base", [64, "base", 32], [96, 96, 96]],
                "dci_transport": [["lossy-ip", "base", "rdma-otn"], "roce-pfc"]})",
            base, errors);
        QVERIFY2(s, errors.c_str());
        QCOMPARE(s->wavelengths.size(), std::size_t{3});
        QVERIFY(s->wavelengths[0].isBase());
        QCOMPARE(s->wavelengths[1],
                 ElementChoice<int>(std::vector<std::optional<int>>{64, std::nullopt, 32}));
        QCOMPARE(s->wavelengths[2], ElementChoice<int>(96));
        QCOMPARE(s->dciTransports[0].of(0), std::optional{DciTransport::LossyIp});
        QVERIFY(!s->dciTransports[0].of(1).has_value()); // no value: the base link's
        QCOMPARE(s->dciTransports[1], ElementChoice<DciTransport>(DciTransport::RocePfc));
        // Written back in the same forms, read back to the same values.
        const std::optional<SearchSpace> again =
            readSpace(searchSpaceToJson(*s).dump(), base, errors);
        QVERIFY2(again, errors.c_str());
        QVERIFY(again->wavelengths == s->wavelengths);
        QVERIFY(again->dciTransports == s->dciTransports);
    }

    // The space's one reader takes a JSON value where it lies in its document (the Explore
    // panel's fields, a saved sweep's "space"): its errors name pointers under that place, an
    // error the caller had found before does not fail a good space, and the writer's document
    // reads back as the same space without passing through text.
    void spaceReadFromAValueUnderItsPointer()
    {
        const Scenario base = loadPreset("llama3-405b-two-buildings.json");
        DiagnosticSink sink("scenario.json");
        sink.error("/name", "an earlier error of the caller");
        const std::optional<SearchSpace> good =
            readSearchSpace(nlohmann::ordered_json{{"tp", {4, 8}}}, base, sink, "/explore/space");
        QVERIFY(good);
        QCOMPARE(good->tp, (std::vector<int>{4, 8}));
        QCOMPARE(sink.errors().size(), std::size_t{1});

        const std::optional<SearchSpace> bad =
            readSearchSpace(nlohmann::ordered_json{{"tp", {0}}}, base, sink, "/explore/space");
        QVERIFY(!bad);
        QCOMPARE(sink.errors().size(), std::size_t{2});
        QVERIFY2(sink.errors().back().pointer.starts_with("/explore/space/tp"),
                 sink.errors().back().pointer.c_str());

        DiagnosticSink clean("space.json");
        const std::optional<SearchSpace> back =
            readSearchSpace(searchSpaceToJson(*good), base, clean);
        QVERIFY(back);
        QVERIFY(searchSpaceToJson(*back) == searchSpaceToJson(*good));
    }

    void malformedPerLinkValueIsAnError_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("message");
        const QString three = "scale-across-100k-3-regions.json";
        QTest::newRow("wavelengths per link, length")
            << three << R"({"wavelengths": ["base", [64, 32]]})"
            << "/wavelengths/1"
            << "expected an integer in 1..4096 or base, or an array of 3 of them (one per DCI "
               "link), got an array of 2 values";
        QTest::newRow("wavelengths per link, entry")
            << three << R"({"wavelengths": [[64, 5000, 32]]})"
            << "/wavelengths/0/1"
            << "expected an integer in 1..4096 or base, "
               "got 5000";
        QTest::newRow("transport per link, entry")
            << three << R"({"dci_transport": [["lossy-ip", "tcp", "base"]]})"
            << "/dci_transport/0/1"
            << "expected one of rdma-otn, lossy-ip, roce-pfc, base, got \"tcp\"";
        QTest::newRow("transport, type") << three << R"({"dci_transport": [7]})"
                                         << "/dci_transport/0"
                                         << "or an array of 3 of them (one per DCI link), got 7";
        QTest::newRow("wavelengths per link, no links")
            << "gpt3-175b-1024-a100.json"
            << R"({"wavelengths": [[64]]})"
            << "/wavelengths/0"
            << "expected an integer in 1..4096 or base, got an array of 1 value";
    }

    void malformedPerLinkValueIsAnError()
    {
        QFETCH(QString, preset);
        QFETCH(QString, text);
        QFETCH(QString, pointer);
        QFETCH(QString, message);
        const Scenario base = loadPreset(preset.toStdString().c_str());
        std::string errors;
        QVERIFY(!readSpace(text.toStdString(), base, errors));
        QVERIFY2(errors.find(pointer.toStdString() + ": ") != std::string::npos, errors.c_str());
        QVERIFY2(errors.find(message.toStdString()) != std::string::npos, errors.c_str());
    }

    // A per-link value reaches each link of the evaluated scenario, and the point's JSON and
    // description give it link by link.
    void perLinkValuesReachTheScenario()
    {
        const Scenario base = loadPreset("scale-across-100k-3-regions.json");
        const Catalog catalog = effectiveCatalog(base);
        SearchSpace space = pinnedSpace(base);
        space.wavelengths = {
            ElementChoice<int>(std::vector<std::optional<int>>{64, std::nullopt, 32})};
        space.dciTransports = {ElementChoice<DciTransport>(std::vector<std::optional<DciTransport>>{
            std::nullopt, DciTransport::LossyIp, std::nullopt})};
        const SweepResult r = runSweep(base, catalog, space);
        QVERIFY(r.ok);
        QCOMPARE(r.top.size(), std::size_t{1});
        const SweepPoint& p = r.top.front();
        const Scenario sc = applyPoint(base, p.point, p.placement);
        const std::vector<DciLink>& links = sc.topology.links;
        QCOMPARE(links[0].wavelengths, 64);
        QCOMPARE(links[1].wavelengths, base.topology.links[1].wavelengths);
        QCOMPARE(links[2].wavelengths, 32);
        QCOMPARE(links[0].transport, base.topology.links[0].transport);
        QCOMPARE(links[1].transport, DciTransport::LossyIp);
        QCOMPARE(links[2].transport, base.topology.links[2].transport);
        const nlohmann::json j = designPointToJson(p.point);
        QCOMPARE(j.at("wavelengths").dump(), std::string(R"([64,"base",32])"));
        QCOMPARE(j.at("dci_transport").dump(), std::string(R"(["base","lossy-ip","base"])"));
        const std::string text = describeSweepPoint(p);
        QVERIFY2(text.find("wavelengths 64/base/32") != std::string::npos, text.c_str());
        QVERIFY2(text.find("dci base/lossy-ip/base") != std::string::npos, text.c_str());
        // The capex is the variant's own: fewer wavelengths on two links cost less.
        QVERIFY(p.networkCapexUsd < r.base.networkCapexUsd);
        QCOMPARE(evaluate(sc, catalog).networkCapexUsd, p.networkCapexUsd);
    }
};

QTEST_GUILESS_MAIN(TestExploreChecks)
#include "test_explorechecks.moc"
