// The published-runs validation through the same code path as
// `archipelago-cli validate`: mean absolute error <= 3%, largest <= 8% over the runs of both
// ../shared/validation files together; the knobs a run does not publish (chosen as the team that
// tuned it would have: the fastest setting that fits in HBM, jointly), and a run that fits in no
// admissible setting as an error row, as the Llama 3 405B runs of tests/data/hopper-runs.json
// (Dubey et al. 2024 Table 4) are without recompute.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "explore/sweep.h"
#include "validation/publishedruns.h"
#include "validation/unpublishedknobs.h"

#include <QtTest>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include <QElapsedTimer>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace archipelago;

class TestValidation : public QObject
{
    Q_OBJECT
private slots:
    void publishedRunsWithinBound();
    void hopperRunsThatDoNotFitAreErrors();
    void unpublishedKnobsAreTheFastestThatFits_data();
    void unpublishedKnobsAreTheFastestThatFits();
    void unfitRunIsAnErrorRow_data();
    void unfitRunIsAnErrorRow();
    void publishedKnobsAreKept_data();
    void publishedKnobsAreKept();
    void assumptionsNameEveryChosenKnob_data();
    void assumptionsNameEveryChosenKnob();
    void knobSearchNarrowsToItsBound();
    void malformedFileNamesPointer_data();
    void malformedFileNamesPointer();
    void usage();
    void hostileInputFailsFast_data();
    void hostileInputFailsFast();
    void refusesPipesAndDevices();
    void sameRangesAsTheScenario_data();
    void sameRangesAsTheScenario();
    void integralFloatIsAnInteger();
    void unknownKeyWarnsWithPointer();
    void echoedTextCannotForgeLines();
    void unevaluableRunIsAnError();
    void endOfOptions();
};

namespace {

const std::string kPublishedRuns = ARCHIPELAGO_VALIDATION_DIR "/published-runs.json";
const std::string kMegascaleRuns = ARCHIPELAGO_VALIDATION_DIR "/published-runs-h100-megascale.json";
const std::string kHopperRuns = ARCHIPELAGO_TEST_DATA "/hopper-runs.json";

std::vector<core::PublishedRun> loadRuns(const std::string& path)
{
    const core::PublishedRunsLoad load = core::loadPublishedRuns(path);
    return load.ok() ? load.runs : std::vector<core::PublishedRun>{};
}

} // namespace

void TestValidation::publishedRunsWithinBound()
{
    // Over the 22 runs of both files together, the set each generation is calibrated on
    // (resources/catalog.json says how): mean absolute error at most 3%, largest at most 8%.
    double sum = 0.0, largest = 0.0;
    // MegaScale's Table 2 rows, one series per stack: GPUs and signed error.
    std::map<std::string, std::vector<std::pair<double, double>>> series;
    int evaluated = 0;
    std::string failures;
    for (const std::string& path : {kPublishedRuns, kMegascaleRuns}) {
        if (!std::filesystem::exists(path))
            QSKIP("../shared/validation is absent: nothing to validate");
        std::ostringstream out, err;
        const int code = cli::runValidate({path, "--json"}, out, err);
        failures += err.str();
        QVERIFY2(code == cli::kExitOk || code == cli::kExitInvalidInput, err.str().c_str());
        const nlohmann::json j = nlohmann::json::parse(out.str());
        for (const auto& run : j["runs"]) {
            if (run.contains("evaluated"))
                continue; // in `failures`
            const double e = run["error"];
            qInfo("%-54s measured %8.3f s predicted %8.3f s error %+6.2f%%",
                  run["id"].get<std::string>().c_str(), run["measured_s"].get<double>(),
                  run["predicted_s"].get<double>(), 100.0 * e);
            sum += std::abs(e);
            largest = std::max(largest, std::abs(e));
            ++evaluated;
            const std::string id = run["id"];
            for (const char* stack : {"megascale2024-t2-megatron-", "megascale2024-t2-megascale-"})
                if (id.starts_with(stack))
                    series[stack].emplace_back(std::stod(id.substr(std::string(stack).size())), e);
        }
    }
    // Every run evaluated: none may be an error row (one that does not fit in HBM in any
    // admissible setting is one).
    QVERIFY2(failures.empty(), failures.c_str());
    QCOMPARE(evaluated, 22);
    const double mean = sum / evaluated;
    qInfo("mean %.2f%%, largest %.2f%% over %d runs", 100 * mean, 100 * largest, evaluated);
    QVERIFY2(mean <= 0.03, qPrintable(QString("mean abs error %1").arg(mean)));
    QVERIFY2(largest <= 0.08, qPrintable(QString("largest abs error %1").arg(largest)));

    // No trend of the signed error with the job's size: the least-squares slope against
    // log2(GPUs) at most 1.5 points per doubling on each series of MegaScale's rows (256 to
    // 1,024 GPUs, one job, one batch).
    QCOMPARE(series.size(), std::size_t{2});
    for (const auto& [stack, points] : series) {
        QCOMPARE(points.size(), std::size_t{4});
        const auto n = static_cast<double>(points.size());
        double mx = 0.0, my = 0.0;
        for (const auto& [gpus, e] : points) {
            mx += std::log2(gpus) / n;
            my += e / n;
        }
        double sxy = 0.0, sxx = 0.0;
        for (const auto& [gpus, e] : points) {
            sxy += (std::log2(gpus) - mx) * (e - my);
            sxx += (std::log2(gpus) - mx) * (std::log2(gpus) - mx);
        }
        const double slope = sxy / sxx;
        qInfo("%s: signed error %+.2f points per doubling of GPUs", stack.c_str(), 100 * slope);
        if (stack == "megascale2024-t2-megatron-")
            QEXPECT_FAIL("",
                         "Megatron-LM rows without DP overlap: the model misses about 1.5 s "
                         "per iteration that does not shrink with the GPUs (open)",
                         Continue);
        QVERIFY2(std::abs(slope) <= 0.015, qPrintable(QString("%1 per doubling").arg(slope)));
    }
}

