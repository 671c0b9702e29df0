// archipelago-cli check: exit codes and output lines (ARCHITECTURE.md section 6).
#include "cli.h"
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "scenariofixtures.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

using namespace archipelago;

namespace {

struct Run
{
    int exitCode = -1;
    QStringList out;
    QStringList err;
};

Run check(const std::vector<std::string>& args)
{
    std::ostringstream out, err;
    Run run;
    run.exitCode = cli::runCheck(args, out, err);
    run.out = QString::fromStdString(out.str()).split('\n', Qt::SkipEmptyParts);
    run.err = QString::fromStdString(err.str()).split('\n', Qt::SkipEmptyParts);
    return run;
}

Run runCli(const std::vector<std::string>& args)
{
    std::ostringstream out, err;
    Run run;
    run.exitCode = cli::run(args, out, err);
    run.out = QString::fromStdString(out.str()).split('\n', Qt::SkipEmptyParts);
    run.err = QString::fromStdString(err.str()).split('\n', Qt::SkipEmptyParts);
    return run;
}

// Physically meaningless hardware and extreme figures, each a change of the fixture's catalog
// overrides or links. Every one once evaluated at exit 0 (capex 2e23 USD, infinite time to
// train, a faster network from a 1-port switch) or ran into undefined behaviour.
struct Extreme
{
    const char* name;
    std::function<void(core::Scenario&)> apply;
    const char* readerKey; // what the file reader refuses, in the user's words
    const char* nonFinite; // what evaluate() names when the catalog bypasses the reader
};

const std::vector<Extreme>& extremes()
{
    static const std::vector<Extreme> list = {
        {"amplifier every 1e-300 km",
         [](core::Scenario& s) { s.catalogOverrides.lineSystems[0].amplifierSpacingKm = 1e-300; },
         "/catalog/line_systems/0/amplifier_spacing_km: expected a number of km in [1, 1000]",
         "amplifier_spacing_km"},
        {"1e308 Gb/s per wavelength",
         [](core::Scenario& s) { s.topology.links[0].gbpsPerWavelength = 1e308; },
         "/topology/dci_links/0/Gbps_per_wavelength: expected a number of Gb/s in [1, 10000]",
         "Gbps_per_wavelength"},
        {"scale-up 1e-300 GB/s",
         [](core::Scenario& s) {
             s.catalogOverrides.accelerators[0].scaleUpGBpsPerDirection = 1e-300;
         },
         "/catalog/accelerators/0/scale_up_GBps_per_direction: expected a number of GB/s in "
         "[1, 100000]",
         "scale_up_GBps_per_direction"},
        {"switch at 1e308 USD",
         [](core::Scenario& s) { s.catalogOverrides.switches[0].priceUsd = 1e308; },
         "/catalog/switches/0/price_usd: expected a number of USD in [0, 1e9]", "capex"},
        {"switch of radix 1", [](core::Scenario& s) { s.catalogOverrides.switches[0].radix = 1; },
         "/catalog/switches/0/radix: expected an even number of ports in 4..4096, got 1", nullptr},
        {"switch of radix 63", [](core::Scenario& s) { s.catalogOverrides.switches[0].radix = 63; },
         "/catalog/switches/0/radix: expected an even number of ports in 4..4096, got 63", nullptr},
        {"switch ports of 1e-300 Gb/s",
         [](core::Scenario& s) { s.catalogOverrides.switches[0].portGbps = 1e-300; },
         "/catalog/switches/0/port_Gbps: expected a number of Gb/s in [1, 10000]", nullptr},
        {"NIC of 1e308 Gb/s", [](core::Scenario& s) { s.catalogOverrides.nics[0].gbps = 1e308; },
         "/catalog/nics/0/Gbps: expected a number of Gb/s in [1, 10000]", nullptr},
        {"line system of 1e300 km reach",
         [](core::Scenario& s) { s.catalogOverrides.lineSystems[0].maxReachKm = 1e300; },
         "/catalog/line_systems/0/max_reach_km: expected a number in [0, 20000]", nullptr},
    };
    return list;
}

void addExtremeRows()
{
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < extremes().size(); ++i)
        QTest::newRow(extremes()[i].name) << static_cast<int>(i);
}

} // namespace

