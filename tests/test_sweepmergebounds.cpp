// Merging sweep shards at scale and against forged input (core/explore/sweepmerge.h): the
// O(n log n) front and the folded top lists give exactly what inserting the union in odometer
// order into ParetoFront and sorting it by rankedBefore gives (the merge's former, quadratic
// way), on random shards with ties, infinities and repeated indices, in any file order; counts
// that do not add up, wrap at 2^64 or claim more points than the shard has are refused with the
// file and the JSON pointer; a merge that would hold more than its bound of points is refused
// with the file, never std::bad_alloc. Speed is measured in bench/bench_merge.cpp.
#include "cli.h"

#include "explore/paretofront.h"
#include "explore/sweep.h"
#include "explore/sweepkeys.h"
#include "explore/sweepmerge.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

using namespace archipelago;
using json = nlohmann::json;

namespace {

constexpr std::array<const char*, 3> kFrontNames = {core::sweepkeys::kTimeVsCapex,
                                                    core::sweepkeys::kTimeVsMemory,
                                                    core::sweepkeys::kTrainTimeVsCost};
constexpr std::array<core::ParetoFront::Objective, 3> kFrontX = {&core::frontaxis::iterationTimeS,
                                                                 &core::frontaxis::iterationTimeS,
                                                                 &core::frontaxis::timeToTrainS};
constexpr std::array<core::ParetoFront::Objective, 3> kFrontY = {&core::frontaxis::networkCapexUsd,
                                                                 &core::frontaxis::memoryPeakGib,
                                                                 &core::frontaxis::totalCostUsd};

// A figure from a small grid, so that ties are common, or now and then null (+infinity).
json randomFigure(std::mt19937_64& rng)
{
    const auto v = std::uniform_int_distribution<int>(0, 12)(rng);
    if (v == 12)
        return nullptr;
    return v * 0.5;
}

double figureOf(const json& v)
{
    return v.is_null() ? std::numeric_limits<double>::infinity() : v.get<double>();
}

json randomPoint(std::mt19937_64& rng, std::uint64_t index)
{
    return {{"index", index},
            {"evaluation",
             {{"iteration_time_s", randomFigure(rng)},
              {"time_to_train_s", randomFigure(rng)},
              {"memory_peak_gib", randomFigure(rng)},
              {"goodput", {{"effective_time_to_train_s", randomFigure(rng)}}},
              {"run_cost", {{"effective_run_cost_usd", randomFigure(rng)}}}}},
            {"network_capex_usd", randomFigure(rng)},
            {"total_cost_usd", randomFigure(rng)},
            {"tag", std::uniform_int_distribution<int>(0, 1 << 20)(rng)}};
}

core::SweepPoint figuresOf(const json& p)
{
    core::SweepPoint s;
    s.point.index = p["index"].get<std::uint64_t>();
    s.evaluation.iterationTimeS = figureOf(p["evaluation"]["iteration_time_s"]);
    s.evaluation.timeToTrainS = figureOf(p["evaluation"]["time_to_train_s"]);
    s.evaluation.memoryPeakGib = figureOf(p["evaluation"]["memory_peak_gib"]);
    s.evaluation.goodput.effectiveTimeToTrainS =
        figureOf(p["evaluation"]["goodput"]["effective_time_to_train_s"]);
    s.evaluation.runCost.effectiveRunCostUsd =
        figureOf(p["evaluation"]["run_cost"]["effective_run_cost_usd"]);
    s.networkCapexUsd = figureOf(p["network_capex_usd"]);
    s.totalCostUsd = figureOf(p["total_cost_usd"]);
    return s;
}

// The first `top` of `points` in rankedBefore's order.
json topOf(std::vector<json> points, core::SweepObjective objective, std::size_t top)
{
    std::stable_sort(points.begin(), points.end(), [&](const json& a, const json& b) {
        return core::rankedBefore(objective, figuresOf(a), figuresOf(b));
    });
    if (points.size() > top)
        points.resize(top);
    return points;
}

// The merge's former front: the union inserted in odometer order (a repeated index keeps its
// first occurrence), as the unsharded sweep inserts every point.
json quadraticFront(const std::vector<json>& points, std::size_t f)
{
    std::map<std::uint64_t, const json*> byIndex;
    for (const json& p : points)
        byIndex.emplace(p["index"].get<std::uint64_t>(), &p);
    core::ParetoFront front(kFrontX[f], kFrontY[f]);
    for (const auto& [index, p] : byIndex)
        front.insert(figuresOf(*p));
    json a = json::array();
    for (const core::SweepPoint& p : front.sorted())
        a.push_back(*byIndex.at(p.point.index));
    return a;
}

// As read from a file: a non-negative integer is unsigned, as the sweep writes its counts.
json reparsed(const json& j)
{
    return json::parse(j.dump());
}

// Shard `index` of `count` of a space of `space` points with the given points (all feasible,
// none faster than the base), each front holding every point given and `frontExtra` (a front
// list is the shard's front or any superset of it: the merge keeps the front of the union).
json makeShard(int index, int count, std::uint64_t space, std::size_t top,
               const std::vector<json>& points, const std::vector<json>& frontExtra = {})
{
    const std::uint64_t considered =
        space > static_cast<std::uint64_t>(index)
            ? (space - static_cast<std::uint64_t>(index) - 1) / static_cast<std::uint64_t>(count) +
                  1
            : 0;
    const std::uint64_t feasible = points.size() + frontExtra.size();
    json byObjective = json::object();
    for (std::size_t k = 0; k < core::kSweepObjectives; ++k)
        byObjective[core::toString(static_cast<core::SweepObjective>(k))] =
            topOf(points, static_cast<core::SweepObjective>(k), top);
    json fronts = json::object();
    std::vector<json> frontPoints = points;
    frontPoints.insert(frontPoints.end(), frontExtra.begin(), frontExtra.end());
    for (const char* name : kFrontNames)
        fronts[name] = frontPoints;
    return reparsed(
        {{"cancelled", false},
         {"shard", {{"index", index}, {"count", count}}},
         {"inputs", {{"scenario_fnv1a64", "0123"}, {"space_fnv1a64", "4567"}, {"top", top}}},
         {"counts",
          {{"space_points", space},
           {"considered", considered},
           {"pruned", considered - feasible},
           {"pruned_by_reason", {{"too-large", considered - feasible}}},
           {"evaluated", feasible},
           {"failed", 0},
           {"out_of_memory", 0},
           {"over_budget", 0},
           {"feasible", feasible}}},
         {"faster_than_base", 0},
         {"base_rank", 1},
         {"base", {{"index", 0}}},
         {"top", byObjective["iteration_time"]},
         {"top_by_objective", byObjective},
         {"fronts", fronts}});
}

std::string errorsOf(const core::SweepMergeResult& r)
{
    std::string text;
    for (const core::Diagnostic& d : r.errors)
        text += d.toString() + "\n";
    return text;
}

} // namespace