void TestValidation::hopperRunsThatDoNotFitAreErrors()
{
    // Llama 3 405B without recompute (null: none) needs more than 80 GiB per GPU in every
    // admissible setting (94 GiB at the least, with sequence parallel on): each run is an error row
    // naming its need and the HBM, not a prediction of a run that could not have happened.
    std::ostringstream out, err;
    QCOMPARE(cli::runValidate({kHopperRuns, "--json"}, out, err), cli::kExitInvalidInput);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    QCOMPARE(j["runs"].size(), std::size_t(3));
    for (std::size_t i = 0; i < j["runs"].size(); ++i) {
        const auto& run = j["runs"][i];
        const std::string id = run["id"];
        QCOMPARE(run["evaluated"], false);
        QVERIFY(run["error"].is_null() && run["predicted_s"].is_null());
        const std::string reason = run["reason"];
        QVERIFY2(reason.starts_with("does not fit in HBM in any admissible setting of its "
                                    "unpublished knobs: needs at least "),
                 reason.c_str());
        QVERIFY2(reason.find(" GiB per GPU of 80 GiB (") != std::string::npos, reason.c_str());
        // The JSON lists the choice of every unpublished knob, as the table does.
        std::string assumed;
        for (const auto& a : run["assumptions"])
            assumed += a.get<std::string>() + "\n";
        for (const char* knob : {"micro_batch not published: 1 (", "virtual_stages not published: ",
                                 "sequence_parallel not published: on (",
                                 "distributed optimizer (not in the runs format): on ("})
            QVERIFY2(assumed.find(knob) != std::string::npos, assumed.c_str());
        const std::string line =
            "/runs/" + std::to_string(i) + ": run \"" + id + "\" could not be evaluated: " + reason;
        QVERIFY2(err.str().find(line) != std::string::npos, err.str().c_str());
    }
    QCOMPARE(j["mean_abs_error"].get<double>(), 0.0);
}

namespace {

// A small valid run: MEASURED is replaced by the measured time.
const QString kRun = R"({"id":"x","source":"s","model":{"layers":2,"hidden":64,"heads":4,
      "kv_heads":4,"ffn_hidden":256,"ffn_activation":"gelu","vocab":100,"seq_len":128},
      "training":{"global_batch":8,"micro_batch":null,"tp":1,"pp":1,"dp":8,"cp":1,"ep":1,
      "virtual_stages":null,"sequence_parallel":null,"recompute":null,"precision":"bf16"},
      "system":{"accelerator":"A100-SXM4-80GB","peak_dense_tflops":312,"hbm_gib":80,
      "gpus":8,"gpus_per_node":8,"scale_up_GBps_per_direction":300,
      "scale_out_Gbps_per_gpu":200,"fabric":{"kind":"clos","tiers":3,"oversubscription":1}},
      "measured":{"iteration_time_s":MEASURED}})";