class TestCliCheck : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void exitCodes_data();
    void exitCodes();
    void validFilePrintsOk();
    void invalidFilePrintsOneLinePerProblem();
    void warningsGoToStderr();
    void mixedFiles();
    void refusesPipesAndDevices();
    void evaluateJsonOfNonUtf8FileName();
    void evaluateEndOfOptions();
    void echoedKeysAreEscaped();
    void extremeHardwareIsRefused_data();
    void extremeHardwareIsRefused();
    void extremeFiguresNeverEvaluateToNonFinite_data();
    void extremeFiguresNeverEvaluateToNonFinite();
    void degreeProductOverflowIsReported();
    void unreadableSavedSweepIsInvalid();

private:
    std::string write(const QString& name, const QByteArray& contents);

    QTemporaryDir m_dir;
    std::string m_valid, m_invalid, m_warns;
};

std::string TestCliCheck::write(const QString& name, const QByteArray& contents)
{
    QFile file(m_dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(contents) != contents.size())
        qFatal("cannot write %s", qPrintable(file.fileName()));
    return file.fileName().toStdString();
}

void TestCliCheck::initTestCase()
{
    QVERIFY(m_dir.isValid());
    core::Scenario s = tests::multiDcScenario();
    m_valid = write("valid.json", QByteArray::fromStdString(core::serializeScenario(s)));

    // Two independent problems: a ZeRO stage out of range and a dangling link end.
    core::Scenario bad = s;
    bad.topology.links[0].b = 9;
    bad.parallelism.zeroStage = 7;
    m_invalid = write("invalid.json", QByteArray::fromStdString(core::serializeScenario(bad)));

    core::Scenario odd = s;
    odd.parallelism.sequenceParallel = false;
    odd.schedule.kind = core::ScheduleKind::OneFOneB; // virtual stages without interleaving
    m_warns = write("warns.json", QByteArray::fromStdString(core::serializeScenario(odd)));
}

void TestCliCheck::exitCodes_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("no files") << QStringList{} << cli::kExitUsage;
    QTest::newRow("unknown option") << QStringList{"--frobnicate"} << cli::kExitUsage;
    QTest::newRow("unknown option after a file") << QStringList{"@valid", "-x"} << cli::kExitUsage;
    QTest::newRow("help") << QStringList{"--help"} << cli::kExitOk;
    QTest::newRow("valid") << QStringList{"@valid"} << cli::kExitOk;
    QTest::newRow("valid after --") << QStringList{"--", "@valid"} << cli::kExitOk;
    QTest::newRow("invalid") << QStringList{"@invalid"} << cli::kExitInvalidInput;
    QTest::newRow("missing file") << QStringList{"/nonexistent/x.json"} << cli::kExitInvalidInput;
    QTest::newRow("warnings only") << QStringList{"@warns"} << cli::kExitOk;
}

void TestCliCheck::exitCodes()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    std::vector<std::string> argv;
    for (const QString& a : args)
        argv.push_back(a == "@valid"     ? m_valid
                       : a == "@invalid" ? m_invalid
                       : a == "@warns"   ? m_warns
                                         : a.toStdString());
    const Run run = check(argv);
    QCOMPARE(run.exitCode, exitCode);
    if (exitCode == cli::kExitUsage)
        QVERIFY(run.err.join('\n').contains("Usage:"));
}

void TestCliCheck::validFilePrintsOk()
{
    const Run run = check({m_valid});
    QCOMPARE(run.exitCode, cli::kExitOk);
    QCOMPARE(run.out, QStringList{QString::fromStdString(m_valid) + ": ok"});
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err.join('\n')));
}

void TestCliCheck::invalidFilePrintsOneLinePerProblem()
{
    const Run run = check({m_invalid});
    QCOMPARE(run.exitCode, cli::kExitInvalidInput);
    QVERIFY(run.out.isEmpty());
    const QString file = QString::fromStdString(m_invalid);
    QCOMPARE(run.err.size(), 2);
    QVERIFY2(run.err.contains(file + ": /topology/dci_links/0/b: no datacenter with id 9"),
             qPrintable(run.err.join('\n')));
    QVERIFY2(run.err.contains(file + ": /parallelism/zero_stage: expected an integer in 0..3, "
                                     "got 7"),
             qPrintable(run.err.join('\n')));
}

void TestCliCheck::warningsGoToStderr()
{
    const Run run = check({m_warns});
    QCOMPARE(run.exitCode, cli::kExitOk);
    QCOMPARE(run.out, QStringList{QString::fromStdString(m_warns) + ": ok"});
    QCOMPARE(run.err.size(), 1);
    QVERIFY2(run.err[0].startsWith(QString::fromStdString(m_warns) +
                                   ": warning: /parallelism/virtual_stages: "),
             qPrintable(run.err[0]));
}

