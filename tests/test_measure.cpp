// Measured runs from training logs (validation/runlog.h, validation/measuredrun.h,
// `archipelago-cli measure`): each framework's log format gives the median iteration time
// after the warm-up; a Megatron-LM log of another configuration than the scenario is refused;
// the run appended to a runs file reads back, holds the scenario the job ran, and calibrates.
#include "clirun.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "validation/calibration.h"
#include "validation/measuredrun.h"
#include "validation/publishedruns.h"
#include "validation/runlog.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace archipelago;

namespace {

std::string logPath(const char* name)
{
    std::string path = ARCHIPELAGO_TEST_DATA "/logs/";
    path += name;
    return path;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string writeFile(const QTemporaryDir& dir, const char* name, const std::string& text)
{
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

core::Scenario preset(const char* name)
{
    const core::LoadResult r = core::loadScenarioFile(tests::presetPath(name));
    return *r.scenario;
}

} // namespace

class TestMeasure : public QObject
{
    Q_OBJECT
private slots:
    void megatronLog();
    void nemoLogs();
    void torchTitanLog();
    void tooShortOrForeignLog();
    void hostileLogs();
    void megatronArgumentsMustAgree();
    void measuredRunReadsBackAndCalibrates();
    void cli();
};

void TestMeasure::megatronLog()
{
    const core::IterationLog log = core::readIterationLog(
        core::Framework::MegatronLm, readFile(logPath("megatron-gpt3-175b.log")), 0, 0);
    QVERIFY2(log.ok(), log.error.c_str());
    QCOMPARE(log.samples.size(), std::size_t{12});
    QCOMPARE(log.samples[0].iteration, 10LL);
    QCOMPARE(log.samples[0].seconds, 36.4);
    QCOMPARE(log.warmup, 2); // the inflated first intervals
    QVERIFY(std::abs(log.medianS - 27.5) < 0.1);
    QVERIFY(log.lowS >= 27.4 && log.highS <= 27.6);
    QCOMPARE(log.arguments.at("tensor_model_parallel_size"), std::string("8"));
    QVERIFY(log.month == (core::YearMonth{2025, 3})); // "[2025-03-04 10:00:00]"
    QCOMPARE(log.arguments.at("virtual_pipeline_model_parallel_size"), std::string("3"));
    QVERIFY(core::argumentMismatches(log.arguments, preset("gpt3-175b-1024-a100.json")).empty());
}

void TestMeasure::nemoLogs()
{
    const core::IterationLog two =
        core::readIterationLog(core::Framework::Nemo, readFile(logPath("nemo2.log")), 0, 0);
    QVERIFY2(two.ok(), two.error.c_str());
    QCOMPARE(two.samples.size(), std::size_t{20});
    QCOMPARE(two.samples[0].seconds, 10.31);
    QCOMPARE(two.samples[19].iteration, 19LL);
    QCOMPARE(two.warmup, 2);
    QVERIFY(std::abs(two.medianS - 7.55) < 0.03);
    // NeMo 1's progress bar: redrawn with carriage returns, one sample per step.
    const core::IterationLog one =
        core::readIterationLog(core::Framework::Nemo, readFile(logPath("nemo1.log")), 0, 0);
    QVERIFY2(one.ok(), one.error.c_str());
    QCOMPARE(one.samples.size(), std::size_t{6});
    QCOMPARE(one.samples[0].seconds, 9.9);
    QCOMPARE(one.medianS, 0.5 * (7.9 + 7.91)); // steps 3 to 6
    QVERIFY(!one.month);                       // a progress bar has no timestamp
}

void TestMeasure::torchTitanLog()
{
    // 64 sequences of 8192 tokens on 8 GPUs: tokens / (tps x GPUs).
    const double tokens = 64.0 * 8192.0;
    const core::IterationLog log = core::readIterationLog(
        core::Framework::TorchTitan, readFile(logPath("torchtitan.log")), tokens, 8);
    QVERIFY2(log.ok(), log.error.c_str());
    QCOMPARE(log.samples.size(), std::size_t{6});
    QCOMPARE(log.samples[1].iteration, 10LL);
    QCOMPARE(log.samples[1].seconds, tokens / (2950.0 * 8)); // "2,950" with its comma
    QCOMPARE(log.medianS, 0.5 * (tokens / (3000.0 * 8) + tokens / (3005.0 * 8)));
    // Without the iteration's tokens, no conversion.
    QVERIFY(!core::readIterationLog(core::Framework::TorchTitan, "step: 1  tps: 5", 0, 8).ok());
}

void TestMeasure::tooShortOrForeignLog()
{
    // Three intervals: two are warm-up, one is not a median.
    const std::string three = " iteration 10/ 100 | elapsed time per iteration (ms): 900.0 |\n"
                              " iteration 20/ 100 | elapsed time per iteration (ms): 800.0 |\n"
                              " iteration 30/ 100 | elapsed time per iteration (ms): 700.0 |\n";
    core::IterationLog log = core::readIterationLog(core::Framework::MegatronLm, three, 0, 0);
    QVERIFY(!log.ok());
    QVERIFY2(log.error.find("at least 4") != std::string::npos, log.error.c_str());
    // A NeMo log read as Megatron-LM's, and the other way round.
    log = core::readIterationLog(core::Framework::MegatronLm, readFile(logPath("nemo2.log")), 0, 0);
    QVERIFY(log.error.find("elapsed time per iteration") != std::string::npos);
    log = core::readIterationLog(core::Framework::Nemo, readFile(logPath("megatron-gpt3-175b.log")),
                                 0, 0);
    QVERIFY(log.error.find("train_step_timing") != std::string::npos);
}

void TestMeasure::hostileLogs()
{
    // Nothing a log holds crashes the readers or makes up a time.
    const std::vector<std::string> texts = {
        "",
        std::string(100000, '\r'),
        "elapsed time per iteration (ms): ",
        "elapsed time per iteration (ms): 1e999 |",
        "elapsed time per iteration (ms): -5 |",
        "elapsed time per iteration (ms): nan |",
        "train_step_timing in s: " + std::string(10000, '9'),
        "\x1b[" + std::string(1000, '1'),
        "------------------------ arguments ------------------------\n ..\n" +
            std::string(5000, '.'),
        "step: 99999999999999999999999  tps: 1,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,2",
    };
    for (const std::string& t : texts)
        for (const core::Framework f :
             {core::Framework::MegatronLm, core::Framework::Nemo, core::Framework::TorchTitan}) {
            const core::IterationLog log = core::readIterationLog(f, t, 1e6, 8);
            QVERIFY(!log.ok());
            for (const core::LogSample& s : log.samples)
                QVERIFY(std::isfinite(s.seconds) && s.seconds > 0);
        }
}

void TestMeasure::megatronArgumentsMustAgree()
{
    std::string text = readFile(logPath("megatron-gpt3-175b.log"));
    const std::string from = "tensor_model_parallel_size ...................... 8";
    text.replace(text.find(from), from.size(),
                 "tensor_model_parallel_size ...................... 4");
    const core::IterationLog log = core::readIterationLog(core::Framework::MegatronLm, text, 0, 0);
    QVERIFY(log.ok());
    const std::vector<std::string> m =
        core::argumentMismatches(log.arguments, preset("gpt3-175b-1024-a100.json"));
    QCOMPARE(m.size(), std::size_t{1});
    QCOMPARE(m[0], std::string("the log ran tensor_model_parallel_size 4, the scenario has tp 8"));
}

void TestMeasure::measuredRunReadsBackAndCalibrates()
{
    const core::Scenario s = preset("gpt3-175b-1024-a100.json");
    core::MeasuredRunInput in;
    in.id = "ours-175b";
    in.source = "measured: x.log (Megatron-LM)";
    in.softwareDate = {2025, 3};
    in.iterationS = 13.1;
    std::string error;
    const std::optional<core::Json> run =
        core::measuredRunJson(s, core::effectiveCatalog(s), in, error);
    QVERIFY2(run.has_value(), error.c_str());
    const std::optional<std::string> text = core::withRunAppended("", "runs.json", *run, error);
    QVERIFY2(text.has_value(), error.c_str());
    const core::PublishedRunsLoad load = core::parsePublishedRuns(*text, "runs.json");
    QVERIFY(load.ok());
    QCOMPARE(load.runs.size(), std::size_t{1});
    const core::PublishedRun& r = load.runs[0];
    QCOMPARE(r.gpus, 1024);
    QCOMPARE(r.tp, 8);
    QCOMPARE(r.dp, 16);
    QVERIFY(r.scenario.has_value());
    QCOMPARE(*r.scenario, s);
    // Evaluated as the scenario it ran, not as a conversion of the format's fields.
    const core::RunScenario rs = core::scenarioForRun(r, core::builtinCatalog());
    QCOMPARE(rs.scenario, s);
    QCOMPARE(core::evaluate(rs.scenario).iterationTimeS, core::evaluate(s).iterationTimeS);
    // A second run of the same id is refused; another id is appended and the first kept.
    QVERIFY(!core::withRunAppended(*text, "runs.json", *run, error));
    QVERIFY(error.find("already holds a run \"ours-175b\"") != std::string::npos);
    core::Json other = *run;
    other["id"] = "ours-175b-b";
    const std::optional<std::string> two = core::withRunAppended(*text, "runs.json", other, error);
    QVERIFY(two.has_value());
    QCOMPARE(core::parsePublishedRuns(*two, "runs.json").runs.size(), std::size_t{2});
    // Not a runs file: refused, nothing made up.
    QVERIFY(!core::withRunAppended("{\"format\":\"archipelago-scenario\"}", "x.json", *run, error));
    // A job across buildings: the format's fields describe the largest, the scenario all.
    const core::Scenario buildings = preset("llama3-405b-two-buildings.json");
    const std::optional<core::Json> across =
        core::measuredRunJson(buildings, core::builtinCatalog(), in, error);
    QVERIFY2(across.has_value(), error.c_str());
    QCOMPARE((*across)["system"]["gpus"].get<int>(), 16384);
    QVERIFY((*across)["notes"].get<std::string>().find("spans 2 datacenters") != std::string::npos);
    const std::optional<std::string> acrossText =
        core::withRunAppended("", "runs.json", *across, error);
    QVERIFY2(acrossText.has_value(), error.c_str());
    const core::PublishedRunsLoad acrossLoad = core::parsePublishedRuns(*acrossText, "runs.json");
    QVERIFY(acrossLoad.ok());
    QCOMPARE(*acrossLoad.runs[0].scenario, buildings);
    // A job on two accelerators calibrates neither.
    core::Scenario mixed = buildings;
    mixed.topology.datacenters[1].accelerator = "H200-SXM-141GB";
    QVERIFY(!core::measuredRunJson(mixed, core::builtinCatalog(), in, error));
    QVERIFY(error.find("more than one accelerator") != std::string::npos);
    // A scenario naming a calibration inside a run is refused at its pointer.
    core::Json bad = nlohmann::ordered_json::parse(*text);
    bad["runs"][0]["scenario"]["calibration"] = "c.json";
    const core::PublishedRunsLoad refused = core::parsePublishedRuns(bad.dump(), "runs.json");
    QVERIFY(!refused.ok());
    QCOMPARE(refused.errors[0].pointer, std::string("/runs/0/scenario/calibration"));
    // A bad value inside the run's scenario names its pointer under the run.
    bad = nlohmann::ordered_json::parse(*text);
    bad["runs"][0]["scenario"]["parallelism"]["tp"] = "eight";
    const core::PublishedRunsLoad typed = core::parsePublishedRuns(bad.dump(), "runs.json");
    QVERIFY(!typed.ok());
    QCOMPARE(typed.errors[0].pointer, std::string("/runs/0/scenario/parallelism/tp"));
}

void TestMeasure::cli()
{
    QTemporaryDir dir;
    const std::string runs = dir.filePath("runs.json").toStdString();
    const std::string scenario = tests::presetPath("gpt3-175b-1024-a100.json");
    tests::CliRun r = tests::runCli({"measure", "megatron-lm", logPath("megatron-gpt3-175b.log"),
                                     "--over", scenario, "-o", runs});
    QVERIFY2(r.exitCode == cli::kExitOk, r.err.c_str());
    QVERIFY2(r.out.find("gpt3-175b-1024-a100-megatron-gpt3-175b: 27.47 s per iteration, the "
                        "median of 10 logged intervals") != std::string::npos,
             r.out.c_str());
    QVERIFY(r.out.find("the model predicts") != std::string::npos);
    // The same log again: the id is taken, the file unchanged.
    const std::string before = readFile(runs);
    r = tests::runCli({"measure", "megatron-lm", logPath("megatron-gpt3-175b.log"), "--over",
                       scenario, "-o", runs});
    QCOMPARE(r.exitCode, cli::kExitInvalidInput);
    QCOMPARE(readFile(runs), before);
    // A log of another configuration is refused with what differs.
    std::string text = readFile(logPath("megatron-gpt3-175b.log"));
    const std::string from = "num_layers ...................................... 96";
    QVERIFY(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(),
                 "num_layers ...................................... 80");
    const std::string other = writeFile(dir, "other.log", text);
    r = tests::runCli(
        {"measure", "megatron-lm", other, "--over", scenario, "--id", "x", "-o", runs});
    QCOMPARE(r.exitCode, cli::kExitInvalidInput);
    QVERIFY(r.err.find("the log ran num_layers 80, the scenario has layers 96") !=
            std::string::npos);
    // Usage errors.
    QCOMPARE(tests::runCli({"measure", "megatron-lm", other, "-o", runs}).exitCode,
             cli::kExitUsage);
    QCOMPARE(tests::runCli({"measure", "pytorch", other, "--over", scenario, "-o", runs}).exitCode,
             cli::kExitUsage);
    QCOMPARE(tests::runCli({"measure", "nemo", other, "--over", scenario, "--id", "a", "--id", "b",
                            "-o", runs})
                 .exitCode,
             cli::kExitUsage);
    // validate evaluates a measured run as the scenario it ran (a file `measure` wrote).
    r = tests::runCli({"validate", ARCHIPELAGO_TEST_DATA "/calibration/measured-runs.json"});
    QVERIFY2(r.exitCode == cli::kExitOk, r.err.c_str());
    QVERIFY2(r.out.find("gpt3-175b-1024-a100-megatron-gpt3-175b") != std::string::npos &&
                 r.out.find("the run's own scenario") != std::string::npos,
             r.out.c_str());
    // The runs file calibrates (one run: refused, with the reason).
    r = tests::runCli({"calibrate", runs, "-o", dir.filePath("c.json").toStdString()});
    QCOMPARE(r.exitCode, cli::kExitInvalidInput);
    QVERIFY2(r.err.find("leave-one-out") != std::string::npos, r.err.c_str());
}

QTEST_GUILESS_MAIN(TestMeasure)
#include "test_measure.moc"
