// What the program writes must not harm what the user owns (io/textfile.h, io/csv.h, the
// commands' -o): a read-only file stays, a private file stays private, a symbolic link stays a
// link, hard links stay one file, a device or a pipe is written through (never turned into a
// regular file), `-o -` is standard output; a CSV cell never runs as a spreadsheet formula and
// never carries a terminal escape; a Slurm array task id never wraps into a shard. Each case
// is a reproduction of a defect a robustness trial found. And an interrupted sweep keeps what it
// found.
#include "cli.h"
#include "clirun.h"
#include "io/csv.h"
#include "io/textfile.h"
#include "shardoption.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

using namespace archipelago;

namespace {

using Run = tests::CliRun;
using tests::runCli;

std::string preset(const char* name)
{
    return tests::presetPath(name);
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

struct stat statOf(const std::string& path)
{
    struct stat st
    {};
    ::lstat(path.c_str(), &st);
    return st;
}

int entries(const QTemporaryDir& dir)
{
    return static_cast<int>(
        QDir(dir.path())
            .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot)
            .size());
}

cli::EnvironmentLookup environment(std::map<std::string, std::string> vars)
{
    auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
    return [shared](const char* name) -> std::optional<std::string> {
        const auto it = shared->find(name);
        return it == shared->end() ? std::nullopt : std::optional<std::string>(it->second);
    };
}

} // namespace

class TestOutputFiles : public QObject
{
    Q_OBJECT

private slots:
    void readOnlyFileIsRefused();
    void modeIsKept();
    void symlinkIsFollowed();
    void danglingSymlinkIsRefused();
    void hardLinksStayOneFile();
    void characterDeviceIsWrittenThrough();
    void fifoIsWrittenThroughOrRefused();
    void dashIsStandardOutput();
    void emptyAndRepeatedOptionsAreUsageErrors();
    void writeErrorsNameTheFile();
    void csvFormulaInjection_data();
    void csvFormulaInjection();
    void slurmTaskIdNeverWraps();
    void interruptedSweepKeepsWhatItHad();
};

void TestOutputFiles::readOnlyFileIsRefused()
{
    // Was: replaced at exit 0 (rename(2) needs only the directory to be writable).
    QTemporaryDir dir;
    const std::string path = dir.filePath("keep.json").toStdString();
    spit(path, "precious\n");
    QCOMPARE(::chmod(path.c_str(), 0444), 0);
    std::string error;
    QVERIFY(!core::writeTextFileAtomically(path, "new\n", error));
    QVERIFY2(error.find("read-only") != std::string::npos, error.c_str());
    QCOMPARE(slurp(path), std::string("precious\n"));
    QCOMPARE(statOf(path).st_mode & 0777u, 0444u);
    QCOMPARE(entries(dir), 1);
    // And through the command, exit 1 naming the file.
    const Run run = runCli({"sweep", preset("gpt3-175b-1024-a100.json"), "--top", "1", "-o", path});
    QCOMPARE(run.exitCode, cli::kExitInvalidInput);
    QVERIFY2(run.err.find(path) != std::string::npos, run.err.c_str());
    QCOMPARE(slurp(path), std::string("precious\n"));
}

void TestOutputFiles::modeIsKept()
{
    // Was: a private (0600) file became 0644 (the new file took the umask's mode).
    QTemporaryDir dir;
    const std::string path = dir.filePath("private.csv").toStdString();
    spit(path, "old\n");
    QCOMPARE(::chmod(path.c_str(), 0600), 0);
    std::string error;
    QVERIFY2(core::writeTextFileAtomically(path, "new\n", error), error.c_str());
    QCOMPARE(slurp(path), std::string("new\n"));
    QCOMPARE(statOf(path).st_mode & 0777u, 0600u);
    QCOMPARE(::chmod(path.c_str(), 0640), 0);
    QVERIFY2(core::writeTextFileAtomically(path, "newer\n", error), error.c_str());
    QCOMPARE(statOf(path).st_mode & 0777u, 0640u);
    QCOMPARE(statOf(path).st_uid, ::getuid());
    QCOMPARE(entries(dir), 1);
}

