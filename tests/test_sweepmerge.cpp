// Sharding a sweep (`sweep --shard I/N`, `merge`; core/explore/sweepmerge.h): on two presets
// the shards of N = 1, 2, 3 and 7 merge into exactly the unsharded sweep's fronts, top lists
// and base rank (the JSON compared as text), whatever order the files come in; a merged output
// merges again; merge refuses every malformed or mismatched input with the file and the JSON
// pointer (exit 1, never a crash); --shard parses I/N and takes auto from Slurm's or
// Kubernetes' environment; the progress line and the fingerprint are what they claim.
#include "cli.h"
#include "shardoption.h"
#include "sweepprogress.h"
#include "sweeptext.h"

#include "explore/sweepmerge.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

using namespace archipelago;
using json = nlohmann::json;

namespace {

std::string presetPath(const std::string& name)
{
    // Appended, not operator+: GCC 12 reports a false -Warray-bounds in the inlined
    // std::string concatenation once the tests share a precompiled header.
    std::string path = ARCHIPELAGO_SOURCE_DIR "/presets/";
    path += name;
    return path;
}

int runCli(const std::vector<std::string>& args, std::string& out, std::string& err)
{
    std::ostringstream o, e;
    const int code = cli::run(args, o, e);
    out = o.str();
    err = e.str();
    return code;
}

json readJson(const std::string& path)
{
    std::ifstream in(path);
    return json::parse(in);
}

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Small spaces (a few thousand points, a few hundred evaluated) with ties in every objective,
// so that the top lists' tie-breaks by iteration time and index matter.
struct PresetCase
{
    const char* preset;
    const char* space;
};
const std::map<std::string, PresetCase> kCases = {
    {"gpt3",
     {"gpt3-175b-1024-a100.json",
      R"({"tp": [4, 8], "pp": [4, 8], "virtual_stages": [1, 2], "micro_batch": [1, 2],
          "schedule": ["1f1b", "interleaved-1f1b", "zb-h1"], "recompute": ["selective", "full"],
          "zero_stage": [0, 1], "distributed_optimizer": [false, true]})"}},
    {"two-buildings",
     {"llama3-405b-two-buildings.json",
      R"({"tp": [4, 8], "pp": [8, 16], "virtual_stages": [1, 2, 4], "micro_batch": [1, 2],
          "schedule": ["1f1b", "interleaved-1f1b", "zb-h1"], "extra_in_flight_at_dci": [0, 2],
          "recompute": ["none", "selective", "full"], "zero_stage": [1, 2],
          "distributed_optimizer": [true]})"}}};
constexpr const char* kTop = "4";

// FILE=VALUE;... as an environment for parseShardOption.
cli::EnvironmentLookup fakeEnvironment(const QString& spec)
{
    auto vars = std::make_shared<std::map<std::string, std::string>>();
    for (const QString& pair : spec.split(';', Qt::SkipEmptyParts)) {
        const qsizetype eq = pair.indexOf('=');
        (*vars)[pair.left(eq).toStdString()] = pair.mid(eq + 1).toStdString();
    }
    return [vars](const char* name) -> std::optional<std::string> {
        const auto it = vars->find(name);
        return it == vars->end() ? std::nullopt : std::optional<std::string>(it->second);
    };
}

} // namespace

class TestSweepMerge : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const std::string& name) const
    {
        return m_dir.filePath(QString::fromStdString(name)).toStdString();
    }

    std::string spaceFile(const std::string& caseName)
    {
        const std::string file = path(caseName + "-space.json");
        if (!QFile::exists(QString::fromStdString(file)))
            writeText(file, kCases.at(caseName).space);
        return file;
    }

    // The unsharded sweep's output file (made once).
    std::string unsharded(const std::string& caseName)
    {
        const std::string out = path(caseName + "-full.json");
        if (!QFile::exists(QString::fromStdString(out))) {
            std::string o, e;
            const int code = runCli({"sweep", presetPath(kCases.at(caseName).preset), "--space",
                                     spaceFile(caseName), "--top", kTop, "-o", out},
                                    o, e);
            if (code != cli::kExitOk)
                qFatal("unsharded sweep failed: %s", e.c_str());
        }
        return out;
    }

    // The N shards' output files (made once), in index order.
    std::vector<std::string> shards(const std::string& caseName, int n)
    {
        std::vector<std::string> files;
        for (int i = 0; i < n; ++i) {
            const std::string out =
                path(caseName + "-" + std::to_string(i) + "of" + std::to_string(n) + ".json");
            if (!QFile::exists(QString::fromStdString(out))) {
                std::string o, e;
                const int code =
                    runCli({"sweep", presetPath(kCases.at(caseName).preset), "--space",
                            spaceFile(caseName), "--top", kTop, "--threads", "2", "--shard",
                            std::to_string(i) + "/" + std::to_string(n), "-o", out},
                           o, e);
                if (code != cli::kExitOk)
                    qFatal("shard %d/%d failed: %s", i, n, e.c_str());
            }
            files.push_back(out);
        }
        return files;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void shardsMergeIntoTheUnshardedSweep_data()
    {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<int>("n");
        for (const auto& [name, c] : kCases)
            for (int n : {1, 2, 3, 7})
                QTest::addRow("%s, %d shards", name.c_str(), n)
                    << QString::fromStdString(name) << n;
    }

    void shardsMergeIntoTheUnshardedSweep()
    {
        QFETCH(QString, caseName);
        QFETCH(int, n);
        const json full = readJson(unsharded(caseName.toStdString()));
        std::vector<std::string> files = shards(caseName.toStdString(), n);
        std::uint64_t consideredByShards = 0;
        for (const std::string& f : files) {
            const json shard = readJson(f);
            QCOMPARE(shard["shard"]["count"].get<int>(), n);
            consideredByShards += shard["counts"]["considered"].get<std::uint64_t>();
            if (n > 1)
                QVERIFY(shard["counts"]["considered"] < full["counts"]["considered"]);
        }
        QCOMPARE(consideredByShards, full["counts"]["considered"].get<std::uint64_t>());
        // Any order of the files.
        std::reverse(files.begin(), files.end());
        if (files.size() > 2)
            std::swap(files[0], files[1]);
        const std::string mergedFile =
            path(caseName.toStdString() + "-merged" + std::to_string(n) + ".json");
        std::vector<std::string> args = {"merge"};
        args.insert(args.end(), files.begin(), files.end());
        args.insert(args.end(), {"-o", mergedFile});
        std::string out, err;
        QCOMPARE(runCli(args, out, err), cli::kExitOk);
        QVERIFY2(err.empty(), err.c_str());
        const json merged = readJson(mergedFile);
        // Meaningful: the lists are full and the fronts hold several points between them.
        QCOMPARE(full["top"].size(), std::size_t{4});
        QVERIFY(full["fronts"]["iteration_time_vs_memory_peak"].size() >= 2);
        for (const char* key : {"fronts", "top", "top_by_objective", "base_rank", "base",
                                "base_feasible", "inputs", "shard", "cancelled"})
            QCOMPARE(merged[key].dump(), full[key].dump());
        QCOMPARE(merged["counts"]["considered"], full["counts"]["considered"]);
        QCOMPARE(merged["counts"]["space_points"], full["counts"]["space_points"]);
        // Evaluated and pruned may one day differ by a lower-bound pruning reason; the sums hold.
        const json& c = merged["counts"];
        QCOMPARE(c["considered"].get<std::uint64_t>(),
                 c["pruned"].get<std::uint64_t>() + c["evaluated"].get<std::uint64_t>());
        // The text output says what it is.
        QCOMPARE(runCli({"merge", mergedFile}, out, err), cli::kExitOk);
        QVERIFY2(out.find("merged from 1 shard") != std::string::npos, out.c_str());
    }

    void mergedOutputMergesAgainAndItsTextListsEveryObjective()
    {
        const std::vector<std::string> files = shards("gpt3", 3);
        const std::string once = path("gpt3-once.json");
        const std::string twice = path("gpt3-twice.json");
        std::string out, err;
        QCOMPARE(runCli({"merge", files[0], files[1], files[2], "-o", once}, out, err),
                 cli::kExitOk);
        QVERIFY2(out.find("(merged from 3 shards)") != std::string::npos, out.c_str());
        for (const char* objective :
             {"by iteration time", "by time_to_train", "by total_cost", "by network_capex",
              "by memory_peak", "front: iteration time vs memory peak"})
            QVERIFY2(out.find(objective) != std::string::npos, objective);
        QCOMPARE(runCli({"merge", once, "--json", "-o", twice}, out, err), cli::kExitOk);
        QCOMPARE(json::parse(out), readJson(once));
        QCOMPARE(readJson(twice), readJson(once));
        // Fewer than the shards kept.
        QCOMPARE(runCli({"merge", files[0], files[1], files[2], "--top", "2", "--json"}, out, err),
                 cli::kExitOk);
        const json two = json::parse(out);
        QCOMPARE(two["inputs"]["top"].get<int>(), 2);
        for (const auto& [objective, list] : two["top_by_objective"].items()) {
            QCOMPARE(list.size(), std::size_t{2});
            QCOMPARE(list[0], readJson(once)["top_by_objective"][objective][0]);
        }
        // --csv prints what the unsharded sweep's --csv prints.
        QCOMPARE(runCli({"merge", files[0], files[1], files[2], "--csv"}, out, err), cli::kExitOk);
        const std::string mergedCsv = out;
        QCOMPARE(runCli({"sweep", presetPath(kCases.at("gpt3").preset), "--space",
                         spaceFile("gpt3"), "--top", kTop, "--csv"},
                        out, err),
                 cli::kExitOk);
        QVERIFY(mergedCsv.find("iteration_time_s") != std::string::npos);
        QCOMPARE(mergedCsv, out);
        // A shard's text names it.
        QCOMPARE(runCli({"sweep", presetPath(kCases.at("gpt3").preset), "--space",
                         spaceFile("gpt3"), "--shard", "1/3", "--top", "2"},
                        out, err),
                 cli::kExitOk);
        QVERIFY2(out.find("(shard 1/3") != std::string::npos, out.c_str());
        // No progress line when stderr is not a terminal (as under CTest).
        if (!cli::stderrIsTerminal())
            QVERIFY2(err.empty(), err.c_str());
    }

    void theSpaceIsFingerprintedWhateverItsLayout()
    {
        const std::string file = path("relaid-space.json");
        json space = json::parse(kCases.at("gpt3").space);
        writeText(file, space.dump(8)); // another layout, keys sorted differently from the text
        std::string out, err;
        QCOMPARE(runCli({"sweep", presetPath(kCases.at("gpt3").preset), "--space", file, "--top",
                         kTop, "--shard", "0/2", "-o", path("relaid-0.json")},
                        out, err),
                 cli::kExitOk);
        QCOMPARE(runCli({"merge", path("relaid-0.json"), shards("gpt3", 2)[1], "--json"}, out, err),
                 cli::kExitOk);
        QCOMPARE(json::parse(out)["fronts"], readJson(unsharded("gpt3"))["fronts"]);
        // Another space is another sweep.
        space["zero_stage"] = {0};
        writeText(file, space.dump());
        QCOMPARE(runCli({"sweep", presetPath(kCases.at("gpt3").preset), "--space", file, "--top",
                         kTop, "--shard", "0/2", "-o", path("other-0.json")},
                        out, err),
                 cli::kExitOk);
        QCOMPARE(runCli({"merge", path("other-0.json"), shards("gpt3", 2)[1]}, out, err),
                 cli::kExitInvalidInput);
        QVERIFY2(err.find(shards("gpt3", 2)[1] + ": /inputs/space_fnv1a64:") != std::string::npos,
                 err.c_str());
    }

    void fnv1aMatchesItsReferenceValues()
    {
        // http://www.isthe.com/chongo/src/fnv/test_fnv.c, FNV-1a 64.
        QCOMPARE(core::fnv1a64(""), std::uint64_t{0xcbf29ce484222325ull});
        QCOMPARE(core::fnv1a64("a"), std::uint64_t{0xaf63dc4c8601ec8cull});
        QCOMPARE(core::fnv1a64("foobar"), std::uint64_t{0x85944171f73967e8ull});
        QCOMPARE(core::fingerprintHex(0xaf63dc4c8601ec8cull), std::string("af63dc4c8601ec8c"));
        QCOMPARE(core::fingerprintHex(1), std::string("0000000000000001"));
    }

    void mergeRefusesBadInput_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected"); // in the message, after the file name
        QTest::newRow("not JSON") << "not json"
                                  << ": ";
        QTest::newRow("not an object") << "array"
                                       << ": expected the JSON object";
        QTest::newRow("no such file") << "missing file"
                                      << ": cannot open";
        QTest::newRow("shard key missing") << "no shard"
                                           << ": /shard: expected an object, missing";
        QTest::newRow("index not an integer")
            << "bad index"
            << ": /top_by_objective/total_cost/0/index: expected a non-negative";
        QTest::newRow("figure not a number")
            << "bad figure"
            << ": /fronts/iteration_time_vs_memory_peak/0/evaluation/memory_peak_gib";
        QTest::newRow("counts missing") << "no counts"
                                        << ": /counts: expected an object, missing";
        QTest::newRow("a count missing") << "no feasible"
                                         << ": /counts/feasible: expected a count";
        QTest::newRow("shard counts differ") << "count"
                                             << ": /shard/count: expected 2";
        QTest::newRow("index out of range") << "index"
                                            << ": /shard/index: expected an index in 0..1";
        QTest::newRow("a shard missing") << "one"
                                         << ": /shard/count: shards missing: 1 (1 of the 2;";
        QTest::newRow("a shard twice") << "twice"
                                       << ": /shard/index: shard 0/2 is given twice";
        QTest::newRow("another scenario") << "scenario"
                                          << ": /inputs/scenario_fnv1a64: expected";
        QTest::newRow("another program") << "version"
                                         << ": /inputs/version: expected";
        QTest::newRow("another base") << "base"
                                      << ": /base: differs";
        QTest::newRow("cancelled") << "cancelled"
                                   << ": /cancelled: expected false";
        QTest::newRow("considered") << "considered"
                                    << ": /counts/considered: expected";
        QTest::newRow("another shard's point")
            << "foreign point"
            << ": /fronts/iteration_time_vs_memory_peak/0/index: point";
        QTest::newRow("unknown front") << "unknown front"
                                       << ": /fronts/iteration_time_vs_power: a front";
        QTest::newRow("unknown objective") << "unknown objective"
                                           << ": /top_by_objective/power: an objective";
        QTest::newRow("top longer than kept") << "top"
                                              << ": /inputs/top: the shard kept the top 4";
    }

    void mergeRefusesBadInput()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        const std::vector<std::string> good = shards("gpt3", 2);
        json s0 = readJson(good[0]);
        json s1 = readJson(good[1]);
        const std::string bad = path("bad-" + kind.toStdString() + ".json");
        // The edited file second: the first file is what the others are checked against.
        std::vector<std::string> args = {"merge", good[1], bad};
        std::string named = bad; // the file the message names
        const std::string k = kind.toStdString();
        json& edited = s0;
        if (k == "not json") {
            writeText(bad, R"({"shard": {"index": 0,)");
        } else if (k == "array") {
            writeText(bad, "[1, 2]");
        } else if (k == "missing file") {
            args[2] = named = path("no-such-file.json");
        } else {
            if (k == "no shard")
                edited.erase("shard");
            else if (k == "bad index")
                edited["top_by_objective"]["total_cost"][0]["index"] = "x";
            else if (k == "bad figure")
                edited["fronts"]["iteration_time_vs_memory_peak"][0]["evaluation"]
                      ["memory_peak_gib"] = "x";
            else if (k == "no counts")
                edited.erase("counts");
            else if (k == "no feasible")
                edited["counts"].erase("feasible");
            else if (k == "count") // a shard of another split of the same sweep
                args = {"merge", good[1], named = shards("gpt3", 3)[0]};
            else if (k == "index")
                edited["shard"]["index"] = 2;
            else if (k == "one")
                args = {"merge", named = good[0]};
            else if (k == "twice")
                args = {"merge", good[0], good[1], named = bad};
            else if (k == "scenario")
                edited["inputs"]["scenario_fnv1a64"] = "0123456789abcdef";
            else if (k == "version")
                edited["inputs"]["version"] = "0.0.0";
            else if (k == "base")
                edited["base"]["evaluation"]["iteration_time_s"] = 1.0;
            else if (k == "cancelled")
                edited["cancelled"] = true;
            else if (k == "considered")
                edited["counts"]["considered"] = 1;
            else if (k == "foreign point")
                // Shard 0 of 2 holds the even indices: the next one is shard 1's.
                edited["fronts"]["iteration_time_vs_memory_peak"][0]["index"] =
                    edited["fronts"]["iteration_time_vs_memory_peak"][0]["index"]
                        .get<std::uint64_t>() +
                    1;
            else if (k == "unknown front")
                edited["fronts"]["iteration_time_vs_power"] = json::array();
            else if (k == "unknown objective")
                edited["top_by_objective"]["power"] = json::array();
            else if (k == "top")
                args = {"merge", named = good[0], good[1], "--top", "5"};
            writeText(bad, edited.dump());
        }
        std::string out, err;
        QCOMPARE(runCli(args, out, err), cli::kExitInvalidInput);
        QVERIFY2(out.empty(), out.c_str());
        QVERIFY2(err.find(named + expected.toStdString()) != std::string::npos,
                 (named + expected.toStdString() + " not in: " + err).c_str());
    }

    // Every key of a shard's JSON down to the points' figures removed or given a value of
    // another type (array elements past the first skipped): merge reports an error it meant to
    // report, or merges, and the text output of what it merged prints; it never falls into its
    // last-resort catch.
    void everyMutationIsAnErrorOrAMerge()
    {
        const std::vector<std::string> files = shards("gpt3", 2);
        const json s0 = readJson(files[0]);
        const json s1 = readJson(files[1]);
        std::vector<json::json_pointer> pointers;
        const std::function<void(const json&, const json::json_pointer&, int)> walk =
            [&](const json& j, const json::json_pointer& at, int depth) {
                // In the fronts' and lists' points (depth 4 and 5) only what merge reads: the
                // rest is opaque to it, and /top/0 and /base have every key.
                static const std::set<std::string> kRead = {"index",
                                                            "evaluation",
                                                            "network_capex_usd",
                                                            "total_cost_usd",
                                                            "iteration_time_s",
                                                            "time_to_train_s",
                                                            "memory_peak_gib",
                                                            "goodput",
                                                            "effective_time_to_train_s",
                                                            "run_cost",
                                                            "effective_run_cost_usd"};
                if (depth >= 4 && !kRead.contains(at.back()))
                    return;
                if (depth > 0)
                    pointers.push_back(at);
                if (j.is_object())
                    for (const auto& [key, value] : j.items())
                        walk(value, at / key, depth + 1);
                else if (j.is_array() && !j.empty())
                    walk(j[0], at / 0, depth + 1);
            };
        walk(s0, json::json_pointer(), 0);
        QVERIFY(pointers.size() > 100);
        const json replacements[] = {json("x"), json(nullptr), json(-1)};
        int merged = 0, refused = 0;
        for (const json::json_pointer& p : pointers) {
            for (int m = -1; m < static_cast<int>(std::size(replacements)); ++m) {
                json edited = s0;
                if (m < 0)
                    edited[p.parent_pointer()].is_object()
                        ? static_cast<void>(edited[p.parent_pointer()].erase(p.back()))
                        : edited[p.parent_pointer()].erase(0);
                else
                    edited[p] = replacements[m];
                const core::SweepMergeResult r =
                    core::mergeSweepShards({{"edited.json", edited}, {"s1.json", s1}});
                for (const core::Diagnostic& d : r.errors)
                    QVERIFY2(d.message.find("unexpected JSON") == std::string::npos,
                             (p.to_string() + ": " + d.toString()).c_str());
                if (r.merged) {
                    ++merged;
                    std::ostringstream text;
                    cli::printSweepText(*r.merged, "", std::nullopt, text);
                    QVERIFY(!text.str().empty());
                } else {
                    QVERIFY(!r.errors.empty());
                    ++refused;
                }
            }
        }
        QVERIFY(merged > 0);
        QVERIFY(refused > 0);
    }

    void mergeUsageErrors()
    {
        std::string out, err;
        QCOMPARE(runCli({"merge"}, out, err), cli::kExitUsage);
        QCOMPARE(runCli({"merge", "a.json", "--top", "x"}, out, err), cli::kExitUsage);
        QCOMPARE(runCli({"merge", "a.json", "--frobnicate"}, out, err), cli::kExitUsage);
        QCOMPARE(runCli({"merge", "a.json", "-o"}, out, err), cli::kExitUsage);
        QCOMPARE(runCli({"merge", "a.json", "--json", "--csv"}, out, err), cli::kExitUsage);
    }

    void shardOptionParses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("environment");
        QTest::addColumn<int>("index"); // -1: a usage error
        QTest::addColumn<int>("count");
        QTest::addColumn<QString>("error"); // in the message
        QTest::newRow("I/N") << "1/4"
                             << "" << 1 << 4 << "";
        QTest::newRow("one shard") << "0/1"
                                   << "" << 0 << 1 << "";
        QTest::newRow("largest") << "99999/100000"
                                 << "" << 99999 << 100000 << "";
        QTest::newRow("I = N") << "4/4"
                               << "" << -1 << 0 << "0 <= I < N";
        QTest::newRow("negative") << "-1/4"
                                  << "" << -1 << 0 << "got '-1/4'";
        QTest::newRow("N = 0") << "0/0"
                               << "" << -1 << 0 << "1 <= N";
        QTest::newRow("N too large") << "0/100001"
                                     << "" << -1 << 0 << "100000";
        QTest::newRow("no N") << "1"
                              << "" << -1 << 0 << "got '1'";
        QTest::newRow("empty N") << "1/"
                                 << "" << -1 << 0 << "got '1/'";
        QTest::newRow("empty I") << "/4"
                                 << "" << -1 << 0 << "got '/4'";
        QTest::newRow("letters") << "a/b"
                                 << "" << -1 << 0 << "got 'a/b'";
        QTest::newRow("trailing") << "1/4x"
                                  << "" << -1 << 0 << "got '1/4x'";
        QTest::newRow("auto, no batch system") << "auto"
                                               << "" << -1 << 0 << "neither a Slurm job array";
        QTest::newRow("Slurm") << "auto"
                               << "SLURM_ARRAY_TASK_ID=2;SLURM_ARRAY_TASK_COUNT=4;"
                                  "SLURM_ARRAY_TASK_MIN=0"
                               << 2 << 4 << "";
        QTest::newRow("Slurm from 1") << "auto"
                                      << "SLURM_ARRAY_TASK_ID=4;SLURM_ARRAY_TASK_COUNT=4;"
                                         "SLURM_ARRAY_TASK_MIN=1;SLURM_ARRAY_TASK_MAX=4"
                                      << 3 << 4 << "";
        QTest::newRow("Slurm with a step") << "auto"
                                           << "SLURM_ARRAY_TASK_ID=6;SLURM_ARRAY_TASK_COUNT=4;"
                                              "SLURM_ARRAY_TASK_MIN=0;SLURM_ARRAY_TASK_STEP=2"
                                           << 3 << 4 << "";
        QTest::newRow("Slurm, the count given too") << "auto/4"
                                                    << "SLURM_ARRAY_TASK_ID=1;"
                                                       "SLURM_ARRAY_TASK_COUNT=4"
                                                    << 1 << 4 << "";
        QTest::newRow("Slurm, another count given") << "auto/8"
                                                    << "SLURM_ARRAY_TASK_ID=1;"
                                                       "SLURM_ARRAY_TASK_COUNT=4"
                                                    << -1 << 0 << "has 4 tasks";
        QTest::newRow("Slurm, a list of ids") << "auto"
                                              << "SLURM_ARRAY_TASK_ID=9;SLURM_ARRAY_TASK_COUNT=3;"
                                                 "SLURM_ARRAY_TASK_MIN=1"
                                              << -1 << 0 << "contiguous --array";
        QTest::newRow("Slurm, not a number") << "auto"
                                             << "SLURM_ARRAY_TASK_ID=x;SLURM_ARRAY_TASK_COUNT=4"
                                             << -1 << 0 << "SLURM_ARRAY_TASK_ID is 'x'";
        QTest::newRow("Slurm, no count") << "auto"
                                         << "SLURM_ARRAY_TASK_ID=1" << -1 << 0 << "auto/N";
        QTest::newRow("Kubernetes, auto/N") << "auto/5"
                                            << "JOB_COMPLETION_INDEX=3" << 3 << 5 << "";
        QTest::newRow("Kubernetes, count in the environment")
            << "auto"
            << "JOB_COMPLETION_INDEX=3;ARCHIPELAGO_SHARD_COUNT=4" << 3 << 4 << "";
        QTest::newRow("Kubernetes, no count")
            << "auto"
            << "JOB_COMPLETION_INDEX=3" << -1 << 0 << "ARCHIPELAGO_SHARD_COUNT";
        QTest::newRow("Kubernetes, index out of range")
            << "auto"
            << "JOB_COMPLETION_INDEX=4;ARCHIPELAGO_SHARD_COUNT=4" << -1 << 0 << "expected 0..3";
        QTest::newRow("Kubernetes, counts disagree")
            << "auto/3"
            << "JOB_COMPLETION_INDEX=1;ARCHIPELAGO_SHARD_COUNT=4" << -1 << 0
            << "ARCHIPELAGO_SHARD_COUNT is 4";
    }

    void shardOptionParses()
    {
        QFETCH(QString, text);
        QFETCH(QString, environment);
        QFETCH(int, index);
        QFETCH(int, count);
        QFETCH(QString, error);
        std::string message;
        const std::optional<cli::ShardSpec> shard =
            cli::parseShardOption(text.toStdString(), fakeEnvironment(environment), message);
        if (index < 0) {
            QVERIFY(!shard);
            QVERIFY2(message.find(error.toStdString()) != std::string::npos, message.c_str());
            return;
        }
        QVERIFY2(shard, message.c_str());
        QCOMPARE(shard->index, index);
        QCOMPARE(shard->count, count);
    }

    void shardOptionErrorsAreUsageErrors()
    {
        for (const char* name : {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"})
            qunsetenv(name);
        std::string out, err;
        const std::string preset = presetPath(kCases.at("gpt3").preset);
        QCOMPARE(runCli({"sweep", preset, "--shard", "3/3"}, out, err), cli::kExitUsage);
        QVERIFY2(err.find("--shard expects I/N") != std::string::npos, err.c_str());
        QCOMPARE(runCli({"sweep", preset, "--shard", "auto"}, out, err), cli::kExitUsage);
        QVERIFY2(err.find("neither a Slurm job array") != std::string::npos, err.c_str());
        QCOMPARE(runCli({"sweep", preset, "--shard"}, out, err), cli::kExitUsage);
        // From the process environment, as a Slurm array task runs it.
        qputenv("SLURM_ARRAY_TASK_ID", "1");
        qputenv("SLURM_ARRAY_TASK_MIN", "0");
        qputenv("SLURM_ARRAY_TASK_COUNT", "2");
        const int code = runCli({"sweep", preset, "--space", spaceFile("gpt3"), "--top", kTop,
                                 "--shard", "auto", "--json"},
                                out, err);
        for (const char* name :
             {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"})
            qunsetenv(name);
        QCOMPARE(code, cli::kExitOk);
        const json j = json::parse(out);
        QCOMPARE(j["shard"]["index"].get<int>(), 1);
        QCOMPARE(j["shard"]["count"].get<int>(), 2);
        QCOMPARE(j["fronts"], readJson(shards("gpt3", 2)[1])["fronts"]);
    }

    void progressLine()
    {
        QCOMPARE(cli::shardPoints(10, 3, 4), std::uint64_t{2}); // 3, 7
        QCOMPARE(cli::shardPoints(10, 0, 3), std::uint64_t{4}); // 0, 3, 6, 9
        QCOMPARE(cli::shardPoints(2, 5, 7), std::uint64_t{0});
        QCOMPARE(cli::shardPoints(7776, 0, 1), std::uint64_t{7776});
        QCOMPARE(cli::formatProgressLine(1024, 7776, 180, 0.5),
                 std::string("1,024 / 7,776 points (13%), 180 evaluated, 2,048 points/s, "
                             "0:03 left"));
        QCOMPARE(cli::formatProgressLine(0, 1234567, 0, 0.0),
                 std::string("0 / 1,234,567 points (0%), 0 evaluated"));
        QCOMPARE(cli::formatProgressLine(1000, 4'601'000, 10, 1.0),
                 std::string("1,000 / 4,601,000 points (0%), 10 evaluated, 1,000 points/s, "
                             "1:16:40 left"));
        std::ostringstream silent;
        {
            cli::ProgressLine line(silent, cli::ProgressLine::Mode::Off, 0, 1);
            line.update({10, 100, 5});
            line.clear();
        }
        QVERIFY(silent.str().empty());
        std::ostringstream shown;
        {
            cli::ProgressLine line(shown, cli::ProgressLine::Mode::Terminal, 1, 4);
            line.update({10, 100, 5}); // shard 1 of 4 holds 25 of the 100 points
        }
        const std::string s = shown.str();
        QVERIFY2(s.starts_with("\rsweep: 10 / 25 points (40%), 5 evaluated"), s.c_str());
        // Cleared when the line goes: blanks over it and the cursor back at the start.
        QVERIFY(s.ends_with("\r"));
        QVERIFY(s.find("               \r") != std::string::npos);
        // --progress into a log: whole lines, nothing rewritten, nothing to clear.
        std::ostringstream logged;
        {
            cli::ProgressLine line(logged, cli::ProgressLine::Mode::Log, 0, 1);
            line.update({10, 100, 5});
            line.update({20, 100, 9}); // within the log interval: not repeated
        }
        const std::string log = logged.str();
        QVERIFY2(log.starts_with("sweep: 10 / 100 points (10%), 5 evaluated"), log.c_str());
        QVERIFY(log.ends_with("\n"));
        QCOMPARE(std::count(log.begin(), log.end(), '\n'), std::ptrdiff_t{1});
        QVERIFY(log.find('\r') == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSweepMerge)
#include "test_sweepmerge.moc"