void TestCliCheck::mixedFiles()
{
    // Every file is checked even after an invalid one; the exit code reports the worst.
    const Run run = check({m_invalid, m_valid, "/nonexistent/x.json"});
    QCOMPARE(run.exitCode, cli::kExitInvalidInput);
    QCOMPARE(run.out, QStringList{QString::fromStdString(m_valid) + ": ok"});
    QVERIFY(run.err.filter("/nonexistent/x.json: cannot open").size() == 1);
}

void TestCliCheck::refusesPipesAndDevices()
{
    // A named pipe used to block `validate` forever and /dev/zero to be read until memory ran
    // out; every command reads through the same bounded, regular-files-only path.
    const std::string fifo = m_dir.filePath("pipe.json").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& path : {fifo, std::string("/dev/zero")}) {
        QCOMPARE(check({path}).exitCode, cli::kExitInvalidInput);
        std::ostringstream out, err;
        QCOMPARE(cli::runEvaluate({path, "--json"}, out, err), cli::kExitInvalidInput);
        QVERIFY2(err.str().find(path + ": is not a regular file") != std::string::npos,
                 err.str().c_str());
    }
}

void TestCliCheck::evaluateJsonOfNonUtf8FileName()
{
    // The name goes into the JSON output; nlohmann used to throw on its invalid UTF-8.
    const std::string path = m_dir.path().toStdString() + "/bad\xff\xfe.json";
    std::filesystem::copy_file(m_valid, path);
    std::ostringstream out, err;
    QCOMPARE(cli::runEvaluate({path, "--json"}, out, err), cli::kExitOk);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    QVERIFY(j["file"].get<std::string>().ends_with("bad\uFFFD\uFFFD.json") ||
            j["file"].get<std::string>().ends_with("bad\xEF\xBF\xBD\xEF\xBF\xBD.json"));
    std::ostringstream tableOut, tableErr;
    QCOMPARE(cli::runEvaluate({path}, tableOut, tableErr), cli::kExitOk);
    QVERIFY2(tableOut.str().find("bad\\xff\\xfe.json") != std::string::npos,
             tableOut.str().c_str());
    // QTemporaryDir cannot remove a name that is not valid in the locale's encoding.
    std::filesystem::remove(path);
}

void TestCliCheck::evaluateEndOfOptions()
{
    std::ostringstream out, err;
    QCOMPARE(cli::runEvaluate({"--json", "--", m_valid}, out, err), cli::kExitOk);
    QVERIFY(nlohmann::json::parse(out.str()).contains("iteration_time_s"));
    std::ostringstream out2, err2;
    QCOMPARE(cli::runEvaluate({"--", "--json"}, out2, err2), cli::kExitInvalidInput);
    QVERIFY2(err2.str().find("--json: cannot open the file") != std::string::npos,
             err2.str().c_str());
}

void TestCliCheck::echoedKeysAreEscaped()
{
    // An unknown key and a bad enum value that hold a newline and an escape sequence must not
    // produce a line of their own ("fake.json: ok") nor reach the terminal raw.
    QByteArray text = QByteArray::fromStdString(core::serializeScenario(tests::multiDcScenario()));
    text.replace("\"name\": \"Fixture", "\"x\\n\\u001b[31mfake.json: ok\": 1, \"name\": \"Fixture");
    text.replace("\"kind\": \"clos\"", "\"kind\": \"clos\\nfake.json: ok\"");
    const std::string file = write("forged.json", text);
    const Run run = check({file});
    QCOMPARE(run.exitCode, cli::kExitInvalidInput);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.size() >= 2, qPrintable(run.err.join('\n')));
    for (const QString& line : run.err) {
        QVERIFY2(line.startsWith(QString::fromStdString(file) + ": "), qPrintable(line));
        QVERIFY2(!line.contains(QChar(0x1b)), qPrintable(line));
    }
    QVERIFY2(run.err.join('\n').contains("\\u000a\\u001b[31mfake.json: ok"),
             qPrintable(run.err.join('\n')));
}

void TestCliCheck::extremeHardwareIsRefused_data()
{
    addExtremeRows();
}