const QString kHead = R"({"format":"archipelago-published-runs","version":1,"runs":[)";

QString validRun()
{
    return QString(kRun).replace("MEASURED", "1");
}

QString document(const QString& runs)
{
    return kHead + runs + "]}";
}

struct Result
{
    int code = -1;
    std::string out;
    std::string err;
};

Result validateText(const std::string& text, std::vector<std::string> extra = {})
{
    const auto path = std::filesystem::temp_directory_path() / "archipelago-test-runs.json";
    std::ofstream(path, std::ios::binary) << text;
    std::vector<std::string> args{path.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream out, err;
    Result r;
    r.code = cli::runValidate(args, out, err);
    r.out = out.str();
    r.err = err.str();
    std::filesystem::remove(path);
    return r;
}

} // namespace

void TestValidation::malformedFileNamesPointer_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("pointer");
    const QString run = kRun;
    const QString head = kHead;
    QTest::newRow("negative time") << head + QString(run).replace("MEASURED", "-1") + "]}"
                                   << "/runs/0/measured/iteration_time_s";
    QTest::newRow("wrong format") << R"({"format":"x","version":1,"runs":[]})"
                                  << "/format";
    QTest::newRow("bad recompute")
        << head +
               QString(run)
                   .replace("MEASURED", "1")
                   .replace(R"("recompute":null)", R"("recompute":"some")") +
               "]}"
        << "/runs/0/training/recompute";
    QTest::newRow("gpus mismatch")
        << head + QString(run).replace("MEASURED", "1").replace(R"("dp":8)", R"("dp":4)") + "]}"
        << "/runs/0/system/gpus";
}

void TestValidation::malformedFileNamesPointer()
{
    QFETCH(QString, text);
    QFETCH(QString, pointer);
    const auto path = std::filesystem::temp_directory_path() / "archipelago-test-runs.json";
    std::ofstream(path) << text.toStdString();
    std::ostringstream out, err;
    QCOMPARE(cli::runValidate({path.string()}, out, err), cli::kExitInvalidInput);
    QVERIFY2(err.str().find(path.string()) != std::string::npos, err.str().c_str());
    QVERIFY2(err.str().find(pointer.toStdString()) != std::string::npos, err.str().c_str());
    std::filesystem::remove(path);
}

void TestValidation::usage()
{
    std::ostringstream out, err;
    QCOMPARE(cli::runValidate({}, out, err), cli::kExitUsage);
    QCOMPARE(cli::runValidate({"a.json", "--bogus"}, out, err), cli::kExitUsage);
}

void TestValidation::hostileInputFailsFast_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    // Used to overflow the stack while the value was printed into the message.
    const int depth = 100'000;
    QTest::newRow("nested 100000 deep")
        << (kHead + QString(depth, '[') + QString(depth, ']') + "]}").toUtf8() << "/runs/0/0/0";
    // Used to take 36 s in a quadratic scan for duplicate ids.
    QStringList many;
    for (int i = 0; i < 100'000; ++i)
        many << QString(R"({"id":"r%1"})").arg(i);
    QTest::newRow("100000 runs") << document(many.join(',')).toUtf8()
                                 << "/runs: expected at most 10000 runs, got 100000";
    QTest::newRow("no runs") << document("").toUtf8()
                             << "/runs: expected at least one run, got an empty array";
    QTest::newRow("duplicate key")
        << document(validRun().replace(R"("source":"s")", R"("source":"s","source":"t")")).toUtf8()
        << "/runs/0/source: duplicate key";
    QTest::newRow("syntax error")
        << QByteArray(
               "{\"format\": \"archipelago-published-runs\",\n\"version\": 1,\n\"runs\": [,]}")
        << "line 3, column 10";
    QTest::newRow("duplicate id") << document(validRun() + "," + validRun()).toUtf8()
                                  << "/runs/1/id: expected a unique id";
}

void TestValidation::hostileInputFailsFast()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    QElapsedTimer timer;
    timer.start();
    const Result r = validateText(text.toStdString());
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString("took %1 ms").arg(timer.elapsed())));
    QCOMPARE(r.code, cli::kExitInvalidInput);
    QVERIFY2(r.err.find(expected.toStdString()) != std::string::npos, r.err.c_str());
    QVERIFY(r.err.size() < 100'000);
}