void TestOutputFiles::symlinkIsFollowed()
{
    // Was: the link was replaced by a regular file and its target left unchanged.
    QTemporaryDir dir;
    const std::string target = dir.filePath("target.json").toStdString();
    const std::string link = dir.filePath("link.json").toStdString();
    spit(target, "old\n");
    QCOMPARE(::symlink("target.json", link.c_str()), 0);
    std::string error;
    QVERIFY2(core::writeTextFileAtomically(link, "new\n", error), error.c_str());
    QVERIFY(S_ISLNK(statOf(link).st_mode));
    QCOMPARE(slurp(target), std::string("new\n"));
    QCOMPARE(entries(dir), 2);
}

void TestOutputFiles::danglingSymlinkIsRefused()
{
    QTemporaryDir dir;
    const std::string link = dir.filePath("link.json").toStdString();
    QCOMPARE(::symlink("nowhere/target.json", link.c_str()), 0);
    std::string error;
    QVERIFY(!core::writeTextFileAtomically(link, "new\n", error));
    QVERIFY2(error.find("symbolic link") != std::string::npos, error.c_str());
    QVERIFY(S_ISLNK(statOf(link).st_mode));
}

void TestOutputFiles::hardLinksStayOneFile()
{
    // Was: the name written got a new file, the other name kept the old text.
    QTemporaryDir dir;
    const std::string a = dir.filePath("a.json").toStdString();
    const std::string b = dir.filePath("b.json").toStdString();
    spit(a, "old text, longer than the new\n");
    QCOMPARE(::link(a.c_str(), b.c_str()), 0);
    std::string error;
    QVERIFY2(core::writeTextFileAtomically(a, "new\n", error), error.c_str());
    QCOMPARE(slurp(b), std::string("new\n"));
    QCOMPARE(statOf(a).st_ino, statOf(b).st_ino);
    QCOMPARE(statOf(a).st_nlink, nlink_t{2});
}

void TestOutputFiles::characterDeviceIsWrittenThrough()
{
    // Was: as root, `-o /dev/null` replaced the device node with a regular file. Written
    // through, the node stays what it was (whoever runs the test).
    const struct stat before = statOf("/dev/null");
    QVERIFY(S_ISCHR(before.st_mode));
    std::string error;
    QVERIFY2(core::writeTextFileAtomically("/dev/null", "x\n", error), error.c_str());
    const Run run =
        runCli({"sweep", preset("gpt3-175b-1024-a100.json"), "--top", "1", "-o", "/dev/null"});
    QCOMPARE(run.exitCode, 0);
    const struct stat after = statOf("/dev/null");
    QVERIFY(S_ISCHR(after.st_mode));
    QCOMPARE(after.st_rdev, before.st_rdev);
    QCOMPARE(after.st_ino, before.st_ino);
}

void TestOutputFiles::fifoIsWrittenThroughOrRefused()
{
    QTemporaryDir dir;
    const std::string fifo = dir.filePath("pipe").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    // Nobody reads: refused at once, never blocking, the pipe left as it is.
    std::string error;
    QVERIFY(!core::writeTextFileAtomically(fifo, "x\n", error));
    QVERIFY2(error.find("no process reads") != std::string::npos, error.c_str());
    QVERIFY(S_ISFIFO(statOf(fifo).st_mode));
    QCOMPARE(entries(dir), 1);
    // A reader: the text arrives through the pipe.
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        ::close(fds[0]);
        const int in = ::open(fifo.c_str(), O_RDONLY);
        char buf[64];
        const ssize_t n = ::read(in, buf, sizeof buf);
        if (n > 0 && ::write(fds[1], buf, static_cast<std::size_t>(n)) != n)
            ::_exit(2);
        ::_exit(0);
    }
    ::close(fds[1]);
    bool written = false;
    for (int attempt = 0; attempt < 200 && !written; ++attempt) {
        written = core::writeTextFileAtomically(fifo, "through\n", error);
        if (!written)
            QTest::qWait(10); // until the child has opened its end
    }
    QVERIFY2(written, error.c_str());
    char buf[64] = {};
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    QCOMPARE(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), std::string("through\n"));
    QVERIFY(S_ISFIFO(statOf(fifo).st_mode));
}

