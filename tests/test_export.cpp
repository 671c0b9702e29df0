// Data export (io/evaluationcsv.h, explore/sweepcsv.h, `evaluate --csv`, `sweep --csv`): the CSV
// is RFC 4180 (read back here by a strict reader of our own), holds the same values as `--json`
// to the last bit, quotes what needs quoting, and a bad command line exits 2. Also the atomic
// writer the exports use (io/textfile.h) and `--version`.
#include "cli.h"
#include "clirun.h"
#include "evaluation/costmodel.h"
#include "explore/sweepcsv.h"
#include "io/csv.h"
#include "io/evaluationcsv.h"
#include "io/evaluationjson.h"
#include "io/scenarioio.h"
#include "io/textfile.h"
#include "model/diagnostic.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

using namespace archipelago;
using nlohmann::json;

namespace {

using Records = std::vector<std::vector<std::string>>;

// RFC 4180, strictly: records end in CRLF (the last one too), a quoted field doubles its quotes
// and may hold commas, CR and LF; a quote inside an unquoted field, a bare CR or LF outside
// quotes, or text after a closing quote is an error (nullopt). Every record has the header's
// field count.
std::optional<Records> readCsv(const std::string& text)
{
    Records records;
    std::vector<std::string> record;
    std::string field;
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (i < n) {
        if (text[i] == '"') {
            ++i;
            for (;;) {
                if (i >= n)
                    return std::nullopt; // unterminated
                if (text[i] == '"') {
                    if (i + 1 < n && text[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                field += text[i++];
            }
        } else {
            while (i < n && text[i] != ',' && text[i] != '\r' && text[i] != '\n') {
                if (text[i] == '"')
                    return std::nullopt;
                field += text[i++];
            }
        }
        if (i < n && text[i] == ',') {
            record.push_back(std::move(field));
            field.clear();
            ++i;
            if (i == n)
                return std::nullopt; // a record cut after a comma
        } else if (i + 1 < n && text[i] == '\r' && text[i + 1] == '\n') {
            record.push_back(std::move(field));
            field.clear();
            records.push_back(std::move(record));
            record.clear();
            i += 2;
        } else {
            return std::nullopt; // bare CR/LF, text after a closing quote, or no final CRLF
        }
    }
    if (!record.empty() || !field.empty())
        return std::nullopt;
    for (const std::vector<std::string>& r : records)
        if (r.size() != records.front().size())
            return std::nullopt;
    return records;
}

using Run = tests::CliRun;
using tests::runCli;

std::string preset(const char* name)
{
    return tests::presetPath(name);
}

// `cell` holds `value` exactly: a number reads back to the same double (no rounding, no
// thousands separators: from_chars must consume it all), null is empty, an array is joined.
bool sameValue(const std::string& cell, const json& value, const char* separator)
{
    switch (value.type()) {
    case json::value_t::null:
        return cell.empty();
    case json::value_t::boolean:
        return cell == (value.get<bool>() ? "true" : "false");
    case json::value_t::string:
        return cell == value.get<std::string>();
    case json::value_t::number_integer:
        return cell == std::to_string(value.get<std::int64_t>());
    case json::value_t::number_unsigned:
        return cell == std::to_string(value.get<std::uint64_t>());
    case json::value_t::number_float: {
        double v = 0.0;
        const auto r = std::from_chars(cell.data(), cell.data() + cell.size(), v);
        const double expected = value.get<double>();
        return r.ec == std::errc() && r.ptr == cell.data() + cell.size() &&
               std::memcmp(&v, &expected, sizeof v) == 0;
    }
    case json::value_t::array: {
        std::string joined;
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (value[i].is_string())
                joined += (i > 0 ? separator : "") + value[i].get<std::string>();
            else
                joined += (i > 0 ? separator : "") + value[i].dump();
        }
        return cell == joined;
    }
    default:
        return false;
    }
}

// Where a CSV column of an evaluation sits in evaluationToJson's object: at the top, in
// "breakdown", in "memory" as memory_*, in "goodput" as goodput_* (its interruptions by domain
// as goodput_interruptions_per_day_*), in "run_cost" as run_cost_*
// or in "datacenter_sync" as datacenter_sync_*; nullptr when nowhere.
const json* evaluationValue(const json& ev, const std::string& column)
{
    if (ev.contains(column))
        return &ev.at(column);
    if (ev.contains("breakdown") && ev.at("breakdown").contains(column))
        return &ev.at("breakdown").at(column);
    if (column.starts_with("memory_") && ev.contains("memory") &&
        ev.at("memory").contains(column.substr(7)))
        return &ev.at("memory").at(column.substr(7));
    if (column.starts_with("goodput_") && ev.contains("goodput") &&
        ev.at("goodput").contains(column.substr(8)))
        return &ev.at("goodput").at(column.substr(8));
    // goodput_interruptions_per_day_<domain>: goodput.interruptions_per_day_by_domain.<domain>
    const std::string byDomain = "goodput_interruptions_per_day_";
    if (column.starts_with(byDomain) && ev.contains("goodput") &&
        ev.at("goodput").contains("interruptions_per_day_by_domain") &&
        ev.at("goodput")
            .at("interruptions_per_day_by_domain")
            .contains(column.substr(byDomain.size())))
        return &ev.at("goodput")
                    .at("interruptions_per_day_by_domain")
                    .at(column.substr(byDomain.size()));
    if (column.starts_with("run_cost_") && ev.contains("run_cost") &&
        ev.at("run_cost").contains(column.substr(9)))
        return &ev.at("run_cost").at(column.substr(9));
    if (column.starts_with("datacenter_sync_") && ev.contains("datacenter_sync") &&
        ev.at("datacenter_sync").contains(column.substr(16)))
        return &ev.at("datacenter_sync").at(column.substr(16));
    return nullptr;
}

// Every cell of `row` (under `header`, from column `first` on) holds the JSON's value.
void compareRow(const std::vector<std::string>& header, const std::vector<std::string>& row,
                std::size_t first, const json& point, const json& ev, const QString& where)
{
    for (std::size_t c = first; c < header.size(); ++c) {
        const std::string& column = header[c];
        const json* value =
            point.contains(column) ? &point.at(column) : evaluationValue(ev, column);
        const QString what = where + " column " + QString::fromStdString(column) + ": '" +
                             QString::fromStdString(row[c]) + "'";
        if (!value) {
            // A knob the point does not have (the base's index, the base's global batch).
            QVERIFY2(row[c].empty(), qPrintable(what + " not in the JSON but not empty"));
            continue;
        }
        QVERIFY2(
            sameValue(row[c], *value, column == "warnings" ? "; " : "/"),
            qPrintable(what + " differs from the JSON's " + QString::fromStdString(value->dump())));
    }
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

private slots:
    void csvField_data();
    void csvField();
    void numbersKeepFullPrecision();
    void evaluateCsvMatchesJson();
    void evaluateCsvQuotesFileNames();
    void evaluateCsvRowsForFailedScenarios();
    void comparisonCsvAndJson();
    void sweepCsvMatchesJson();
    void sweepJsonToCsvSurvivesMissingKeys();
    void csvWithJsonIsAUsageError_data();
    void csvWithJsonIsAUsageError();
    void atomicWrite();
    void version();
};

void TestExport::csvField_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("field");
    QTest::newRow("plain") << QByteArray("dc-west") << QByteArray("dc-west");
    QTest::newRow("empty") << QByteArray("") << QByteArray("");
    QTest::newRow("comma") << QByteArray("a,b") << QByteArray("\"a,b\"");
    QTest::newRow("quote") << QByteArray("say \"hi\"") << QByteArray("\"say \"\"hi\"\"\"");
    QTest::newRow("spaces kept") << QByteArray(" a ") << QByteArray(" a ");
    QTest::newRow("utf-8") << QByteArray("Zürich–Genève") << QByteArray("Zürich–Genève");
}

void TestExport::csvField()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, field);
    QCOMPARE(QByteArray::fromStdString(core::csvField(text.toStdString())), field);
    // And it reads back as one field of one record.
    const std::optional<Records> back = readCsv(core::csvRecord({text.toStdString()}));
    QVERIFY(back);
    QCOMPARE(back->size(), std::size_t{1});
    QCOMPARE(QByteArray::fromStdString(back->front().front()), text);
}