void TestValidation::refusesPipesAndDevices()
{
    const auto fifo = std::filesystem::temp_directory_path() / "archipelago-test-fifo.json";
    std::filesystem::remove(fifo);
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& path : {fifo.string(), std::string("/dev/zero")}) {
        std::ostringstream out, err;
        QCOMPARE(cli::runValidate({path}, out, err), cli::kExitInvalidInput);
        QVERIFY2(err.str().find(path + ": is not a regular file") != std::string::npos,
                 err.str().c_str());
    }
    std::filesystem::remove(fifo);
}

void TestValidation::sameRangesAsTheScenario_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("message");
    QTest::newRow("layers 10^9") << R"("layers":2)"
                                 << R"("layers":1000000000)"
                                 << "/runs/0/model/layers: expected an integer in 1..10000, "
                                    "got 1000000000";
    QTest::newRow("1 tier") << R"("tiers":3)"
                            << R"("tiers":1)"
                            << "/runs/0/system/fabric/tiers: expected 2 or 3, got 1";
    QTest::newRow("99 tiers") << R"("tiers":3)"
                              << R"("tiers":99)"
                              << "/runs/0/system/fabric/tiers: expected 2 or 3, got 99";
    QTest::newRow("oversubscription 0.5")
        << R"("oversubscription":1)"
        << R"("oversubscription":0.5)"
        << "/runs/0/system/fabric/oversubscription: expected a number in [1, 1000], got 0.5";
    QTest::newRow("1e-300 GiB of HBM") << R"("hbm_gib":80)"
                                       << R"("hbm_gib":1e-300)"
                                       << "/runs/0/system/hbm_gib: expected a number of GiB";
    QTest::newRow("fractional integer") << R"("global_batch":8)"
                                        << R"("global_batch":8.5)"
                                        << "/runs/0/training/global_batch: expected an integer";
    QTest::newRow("missing key") << R"("vocab":100,)"
                                 << ""
                                 << "/runs/0/model/vocab: missing required key";
    QTest::newRow("null where a value is needed")
        << R"("vocab":100)"
        << R"("vocab":null)"
        << "/runs/0/model/vocab: expected a positive integer, got null";
}

void TestValidation::sameRangesAsTheScenario()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, message);
    const QString run = validRun();
    QVERIFY(run.contains(from));
    const Result r = validateText(document(QString(run).replace(from, to)).toStdString());
    QCOMPARE(r.code, cli::kExitInvalidInput);
    QVERIFY2(r.err.find(message.toStdString()) != std::string::npos, r.err.c_str());
}

void TestValidation::integralFloatIsAnInteger()
{
    // The scenario reader takes 8.0 for 8; so does the runs reader.
    const Result r = validateText(
        document(validRun().replace(R"("global_batch":8)", R"("global_batch":8.0)")).toStdString(),
        {"--json"});
    QVERIFY2(r.code == cli::kExitOk, r.err.c_str());
}

void TestValidation::unknownKeyWarnsWithPointer()
{
    const Result r = validateText(
        document(validRun().replace(R"("tiers":3)", R"("tiers":3,"teirs":2)")).toStdString());
    QVERIFY2(r.code == cli::kExitOk, r.err.c_str());
    QVERIFY2(r.err.find("warning: /runs/0/system/fabric/teirs: unknown key \"teirs\"") !=
                 std::string::npos,
             r.err.c_str());
}

void TestValidation::echoedTextCannotForgeLines()
{
    // A key and an enum value holding a newline and an escape sequence.
    const std::string forged = R"(\n\u001b[2Jfake.json: ok)";
    const QString run =
        validRun()
            .replace(R"("tiers":3)", QString::fromStdString(R"("tiers":3,"k)" + forged + R"(":1)"))
            .replace(R"("kind":"clos")", QString::fromStdString(R"("kind":"clos)" + forged + "\""));
    const Result r = validateText(document(run).toStdString());
    QCOMPARE(r.code, cli::kExitInvalidInput);
    QVERIFY2(r.err.find('\x1b') == std::string::npos, r.err.c_str());
    for (const QString& line : QString::fromStdString(r.err).split('\n', Qt::SkipEmptyParts))
        QVERIFY2(
            line.startsWith(QString::fromStdString(
                (std::filesystem::temp_directory_path() / "archipelago-test-runs.json").string())),
            qPrintable(line));
    QVERIFY2(r.err.find("\\u000a\\u001b[2Jfake.json: ok") != std::string::npos, r.err.c_str());
}

