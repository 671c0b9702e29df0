// Published-runs format version 2 (../shared/validation/README.md): every run names its training
// stack and the release month it used, and a knob the run does not publish only takes values
// that release had (validation/stackfeatures.h). Version 1 files are still read, unrestricted.
#include "evaluation/costmodel.h"
#include "validation/publishedruns.h"
#include "validation/stackfeatures.h"
#include "validation/unpublishedknobs.h"

#include <QtTest>

#include <filesystem>
#include <string>
#include <vector>

using namespace archipelago;

class TestStackFeatures : public QObject
{
    Q_OBJECT
private slots:
    void readsTheVersion2Files();
    void readsVersion1();
    void refusesOtherVersions();
    void malformedSoftwareDateNamesPointer_data();
    void malformedSoftwareDateNamesPointer();
    void yearMonthRoundTrips();
    void earlyRunGetsOnlyWhatItsStackHad_data();
    void earlyRunGetsOnlyWhatItsStackHad();
    void publishedKnobsAreKeptWhateverTheDate();
    void version2FilesRestrictTheEarlyRuns();
};

namespace {

const std::string kV2Runs = ARCHIPELAGO_VALIDATION_DIR "/published-runs.json";
const std::string kV2Megascale = ARCHIPELAGO_VALIDATION_DIR "/published-runs-h100-megascale.json";

// Korthikanti et al. 2022's 22B shape on 32 A100 (TP 8, two stages, DP 2), every knob the search
// can choose left unpublished; VERSION and STACK are replaced.
const std::string kRun = R"({"format":"archipelago-published-runs","version":VERSION,"runs":[
  {"id":"22b","source":"s","model":{"layers":48,"hidden":6144,"heads":64,"kv_heads":64,
   "ffn_hidden":24576,"ffn_activation":"gelu","vocab":51200,"seq_len":2048},
   "training":{"global_batch":64,"micro_batch":null,"tp":8,"pp":2,"dp":2,"cp":1,"ep":1,
   "virtual_stages":null,"sequence_parallel":null,"recompute":"full","precision":"bf16"STACK},
   "system":{"accelerator":"A100-SXM4-80GB","gpus_per_node":8,"peak_dense_tflops":312,
   "hbm_gib":80,"scale_up_GBps_per_direction":300,"gpus":32,"scale_out_Gbps_per_gpu":200,
   "fabric":{"kind":"clos","tiers":3,"oversubscription":1}},
   "measured":{"iteration_time_s":2.0}}]})";

std::string runText(const std::string& version, const std::string& stack)
{
    std::string text = kRun;
    text.replace(text.find("VERSION"), 7, version);
    text.replace(text.find("STACK"), 5, stack);
    return text;
}

std::string v2Run(const std::string& software, const std::string& date)
{
    return runText("2", R"(,"software":")" + software + R"(","software_date":")" + date + "\"");
}

core::PublishedRun parsed(const std::string& text)
{
    const core::PublishedRunsLoad load = core::parsePublishedRuns(text, "runs.json");
    if (!load.ok())
        qFatal("%s", load.errors.front().toString().c_str());
    return load.runs.front();
}

std::string joined(const std::vector<std::string>& lines)
{
    std::string all;
    for (const std::string& l : lines)
        all += l + "\n";
    return all;
}

} // namespace

void TestStackFeatures::readsTheVersion2Files()
{
    for (const auto& [path, count] :
         {std::pair{kV2Runs, std::size_t(14)}, std::pair{kV2Megascale, std::size_t(8)}}) {
        if (!std::filesystem::exists(path))
            QSKIP("../shared/validation/v2 is absent");
        const core::PublishedRunsLoad load = core::loadPublishedRuns(path);
        QVERIFY2(load.ok(), load.ok() ? "" : load.errors.front().toString().c_str());
        QVERIFY(load.warnings.empty());
        QCOMPARE(load.runs.size(), count);
        for (const core::PublishedRun& run : load.runs) {
            QVERIFY2(run.software && core::knownStack(*run.software), run.id.c_str());
            QVERIFY2(run.softwareDate.has_value(), run.id.c_str());
        }
    }
    const core::PublishedRunsLoad load = core::loadPublishedRuns(kV2Runs);
    for (const core::PublishedRun& run : load.runs)
        if (run.id.starts_with("narayanan2021"))
            QCOMPARE(core::toString(*run.softwareDate), std::string("2021-04"));
}