void TestOutputFiles::dashIsStandardOutput()
{
    // Was: `-o -` wrote a file named "-" in the working directory.
    const Run run = runCli({"sweep", preset("gpt3-175b-1024-a100.json"), "--top", "1", "-o", "-"});
    QCOMPARE(run.exitCode, 0);
    const nlohmann::json json = nlohmann::json::parse(run.out); // the JSON only, no summary
    QVERIFY(json.contains("top_by_objective"));
    QVERIFY(!QFileInfo::exists(QStringLiteral("-")));
    const Run both = runCli({"sweep", preset("gpt3-175b-1024-a100.json"), "--csv", "-o", "-"});
    QCOMPARE(both.exitCode, cli::kExitUsage);
}

void TestOutputFiles::emptyAndRepeatedOptionsAreUsageErrors()
{
    // Was: `-o ''` exited 0 and wrote nothing; a repeated --top or --shard kept the last.
    const std::string scenario = preset("gpt3-175b-1024-a100.json");
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"sweep", scenario, "-o", ""},
             {"sweep", scenario, "--top", "1", "--top", "2"},
             {"sweep", scenario, "--shard", "0/2", "--shard", "1/2"},
             {"merge", "a.json", "-o", ""},
             {"merge", "a.json", "--top", "1", "--top", "3"},
         }) {
        const Run run = runCli(args);
        QCOMPARE(run.exitCode, cli::kExitUsage);
        QVERIFY(!run.err.empty());
    }
}

void TestOutputFiles::writeErrorsNameTheFile()
{
    QTemporaryDir dir;
    const std::string out = dir.filePath("no/such/dir.json").toStdString();
    const Run run = runCli({"sweep", preset("gpt3-175b-1024-a100.json"), "--top", "1", "-o", out});
    QCOMPARE(run.exitCode, cli::kExitInvalidInput);
    QVERIFY2(run.err.find(out) != std::string::npos, run.err.c_str());
}

void TestOutputFiles::csvFormulaInjection_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("field");
    // OWASP's list, and the forged strings the trial carried through `merge --csv`.
    QTest::newRow("hyperlink") << QByteArray("=HYPERLINK(\"http://x\")")
                               << QByteArray("\"'=HYPERLINK(\"\"http://x\"\")\"");
    QTest::newRow("dde") << QByteArray("=cmd|' /C calc'!A0") << QByteArray("'=cmd|' /C calc'!A0");
    QTest::newRow("plus") << QByteArray("+1+cmd") << QByteArray("'+1+cmd");
    QTest::newRow("minus formula") << QByteArray("-2+3") << QByteArray("'-2+3");
    QTest::newRow("at") << QByteArray("@SUM(A1)") << QByteArray("'@SUM(A1)");
    QTest::newRow("negative number kept") << QByteArray("-3.25") << QByteArray("-3.25");
    QTest::newRow("exponent kept") << QByteArray("-1e-05") << QByteArray("-1e-05");
    QTest::newRow("inside is fine") << QByteArray("a=b") << QByteArray("a=b");
    // Control characters and bidirectional overrides, escaped as the text output escapes them.
    QTest::newRow("escape") << QByteArray("dc\x1b[31mred") << QByteArray("dc\\u001b[31mred");
    QTest::newRow("bidi") << QByteArray("a\u202Eb") << QByteArray("a\\u202eb");
    QTest::newRow("tab first") << QByteArray("\t=1") << QByteArray("\\u0009=1");
    QTest::newRow("line break") << QByteArray("a\nb") << QByteArray("a\\u000ab");
}

void TestOutputFiles::csvFormulaInjection()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, field);
    QCOMPARE(QByteArray::fromStdString(core::csvField(text.toStdString())), field);
}