void TestValidation::unevaluableRunIsAnError()
{
    // 3 does not divide the 1 sequence per replica: the model cannot evaluate the run.
    const QString bad = validRun()
                            .replace(R"("id":"x")", R"("id":"bad")")
                            .replace(R"("micro_batch":null)", R"("micro_batch":3)");
    const Result r = validateText(document(validRun() + "," + bad).toStdString(), {"--json"});
    QCOMPARE(r.code, cli::kExitInvalidInput);
    QVERIFY2(r.err.find("/runs/1: run \"bad\" could not be evaluated: ") != std::string::npos,
             r.err.c_str());
    const nlohmann::json j = nlohmann::json::parse(r.out);
    QCOMPARE(j["runs"].size(), std::size_t(2));
    QVERIFY(j["runs"][1]["error"].is_null());
    QCOMPARE(j["runs"][1]["evaluated"], false);
    // The mean is over the one run that was evaluated.
    QCOMPARE(j["mean_abs_error"].get<double>(), std::abs(j["runs"][0]["error"].get<double>()));
}

void TestValidation::endOfOptions()
{
    const Result r = validateText(document(validRun()).toStdString());
    QCOMPARE(r.code, cli::kExitOk);
    std::ostringstream out, err;
    QCOMPARE(cli::runValidate({"--", "--json"}, out, err), cli::kExitInvalidInput);
    QVERIFY2(err.str().find("--json: cannot open the file") != std::string::npos,
             err.str().c_str());
}

namespace {

// Korthikanti et al. 2022's 22B on TP 8 (published-runs.json), here on two pipeline stages with
// 48 sequences per iteration; the keys the rows change are spelled as in the file.
const std::string k22b = R"({"format":"archipelago-published-runs","version":1,"runs":[
  {"id":"22b-pp2","source":"s","model":{"layers":48,"hidden":6144,"heads":64,"kv_heads":64,
   "ffn_hidden":24576,"ffn_activation":"gelu","vocab":51200,"seq_len":2048},
   "training":{"global_batch":48,"micro_batch":null,"tp":8,"pp":2,"dp":1,"cp":1,"ep":1,
   "virtual_stages":1,"sequence_parallel":false,"recompute":"full","precision":"bf16"},
   "system":{"accelerator":"A100-SXM4-80GB","gpus_per_node":8,"peak_dense_tflops":312,
   "hbm_gib":80,"scale_up_GBps_per_direction":300,"gpus":16,"scale_out_Gbps_per_gpu":200,
   "fabric":{"kind":"clos","tiers":3,"oversubscription":1}},
   "measured":{"iteration_time_s":1.42}}]})";

std::string replaced(std::string text, const QStringList& edits)
{
    for (qsizetype i = 0; i + 1 < edits.size(); i += 2) {
        const std::string from = edits[i].toStdString();
        const std::size_t at = text.find(from);
        if (at == std::string::npos)
            qFatal("no \"%s\" in the run", from.c_str());
        text.replace(at, from.size(), edits[i + 1].toStdString());
    }
    return text;
}

core::PublishedRun parsedRun(const std::string& text)
{
    const core::PublishedRunsLoad load = core::parsePublishedRuns(text, "run.json");
    if (!load.ok())
        qFatal("%s", load.errors.front().toString().c_str());
    return load.runs.front();
}

core::EvaluateOptions leanOptions()
{
    core::EvaluateOptions o;
    o.timeline = o.warnings = o.billOfMaterials = o.attribution = false;
    return o;
}

std::vector<int> divisors(int n)
{
    std::vector<int> d;
    for (int i = 1; i <= n; ++i)
        if (n % i == 0)
            d.push_back(i);
    return d;
}

} // namespace

void TestValidation::unpublishedKnobsAreTheFastestThatFits_data()
{
    QTest::addColumn<QStringList>("edits");
    // The defect: the largest power of two that fits (16: 3 micro-batches, a 25% bubble on
    // two stages) was taken for micro-batch; it is several percent slower than the fastest.
    QTest::newRow("micro-batch") << QStringList{};
    QTest::newRow("micro-batch and virtual stages")
        << QStringList{R"("virtual_stages":1)", R"("virtual_stages":null)"};
    QTest::newRow("micro-batch, virtual stages, sequence parallel") << QStringList{
        R"("virtual_stages":1)",       R"("virtual_stages":null)", R"("sequence_parallel":false)",
        R"("sequence_parallel":null)", R"("recompute":"full")",    R"("recompute":"selective")"};
    QTest::newRow("micro-batch and distributed optimizer, dp 2")
        << QStringList{R"("dp":1)", R"("dp":2)", R"("gpus":16)", R"("gpus":32)"};
}

