// archipelago-cli check: exit codes and output lines (ARCHITECTURE.md section 6).
#include "cli.h"
#include "io/scenarioio.h"
#include "scenariofixtures.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <filesystem>
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

QTEST_GUILESS_MAIN(TestCliCheck)
#include "test_clicheck.moc"
