// Calibration from measured runs (validation/calibration.h, io/calibrationio.h,
// `archipelago-cli calibrate`): a fit on half of the H100 tuning runs predicts the other half
// no worse than the built-in calibration, which was fitted on all of them; the leave-one-out
// error is reported beside the in-sample one; parameters the runs do not identify are refused;
// the calibration file reads back and refuses bad values with their pointers; a scenario that
// names one is evaluated with it and says so.
#include "clirun.h"

#include "evaluation/costmodel.h"
#include "io/calibrationio.h"
#include "io/scenarioio.h"
#include "validation/calibration.h"
#include "validation/publishedruns.h"

#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <fstream>

using namespace archipelago;

namespace {

constexpr const char* kHopper = "H100-SXM5-80GB";

std::vector<core::PublishedRun> runsOf(const char* file, const std::string& accelerator)
{
    const core::PublishedRunsLoad load =
        core::loadPublishedRuns(std::string(ARCHIPELAGO_VALIDATION_DIR "/") + file);
    std::vector<core::PublishedRun> out;
    for (const core::PublishedRun& r : load.runs)
        if (r.accelerator == accelerator)
            out.push_back(r);
    return out;
}

const std::vector<core::CalibrationCase>& hopperCases()
{
    static const std::vector<core::CalibrationCase> cases = [] {
        std::string accelerator = kHopper;
        std::vector<std::string> notes;
        std::string error;
        return core::calibrationCases(runsOf("published-runs-h100-megascale.json", kHopper),
                                      core::builtinCatalog(), accelerator, notes, error);
    }();
    return cases;
}

const core::EfficiencyParams& builtinHopper()
{
    return core::builtinCatalog().accelerator(kHopper)->efficiency;
}

double meanAbs(const std::vector<double>& errors)
{
    double sum = 0.0;
    for (const double e : errors)
        sum += std::abs(e);
    return sum / static_cast<double>(errors.size());
}

std::string writeFile(const QTemporaryDir& dir, const char* name, const std::string& text)
{
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream(path) << text;
    return path;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

core::Calibration sampleCalibration()
{
    core::Calibration c;
    c.accelerator = kHopper;
    c.fitted = {{"gemm_peak", 0.5}, {"memory_bound", 0.6}};
    c.runs = 4;
    c.inSampleMeanError = 0.01;
    c.inSampleMaxError = 0.02;
    c.leaveOneOutMeanError = 0.03;
    c.leaveOneOutMaxError = 0.05;
    return c;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text)
{
    for (const std::string& l : lines)
        if (l.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestCalibration : public QObject
{
    Q_OBJECT
private slots:
    void halfPredictsOtherHalfNoWorseThanBuiltin();
    void fullFitReportsLeaveOneOut();
    void refusesWhatRunsDoNotIdentify();
    void fileRoundTrip();
    void malformedFileNamesPointer_data();
    void malformedFileNamesPointer();
    void scenarioNamingCalibrationUsesIt();
    void scenarioWithMissingCalibrationIsAnError();
    void calibrationOfAnotherAcceleratorDoesNotApply();
    void cli();
};

void TestCalibration::halfPredictsOtherHalfNoWorseThanBuiltin()
{
    // Every way of halving the four DGX Cloud H100 runs, each half predicting the other (two-fold
    // cross-validation, all six directed splits, none chosen). The built-in calibration fitted
    // gemm_peak and memory_bound on all four, so on any half its errors are in-sample; its error
    // on runs it has not seen is its leave-one-out error, each run predicted by the same fit on
    // the other three. The half-fits, on two runs each, must do no worse on their unseen half.
    const std::vector<core::CalibrationCase>& all = hopperCases();
    QCOMPARE(all.size(), std::size_t{4});
    // The half-fit may not start from values fitted on the runs it is tested on: the two
    // parameters the built-in fit set start at the model's generic defaults (model/catalog.h).
    core::EfficiencyParams start = builtinHopper();
    start.gemmPeakEfficiency = core::EfficiencyParams{}.gemmPeakEfficiency;
    start.memoryBoundEfficiency = core::EfficiencyParams{}.memoryBoundEfficiency;
    double heldOut = 0.0, builtinInSample = 0.0;
    int splits = 0;
    for (unsigned mask = 0; mask < 16; ++mask) {
        if (std::popcount(mask) != 2)
            continue;
        std::vector<core::CalibrationCase> fit, held;
        for (unsigned i = 0; i < 4; ++i)
            ((mask >> i) & 1u ? fit : held).push_back(all[i]);
        const core::CalibrationOutcome o = core::calibrate(fit, start, kHopper, {});
        QVERIFY2(o.ok(), o.errors.empty() ? "" : o.errors[0].c_str());
        const core::EfficiencyParams fitted = core::calibrated(start, o.calibration);
        const double error = meanAbs(core::calibrationErrors(held, fitted));
        const double builtin = meanAbs(core::calibrationErrors(held, builtinHopper()));
        const double uncalibrated = meanAbs(core::calibrationErrors(held, start));
        qInfo("fit on %s + %s: held-out %.2f%% (built-in, in-sample there: %.2f%%; "
              "uncalibrated %.2f%%)",
              fit[0].id.c_str(), fit[1].id.c_str(), 100 * error, 100 * builtin, 100 * uncalibrated);
        QVERIFY(error < uncalibrated); // the fit learned something that holds on unseen runs
        heldOut += error;
        builtinInSample += builtin;
        ++splits;
    }
    QCOMPARE(splits, 6);
    heldOut /= splits;
    builtinInSample /= splits;
    const core::CalibrationOutcome builtin = core::calibrate(all, builtinHopper(), kHopper, {});
    QVERIFY(builtin.ok());
    const double builtinUnseen = builtin.calibration.leaveOneOutMeanError;
    qInfo("mean held-out error of the half-fits %.2f%%; built-in calibration on runs it has not "
          "seen (leave-one-out) %.2f%%, on runs it was fitted on %.2f%%",
          100 * heldOut, 100 * builtinUnseen, 100 * builtinInSample);
    QVERIFY(heldOut <= builtinUnseen);
}

void TestCalibration::fullFitReportsLeaveOneOut()
{
    const core::CalibrationOutcome o = core::calibrate(hopperCases(), builtinHopper(), kHopper, {});
    QVERIFY2(o.ok(), o.errors.empty() ? "" : o.errors[0].c_str());
    const core::Calibration& c = o.calibration;
    QCOMPARE(c.runs, 4);
    QCOMPARE(c.fitted.size(), std::size_t{2});
    QCOMPARE(c.fitted[0].first, std::string("gemm_peak"));
    QCOMPARE(c.fitted[1].first, std::string("memory_bound"));
    // Started at the built-in point, the same fit cannot end worse on the same runs.
    QVERIFY(c.inSampleMeanError <= o.catalogMeanError + 5e-4);
    // Each run predicted without it is no better than with it in the fit, on average.
    QVERIFY(c.leaveOneOutMeanError >= c.inSampleMeanError - 1e-9);
    QCOMPARE(o.rows.size(), std::size_t{4});
    double inSample = 0.0, loo = 0.0;
    for (const core::CalibrationRunRow& r : o.rows) {
        QVERIFY(r.measuredS > 0 && r.catalogS > 0 && r.fittedS > 0 && r.leaveOneOutS > 0);
        inSample += std::abs(r.fittedS / r.measuredS - 1.0);
        loo += std::abs(r.leaveOneOutS / r.measuredS - 1.0);
    }
    QVERIFY(std::abs(inSample / 4 - c.inSampleMeanError) < 1e-9);
    QVERIFY(std::abs(loo / 4 - c.leaveOneOutMeanError) < 1e-9);
    const std::string summary = core::calibrationSummary(c);
    QVERIFY2(summary.find("calibrated on 4 runs (gemm_peak, memory_bound), leave-one-out error") !=
                 std::string::npos,
             summary.c_str());
}

void TestCalibration::refusesWhatRunsDoNotIdentify()
{
    const std::vector<core::CalibrationCase>& cases = hopperCases();
    const auto refused = [&](std::vector<core::CalibrationCase> on, std::vector<std::string> fit) {
        core::CalibrationOptions options;
        options.fit = std::move(fit);
        return core::calibrate(on, builtinHopper(), kHopper, options);
    };
    // More parameters than runs.
    core::CalibrationOutcome o = refused(cases, {"gemm_peak", "memory_bound", "gemm_half_dim",
                                                 "comm_interference", "dp_comm_interference"});
    QVERIFY(!o.ok());
    QVERIFY2(mentions(o.errors, "fitting 5 parameters needs at least as many runs; there are 4"),
             o.errors[0].c_str());
    // No dense run moves with the expert all-to-all's interference.
    o = refused(cases, {"ep_comm_interference"});
    QVERIFY(!o.ok());
    QVERIFY2(mentions(o.errors, "ep_comm_interference: no run's predicted time moves"),
             o.errors[0].c_str());
    // Three copies of one run: gemm_peak and memory_bound move all three in proportion.
    o = refused({cases[0], cases[0], cases[0]}, {"gemm_peak", "memory_bound"});
    QVERIFY(!o.ok());
    QVERIFY2(mentions(o.errors, "memory_bound: it moves every run's predicted time in proportion"),
             o.errors[0].c_str());
    // Asked for nothing by name, the same runs fit what they identify and say what they left.
    o = core::calibrate({cases[0], cases[0], cases[0]}, builtinHopper(), kHopper, {});
    QVERIFY(o.ok());
    QCOMPARE(o.calibration.fitted.size(), std::size_t{1});
    QVERIFY(mentions(o.notes, "memory_bound not fitted"));
    // One run: no leave-one-out.
    o = refused({cases[0]}, {});
    QVERIFY(!o.ok());
    QVERIFY(mentions(o.errors, "leave-one-out"));
    o = refused(cases, {"gemm_peek"});
    QVERIFY(!o.ok());
    QVERIFY(mentions(o.errors, "unknown parameter \"gemm_peek\""));
    // Cancelling stops the fit.
    core::CalibrationOptions cancel;
    cancel.progress = [](double) { return false; };
    o = core::calibrate(cases, builtinHopper(), kHopper, cancel);
    QVERIFY(!o.ok());
    QVERIFY(mentions(o.errors, "cancelled"));
}

void TestCalibration::fileRoundTrip()
{
    const core::Calibration c = sampleCalibration();
    const std::vector<core::CalibrationRunRow> rows = {{"a", 1.0, 1.1, 1.05, 1.2}};
    const std::string text = core::serializeCalibration(c, rows, "archipelago-cli calibrate x");
    const core::CalibrationLoad load = core::parseCalibration(text, "c.json");
    QVERIFY(load.ok());
    QVERIFY(load.warnings.empty());
    QCOMPARE(*load.calibration, c);
    QCOMPARE(load.rows, rows);
    QCOMPARE(load.command, std::string("archipelago-cli calibrate x"));
    // The fitted values apply over an accelerator's, the others stay.
    core::EfficiencyParams p;
    p.commInterference = 0.3;
    const core::EfficiencyParams q = core::calibrated(p, c);
    QCOMPARE(q.gemmPeakEfficiency, 0.5);
    QCOMPARE(q.memoryBoundEfficiency, 0.6);
    QCOMPARE(q.commInterference, 0.3);
}

void TestCalibration::malformedFileNamesPointer_data()
{
    QTest::addColumn<QString>("edit"); // a JSON merge over a valid file
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("words");
    QTest::newRow("format") << R"({"format":"archipelago-scenario"})"
                            << "/format"
                            << "archipelago-calibration";
    QTest::newRow("newer") << R"({"version":2})"
                           << "/version"
                           << "newer Archipelago";
    QTest::newRow("unknown parameter") << R"({"fitted":{"gemm_peek":0.5}})"
                                       << "/fitted/gemm_peek"
                                       << "unknown parameter";
    QTest::newRow("out of range") << R"({"fitted":{"gemm_peak":1.5}})"
                                  << "/fitted/gemm_peak"
                                  << "0.4..1";
    QTest::newRow("not a number") << R"({"fitted":{"memory_bound":"high"}})"
                                  << "/fitted/memory_bound"
                                  << "a number";
    QTest::newRow("no runs") << R"({"runs":0})"
                             << "/runs"
                             << "1..10000";
    QTest::newRow("negative error") << R"({"error":{"leave_one_out_mean":-1}})"
                                    << "/error/leave_one_out_mean"
                                    << "0..10";
    QTest::newRow("no accelerator") << R"({"accelerator":null})"
                                    << "/accelerator"
                                    << "";
}

void TestCalibration::malformedFileNamesPointer()
{
    QFETCH(QString, edit);
    QFETCH(QString, pointer);
    QFETCH(QString, words);
    nlohmann::json doc =
        nlohmann::json::parse(core::serializeCalibration(sampleCalibration(), {}, ""));
    doc.merge_patch(nlohmann::json::parse(edit.toStdString()));
    if (doc.contains("fitted") && doc["fitted"].contains("gemm_peek"))
        doc["fitted"].erase("gemm_peak");
    const core::CalibrationLoad load = core::parseCalibration(doc.dump(), "bad.json");
    QVERIFY(!load.ok());
    bool found = false;
    for (const core::Diagnostic& d : load.errors)
        found = found || (d.file == "bad.json" && d.pointer == pointer.toStdString() &&
                          d.message.find(words.toStdString()) != std::string::npos);
    QVERIFY2(found, load.errors.empty() ? "no error" : load.errors[0].toString().c_str());
}

void TestCalibration::scenarioNamingCalibrationUsesIt()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    core::LoadResult base = core::loadScenarioFile(tests::presetPath("gpt3-175b-1024-a100.json"));
    QVERIFY(base.ok());
    core::Scenario s = *base.scenario;
    const std::string accelerator = s.topology.datacenters.at(0).accelerator;
    core::Calibration c = sampleCalibration();
    c.accelerator = accelerator;
    writeFile(dir, "cal.json", core::serializeCalibration(c, {}, ""));
    c.file = "cal.json";
    s.calibration = c;
    // Written as version 3 with the name only; read back whole.
    const std::string text = core::serializeScenario(s);
    QVERIFY(text.find("\"version\": 3") != std::string::npos);
    QVERIFY(text.find("\"calibration\": \"cal.json\"") != std::string::npos);
    const std::string path = writeFile(dir, "s.json", text);
    const core::LoadResult loaded = core::loadScenarioFile(path);
    QVERIFY2(loaded.ok(), loaded.errors.empty() ? "" : loaded.errors[0].toString().c_str());
    QCOMPARE(*loaded.scenario, s);
    // The calibrated parameters drive the evaluation, which names the calibration.
    const core::Evaluation with = core::evaluate(*loaded.scenario);
    core::Scenario plain = s;
    plain.calibration.reset();
    const core::Evaluation without = core::evaluate(plain);
    QVERIFY(with.ok && without.ok);
    QVERIFY(with.calibration.has_value());
    QVERIFY(!without.calibration.has_value());
    QVERIFY(with.iterationTimeS > without.iterationTimeS * 1.05); // gemm_peak 0.5 is slow
    QCOMPARE(core::effectiveCatalog(s).accelerator(accelerator)->efficiency.gemmPeakEfficiency,
             0.5);
    // A file without a calibration stays version 2.
    QVERIFY(core::serializeScenario(plain).find("\"version\": 2") != std::string::npos);
}

void TestCalibration::scenarioWithMissingCalibrationIsAnError()
{
    QTemporaryDir dir;
    nlohmann::json doc =
        nlohmann::json::parse(readFile(tests::presetPath("gpt3-175b-1024-a100.json")));
    doc["version"] = 3;
    doc["calibration"] = "missing.json";
    const std::string path = writeFile(dir, "s.json", doc.dump());
    const core::LoadResult loaded = core::loadScenarioFile(path);
    QVERIFY(!loaded.ok());
    bool named = false;
    for (const core::Diagnostic& d : loaded.errors)
        named = named || (d.pointer == "/calibration" && d.file == path &&
                          d.message.find("missing.json") != std::string::npos);
    QVERIFY(named);
    // A bad value in the calibration file is reported with its own file and pointer.
    nlohmann::json cal =
        nlohmann::json::parse(core::serializeCalibration(sampleCalibration(), {}, ""));
    cal["fitted"]["gemm_peak"] = 7;
    writeFile(dir, "missing.json", cal.dump());
    const core::LoadResult bad = core::loadScenarioFile(path);
    QVERIFY(!bad.ok());
    QVERIFY(bad.errors[0].message.find("/fitted/gemm_peak") != std::string::npos);
    // An empty name is refused at its pointer.
    doc["calibration"] = "";
    const core::LoadResult empty = core::parseScenario(doc.dump(), "e.json");
    QVERIFY(!empty.ok());
    QCOMPARE(empty.errors.at(0).pointer, std::string("/calibration"));
}

void TestCalibration::calibrationOfAnotherAcceleratorDoesNotApply()
{
    core::LoadResult base = core::loadScenarioFile(tests::presetPath("gpt3-175b-1024-a100.json"));
    QVERIFY(base.ok());
    core::Scenario s = *base.scenario;
    core::Calibration c = sampleCalibration();
    c.accelerator = "MI300X";
    QVERIFY(s.topology.datacenters.at(0).accelerator != c.accelerator);
    s.calibration = c;
    core::Scenario plain = s;
    plain.calibration.reset();
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(!ev.calibration.has_value());
    QCOMPARE(ev.iterationTimeS, core::evaluate(plain).iterationTimeS);
}

void TestCalibration::cli()
{
    QTemporaryDir dir;
    const std::string runs = ARCHIPELAGO_VALIDATION_DIR "/published-runs-h100-megascale.json";
    const std::string out = dir.filePath("h100.json").toStdString();
    tests::CliRun r = tests::runCli(
        {"calibrate", runs, "--accelerator", kHopper, "--fit", "gemm_peak", "-o", out});
    QVERIFY2(r.exitCode == cli::kExitOk, r.err.c_str());
    QVERIFY(r.out.find("leave-one-out") != std::string::npos);
    QVERIFY(r.out.find("dgxc2411-gpt3-175b-128gpu") != std::string::npos);
    QVERIFY(r.err.find("4 runs of other accelerators left out") != std::string::npos);
    const core::CalibrationLoad load = core::loadCalibrationFile(out);
    QVERIFY(load.ok());
    QCOMPARE(load.calibration->runs, 4);
    QCOMPARE(load.rows.size(), std::size_t{4});
    QVERIFY(load.command.find("--fit gemm_peak") != std::string::npos);
    // Usage errors.
    QCOMPARE(tests::runCli({"calibrate", runs}).exitCode, cli::kExitUsage);
    QCOMPARE(tests::runCli({"calibrate", "-o", out}).exitCode, cli::kExitUsage);
    QCOMPARE(tests::runCli({"calibrate", runs, "-o", out, "-o", out}).exitCode, cli::kExitUsage);
    QCOMPARE(tests::runCli({"calibrate", runs, "--bogus", "-o", out}).exitCode, cli::kExitUsage);
    // Several accelerators and none chosen; too many parameters: invalid input, file kept.
    const std::string before = readFile(out);
    r = tests::runCli({"calibrate", runs, "-o", out});
    QCOMPARE(r.exitCode, cli::kExitInvalidInput);
    QVERIFY(r.err.find("--accelerator") != std::string::npos);
    r = tests::runCli(
        {"calibrate", runs, "--accelerator", kHopper, "--fit",
         "gemm_peak,memory_bound,gemm_half_dim,comm_interference,dp_comm_interference", "-o", out});
    QCOMPARE(r.exitCode, cli::kExitInvalidInput);
    QCOMPARE(readFile(out), before);
    // A bad runs file names its pointer.
    const std::string bad =
        writeFile(dir, "bad.json",
                  R"({"format":"archipelago-published-runs","version":2,"runs":[{"id":3}]})");
    r = tests::runCli({"calibrate", bad, "-o", out});
    QCOMPARE(r.exitCode, cli::kExitInvalidInput);
    QVERIFY(r.err.find("/runs/0") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestCalibration)
#include "test_calibration.moc"