void TestValidation::unpublishedKnobsAreTheFastestThatFits()
{
    QFETCH(QStringList, edits);
    const core::PublishedRun run = parsedRun(replaced(k22b, edits));
    const core::Catalog& catalog = core::builtinCatalog();
    const core::RunScenario rs = core::scenarioForRun(run, catalog);
    const core::Catalog merged = catalog.mergedWith(rs.scenario.catalogOverrides);
    const core::Evaluation chosen = core::evaluate(rs.scenario, merged, leanOptions());
    QVERIFY(chosen.ok && chosen.fitsInMemory);

    // Brute force: every micro-batch dividing the per-replica batch, every v dividing the
    // layers per stage (with m a multiple of p), both settings of each unpublished switch.
    const int perReplica = run.model.globalBatch / run.dp;
    const std::vector<int> vs =
        run.virtualStages ? std::vector<int>{*run.virtualStages} : divisors(48 / run.pp);
    const std::vector<bool> sps = run.sequenceParallel ? std::vector<bool>{*run.sequenceParallel}
                                                       : std::vector<bool>{false, true};
    const std::vector<bool> distOpts =
        run.dp > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false};
    double fastestS = 0.0;
    double largestPowerOfTwoS = 0.0; // the old rule, at the published v
    int evaluated = 0;
    for (int b : divisors(perReplica))
        for (int v : vs)
            for (bool sp : sps)
                for (bool distOpt : distOpts) {
                    if (v > 16 || (v > 1 && (perReplica / b) % run.pp != 0))
                        continue;
                    core::Scenario sc = rs.scenario;
                    sc.parallelism.microBatch = b;
                    sc.parallelism.virtualStages = v;
                    sc.parallelism.sequenceParallel = sp;
                    sc.parallelism.distributedOptimizer = distOpt;
                    sc.schedule.kind =
                        v > 1 ? core::ScheduleKind::Interleaved1F1B : core::ScheduleKind::OneFOneB;
                    const core::Evaluation ev = core::evaluate(sc, merged, leanOptions());
                    if (!ev.ok || !ev.fitsInMemory)
                        continue;
                    ++evaluated;
                    if (fastestS == 0.0 || ev.iterationTimeS < fastestS)
                        fastestS = ev.iterationTimeS;
                    if (v == 1 && !sp && !distOpt && (b & (b - 1)) == 0)
                        largestPowerOfTwoS = ev.iterationTimeS; // b ascending: the largest
                }
    QVERIFY(evaluated > 1);
    qInfo("micro-batch %d, v %d: %.4f s; fastest by brute force %.4f s; the largest power of "
          "two %.4f s",
          rs.scenario.parallelism.microBatch, rs.scenario.parallelism.virtualStages,
          chosen.iterationTimeS, fastestS, largestPowerOfTwoS);
    // The choice is the design-space search's fastest point that fits (explore/sweep.h).
    QVERIFY2(
        chosen.iterationTimeS <= fastestS * (1.0 + 1e-12),
        qPrintable(QString("chosen %1 s, fastest %2 s").arg(chosen.iterationTimeS).arg(fastestS)));
    if (QTest::currentDataTag() == QLatin1String("micro-batch"))
        QVERIFY2(largestPowerOfTwoS > chosen.iterationTimeS * 1.02,
                 "the old rule's answer is no longer slower: the reproduction lost its point");
}