class TestSweepMergeBounds : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // paretoFrontOf against ParetoFront's insertions in odometer order.
    void frontOfIsTheInsertionOrderFront()
    {
        std::mt19937_64 rng(7);
        for (int round = 0; round < 300; ++round) {
            const auto n = std::uniform_int_distribution<std::size_t>(0, 60)(rng);
            std::vector<core::FrontCandidate> candidates;
            std::vector<core::SweepPoint> points;
            std::vector<std::uint64_t> indices(n);
            for (std::size_t i = 0; i < n; ++i)
                indices[i] = i * 3 + 1;
            std::shuffle(indices.begin(), indices.end(), rng);
            for (std::size_t i = 0; i < n; ++i) {
                core::SweepPoint p = figuresOf(randomPoint(rng, indices[i]));
                points.push_back(p);
                candidates.push_back(
                    {p.point.index, p.evaluation.iterationTimeS, p.evaluation.memoryPeakGib});
            }
            std::vector<core::SweepPoint> inOrder = points;
            std::sort(inOrder.begin(), inOrder.end(),
                      [](const auto& a, const auto& b) { return a.point.index < b.point.index; });
            core::ParetoFront front(&core::frontaxis::iterationTimeS,
                                    &core::frontaxis::memoryPeakGib);
            for (const core::SweepPoint& p : inOrder)
                front.insert(p);
            std::vector<std::uint64_t> expected, got;
            for (const core::SweepPoint& p : front.sorted())
                expected.push_back(p.point.index);
            for (std::size_t pos : core::paretoFrontOf(candidates))
                got.push_back(candidates[pos].index);
            QCOMPARE(got, expected);
        }
    }

    // Random shards (ties, nulls, a repeated index, lists of different lengths), in a random
    // order: the merged fronts and top lists are the former quadratic merge's, as JSON text.
    void mergeMatchesTheQuadraticMerge()
    {
        std::mt19937_64 rng(11);
        for (int round = 0; round < 60; ++round) {
            const int count = std::uniform_int_distribution<int>(1, 5)(rng);
            const std::uint64_t space = std::uniform_int_distribution<std::uint64_t>(
                static_cast<std::uint64_t>(count), 400)(rng);
            std::vector<core::SweepShardJson> shards;
            std::vector<json> all, allFronts;
            std::size_t shortest = 100;
            for (int i = 0; i < count; ++i) {
                std::vector<json> points, extra;
                for (std::uint64_t index = static_cast<std::uint64_t>(i); index < space;
                     index += static_cast<std::uint64_t>(count))
                    if (std::bernoulli_distribution(0.6)(rng))
                        points.push_back(randomPoint(rng, index));
                // A repeated index in the fronts: its first occurrence counts.
                const std::uint64_t room = (space - static_cast<std::uint64_t>(i) - 1) /
                                               static_cast<std::uint64_t>(count) +
                                           1;
                if (!points.empty() && points.size() < room &&
                    std::bernoulli_distribution(0.3)(rng)) {
                    json again = randomPoint(rng, points.front()["index"].get<std::uint64_t>());
                    extra.push_back(again);
                }
                const auto top = std::uniform_int_distribution<std::size_t>(3, 12)(rng);
                shortest = std::min(shortest, top);
                shards.push_back({"shard" + std::to_string(i) + ".json",
                                  makeShard(i, count, space, top, points, extra)});
                all.insert(all.end(), points.begin(), points.end());
                allFronts.insert(allFronts.end(), points.begin(), points.end());
                allFronts.insert(allFronts.end(), extra.begin(), extra.end());
            }
            std::shuffle(shards.begin(), shards.end(), rng);
            const core::SweepMergeResult r = core::mergeSweepShards(shards);
            QVERIFY2(r.merged, errorsOf(r).c_str());
            const json& merged = *r.merged;
            // The shards' top lists are each their points' first `top`; the union's first
            // `shortest` is the first `shortest` of all the points.
            for (std::size_t k = 0; k < core::kSweepObjectives; ++k) {
                const auto objective = static_cast<core::SweepObjective>(k);
                QCOMPARE(merged["top_by_objective"][core::toString(objective)].dump(),
                         topOf(all, objective, shortest).dump());
            }
            for (std::size_t f = 0; f < kFrontNames.size(); ++f)
                QCOMPARE(merged["fronts"][kFrontNames[f]].dump(),
                         quadraticFront(allFronts, f).dump());
            QCOMPARE(merged["inputs"]["top"].get<std::size_t>(), shortest);
            QCOMPARE(merged["counts"]["considered"].get<std::uint64_t>(), space);
            QCOMPARE(merged["counts"]["feasible"].get<std::uint64_t>(), allFronts.size());
        }
    }

    void forgedCountsAreRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected"); // after "shard1.json: "
        QTest::newRow("faster than base wraps") << "faster"
                                                << "/faster_than_base: expected at most 3";
        QTest::newRow("base rank") << "base_rank"
                                   << "/base_rank: expected 1 (faster_than_base + 1), got 0";
        QTest::newRow("feasible above considered") << "feasible"
                                                   << "/counts/evaluated: expected 1001 (failed";
        QTest::newRow("considered is not pruned + evaluated")
            << "pruned"
            << "/counts/considered: expected pruned + evaluated (98 + 3), got 100";
        QTest::newRow("pruned is not the sum of its reasons")
            << "reasons"
            << "/counts/pruned: expected 97 (the sum of /counts/pruned_by_reason)";
        QTest::newRow("more evaluated than the shard holds")
            << "evaluated"
            << "/counts/considered: expected pruned + evaluated (97 + 27000000)";
        QTest::newRow("a sum wraps at 2^64")
            << "wrap"
            << "/counts/later_reason: the sum of the shards' counts overflows 64 bits";
        QTest::newRow("a negative iteration time")
            << "negative"
            << "/fronts/iteration_time_vs_network_capex/0/evaluation/iteration_time_s: expected a "
               "non-negative number, got -1";
        QTest::newRow("a top list longer than the feasible points")
            << "long top"
            << "/top_by_objective/iteration_time: expected at most 3 points (the top 4 of 3 "
               "feasible points), got 4";
        QTest::newRow("a front longer than the feasible points")
            << "long front"
            << "/fronts/iteration_time_vs_memory_peak: expected at most 3 points (the feasible "
               "ones), got 4";
    }

    void forgedCountsAreRefused()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        const std::string k = kind.toStdString();
        std::mt19937_64 rng(3);
        std::vector<json> p0, p1;
        for (std::uint64_t i : {0, 2, 4})
            p0.push_back(randomPoint(rng, i));
        for (std::uint64_t i : {1, 3, 5})
            p1.push_back(randomPoint(rng, i));
        json s0 = makeShard(0, 2, 200, 4, p0);
        json s1 = makeShard(1, 2, 200, 4, p1);
        json& c = s1["counts"];
        if (k == "faster") {
            s0["faster_than_base"] = 1;
            s0["base_rank"] = 2;
            s1["faster_than_base"] = std::numeric_limits<std::uint64_t>::max();
            s1["base_rank"] = 0;
        } else if (k == "base_rank") {
            s1["base_rank"] = 0;
        } else if (k == "feasible") {
            c["feasible"] = 1001;
        } else if (k == "pruned") {
            c["pruned"] = 98;
            c["pruned_by_reason"]["too-large"] = 98;
        } else if (k == "reasons") {
            c["pruned"] = 98;
        } else if (k == "evaluated") {
            c["evaluated"] = 27'000'000;
            c["feasible"] = 27'000'000;
        } else if (k == "wrap") {
            s0["counts"]["later_reason"] = std::numeric_limits<std::uint64_t>::max();
            c["later_reason"] = 1;
        } else if (k == "negative") {
            s1["fronts"]["iteration_time_vs_network_capex"][0]["evaluation"]["iteration_time_s"] =
                -1;
        } else if (k == "long top") {
            s1["top_by_objective"]["iteration_time"].push_back(p1[0]);
        } else if (k == "long front") {
            s1["fronts"]["iteration_time_vs_memory_peak"].push_back(p1[0]);
        }
        const core::SweepMergeResult r =
            core::mergeSweepShards({{"shard0.json", reparsed(s0)}, {"shard1.json", reparsed(s1)}});
        QVERIFY(!r.merged);
        const std::string errors = errorsOf(r);
        const std::string want = "shard1.json: " + expected.toStdString();
        QVERIFY2(errors.find(want) != std::string::npos, (want + " not in: " + errors).c_str());
        // The two shards unforged merge.
        QVERIFY(core::mergeSweepShards({{"shard0.json", makeShard(0, 2, 200, 4, p0)},
                                        {"shard1.json", makeShard(1, 2, 200, 4, p1)}})
                    .merged);
    }

    // Every count at 2^64 - 1 and consistent: the base's rank, one more, would wrap to 0.
    void theBaseRankDoesNotWrap()
    {
        constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
        std::mt19937_64 rng(9);
        json shard = makeShard(0, 1, 1, 1, {randomPoint(rng, 0)});
        shard["counts"] = {{"space_points", kMax}, {"considered", kMax},
                           {"pruned", 0u},         {"pruned_by_reason", {{"too-large", 0u}}},
                           {"evaluated", kMax},    {"failed", 0u},
                           {"out_of_memory", 0u},  {"over_budget", 0u},
                           {"feasible", kMax}};
        shard["faster_than_base"] = kMax;
        shard["base_rank"] = 0u;
        const core::SweepMergeResult r = core::mergeSweepShards({{"forged.json", shard}});
        QVERIFY(!r.merged);
        QVERIFY2(errorsOf(r).find("forged.json: /faster_than_base: expected fewer than 2^64 - 1") !=
                     std::string::npos,
                 errorsOf(r).c_str());
    }

    // Fronts whose points never dominate each other's: the merge stops at its bound with a
    // message naming the file that crossed it.
    void aMergeAboveItsBoundIsRefused()
    {
        const auto antiDiagonal = [](int shard, int count, int n) {
            std::vector<json> points;
            for (int j = 0; j < n; ++j) {
                const auto index = static_cast<std::uint64_t>(shard + count * j);
                const double t = static_cast<double>(index);
                points.push_back({{"index", index},
                                  {"evaluation",
                                   {{"iteration_time_s", t},
                                    {"time_to_train_s", t},
                                    {"memory_peak_gib", 1000.0 - t},
                                    {"goodput", {{"effective_time_to_train_s", t}}},
                                    {"run_cost", {{"effective_run_cost_usd", t}}}}},
                                  {"network_capex_usd", 1000.0 - t},
                                  {"total_cost_usd", 1000.0 - t}});
            }
            return points;
        };
        core::SweepMerger merger(std::nullopt, 200'000);
        QVERIFY(merger.add("a.json", makeShard(0, 3, 300, 2, antiDiagonal(0, 3, 30))));
        QVERIFY(!merger.add("b.json", makeShard(1, 3, 300, 2, antiDiagonal(1, 3, 30))));
        QVERIFY(merger.add("c.json", makeShard(2, 3, 300, 2, antiDiagonal(2, 3, 30))));
        const core::SweepMergeResult r = merger.finish();
        QVERIFY(!r.merged);
        const std::string errors = errorsOf(r);
        QVERIFY2(errors.find("b.json: /fronts/") != std::string::npos, errors.c_str());
        QVERIFY2(errors.find("more than 200000 bytes (estimated)") != std::string::npos,
                 errors.c_str());
        QCOMPARE(r.errors.size(), std::size_t{1});
        // Long strings weigh too: one shard of three points, each with a 100 KB description.
        std::vector<json> wordy = antiDiagonal(0, 1, 3);
        for (json& p : wordy)
            p["description"] = std::string(100'000, 'x');
        core::SweepMerger small(std::nullopt, 130'000);
        QVERIFY(!small.add("wordy.json", makeShard(0, 1, 3, 2, wordy)));
        QVERIFY2(errorsOf(small.finish()).find("wordy.json: /") != std::string::npos,
                 "the long strings were not counted");
        // Under the default bound the same shards merge: 90 points on each front.
        core::SweepMerger roomy;
        for (int i = 0; i < 3; ++i)
            QVERIFY(roomy.add("s.json", makeShard(i, 3, 300, 2, antiDiagonal(i, 3, 30))));
        const core::SweepMergeResult ok = roomy.finish();
        QVERIFY2(ok.merged, errorsOf(ok).c_str());
        QCOMPARE((*ok.merged)["fronts"]["iteration_time_vs_memory_peak"].size(), std::size_t{90});
    }

    // The fuzz target's seeds (tests/data/sweep-shards, scripts/fuzz.sh): real outputs of
    // `sweep presets/gpt3-175b-1024-a100.json --top 1 --shard I/3` over the space {"tp": [4, 8],
    // "pp": [8], "micro_batch": [1, 2], "schedule": ["zb-h1", "1f1b"], "zero_stage": [1]},
    // written compactly to stay under the fuzzer's 64 KiB inputs. They merge, with points on
    // every list, and every count adds up.
    void theFuzzSeedsMerge()
    {
        std::vector<std::string> args = {"merge"};
        for (int i = 0; i < 3; ++i)
            args.push_back(ARCHIPELAGO_TEST_DATA "/sweep-shards/gpt3-shard-" + std::to_string(i) +
                           "-of-3.json");
        args.push_back("--json");
        std::ostringstream out, err;
        QCOMPARE(cli::run(args, out, err), cli::kExitOk);
        QVERIFY2(err.str().empty(), err.str().c_str());
        const json merged = json::parse(out.str());
        QCOMPARE(merged["counts"]["considered"].get<std::uint64_t>(), std::uint64_t{768});
        QVERIFY(merged["counts"]["feasible"].get<std::uint64_t>() > 0);
        QCOMPARE(merged["top"].size(), std::size_t{1});
        QVERIFY(!merged["fronts"]["iteration_time_vs_memory_peak"].empty());
    }

    // merge reads one file at a time: an unreadable file among good ones is named, the others
    // are still checked, and the message is the reader's (never an allocation failure).
    void mergeReadsFilesOneByOne()
    {
        std::mt19937_64 rng(5);
        std::vector<std::string> files;
        for (int i = 0; i < 3; ++i) {
            std::vector<json> points;
            for (std::uint64_t index = static_cast<std::uint64_t>(i); index < 30; index += 3)
                points.push_back(randomPoint(rng, index));
            json shard = makeShard(i, 3, 30, 4, points);
            if (i == 2)
                shard["counts"]["feasible"] = 11;
            files.push_back(m_dir.filePath(QString("s%1.json").arg(i)).toStdString());
            std::ofstream(files.back()) << (i == 1 ? std::string("{\"shard\": [") : shard.dump());
        }
        std::ostringstream out, err;
        QCOMPARE(cli::run({"merge", files[0], files[1], files[2]}, out, err),
                 cli::kExitInvalidInput);
        const std::string e = err.str();
        QVERIFY2(e.find(files[1] + ": ") != std::string::npos, e.c_str());
        QVERIFY2(e.find(files[2] + ": /counts/evaluated: expected 11") != std::string::npos,
                 e.c_str());
        QVERIFY2(e.find("bad_alloc") == std::string::npos, e.c_str());
        QVERIFY(out.str().empty());
    }
};

QTEST_GUILESS_MAIN(TestSweepMergeBounds)
#include "test_sweepmergebounds.moc"