void TestStackFeatures::readsVersion1()
{
    // Version 1: the stack optional, no date, the knobs searched as before.
    const core::PublishedRunsLoad plain = core::parsePublishedRuns(runText("1", ""), "v1.json");
    QVERIFY(plain.ok());
    QVERIFY(!plain.runs.front().software && !plain.runs.front().softwareDate);
    const core::PublishedRunsLoad named =
        core::parsePublishedRuns(runText("1", R"(,"software":"Megatron-LM")"), "v1.json");
    QVERIFY(named.ok());
    QCOMPARE(*named.runs.front().software, std::string("Megatron-LM"));
    QVERIFY(!named.runs.front().softwareDate);
    // software_date is not a version-1 key: read as unknown, never as a date.
    const core::PublishedRunsLoad dated = core::parsePublishedRuns(
        runText("1", R"(,"software":"Megatron-LM","software_date":"2021-04")"), "v1.json");
    QVERIFY(dated.ok());
    QVERIFY(!dated.runs.front().softwareDate);
    QCOMPARE(dated.warnings.size(), std::size_t(1));
    QVERIFY2(dated.warnings.front().toString().find("/runs/0/training/software_date") !=
                 std::string::npos,
             dated.warnings.front().toString().c_str());
}

void TestStackFeatures::refusesOtherVersions()
{
    for (const char* version : {"0", "3"}) {
        const core::PublishedRunsLoad load =
            core::parsePublishedRuns(runText(version, ""), "runs.json");
        QVERIFY(!load.ok());
        const std::string e = load.errors.front().toString();
        QVERIFY2(e.find("runs.json: /version: expected 1 or 2, got ") != std::string::npos,
                 e.c_str());
    }
}

void TestStackFeatures::malformedSoftwareDateNamesPointer_data()
{
    QTest::addColumn<QString>("stack");
    QTest::addColumn<QString>("message");
    const QString date = "/runs/0/training/software_date: expected a month \"YYYY-MM\" (a year "
                         "from 1970, a month from 01 to 12), got ";
    const auto row = [&](const char* name, const char* value, const QString& got) {
        QTest::newRow(name) << QString(R"(,"software":"Megatron-LM","software_date":%1)").arg(value)
                            << date + got;
    };
    row("month 13", R"("2021-13")", R"("2021-13")");
    row("month 00", R"("2021-00")", R"("2021-00")");
    row("one-digit month", R"("2021-4")", R"("2021-4")");
    row("two-digit year", R"("21-04")", R"("21-04")");
    row("a day", R"("2021-04-01")", R"("2021-04-01")");
    row("slash", R"("2021/04")", R"("2021/04")");
    row("signed", R"("+021-04")", R"("+021-04")");
    row("year 0000", R"("0000-04")", R"("0000-04")");
    row("empty", R"("")", R"("")");
    row("null", "null", "null");
    row("number", "202104", "202104");
    QTest::newRow("absent") << QString(R"(,"software":"Megatron-LM")")
                            << QString("/runs/0/training/software_date: missing required key");
    QTest::newRow("no stack") << QString(R"(,"software_date":"2021-04")")
                              << QString("/runs/0/training/software: missing required key");
}

void TestStackFeatures::malformedSoftwareDateNamesPointer()
{
    QFETCH(QString, stack);
    QFETCH(QString, message);
    const core::PublishedRunsLoad load =
        core::parsePublishedRuns(runText("2", stack.toStdString()), "runs.json");
    QVERIFY(!load.ok());
    QVERIFY(load.runs.empty());
    const std::string e = load.errors.front().toString();
    QVERIFY2(e.starts_with("runs.json: "), e.c_str());
    QVERIFY2(e.find(message.toStdString()) != std::string::npos, e.c_str());
}

void TestStackFeatures::yearMonthRoundTrips()
{
    for (const char* text : {"1970-01", "2021-04", "2022-12", "9999-12"}) {
        const std::optional<core::YearMonth> m = core::parseYearMonth(text);
        QVERIFY2(m.has_value(), text);
        QCOMPARE(core::toString(*m), std::string(text));
    }
    QVERIFY(!core::parseYearMonth("1969-12"));
    QVERIFY((core::YearMonth{2021, 12} < core::YearMonth{2022, 1}));
}

void TestStackFeatures::earlyRunGetsOnlyWhatItsStackHad_data()
{
    QTest::addColumn<QString>("software");
    QTest::addColumn<QString>("date");
    QTest::addColumn<bool>("restricted");
    QTest::addColumn<bool>("interleavingRestricted");
    QTest::newRow("Megatron-LM 2021-04") << "Megatron-LM"
                                         << "2021-04" << true << false;
    QTest::newRow("Megatron-LM 2020-06") << "Megatron-LM"
                                         << "2020-06" << true << true;
    QTest::newRow("MegaScale 2024-02") << "MegaScale"
                                       << "2024-02" << false << false;
    QTest::newRow("Megatron-LM 2023-09") << "Megatron-LM"
                                         << "2023-09" << false << false;
}