void TestValidation::unfitRunIsAnErrorRow_data()
{
    QTest::addColumn<QStringList>("edits");
    QTest::addColumn<QString>("reason");
    // 22B on one GPU per replica: its weights and gradients alone exceed 80 GiB.
    const QStringList noModelParallel{R"("tp":8)", R"("tp":1)", R"("pp":2)",
                                      R"("pp":1)", R"("dp":1)", R"("dp":16)"};
    QTest::newRow("searched") << noModelParallel + QStringList{R"("global_batch":48)",
                                                               R"("global_batch":64)",
                                                               R"("virtual_stages":1)",
                                                               R"("virtual_stages":null)"}
                              << "does not fit in HBM in any admissible setting of its "
                                 "unpublished knobs: needs at least ";
    QTest::newRow("published") << QStringList{R"("tp":8)",
                                              R"("tp":1)",
                                              R"("pp":2)",
                                              R"("pp":16)",
                                              R"("global_batch":48)",
                                              R"("global_batch":64)",
                                              R"("micro_batch":null)",
                                              R"("micro_batch":4)",
                                              R"("recompute":"full")",
                                              R"("recompute":null)"}
                               << "does not fit in HBM with its published settings: needs ";
}

void TestValidation::unfitRunIsAnErrorRow()
{
    QFETCH(QStringList, edits);
    QFETCH(QString, reason);
    // The unfit run beside one that fits: the mean is over the one evaluated.
    std::string unfit = replaced(k22b, edits + QStringList{R"("id":"22b-pp2")", R"("id":"unfit")"});
    const std::string fitting =
        k22b.substr(k22b.find(R"({"id")"), k22b.rfind("]}") - k22b.find(R"({"id")"));
    unfit.insert(unfit.rfind("]}"), "," + fitting);
    const Result r = validateText(unfit, {"--json"});
    QCOMPARE(r.code, cli::kExitInvalidInput);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    QCOMPARE(j["runs"].size(), std::size_t(2));
    const auto& row = j["runs"][0];
    QCOMPARE(row["evaluated"], false);
    QVERIFY(row["error"].is_null() && row["predicted_s"].is_null());
    const std::string why = row["reason"];
    QVERIFY2(why.starts_with(reason.toStdString()), why.c_str());
    QVERIFY2(why.find(" GiB per GPU of 80 GiB (micro-batch ") != std::string::npos, why.c_str());
    QVERIFY2(r.err.find("/runs/0: run \"unfit\" could not be evaluated: " + why) !=
                 std::string::npos,
             r.err.c_str());
    QVERIFY(!j["runs"][1].contains("evaluated"));
    QCOMPARE(j["mean_abs_error"].get<double>(), std::abs(j["runs"][1]["error"].get<double>()));
    // The table says so too.
    const Result table = validateText(unfit);
    QVERIFY2(table.out.find("    not evaluated: " + why) != std::string::npos, table.out.c_str());
    QVERIFY2(table.out.find("over 1 runs (1 could not be evaluated)") != std::string::npos,
             table.out.c_str());
}

namespace {

void addRunRows(const std::string& path)
{
    for (const core::PublishedRun& run : loadRuns(path))
        QTest::newRow(run.id.c_str())
            << QString::fromStdString(path) << QString::fromStdString(run.id);
}

void addAllRunRows()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("id");
    for (const std::string& path : {kPublishedRuns, kMegascaleRuns, kHopperRuns})
        addRunRows(path);
    QTest::newRow("22b-pp2 (test)") << QString() << "22b-pp2";
}

core::PublishedRun runNamed(const QString& path, const QString& id)
{
    if (path.isEmpty())
        return parsedRun(k22b);
    for (const core::PublishedRun& run : loadRuns(path.toStdString()))
        if (run.id == id.toStdString())
            return run;
    qFatal("no run %s", qPrintable(id));
}

} // namespace

void TestValidation::publishedKnobsAreKept_data()
{
    addAllRunRows();
}

void TestValidation::publishedKnobsAreKept()
{
    QFETCH(QString, path);
    QFETCH(QString, id);
    const core::PublishedRun run = runNamed(path, id);
    const core::Parallelism& par =
        core::scenarioForRun(run, core::builtinCatalog()).scenario.parallelism;
    QCOMPARE(par.tp, run.tp);
    QCOMPARE(par.pp, run.pp);
    QCOMPARE(par.cp, run.cp);
    QCOMPARE(par.recompute, run.recompute);
    if (run.microBatch)
        QCOMPARE(par.microBatch, *run.microBatch);
    if (run.virtualStages)
        QCOMPARE(par.virtualStages, *run.virtualStages);
    if (run.sequenceParallel)
        QCOMPARE(par.sequenceParallel, *run.sequenceParallel);
    if (run.dp * run.cp == 1)
        QVERIFY(!par.distributedOptimizer); // nothing to shard
}

void TestValidation::assumptionsNameEveryChosenKnob_data()
{
    addAllRunRows();
}

