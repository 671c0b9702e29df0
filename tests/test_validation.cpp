// The published-runs validation through the same code path as
// `archipelago-cli validate`: mean absolute error <= 5%, largest <= 10%; and the same bound on
// the Hopper tuning runs of tests/data/hopper-runs.json (Llama 3 405B on 8k and 16k H100,
// Dubey et al. 2024 Table 4), on which the hopper efficiency parameters were calibrated.
#include "cli.h"

#include <QtTest>

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
    void hopperTuningRunsWithinBound();
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

void checkRunsWithinBound(const std::string& path)
{
    std::ostringstream out, err;
    const int code = cli::runValidate({path, "--json"}, out, err);
    QCOMPARE(code, cli::kExitOk);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    QVERIFY(j["runs"].size() >= 1);
    for (const auto& run : j["runs"]) {
        QVERIFY(run.contains("id") && run.contains("measured_s") && run.contains("predicted_s") &&
                run.contains("error"));
        qInfo("%-54s measured %8.3f s predicted %8.3f s error %+6.2f%%",
              run["id"].get<std::string>().c_str(), run["measured_s"].get<double>(),
              run["predicted_s"].get<double>(), 100.0 * run["error"].get<double>());
    }
    const double mean = j["mean_abs_error"];
    const double max = j["max_abs_error"];
    qInfo("mean %.2f%%, max %.2f%%", 100 * mean, 100 * max);
    QVERIFY2(mean <= 0.05, qPrintable(QString("mean abs error %1").arg(mean)));
    QVERIFY2(max <= 0.10, qPrintable(QString("max abs error %1").arg(max)));
}

} // namespace

void TestValidation::publishedRunsWithinBound()
{
    const std::string path = ARCHIPELAGO_VALIDATION_DIR "/published-runs.json";
    if (!std::filesystem::exists(path))
        QSKIP("../shared/validation/published-runs.json is absent: nothing to validate");
    checkRunsWithinBound(path);
}

void TestValidation::hopperTuningRunsWithinBound()
{
    checkRunsWithinBound(ARCHIPELAGO_TEST_DATA "/hopper-runs.json");
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

QTEST_APPLESS_MAIN(TestValidation)
#include "test_validation.moc"