void TestExport::numbersKeepFullPrecision()
{
    for (const double v : {0.1, 1.0 / 3.0, 28.74490063036524, 1e300, 5e-324, -0.0, 7724800.0,
                           3386196746387324928.0, 123456789.125}) {
        const std::string text = core::csvNumber(v);
        QVERIFY2(text.find(',') == std::string::npos, text.c_str());
        double back = 0.0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), back);
        QVERIFY2(r.ec == std::errc() && r.ptr == text.data() + text.size(), text.c_str());
        QVERIFY2(std::memcmp(&back, &v, sizeof v) == 0, text.c_str());
    }
    QCOMPARE(core::csvNumber(std::numeric_limits<double>::infinity()), std::string());
    QCOMPARE(core::csvNumber(std::numeric_limits<double>::quiet_NaN()), std::string());
    QCOMPARE(core::csvCell(json(7724800)), std::string("7724800"));
    QCOMPARE(core::csvCell(json::array({"clos", "rail-only"})), std::string("clos/rail-only"));
}

void TestExport::evaluateCsvMatchesJson()
{
    const std::vector<std::string> files = {preset("gpt3-175b-1024-a100.json"),
                                            preset("llama3-405b-two-buildings.json")};
    std::vector<std::string> args{"evaluate"};
    args.insert(args.end(), files.begin(), files.end());
    std::vector<std::string> jsonArgs = args, csvArgs = args;
    jsonArgs.push_back("--json");
    csvArgs.push_back("--csv");
    const Run j = runCli(jsonArgs);
    const Run c = runCli(csvArgs);
    QCOMPARE(j.exitCode, 0);
    QCOMPARE(c.exitCode, 0);
    const json evaluations = json::parse(j.out);
    QVERIFY(evaluations.is_array());
    QCOMPARE(evaluations.size(), files.size());
    const std::optional<Records> records = readCsv(c.out);
    QVERIFY2(records, c.out.c_str());
    QCOMPARE(records->size(), files.size() + 1);
    const std::vector<std::string>& header = records->front();
    QCOMPARE(header.front(), std::string("file"));
    for (const char* column :
         {"iteration_time_s", "network_capex_usd", "memory_peak_gib", "tokens_per_s", "forward_s",
          "dp_comm_s", "memory_weights_gib", "time_to_train_s", "gpus", "warnings"})
        QVERIFY2(std::find(header.begin(), header.end(), column) != header.end(), column);
    // Every scalar figure of the JSON has its column.
    for (const auto& item : evaluations.front().items())
        if (item.value().is_primitive())
            QVERIFY2(std::find(header.begin(), header.end(), item.key()) != header.end(),
                     item.key().c_str());
    for (std::size_t r = 0; r < files.size(); ++r) {
        const std::vector<std::string>& row = (*records)[r + 1];
        QCOMPARE(row.front(), files[r]);
        compareRow(header, row, 1, json::object(), evaluations[r],
                   QString::fromStdString(files[r]));
    }
    // One file: the same row as in the table of two.
    const Run one = runCli({"evaluate", "--csv", files.front()});
    QCOMPARE(one.exitCode, 0);
    const std::optional<Records> oneRecords = readCsv(one.out);
    QVERIFY(oneRecords);
    QCOMPARE(oneRecords->size(), std::size_t{2});
    QVERIFY((*oneRecords)[1] == (*records)[1]);
}