void TestValidation::assumptionsNameEveryChosenKnob()
{
    QFETCH(QString, path);
    QFETCH(QString, id);
    const core::PublishedRun run = runNamed(path, id);
    const core::RunScenario rs = core::scenarioForRun(run, core::builtinCatalog());
    const core::Parallelism& par = rs.scenario.parallelism;
    const auto says = [&](const std::string& prefix) {
        const bool found = std::any_of(rs.assumptions.begin(), rs.assumptions.end(),
                                       [&](const std::string& a) { return a.starts_with(prefix); });
        if (!found)
            qWarning("no assumption \"%s...\"", prefix.c_str());
        return found;
    };
    const auto onOff = [](bool on) { return std::string(on ? "on" : "off"); };
    const auto count = [&](const std::string& prefix) {
        return std::count_if(rs.assumptions.begin(), rs.assumptions.end(),
                             [&](const std::string& a) { return a.starts_with(prefix); });
    };
    QCOMPARE(count("search bounded"), 0); // every run is searched in full (kMaxKnobSearchCells)
    QCOMPARE(count("micro_batch not published: "), run.microBatch ? 0 : 1);
    QCOMPARE(count("virtual_stages not published: "), run.virtualStages ? 0 : 1);
    QCOMPARE(count("sequence_parallel not published: "), run.sequenceParallel ? 0 : 1);
    // A stack that always shards (NeMo's ZeRO-2 optimizer) leaves nothing to choose.
    const bool chosen = run.dp * run.cp > 1 && run.software.value_or("") != "NeMo";
    QCOMPARE(count("distributed optimizer (not in the runs format): "), chosen ? 1 : 0);
    if (!run.microBatch)
        QVERIFY(says("micro_batch not published: " + std::to_string(par.microBatch) + " ("));
    if (!run.virtualStages)
        QVERIFY(says("virtual_stages not published: " + std::to_string(par.virtualStages) + " ("));
    if (!run.sequenceParallel)
        QVERIFY(says("sequence_parallel not published: " + onOff(par.sequenceParallel) + " ("));
    if (chosen)
        QVERIFY(says("distributed optimizer (not in the runs format): " +
                     onOff(par.distributedOptimizer) + " ("));
}

// Over its bound the search leaves out the longest pipelines, says which, and simulates no more
// than the bound in each sweep; within it, it searches everything. A hostile file (many layers,
// a large per-replica batch) once made one run's search simulate for minutes.
void TestValidation::knobSearchNarrowsToItsBound()
{
    const auto line = [](const core::RunScenario& rs) {
        for (const std::string& a : rs.assumptions)
            if (a.starts_with("search bounded to "))
                return a;
        return std::string();
    };
    const auto firstNumberAfter = [](const std::string& text, const std::string& key) {
        const std::size_t at = text.find(key);
        return at == std::string::npos ? 0 : std::stoi(text.substr(at + key.size()));
    };

    // The heaviest published run, searched with a tenth of its cells.
    const core::PublishedRun run = runNamed(QString::fromStdString(kPublishedRuns),
                                            QStringLiteral("narayanan2021-t1-1008.0b"));
    const core::RunScenario full = core::scenarioForRun(run, core::builtinCatalog());
    QVERIFY(line(full).empty());
    const std::int64_t bound = full.searchCells / 20;
    const core::RunScenario narrowed = core::scenarioForRun(run, core::builtinCatalog(), bound);
    const std::string said = line(narrowed);
    QVERIFY2(!said.empty(), "no \"search bounded to\" line");
    QVERIFY2(narrowed.searchCells <= 2 * (bound + core::kMaxSweepCells), said.c_str());
    QVERIFY(narrowed.searchCells < full.searchCells);
    const int below = firstNumberAfter(said, "micro-batches below ");
    const int above = firstNumberAfter(said, "virtual stages above ");
    QVERIFY2(below > 0 || above > 0, said.c_str());
    const core::Parallelism& par = narrowed.scenario.parallelism;
    if (below > 0)
        QVERIFY2(par.microBatch >= below, said.c_str());
    if (above > 0)
        QVERIFY2(par.virtualStages <= above, said.c_str());
    // Hostile runs over the default bound: test_fuzzregressions (publishedruns-heavy-knob-search).
}

QTEST_APPLESS_MAIN(TestValidation)
#include "test_validation.moc"