void TestStackFeatures::earlyRunGetsOnlyWhatItsStackHad()
{
    QFETCH(QString, software);
    QFETCH(QString, date);
    QFETCH(bool, restricted);
    QFETCH(bool, interleavingRestricted);
    const core::Catalog& catalog = core::builtinCatalog();
    const core::PublishedRun run = parsed(v2Run(software.toStdString(), date.toStdString()));
    const core::RunScenario rs = core::scenarioForRun(run, catalog);
    const core::Parallelism& par = rs.scenario.parallelism;
    const std::string lines = joined(rs.assumptions);
    const std::string stack = software.toStdString(), used = date.toStdString();
    if (restricted) {
        QVERIFY2(!par.sequenceParallel && !par.distributedOptimizer, lines.c_str());
        QVERIFY(par.recompute != core::Recompute::Selective);
        for (const std::string& line :
             {"sequence_parallel not published: off (sequence parallelism not tried: " + stack +
                  " had it from 2022-05, the run used " + used + ")",
              "distributed optimizer (not in the runs format): off (the distributed optimizer "
              "not tried: " +
                  stack + " had it from 2022-06, the run used " + used + ")"})
            QVERIFY2(lines.find(line) != std::string::npos, lines.c_str());
    } else {
        // The search is free: the same run chooses a feature the early one may not, so the
        // restriction above is what kept it out.
        QVERIFY2(par.sequenceParallel || par.distributedOptimizer, lines.c_str());
        QVERIFY2(lines.find("not tried") == std::string::npos, lines.c_str());
    }
    if (interleavingRestricted) {
        QCOMPARE(par.virtualStages, 1);
        const std::string line = "virtual_stages not published: 1 (the interleaved schedule not "
                                 "tried: Megatron-LM had it from 2021-02, the run used 2020-06)";
        QVERIFY2(lines.find(line) != std::string::npos, lines.c_str());
    }
    const core::Evaluation ev =
        core::evaluate(rs.scenario, catalog.mergedWith(rs.scenario.catalogOverrides));
    QVERIFY(ev.ok && ev.fitsInMemory);

    // The same run in version 1 (no date) searches every knob, as before.
    std::string v1 = runText("1", R"(,"software":")" + stack + "\"");
    const core::RunScenario free = core::scenarioForRun(parsed(v1), catalog);
    QVERIFY(joined(free.assumptions).find("not tried") == std::string::npos);
    QVERIFY(free.scenario.parallelism.sequenceParallel ||
            free.scenario.parallelism.distributedOptimizer);
}

void TestStackFeatures::publishedKnobsAreKeptWhateverTheDate()
{
    // A value the run publishes is taken as published, even one its stack's date says it did not
    // have yet.
    std::string text = v2Run("Megatron-LM", "2020-06");
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{R"("virtual_stages":null)", R"("virtual_stages":2)"},
          {R"("sequence_parallel":null)", R"("sequence_parallel":true)"},
          {R"("recompute":"full")", R"("recompute":"selective")"}})
        text.replace(text.find(from), from.size(), to);
    const core::RunScenario rs = core::scenarioForRun(parsed(text), core::builtinCatalog());
    QCOMPARE(rs.scenario.parallelism.virtualStages, 2);
    QVERIFY(rs.scenario.parallelism.sequenceParallel);
    QCOMPARE(rs.scenario.parallelism.recompute, core::Recompute::Selective);
    QVERIFY(!rs.scenario.parallelism.distributedOptimizer); // unpublished: restricted
}

void TestStackFeatures::version2FilesRestrictTheEarlyRuns()
{
    // The published 2021 Megatron-LM rows (Narayanan et al. 2021): neither sequence parallelism
    // nor the distributed optimizer, which Megatron-LM released in 2022.
    if (!std::filesystem::exists(kV2Runs))
        QSKIP("../shared/validation/v2 is absent");
    int checked = 0;
    for (const core::PublishedRun& run : core::loadPublishedRuns(kV2Runs).runs) {
        if (!run.id.starts_with("narayanan2021"))
            continue;
        const core::RunScenario rs = core::scenarioForRun(run, core::builtinCatalog());
        QVERIFY2(!rs.scenario.parallelism.sequenceParallel, run.id.c_str());
        QVERIFY2(!rs.scenario.parallelism.distributedOptimizer, run.id.c_str());
        QVERIFY(joined(rs.assumptions).find("the distributed optimizer not tried") !=
                std::string::npos);
        ++checked;
    }
    QCOMPARE(checked, 2);
}

QTEST_GUILESS_MAIN(TestStackFeatures)
#include "test_stackfeatures.moc"
