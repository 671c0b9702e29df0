// core::checkEdit, the one check of an edit made in the window (the property editor judges a
// field with it, the edit controller applies the edit with it): what it takes as it is, what
// it re-makes (the placement, the global batch), what it refuses and with which reasons, and
// that an error the scenario already had never blocks an edit elsewhere.
#include "io/editcheck.h"
#include "io/scenarioio.h"
#include "model/scenario.h"

#include <QtTest>

#include <algorithm>
#include <string>
#include <vector>

using namespace archipelago;

namespace {

core::Scenario twoBuildings()
{
    const core::LoadResult r =
        core::loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    if (!r.ok())
        qFatal("cannot load the two-buildings preset");
    return *r.scenario;
}

std::vector<core::Diagnostic> errorsOf(const core::Scenario& s)
{
    std::vector<core::Diagnostic> errors;
    for (const core::Diagnostic& d : core::checkScenario(s, core::effectiveCatalog(s)))
        if (d.severity == core::Diagnostic::Severity::Error)
            errors.push_back(d);
    return errors;
}

bool placesStages(const core::Scenario& s)
{
    const std::vector<core::PlacementShard> shards = core::effectiveShards(s);
    return std::all_of(shards.begin(), shards.end(), [&](const core::PlacementShard& shard) {
        return shard.stageDatacenters.size() == static_cast<std::size_t>(s.parallelism.pp);
    });
}

} // namespace

class TestEditCheck : public QObject
{
    Q_OBJECT
private slots:
    void fixtureIsValid();
    void noOpIsAccepted();
    void plainEditIsTakenAsItIs();
    void degreeChangeRemakesThePlacement();
    void keptPlacementIsNotRemade();
    void batchFollowsDpOnlyWhenTheEditLeftIt();
    void errorAtTheFieldIsTheReason();
    void errorElsewhereSaysSo();
    void earlierErrorsNeverBlockAnEdit();
    void pointerWithin();
};

void TestEditCheck::fixtureIsValid()
{
    const core::Scenario s = twoBuildings();
    QVERIFY(errorsOf(s).empty());
    QVERIFY(!s.placement.shards.empty()); // a hand-made placement the repair must keep sense of
}

void TestEditCheck::noOpIsAccepted()
{
    const core::Scenario s = twoBuildings();
    const core::EditCheck check = core::checkEdit(s, s, {"/parallelism/tp"});
    QVERIFY(check.accepted());
    QCOMPARE(*check.scenario, s);
    QVERIFY(check.errors.empty());
    QVERIFY(!check.changesGlobalBatch());
}

void TestEditCheck::plainEditIsTakenAsItIs()
{
    const core::Scenario before = twoBuildings();
    core::Scenario candidate = before;
    candidate.topology.links.front().distanceKm = 500.0;
    const core::EditCheck check =
        core::checkEdit(before, candidate, {"/topology/dci_links/0/distance_km"});
    QVERIFY(check.accepted());
    QCOMPARE(*check.scenario, candidate); // nothing re-made
    QVERIFY(check.notes.empty());
    QVERIFY(!check.changesGlobalBatch());
    QVERIFY(errorsOf(*check.scenario).empty());
}

void TestEditCheck::degreeChangeRemakesThePlacement()
{
    const core::Scenario before = twoBuildings();
    core::Scenario candidate = before;
    candidate.parallelism.pp = before.parallelism.pp / 2; // the stage lists no longer add up
    QVERIFY(!errorsOf(candidate).empty());
    const core::EditCheck check = core::checkEdit(before, candidate, {"/parallelism/pp"});
    QVERIFY(check.accepted());
    QCOMPARE(check.scenario->parallelism.pp, candidate.parallelism.pp);
    QVERIFY(check.scenario->placement != candidate.placement);
    QVERIFY(placesStages(*check.scenario));
    QVERIFY(errorsOf(*check.scenario).empty());
    QVERIFY(check.errors.empty());
}

void TestEditCheck::keptPlacementIsNotRemade()
{
    // An edit that set the placement itself is never second-guessed: refused, not repaired.
    const core::Scenario before = twoBuildings();
    core::Scenario candidate = before;
    candidate.parallelism.pp = before.parallelism.pp / 2;
    const core::EditCheck check = core::checkEdit(before, candidate, {"/placement"},
                                                  core::PlacementRepairMode::KeepPlacement);
    QVERIFY(!check.accepted());
    QVERIFY(!check.errors.empty());
}

