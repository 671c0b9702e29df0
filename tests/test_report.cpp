// The review report (app/report): `archipelago-cli report` end to end on a preset — the PDF's
// pages, paper sizes and section titles, the HTML's self-containment and section order, the
// sweep section and the command's exit codes — and the built-in validation summary it quotes.
#include "report/reportbuilder.h"
#include "report/reportcommand.h"
#include "report/reportinput.h"
#include "report/reportsweep.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include "evaluation/costmodel.h"
#include "evaluation/goodput.h"
#include "explore/sweep.h"
#include "explore/sweepmerge.h"
#include "explore/sweepsave.h"
#include "io/scenarioio.h"
#include "model/scenariotemplates.h"
#include "validation/builtinvalidation.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

#include <sys/stat.h>

using namespace archipelago;

namespace {

const QString kPreset =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");

struct Run
{
    int code = -1;
    std::string out;
    std::string err;
};

Run runCli(const QStringList& args)
{
    std::vector<std::string> a;
    for (const QString& s : args)
        a.push_back(s.toStdString());
    std::ostringstream out, err;
    Run r;
    r.code = report::runReport(a, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

int pdfPages(const QByteArray& pdf)
{
    // Each page object is "/Type /Page" (the page tree is "/Type /Pages").
    static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?!s)"));
    return static_cast<int>(QString::fromLatin1(pdf).count(page));
}

// The first page's MediaBox width and height in points.
QSizeF mediaBox(const QByteArray& pdf)
{
    static const QRegularExpression box(
        QStringLiteral("/MediaBox\\s*\\[\\s*0\\s+0\\s+([0-9.]+)\\s+([0-9.]+)\\s*\\]"));
    const QRegularExpressionMatch m = box.match(QString::fromLatin1(pdf));
    return m.hasMatch() ? QSizeF(m.captured(1).toDouble(), m.captured(2).toDouble()) : QSizeF();
}

// Positions of `titles` in `text`, in order; -1 where one is missing.
QList<qsizetype> positions(const QString& text, const QStringList& titles)
{
    QList<qsizetype> at;
    for (const QString& t : titles)
        at.append(text.indexOf(t));
    return at;
}

// A small sweep output with the fields the report reads (explore/sweepjson.h), run on the
// scenario of this fingerprint (by default the preset's).
QByteArray sweepJson(QString fingerprint = {})
{
    if (fingerprint.isEmpty()) {
        const core::LoadResult load = core::loadScenarioFile(kPreset.toStdString());
        fingerprint = QString::fromStdString(core::scenarioFingerprint(*load.scenario));
    }
    auto point = [](double t, double capex, double mem, const char* d) {
        return QStringLiteral("{\"description\": \"%1\", \"network_capex_usd\": %2, "
                              "\"total_cost_usd\": %3, \"iteration_time_vs_base\": %4, "
                              "\"evaluation\": {\"iteration_time_s\": %5, \"memory_peak_gib\": %6, "
                              "\"time_to_train_s\": %7, \"mfu\": 0.41}}")
            .arg(QLatin1String(d))
            .arg(capex)
            .arg(capex + 4e8)
            .arg(t / 6.5)
            .arg(t)
            .arg(mem)
            .arg(t * 9.3e5);
    };
    const QString a = point(6.4, 1.13e8, 79.5, "tp 8 pp 16 v 4");
    const QString b = point(6.9, 1.12e8, 77.5, "tp 8 pp 32 zb-h2");
    return QStringLiteral(
               "{\"base\": %1, \"base_feasible\": true, \"base_rank\": 2, "
               "\"counts\": {\"considered\": 1000, \"evaluated\": 100, \"feasible\": 40}, "
               "\"fronts\": {\"iteration_time_vs_network_capex\": [%1, %2], "
               "\"iteration_time_vs_memory_peak\": [%1, %2], "
               "\"time_to_train_vs_total_cost\": [%1]}, \"top\": [%1, %2], "
               "\"inputs\": {\"scenario_fnv1a64\": \"%3\"}}")
        .arg(a, b, fingerprint)
        .toUtf8();
}

} // namespace

class TestReport : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the window's settings stay out of $HOME
        QCoreApplication::setOrganizationName(QStringLiteral("ArchipelagoTest"));
        QVERIFY(m_dir.isValid());
        QVERIFY(QFile::exists(kPreset));
        // One PDF and one HTML of the preset, shared by the checks below.
        const Run pdf = runCli({kPreset, QStringLiteral("-o"), path("a4.pdf")});
        QCOMPARE(pdf.code, 0);
        const Run html = runCli({kPreset, QStringLiteral("-o"), path("a4.html")});
        QCOMPARE(html.code, 0);
    }

    void builtinValidation()
    {
        const std::optional<core::ValidationSummary> summary = core::builtinValidationSummary();
        if (!QDir(QStringLiteral(ARCHIPELAGO_VALIDATION_DIR)).exists()) {
            QVERIFY(!summary);
            QCOMPARE(core::validationSummaryText(summary),
                     std::string("validation data not built in"));
            return;
        }
        QVERIFY(summary);
        QVERIFY(summary->files.size() >= 1);
        QVERIFY(summary->runs >= 10);
        QCOMPARE(summary->evaluated, summary->runs);
        QVERIFY(summary->meanAbsError > 0.0);
        QVERIFY(summary->meanAbsError <= summary->maxAbsError);
        // The model is within tens of percent of measured runs, not orders of magnitude.
        QVERIFY(summary->maxAbsError < 0.5);
        // The same numbers as a per-file validateRuns: the report does not re-implement it.
        const core::ValidationFileSummary& first = summary->files.front();
        QCOMPARE(first.report.runs.size(), first.runs.size());
        QVERIFY(QString::fromStdString(core::validationSummaryText(summary))
                    .contains("mean absolute error"));
    }

    void pdfPagesAndTitles()
    {
        const QByteArray pdf = readAll(path("a4.pdf"));
        QVERIFY(pdf.startsWith("%PDF"));
        const int pages = pdfPages(pdf);
        QVERIFY2(pages >= 5 && pages <= 16, qPrintable(QString::number(pages)));

        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        if (pdftotext.isEmpty())
            QSKIP("pdftotext is not installed: section titles not checked in the PDF");
        QProcess p;
        p.start(pdftotext, {QStringLiteral("-layout"), path("a4.pdf"), QStringLiteral("-")});
        QVERIFY(p.waitForFinished(20000));
        const QString text = QString::fromUtf8(p.readAllStandardOutput());
        const QList<qsizetype> at = positions(text, report::reportSectionTitles(false));
        for (int i = 0; i < at.size(); ++i) {
            QVERIFY2(at[i] >= 0, qPrintable(report::reportSectionTitles(false)[i]));
            if (i > 0)
                QVERIFY2(at[i] > at[i - 1], qPrintable(report::reportSectionTitles(false)[i]));
        }
        QVERIFY(text.contains(QStringLiteral("Page 1 of %1").arg(pages)));
        QVERIFY(text.contains(QStringLiteral("Page %1 of %1").arg(pages)));
        QVERIFY(text.contains(QStringLiteral("SHA-256")));
    }

    // Was: a valid scenario with 100,000 DCI links made a 3,852-page PDF in 120 s (a table per
    // link, grouped in quadratic time). Beyond 16 links, one row per link; beyond 300 rows, a
    // count; beyond 100 warnings, a count. (Parallel links between one pair of buildings share
    // one bill-of-materials scope, so here it is the row cap that binds.)
    void manyLinksMakeAShortReport()
    {
        core::LoadResult load = core::loadScenarioFile(kPreset.toStdString());
        QVERIFY(load.ok());
        core::Scenario s = *load.scenario;
        QVERIFY(!s.topology.links.empty());
        const core::DciLink first = s.topology.links.front();
        core::Id next = 1;
        for (const core::DciLink& l : s.topology.links)
            next = std::max(next, l.id + 1);
        for (int i = 0; i < 2000; ++i) {
            core::DciLink copy = first;
            copy.id = next++;
            s.topology.links.push_back(copy);
        }
        const QString file = path("many-links.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(core::serializeScenario(s)));
        f.close();
        const Run r = runCli({file, QStringLiteral("-o"), path("many-links.pdf")});
        QVERIFY2(r.code == 0, r.err.c_str());
        const int pages = pdfPages(readAll(path("many-links.pdf")));
        QVERIFY2(pages <= 40, qPrintable(QString::number(pages)));
        const Run html = runCli({file, QStringLiteral("-o"), path("many-links.html")});
        QVERIFY2(html.code == 0, html.err.c_str());
        const QString text = QString::fromUtf8(readAll(path("many-links.html")));
        QVERIFY(text.contains(QStringLiteral("more rows (File &gt; Export Data has them all)")) ||
                text.contains(QStringLiteral("more rows (File > Export Data has them all)")));
        // The capped table keeps its total after the count.
        QVERIFY(text.indexOf(QStringLiteral("Subtotal"),
                             text.indexOf(QStringLiteral("more rows"))) > 0);
    }

    // A design built up from the empty document keeps its name "Empty" and its description of
    // one 8-GPU domain until the user writes their own: the report names what was built.
    void titleFollowsWhatWasBuilt()
    {
        core::Scenario s = core::minimalScenario();
        report::ReportInput input;
        input.current.scenario = s;
        input.current.evaluation = core::evaluate(s);
        QCOMPARE(report::buildReport(input).title,
                 QStringLiteral("Capacity-planning review: Empty"));

        s.topology.datacenters.front().pods.front().count = 3072;
        input.current.scenario = s;
        input.current.evaluation = core::evaluate(s);
        const report::Report built = report::buildReport(input);
        QCOMPARE(built.title,
                 QStringLiteral("Capacity-planning review: tiny on 24,576 GPUs in 1 datacenter"));
        for (const report::ReportSection& section : built.sections)
            for (const report::ReportBlock& block : section.blocks)
                QVERIFY2(!block.text.contains(QStringLiteral("one 8-GPU domain")),
                         qPrintable(block.text));
        // A name of the user's own is kept.
        s.name = "Three buildings";
        input.current.scenario = s;
        QCOMPARE(report::buildReport(input).title,
                 QStringLiteral("Capacity-planning review: Three buildings"));
    }

    // A value that prints the same as the baseline's is not marked better or worse ("94.1" red
    // beside "94.1"); one that prints differently is.
    void comparisonMarksWhatPrintsDifferently()
    {
        views::EvaluatedDesign pin;
        pin.name = QStringLiteral("Pin 1");
        pin.evaluation.ok = true;
        pin.evaluation.iterationTimeS = 7.0;
        pin.evaluation.goodput.ettr = 0.94112;
        views::EvaluatedDesign current = pin;
        current.name = QStringLiteral("Current");
        current.evaluation.iterationTimeS = 6.613;
        current.evaluation.goodput.ettr = 0.94114;
        const report::ReportTable t = report::comparisonTable({pin, current});
        auto rowOf = [&t](const QString& label) {
            for (qsizetype r = 0; r < t.rows.size(); ++r)
                if (t.rows[r].front() == label)
                    return r;
            return qsizetype{-1};
        };
        const qsizetype ettr = rowOf(QStringLiteral("ETTR (%)"));
        const qsizetype iteration = rowOf(QStringLiteral("Iteration time (s)"));
        QVERIFY(ettr >= 0 && iteration >= 0);
        QCOMPARE(t.rows[ettr][1], QStringLiteral("94.1"));
        QCOMPARE(t.marks[ettr][1], report::CellMark::None);
        QCOMPARE(t.marks[iteration][1], report::CellMark::Worse);
    }

    void htmlIsSelfContained()
    {
        const QString html = QString::fromUtf8(readAll(path("a4.html")));
        QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY(!html.contains(QStringLiteral("http://")));
        QVERIFY(!html.contains(QStringLiteral("https://")));
        QVERIFY(!html.contains(QStringLiteral("src=\"file")));
        QVERIFY(!html.contains(QStringLiteral("<link")));
        QVERIFY(!html.contains(QStringLiteral("<script")));
        // Topology, layout and the four plots, the goodput plot among them.
        QVERIFY(html.count(QStringLiteral("<svg")) >= 6);
        QVERIFY(html.contains(QStringLiteral("Time to train with failures")));
        QVERIFY(html.contains(QStringLiteral("@media print")));
        QVERIFY(html.contains(QStringLiteral("size: A4")));
        const QList<qsizetype> at = positions(html, report::reportSectionTitles(false));
        for (int i = 0; i < at.size(); ++i) {
            QVERIFY2(at[i] >= 0, qPrintable(report::reportSectionTitles(false)[i]));
            if (i > 0)
                QVERIFY(at[i] > at[i - 1]);
        }
        // The goodput section: the wall time's split and every failure rate with its source.
        const qsizetype goodput = html.indexOf(QStringLiteral("Reliability and goodput"));
        QVERIFY(html.indexOf(QStringLiteral("Where the wall time goes"), goodput) > goodput);
        QVERIFY(html.indexOf(QStringLiteral("Lost work"), goodput) > goodput);
        for (const core::FailureCause& c : core::reliabilityOf(core::builtinCatalog()).causes)
            QVERIFY2(html.indexOf(QString::fromStdString(c.source).toHtmlEscaped(), goodput) >
                         goodput,
                     c.name.c_str());
        QVERIFY(html.indexOf(QStringLiteral("What it does here"), goodput) > goodput);
        // The file's hash in the title block.
        const QByteArray sha =
            QCryptographicHash::hash(readAll(kPreset), QCryptographicHash::Sha256).toHex();
        QVERIFY(html.contains(QString::fromLatin1(sha)));
    }

    void letterDiffersFromA4()
    {
        QCOMPARE(runCli({kPreset, QStringLiteral("--paper"), QStringLiteral("letter"),
                         QStringLiteral("-o"), path("letter.pdf")})
                     .code,
                 0);
        const QSizeF a4 = mediaBox(readAll(path("a4.pdf")));
        const QSizeF letter = mediaBox(readAll(path("letter.pdf")));
        QVERIFY(!a4.isEmpty() && !letter.isEmpty());
        QVERIFY(std::abs(a4.width() - 595.3) < 1.5 && std::abs(a4.height() - 841.9) < 1.5);
        QVERIFY(std::abs(letter.width() - 612) < 1.5 && std::abs(letter.height() - 792) < 1.5);
        QVERIFY(runCli({kPreset, QStringLiteral("--paper"), QStringLiteral("letter"),
                        QStringLiteral("-o"), path("letter.html")})
                    .code == 0);
        QVERIFY(QString::fromUtf8(readAll(path("letter.html")))
                    .contains(QStringLiteral("size: letter")));
    }

    void sweepSection()
    {
        QFile f(path("sweep.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(sweepJson());
        f.close();
        const Run r = runCli({kPreset, QStringLiteral("--sweep"), path("sweep.json"),
                              QStringLiteral("-o"), path("sweep.html")});
        QVERIFY2(r.code == 0, r.err.c_str());
        const QString html = QString::fromUtf8(readAll(path("sweep.html")));
        const QList<qsizetype> at = positions(html, report::reportSectionTitles(true));
        for (int i = 0; i < at.size(); ++i) {
            QVERIFY2(at[i] >= 0, qPrintable(report::reportSectionTitles(true)[i]));
            if (i > 0)
                QVERIFY(at[i] > at[i - 1]);
        }
        QVERIFY(html.contains(QStringLiteral("tp 8 pp 32 zb-h2")));
        // Three fronts besides the five drawings.
        QVERIFY(html.count(QStringLiteral("<svg")) >= 8);
    }

    // Was: `report -o` with a name that is not UTF-8 wrote to another name (a QString round
    // trip replaced the byte); `-o -` wrote a file named "-".
    void outputNameBytesAndStdout()
    {
        std::string name = m_dir.path().toStdString() + "/caf\xe9-report.html"; // Latin-1 é
        std::ostringstream out, err;
        QCOMPARE(report::runReport({kPreset.toStdString(), "-o", name}, out, err), 0);
        struct stat st
        {};
        QVERIFY2(::stat(name.c_str(), &st) == 0, err.str().c_str());
        std::ostringstream pdf, err2;
        QCOMPARE(report::runReport({kPreset.toStdString(), "-o", "-"}, pdf, err2), 0);
        QVERIFY(pdf.str().starts_with("%PDF"));
        QVERIFY(!QFile::exists(QStringLiteral("-")));
    }

    // Was: `report --sweep` took another scenario's sweep and presented it as this scenario's
    // design space.
    void otherScenariosSweepIsRefused()
    {
        QFile f(path("other-sweep.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(sweepJson(QStringLiteral("0123456789abcdef")));
        f.close();
        const QString out = path("other.html");
        const Run r = runCli({kPreset, QStringLiteral("--sweep"), path("other-sweep.json"),
                              QStringLiteral("-o"), out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find("/inputs/scenario_fnv1a64") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("another scenario") != std::string::npos, r.err.c_str());
        QVERIFY(!QFile::exists(out));
        // A real sweep of the preset is accepted, and stays so once a sweep is saved in the
        // scenario file (the fingerprint leaves the saved sweep out).
        const QString sweepOut = path("real-sweep.json");
        const QString space = path("small-space.json");
        QFile sf(space);
        QVERIFY(sf.open(QIODevice::WriteOnly));
        sf.write(R"({"schedule": ["1f1b", "zb-h1"], "recompute": ["none"], "zero_stage": [1]})");
        sf.close();
        QProcess sweep;
        sweep.start(QStringLiteral(ARCHIPELAGO_CLI),
                    {QStringLiteral("sweep"), kPreset, QStringLiteral("--space"), space,
                     QStringLiteral("--top"), QStringLiteral("2"), QStringLiteral("-o"), sweepOut});
        QVERIFY(sweep.waitForFinished(300'000));
        QCOMPARE(sweep.exitCode(), 0);
        core::LoadResult load = core::loadScenarioFile(kPreset.toStdString());
        QVERIFY(load.ok());
        // The sweep saved in the file is beside the scenario, not part of its fingerprint.
        const core::LoadResult withSweep = core::parseScenario(
            core::serializeScenario(*load.scenario, {}, R"({"saved":true})"), "with-sweep.json");
        QVERIFY(withSweep.ok());
        QCOMPARE(withSweep.explore, std::string(R"({"saved":true})"));
        QCOMPARE(core::scenarioFingerprint(*withSweep.scenario),
                 core::scenarioFingerprint(*load.scenario));
        const Run ok =
            runCli({kPreset, QStringLiteral("--sweep"), sweepOut, QStringLiteral("-o"), out});
        QVERIFY2(ok.code == 0, ok.err.c_str());
    }

    // A scenario file that holds the sweep saved by the Explore panel ("explore") gets the
    // sweep section without --sweep.
    void savedSweepSection()
    {
        core::LoadResult load = core::loadScenarioFile(kPreset.toStdString());
        QVERIFY(load.ok());
        core::Scenario scenario = *load.scenario;
        core::SearchSpace space = core::defaultSearchSpace(scenario);
        core::SweepOptions options;
        options.top = 3;
        const core::SweepResult r =
            core::runSweep(scenario, core::effectiveCatalog(scenario), space, options);
        const QString file = path("with-sweep.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(
            core::serializeScenario(scenario, {}, core::savedSweepText(space, r))));
        f.close();
        const Run run = runCli({file, QStringLiteral("-o"), path("with-sweep.html")});
        QVERIFY2(run.code == 0, run.err.c_str());
        const QString html = QString::fromUtf8(readAll(path("with-sweep.html")));
        QVERIFY(html.contains(QStringLiteral("Design-space sweep")));
        QVERIFY(html.contains(QStringLiteral("Fastest feasible design points")));
        QVERIFY(html.count(QStringLiteral("<svg")) >= 8);
    }

    void badSweepIsInvalidInput_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("not json") << QByteArray("{ nope") << QString();
        QTest::newRow("fronts not an object")
            << QByteArray(
                   R"({"fronts": 3, "top": [], "counts": {"considered": 1, "evaluated": 1, "feasible": 1}})")
            << QStringLiteral("/fronts");
        QTest::newRow("point without evaluation")
            << QByteArray(
                   R"({"fronts": {}, "top": [{"description": "x", "network_capex_usd": 1, "total_cost_usd": 2}], "counts": {"considered": 1, "evaluated": 1, "feasible": 1}})")
            << QStringLiteral("/top/0/evaluation");
        QTest::newRow("count not a number")
            << QByteArray(
                   R"({"fronts": {}, "top": [], "counts": {"considered": "many", "evaluated": 1, "feasible": 1}})")
            << QStringLiteral("/counts/considered");
    }

    void badSweepIsInvalidInput()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, pointer);
        const QString file = path("bad-sweep.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(content);
        f.close();
        const QString out = path("never.pdf");
        const Run r = runCli({kPreset, QStringLiteral("--sweep"), file, QStringLiteral("-o"), out});
        QCOMPARE(r.code, 1);
        const QString err = QString::fromStdString(r.err);
        QVERIFY2(err.contains(file), r.err.c_str());
        if (!pointer.isEmpty())
            QVERIFY2(err.contains(pointer), r.err.c_str());
        QVERIFY(!QFile::exists(out));
        // A file that is not there is invalid input too.
        QCOMPARE(runCli({kPreset, QStringLiteral("--sweep"), path("absent.json"),
                         QStringLiteral("-o"), out})
                     .code,
                 1);
    }

    void badScenarioIsInvalidInput()
    {
        const QString file = path("bad-scenario.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "archipelago-scenario", "version": 1, "topology": 7})");
        f.close();
        const Run r = runCli({file, QStringLiteral("-o"), path("never.html")});
        QCOMPARE(r.code, 1);
        QVERIFY(QString::fromStdString(r.err).contains(file));
    }

    void badArgumentsAreUsageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("nothing") << QStringList{};
        QTest::newRow("no output") << QStringList{kPreset};
        QTest::newRow("no scenario") << QStringList{QStringLiteral("-o"), QStringLiteral("x.pdf")};
        QTest::newRow("two scenarios")
            << QStringList{kPreset, kPreset, QStringLiteral("-o"), QStringLiteral("x.pdf")};
        QTest::newRow("unknown option") << QStringList{
            kPreset, QStringLiteral("--colour"), QStringLiteral("-o"), QStringLiteral("x.pdf")};
        QTest::newRow("bad paper")
            << QStringList{kPreset, QStringLiteral("--paper"), QStringLiteral("b5"),
                           QStringLiteral("-o"), QStringLiteral("x.pdf")};
        QTest::newRow("paper without value") << QStringList{
            kPreset, QStringLiteral("-o"), QStringLiteral("x.pdf"), QStringLiteral("--paper")};
        QTest::newRow("bad suffix")
            << QStringList{kPreset, QStringLiteral("-o"), QStringLiteral("x.docx")};
    }

    void badArgumentsAreUsageErrors()
    {
        QFETCH(QStringList, args);
        const Run r = runCli(args);
        QCOMPARE(r.code, 2);
        QVERIFY(QString::fromStdString(r.err).contains(
            QStringLiteral("Usage: archipelago-cli report")));
    }

    // archipelago-cli dispatches `report` to the report library with its own offscreen
    // QApplication: no display needed, whatever QT_QPA_PLATFORM says.
    void executableRunsReport()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
        auto run = [&env](const QStringList& args, QString* out = nullptr) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(QStringLiteral(ARCHIPELAGO_CLI), args);
            if (!p.waitForFinished(30000))
                return -1;
            if (out)
                *out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
            return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        };
        QString text;
        QCOMPARE(run({QStringLiteral("--help")}, &text), 0);
        QVERIFY(text.contains(QStringLiteral("report SCENARIO.json")));
        QCOMPARE(run({QStringLiteral("report")}, &text), 2);
        QVERIFY(text.contains(QStringLiteral("Usage: archipelago-cli report")));
        QCOMPARE(
            run({QStringLiteral("report"), kPreset, QStringLiteral("-o"), path("exe.pdf")}, &text),
            0);
        QVERIFY2(text.contains(QStringLiteral("wrote")), qPrintable(text));
        QVERIFY(readAll(path("exe.pdf")).startsWith("%PDF"));
    }

    // File > Export Report… writes the same report from the window's document.
    void windowExportsReport()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.openFile(kPreset));
        QAction* action = nullptr;
        for (QAction* a : window.findChildren<QAction*>())
            if (a->text().contains(QStringLiteral("Export &Report")))
                action = a;
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+E")));

        QString error;
        QVERIFY2(window.exportReport(path("window.pdf"), &error), qPrintable(error));
        QVERIFY(readAll(path("window.pdf")).startsWith("%PDF"));
        QVERIFY2(window.exportReport(path("window.html"), &error), qPrintable(error));
        const QString html = QString::fromUtf8(readAll(path("window.html")));
        const QByteArray sha =
            QCryptographicHash::hash(readAll(kPreset), QCryptographicHash::Sha256).toHex();
        QVERIFY(html.contains(QString::fromLatin1(sha)));
        QVERIFY(!html.contains(QStringLiteral("unsaved changes")));
        // The same sections as the CLI's.
        for (const QString& title : report::reportSectionTitles(false))
            QVERIFY2(html.contains(title), qPrintable(title));

        QVERIFY(!window.exportReport(path("window.txt"), &error));
        QVERIFY(error.contains(QStringLiteral(".pdf")));
        QVERIFY(!QFile::exists(path("window.txt")));
    }

private:
    QString path(const QString& name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestReport)
#include "test_report.moc"