void TestOutputFiles::slurmTaskIdNeverWraps()
{
    // Was: SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN overflowed (undefined behaviour) and the
    // wrapped value was accepted; a step of 0 or below was ignored.
    std::string error;
    const std::string big = "9223372036854775807", small = "-9223372036854775807";
    QVERIFY(!cli::parseShardOption("auto",
                                   environment({{"SLURM_ARRAY_TASK_ID", big},
                                                {"SLURM_ARRAY_TASK_MIN", small},
                                                {"SLURM_ARRAY_TASK_COUNT", "4"}}),
                                   error));
    QVERIFY2(!error.empty(), "overflow accepted");
    for (const char* step : {"0", "-2"}) {
        error.clear();
        QVERIFY(!cli::parseShardOption("auto",
                                       environment({{"SLURM_ARRAY_TASK_ID", "2"},
                                                    {"SLURM_ARRAY_TASK_MIN", "0"},
                                                    {"SLURM_ARRAY_TASK_STEP", step},
                                                    {"SLURM_ARRAY_TASK_COUNT", "4"}}),
                                       error));
        QVERIFY2(error.find("SLURM_ARRAY_TASK_STEP") != std::string::npos, error.c_str());
    }
    // The ordinary case still works.
    const std::optional<cli::ShardSpec> ok =
        cli::parseShardOption("auto",
                              environment({{"SLURM_ARRAY_TASK_ID", "7"},
                                           {"SLURM_ARRAY_TASK_MIN", "4"},
                                           {"SLURM_ARRAY_TASK_COUNT", "4"}}),
                              error);
    QVERIFY2(ok, error.c_str());
    QCOMPARE(ok->index, 3);
    QCOMPARE(ok->count, 4);
}

void TestOutputFiles::interruptedSweepKeepsWhatItHad()
{
    // Was: SIGINT or SIGTERM killed the sweep and kept nothing; a log (stderr not a terminal)
    // got no progress at all.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("partial.json"));
    // A space of ten million points, so that the sweep is still running when the signal comes
    // (the preset's default space takes a few tens of milliseconds).
    const QString space = dir.filePath(QStringLiteral("space.json"));
    std::ofstream(space.toStdString()) << R"({
        "tp": [1, 2, 4, 8], "pp": [4, 8, 16, 32], "dp": ["max", 32, 64],
        "micro_batch": [1, 2, 4], "virtual_stages": [1, 2, 4],
        "schedule": ["gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "zb-h2", "dualpipe"],
        "recompute": ["none", "selective", "full"], "zero_stage": [0, 1],
        "distributed_optimizer": [false, true], "sequence_parallel": [false, true],
        "boundary": ["base", "pp", "dp"], "stage_split": [0, -1, 1],
        "dci_transport": ["rdma-otn", "lossy-ip", "roce-pfc"], "wavelengths": [32, 64, 128],
        "extra_in_flight_at_dci": [0, 2]})";
    for (const int signal : {SIGINT, SIGTERM}) {
        QProcess sweep;
        sweep.start(QStringLiteral(ARCHIPELAGO_CLI),
                    {QStringLiteral("sweep"),
                     QString::fromStdString(preset("llama3-405b-two-buildings.json")),
                     QStringLiteral("--space"), space, QStringLiteral("--progress"),
                     QStringLiteral("--threads"), QStringLiteral("1"), QStringLiteral("-o"), out});
        QVERIFY(sweep.waitForStarted());
        // The first progress line comes after the first batch: the sweep is under way.
        QByteArray log;
        while (!log.contains("points") && sweep.state() == QProcess::Running) {
            sweep.waitForReadyRead(100);
            log += sweep.readAllStandardError();
        }
        QVERIFY2(log.startsWith("sweep: "), log.constData());
        ::kill(static_cast<pid_t>(sweep.processId()), signal);
        QVERIFY(sweep.waitForFinished(60'000));
        log += sweep.readAllStandardError();
        QCOMPARE(sweep.exitStatus(), QProcess::NormalExit);
        QCOMPARE(sweep.exitCode(), 128 + signal);
        QVERIFY2(log.contains("interrupted"), log.constData());
        const nlohmann::json partial = nlohmann::json::parse(slurp(out.toStdString()));
        QCOMPARE(partial["cancelled"], nlohmann::json(true));
        QVERIFY(partial["counts"]["considered"].get<std::uint64_t>() > 0);
        // And merge refuses it as a shard.
        const Run merge = runCli({"merge", out.toStdString()});
        QCOMPARE(merge.exitCode, cli::kExitInvalidInput);
        QVERIFY2(merge.err.find("/cancelled") != std::string::npos, merge.err.c_str());
    }
}

QTEST_GUILESS_MAIN(TestOutputFiles)
#include "test_outputfiles.moc"