// The file reader refuses the figure with its pointer and range; evaluate and validate exit 1
// at once (they used to print a result at exit 0, or run on infinite times).
void TestCliCheck::extremeHardwareIsRefused()
{
    QFETCH(int, index);
    const Extreme& x = extremes()[static_cast<std::size_t>(index)];
    core::Scenario s = tests::multiDcScenario();
    x.apply(s);
    const std::string file = write(QStringLiteral("extreme-%1.json").arg(index),
                                   QByteArray::fromStdString(core::serializeScenario(s)));
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"evaluate", "--json", file},
          {"evaluate", file},
          {"check", file}}) {
        QElapsedTimer timer;
        timer.start();
        const Run run = runCli(args);
        QVERIFY2(timer.elapsed() < 1000, args.front().c_str());
        QCOMPARE(run.exitCode, cli::kExitInvalidInput);
        const QString expected = QString::fromStdString(file) + ": " + x.readerKey;
        QVERIFY2(run.err.join('\n').contains(expected), qPrintable(run.err.join('\n')));
    }
}

void TestCliCheck::extremeFiguresNeverEvaluateToNonFinite_data()
{
    addExtremeRows();
}

// A catalog built in code bypasses the reader (the GUI's edits, the explorer): evaluate() must
// still not run into undefined behaviour (the asan build traps float-to-integer overflow), and
// must fail naming the figure rather than return an infinite or wrapped one.
void TestCliCheck::extremeFiguresNeverEvaluateToNonFinite()
{
    QFETCH(int, index);
    const Extreme& x = extremes()[static_cast<std::size_t>(index)];
    core::Scenario s = tests::multiDcScenario();
    x.apply(s);
    QElapsedTimer timer;
    timer.start();
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(timer.elapsed() < 1000);
    std::string messages;
    for (const core::Warning& w : ev.warnings)
        messages += std::string(core::toString(w.code)) + ": " + core::warningText(w) + "\n";
    if (x.nonFinite) {
        QVERIFY2(!ev.ok, messages.c_str());
        const bool named = std::any_of(ev.warnings.begin(), ev.warnings.end(), [&](const auto& w) {
            return w.code == core::WarningCode::NonFinite &&
                   core::warningText(w).find(x.nonFinite) != std::string::npos;
        });
        QVERIFY2(named, messages.c_str());
    }
    if (!ev.ok)
        return;
    for (double v : {ev.iterationTimeS, ev.tokensPerS, ev.mfu, ev.timeToTrainS, ev.gpuHoursToTrain,
                     ev.networkCapexUsd, ev.networkPowerW, ev.memoryPeakGib})
        QVERIFY2(std::isfinite(v), messages.c_str());
    for (const core::BomItem& item : ev.bom)
        QVERIFY2(item.count >= 0 && std::isfinite(item.capexUsd()), item.item.c_str());
}

// tp*pp*dp*cp of four 2^31-1 degrees passes 2^63: the message says so instead of printing the
// wrapped (once negative) product.
void TestCliCheck::degreeProductOverflowIsReported()
{
    std::ifstream in(ARCHIPELAGO_TEST_DATA "/hopper-runs.json");
    nlohmann::json runs = nlohmann::json::parse(in);
    runs["runs"] = nlohmann::json::array({runs["runs"][0]});
    for (const char* degree : {"tp", "pp", "dp", "cp"})
        runs["runs"][0]["training"][degree] = std::numeric_limits<int>::max();
    const std::string file = write("overflow-runs.json", QByteArray::fromStdString(runs.dump()));
    const Run run = runCli({"validate", file});
    QCOMPARE(run.exitCode, cli::kExitInvalidInput);
    const QString err = run.err.join('\n');
    QVERIFY2(err.contains("/runs/0/system/gpus: expected tp*pp*dp*cp = "
                          "2147483647*2147483647*2147483647*2147483647 (more than 2^63), got 8192"),
             qPrintable(err));
    QVERIFY2(!err.contains("= -"), qPrintable(err));
}

void TestCliCheck::unreadableSavedSweepIsInvalid()
{
    // Was: "ok" for a file whose saved sweep the window could not read and `report` refused.
    const core::Scenario s = tests::multiDcScenario();
    const std::string file =
        write("bad-sweep.json",
              QByteArray::fromStdString(core::serializeScenario(s, {}, R"({"space": 7})")));
    const Run run = check({file});
    QCOMPARE(run.exitCode, cli::kExitInvalidInput);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.join('\n').contains(QString::fromStdString(file) + ": /explore"),
             qPrintable(run.err.join('\n')));
}

QTEST_GUILESS_MAIN(TestCliCheck)
#include "test_clicheck.moc"