void TestExport::evaluateCsvQuotesFileNames()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string name = dir.path().toStdString() + "/dc \"west\", v2\nsecond line.json";
    std::filesystem::copy_file(preset("gpt3-175b-1024-a100.json"), name);
    const Run c = runCli({"evaluate", "--csv", name});
    QCOMPARE(c.exitCode, 0);
    const std::optional<Records> records = readCsv(c.out);
    QVERIFY2(records, c.out.c_str());
    QCOMPARE(records->size(), std::size_t{2});
    // The line break is escaped as the text output escapes it (a raw one could forge a record
    // in a careless reader); quotes and the comma are quoted.
    QCOMPARE((*records)[1].front(), core::displayText(name));
    QVERIFY(c.out.find("\"\"west\"\", v2\\u000asecond line.json\"") != std::string::npos);
}

void TestExport::evaluateCsvRowsForFailedScenarios()
{
    // A scenario the cost model refuses still has its row (ok false, figures empty), exit 1; a
    // file that does not load has none.
    QTemporaryDir dir;
    const core::LoadResult load = core::loadScenarioFile(preset("gpt3-175b-1024-a100.json"));
    QVERIFY(load.ok());
    core::Scenario bad = *load.scenario;
    bad.parallelism.tp = 3; // does not divide the heads nor the scale-up domain
    const std::string badFile = dir.filePath("bad.json").toStdString();
    std::string error;
    QVERIFY(core::writeTextFileAtomically(badFile, core::serializeScenario(bad, {}), error));
    const Run c =
        runCli({"evaluate", "--csv", badFile, dir.filePath("missing.json").toStdString()});
    QCOMPARE(c.exitCode, 1);
    const std::optional<Records> records = readCsv(c.out);
    QVERIFY2(records, c.out.c_str());
    const core::Evaluation ev = core::evaluate(bad);
    QCOMPARE(records->size(), std::size_t{2});
    const std::vector<std::string>& header = records->front();
    const std::size_t ok = std::find(header.begin(), header.end(), "ok") - header.begin();
    QCOMPARE((*records)[1][ok], std::string(ev.ok ? "true" : "false"));
    QVERIFY(!c.err.empty());
}