void TestEditCheck::batchFollowsDpOnlyWhenTheEditLeftIt()
{
    // A batch of 3 x DP divides DP but not 2 x DP, which halving PP gives.
    core::Scenario before = twoBuildings();
    const std::int64_t dp = core::dataParallel(before);
    before.workload.globalBatch = static_cast<int>(3 * dp * before.parallelism.microBatch);
    QVERIFY(errorsOf(before).empty());
    core::Scenario candidate = before;
    candidate.parallelism.pp = before.parallelism.pp / 2;

    const core::EditCheck fitted = core::checkEdit(before, candidate, {"/parallelism/pp"});
    QVERIFY(fitted.accepted());
    QVERIFY(fitted.changesGlobalBatch());
    QCOMPARE(fitted.batchBefore, std::int64_t{candidate.workload.globalBatch});
    QCOMPARE(fitted.batchAfter, std::int64_t{fitted.scenario->workload.globalBatch});
    const std::int64_t dpAfter = core::dataParallel(*fitted.scenario);
    QCOMPARE(dpAfter, 2 * dp);
    QCOMPARE(fitted.batchAfter % (dpAfter * candidate.parallelism.microBatch), std::int64_t{0});
    QVERIFY(errorsOf(*fitted.scenario).empty());

    // The user set the batch in the same edit: it is theirs, never replaced (the placement may
    // then leave GPUs idle, or the edit is refused).
    candidate.workload.globalBatch = static_cast<int>(5 * dp * before.parallelism.microBatch);
    const core::EditCheck own =
        core::checkEdit(before, candidate, {"/parallelism/pp", "/workload/global_batch"});
    QVERIFY(!own.changesGlobalBatch());
    if (own.accepted())
        QCOMPARE(own.scenario->workload.globalBatch, candidate.workload.globalBatch);
}

void TestEditCheck::errorAtTheFieldIsTheReason()
{
    const core::Scenario before = twoBuildings();
    core::Scenario candidate = before;
    candidate.parallelism.tp = 3; // divides neither the heads nor the scale-up domain
    const std::vector<core::Diagnostic> errors = errorsOf(candidate);
    QVERIFY(!errors.empty());
    // Ask about the field the checker names first: its errors, and only those, are the reason.
    const std::string field = errors.front().pointer;
    const core::EditCheck check = core::checkEdit(before, candidate, {field});
    QVERIFY(!check.accepted());
    QVERIFY(!check.errorsElsewhere);
    QVERIFY(!check.errors.empty());
    for (const core::Diagnostic& d : check.errors)
        QVERIFY2(core::pointerWithin(d.pointer, field), d.pointer.c_str());
}

void TestEditCheck::errorElsewhereSaysSo()
{
    // The same error, for an edit whose own field is fine: the errors it caused are the reason,
    // and the caller is told they are elsewhere.
    const core::Scenario before = twoBuildings();
    core::Scenario candidate = before;
    candidate.parallelism.tp = 3;
    const core::EditCheck check = core::checkEdit(before, candidate, {"/name"});
    QVERIFY(!check.accepted());
    QVERIFY(check.errorsElsewhere);
    QCOMPARE(check.errors.size(), errorsOf(candidate).size());
}

void TestEditCheck::earlierErrorsNeverBlockAnEdit()
{
    // A scenario with an error (a file written by hand): an edit elsewhere still goes through,
    // and keeps the error; an edit that adds one is refused for the new one only.
    core::Scenario before = twoBuildings();
    before.parallelism.tp = 3;
    const std::vector<core::Diagnostic> earlier = errorsOf(before);
    QVERIFY(!earlier.empty());

    core::Scenario candidate = before;
    candidate.topology.links.front().distanceKm = 500.0;
    const core::EditCheck accepted =
        core::checkEdit(before, candidate, {"/topology/dci_links/0/distance_km"});
    QVERIFY(accepted.accepted());
    QCOMPARE(*accepted.scenario, candidate);
    QCOMPARE(errorsOf(*accepted.scenario), earlier);

    core::Scenario worse = candidate;
    worse.workload.globalBatch = 7; // divides no DP
    const core::EditCheck refused = core::checkEdit(before, worse, {"/workload/global_batch"});
    QVERIFY(!refused.accepted());
    for (const core::Diagnostic& d : refused.errors)
        QVERIFY2(std::find(earlier.begin(), earlier.end(), d) == earlier.end(), d.message.c_str());
}

void TestEditCheck::pointerWithin()
{
    QVERIFY(core::pointerWithin("/topology/dci_links/0", "/topology/dci_links/0"));
    QVERIFY(core::pointerWithin("/topology/dci_links/0/distance_km", "/topology/dci_links/0"));
    QVERIFY(!core::pointerWithin("/topology/dci_links/10", "/topology/dci_links/1"));
    QVERIFY(!core::pointerWithin("/topology/dci_links", "/topology/dci_links/0"));
    QVERIFY(core::pointerWithin("/anything", ""));
}

QTEST_APPLESS_MAIN(TestEditCheck)
#include "test_editcheck.moc"
