// Golden outputs: `evaluate --json` of every preset and `validate --json` of the published-runs
// files, written before a refactoring and compared after it, so that a change meant to keep
// every number the same is proven to (integers, strings and booleans exactly, numbers to 1e-9
// relative). A change that is meant to move numbers regenerates the files on purpose:
//   ARCHIPELAGO_UPDATE_GOLDEN=1 build/release/tests/test_golden
// and says why in its commit.
#include "cli.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace archipelago;
namespace fs = std::filesystem;

class TestGolden : public QObject
{
    Q_OBJECT
private slots:
    void matchesGolden_data();
    void matchesGolden();
    void comparatorCatchesDifferences();
};

namespace {

const fs::path kGoldenDir = fs::path(ARCHIPELAGO_TEST_DATA) / "golden";

// The first difference between two JSON values as "pointer: expected X, got Y", or "".
std::string firstDifference(const nlohmann::json& expected, const nlohmann::json& actual,
                            const std::string& pointer = "")
{
    const auto describe = [](const nlohmann::json& j) {
        std::string s = j.dump();
        return s.size() > 80 ? s.substr(0, 77) + "..." : s;
    };
    const std::string where = pointer.empty() ? "/" : pointer;
    if (expected.is_number_float() || actual.is_number_float()) {
        if (!expected.is_number() || !actual.is_number())
            return where + ": expected " + describe(expected) + ", got " + describe(actual);
        const double a = expected.get<double>();
        const double b = actual.get<double>();
        const double scale = std::max(std::abs(a), std::abs(b));
        if (std::abs(a - b) > 1e-9 * scale)
            return where + ": expected " + describe(expected) + ", got " + describe(actual);
        return {};
    }
    if (expected.type() != actual.type())
        return where + ": expected " + describe(expected) + ", got " + describe(actual);
    if (expected.is_object()) {
        for (const auto& [key, value] : expected.items()) {
            if (!actual.contains(key))
                return pointer + "/" + key + ": missing";
            if (std::string d = firstDifference(value, actual[key], pointer + "/" + key);
                !d.empty())
                return d;
        }
        for (const auto& [key, value] : actual.items())
            if (!expected.contains(key))
                return pointer + "/" + key + ": not in the golden file";
        return {};
    }
    if (expected.is_array()) {
        if (expected.size() != actual.size())
            return where + ": expected " + std::to_string(expected.size()) + " elements, got " +
                   std::to_string(actual.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
            if (std::string d =
                    firstDifference(expected[i], actual[i], pointer + "/" + std::to_string(i));
                !d.empty())
                return d;
        return {};
    }
    if (expected != actual)
        return where + ": expected " + describe(expected) + ", got " + describe(actual);
    return {};
}

} // namespace

void TestGolden::matchesGolden_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("golden");
    std::vector<fs::path> presets;
    for (const auto& entry : fs::directory_iterator(fs::path(ARCHIPELAGO_SOURCE_DIR) / "presets"))
        if (entry.path().extension() == ".json")
            presets.push_back(entry.path());
    std::sort(presets.begin(), presets.end());
    for (const fs::path& p : presets)
        QTest::newRow(("evaluate " + p.stem().string()).c_str())
            << "evaluate" << QString::fromStdString(p.string())
            << QString::fromStdString("evaluate-" + p.stem().string() + ".json");
    const std::vector<fs::path> runs = {
        fs::path(ARCHIPELAGO_VALIDATION_DIR) / "published-runs.json",
        fs::path(ARCHIPELAGO_VALIDATION_DIR) / "published-runs-h100-megascale.json",
        fs::path(ARCHIPELAGO_TEST_DATA) / "hopper-runs.json"};
    for (const fs::path& p : runs)
        QTest::newRow(("validate " + p.stem().string()).c_str())
            << "validate" << QString::fromStdString(p.string())
            << QString::fromStdString("validate-" + p.stem().string() + ".json");
}

void TestGolden::matchesGolden()
{
    QFETCH(QString, command);
    QFETCH(QString, input);
    QFETCH(QString, golden);
    if (!fs::exists(input.toStdString()))
        QSKIP(qPrintable(input + " is absent"));
    std::ostringstream out, err;
    const int code = cli::run({command.toStdString(), input.toStdString(), "--json"}, out, err);
    // validate exits 1 when a run cannot be evaluated; the output is still the golden record.
    QVERIFY2(code == cli::kExitOk || code == cli::kExitInvalidInput, err.str().c_str());
    nlohmann::json actual = nlohmann::json::parse(out.str());
    // The input's path is where this checkout happens to be, not a result.
    if (actual.contains("file"))
        actual["file"] = fs::path(actual["file"].get<std::string>()).filename().string();
    const fs::path path = kGoldenDir / golden.toStdString();
    if (std::getenv("ARCHIPELAGO_UPDATE_GOLDEN")) {
        fs::create_directories(kGoldenDir);
        std::ofstream(path) << actual.dump(1) << '\n';
        QSKIP("golden file written");
    }
    std::ifstream in(path);
    QVERIFY2(in.good(), qPrintable("no golden file " + QString::fromStdString(path.string())));
    nlohmann::json expected = nlohmann::json::parse(in);
    if (expected.contains("file"))
        expected["file"] = fs::path(expected["file"].get<std::string>()).filename().string();
    const std::string difference = firstDifference(expected, actual);
    QVERIFY2(difference.empty(), difference.c_str());
}

void TestGolden::comparatorCatchesDifferences()
{
    const auto j = [](const char* text) { return nlohmann::json::parse(text); };
    QVERIFY(firstDifference(j(R"({"a":1.0})"), j(R"({"a":1.0000000001})")).empty());
    QVERIFY(!firstDifference(j(R"({"a":1.0})"), j(R"({"a":1.00001})")).empty());
    QVERIFY(!firstDifference(j(R"({"a":1})"), j(R"({"a":2})")).empty());
    QVERIFY(!firstDifference(j(R"({"a":"x"})"), j(R"({"a":"y"})")).empty());
    QVERIFY(!firstDifference(j(R"({"a":[1,2]})"), j(R"({"a":[1]})")).empty());
    QVERIFY(!firstDifference(j(R"({"a":1})"), j(R"({"a":1,"b":2})")).empty());
    QCOMPARE(firstDifference(j(R"({"a":{"b":[0,5]}})"), j(R"({"a":{"b":[0,6]}})")),
             std::string("/a/b/1: expected 5, got 6"));
}

QTEST_GUILESS_MAIN(TestGolden)
#include "test_golden.moc"