void TestExport::comparisonCsvAndJson()
{
    const core::LoadResult load = core::loadScenarioFile(preset("gpt3-175b-1024-a100.json"));
    QVERIFY(load.ok());
    core::Scenario other = *load.scenario;
    other.parallelism.pp = 16;
    const core::Evaluation a = core::evaluate(*load.scenario);
    const core::Evaluation b = core::evaluate(other);
    const std::string awkward = "Pin \"A\", west\r\nline 2";
    const std::vector<core::ComparedPoint> points = {{awkward, "#112233", &*load.scenario, &a},
                                                     {"Pending", "", &other, nullptr},
                                                     {"Current", "#000000", &other, &b}};
    const json j = core::comparisonToJson(points);
    QCOMPARE(j.size(), std::size_t{3});
    QCOMPARE(j[0]["name"].get<std::string>(), awkward);
    QCOMPARE(j[0]["knobs"]["pp"].get<int>(), load.scenario->parallelism.pp);
    QCOMPARE(j[2]["knobs"]["pp"].get<int>(), 16);
    QVERIFY(j[1]["evaluation"].is_null());
    QCOMPARE(j[2]["evaluation"]["iteration_time_s"].get<double>(), b.iterationTimeS);

    const std::optional<Records> records = readCsv(core::comparisonToCsv(points));
    QVERIFY(records);
    QCOMPARE(records->size(), std::size_t{4});
    const std::vector<std::string>& header = records->front();
    QCOMPARE(header[0], std::string("name"));
    QCOMPARE(header[1], std::string("color"));
    QCOMPARE((*records)[1][0], core::displayText(awkward));
    QCOMPARE((*records)[2][0], std::string("Pending"));
    for (std::size_t r = 0; r < points.size(); ++r) {
        const json& point = j[r];
        const json ev = point["evaluation"].is_null() ? json::object() : point["evaluation"];
        compareRow(header, (*records)[r + 1], 2, point["knobs"], ev,
                   QString::fromStdString(points[r].name));
    }
    // The pending pin's figures are empty, its knobs are not.
    const std::size_t it =
        std::find(header.begin(), header.end(), "iteration_time_s") - header.begin();
    const std::size_t tp = std::find(header.begin(), header.end(), "tp") - header.begin();
    QVERIFY(it < header.size() && tp < header.size());
    QVERIFY((*records)[2][it].empty());
    QCOMPARE((*records)[2][tp], std::to_string(other.parallelism.tp));
}

void TestExport::sweepCsvMatchesJson()
{
    for (const char* name : {"gpt3-175b-1024-a100.json", "llama3-405b-two-buildings.json"}) {
        const std::string file = preset(name);
        const Run j = runCli({"sweep", file, "--json", "--top", "4", "--threads", "2"});
        const Run c = runCli({"sweep", file, "--csv", "--top", "4", "--threads", "2"});
        QCOMPARE(j.exitCode, 0);
        QCOMPARE(c.exitCode, 0);
        const json sweep = json::parse(j.out);
        const std::optional<Records> records = readCsv(c.out);
        QVERIFY2(records, name);
        const std::vector<std::string>& header = records->front();
        QCOMPARE(header[0], std::string("list"));
        QCOMPARE(header[1], std::string("rank"));
        for (const char* column : {"iteration_time_s", "network_capex_usd", "memory_peak_gib",
                                   "total_cost_usd", "tp", "pp", "schedule", "description"})
            QVERIFY2(std::count(header.begin(), header.end(), column) == 1, column);
        std::size_t expectedRows = 1;
        for (const auto& list : sweep["top_by_objective"].items())
            expectedRows += list.value().size();
        for (const auto& front : sweep["fronts"].items())
            expectedRows += front.value().size();
        QCOMPARE(records->size(), expectedRows + 1);
        QCOMPARE((*records)[1][0], std::string("base"));
        QCOMPARE((*records)[1][1], std::to_string(sweep["base_rank"].get<std::uint64_t>()));
        for (std::size_t r = 1; r < records->size(); ++r) {
            const std::vector<std::string>& row = (*records)[r];
            const std::string& list = row[0];
            const json* point = nullptr;
            const std::size_t rank = std::stoul(row[1]);
            if (list == "base") {
                QCOMPARE(r, std::size_t{1});
                point = &sweep["base"];
            } else if (list.starts_with("top_")) {
                point = &sweep["top_by_objective"][list.substr(4)][rank - 1];
            } else {
                QVERIFY2(list.starts_with("front_"), list.c_str());
                point = &sweep["fronts"][list.substr(6)][rank - 1];
            }
            compareRow(header, row, 2, *point, (*point)["evaluation"],
                       QString("%1 row %2 (%3)").arg(name).arg(r).arg(list.c_str()));
        }
    }
}

