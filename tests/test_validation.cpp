// The published-runs validation (issue 3 item 7) through the same code path as
// `archipelago-cli validate`: mean absolute error <= 5%, largest <= 10%; and the same bound on
// the Hopper tuning runs of tests/data/hopper-runs.json (Llama 3 405B on 8k and 16k H100,
// Dubey et al. 2024 Table 4), on which the hopper efficiency parameters were calibrated.
#include "cli.h"

#include <QtTest>

#include <nlohmann/json.hpp>

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

void TestValidation::malformedFileNamesPointer_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("pointer");
    const QString run = R"({"id":"x","source":"s","model":{"layers":2,"hidden":64,"heads":4,
      "kv_heads":4,"ffn_hidden":256,"ffn_activation":"gelu","vocab":100,"seq_len":128},
      "training":{"global_batch":8,"micro_batch":null,"tp":1,"pp":1,"dp":8,"cp":1,"ep":1,
      "virtual_stages":null,"sequence_parallel":null,"recompute":null,"precision":"bf16"},
      "system":{"accelerator":"A100-SXM4-80GB","peak_dense_tflops":312,"hbm_gib":80,
      "gpus":8,"gpus_per_node":8,"scale_up_GBps_per_direction":300,
      "scale_out_Gbps_per_gpu":200,"fabric":{"kind":"clos","tiers":3,"oversubscription":1}},
      "measured":{"iteration_time_s":MEASURED}})";
    const QString head = R"({"format":"archipelago-published-runs","version":1,"runs":[)";
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

QTEST_APPLESS_MAIN(TestValidation)
#include "test_validation.moc"