void TestExport::sweepJsonToCsvSurvivesMissingKeys()
{
    for (const json& j : {json(), json::object(), json::array({1, 2}),
                          json{{"base", 3}, {"top_by_objective", {{"iteration_time", 4}}}},
                          json{{"fronts", {{"x", json::array({json::object(), 5})}}}}}) {
        const std::optional<Records> records = readCsv(core::sweepJsonToCsv(j));
        QVERIFY2(records, j.dump().c_str());
        QVERIFY(records->size() >= 2);
    }
    const std::optional<Records> empty = readCsv(core::evaluationsToCsv(json::array()));
    QVERIFY(empty);
    QCOMPARE(empty->size(), std::size_t{1});
}

void TestExport::csvWithJsonIsAUsageError_data()
{
    QTest::addColumn<QStringList>("args");
    const QString file = QString::fromStdString(preset("gpt3-175b-1024-a100.json"));
    QTest::newRow("evaluate --csv --json") << QStringList{"evaluate", file, "--csv", "--json"};
    QTest::newRow("evaluate --json --csv") << QStringList{"evaluate", "--json", "--csv", file};
    QTest::newRow("sweep --csv --json") << QStringList{"sweep", file, "--csv", "--json"};
    QTest::newRow("evaluate --csv, no file") << QStringList{"evaluate", "--csv"};
    QTest::newRow("evaluate --csv=1") << QStringList{"evaluate", "--csv=1", file};
}

void TestExport::csvWithJsonIsAUsageError()
{
    QFETCH(QStringList, args);
    std::vector<std::string> a;
    for (const QString& s : args)
        a.push_back(s.toStdString());
    const Run run = runCli(a);
    QCOMPARE(run.exitCode, cli::kExitUsage);
    QVERIFY(run.out.empty());
    QVERIFY(run.err.find("Usage:") != std::string::npos);
}

void TestExport::atomicWrite()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("out.csv").toStdString();
    std::string error;
    QVERIFY(core::writeTextFileAtomically(path, "first\r\n", error));
    QVERIFY(core::writeTextFileAtomically(path, "second, longer\r\n", error));
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("second, longer\r\n"));
    // Nothing left beside it.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    // The permissions a created file gets.
    const mode_t mask = ::umask(022);
    ::umask(mask);
    struct stat st
    {};
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777u, 0666u & ~static_cast<unsigned>(mask));
    // Failures say why and leave nothing behind.
    QVERIFY(
        !core::writeTextFileAtomically(dir.filePath("no/such/dir.csv").toStdString(), "x", error));
    QVERIFY(!error.empty());
    error.clear();
    QVERIFY(!core::writeTextFileAtomically(dir.path().toStdString(), "x", error));
    QVERIFY(!error.empty());
    QVERIFY(!core::writeTextFileAtomically("", "x", error));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    // `sweep -o` writes through it.
    const std::string out = dir.filePath("sweep.json").toStdString();
    const Run run =
        runCli({"sweep", preset("gpt3-175b-1024-a100.json"), "--csv", "--top", "1", "-o", out});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(readCsv(run.out));
    QFile o(QString::fromStdString(out));
    QVERIFY(o.open(QIODevice::ReadOnly));
    QVERIFY(json::parse(o.readAll().toStdString()).contains("top_by_objective"));
    const Run bad = runCli({"sweep", preset("gpt3-175b-1024-a100.json"), "--top", "1", "-o",
                            dir.filePath("no/such/dir.json").toStdString()});
    QCOMPARE(bad.exitCode, cli::kExitInvalidInput);
    QVERIFY(bad.err.find("cannot write") != std::string::npos);
}

void TestExport::version()
{
    const Run run = runCli({"--version"});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out, std::string("archipelago-cli ") + ARCHIPELAGO_PROJECT_VERSION + "\n");
}

QTEST_GUILESS_MAIN(TestExport)
#include "test_export.moc"
