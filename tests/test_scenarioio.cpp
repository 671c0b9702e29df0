// Scenario JSON I/O: round trips, every kind of malformed input, warnings, migration, catalog.
#include "io/migration.h"
#include "io/scenarioio.h"
#include "scenariofixtures.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

using namespace archipelago;
using Json = nlohmann::ordered_json;

namespace {

QString joined(const std::vector<core::Diagnostic>& diagnostics)
{
    QStringList lines;
    for (const auto& d : diagnostics)
        lines << QString::fromStdString(d.toString());
    return lines.join('\n');
}

bool hasPointer(const std::vector<core::Diagnostic>& diagnostics, const QString& pointer)
{
    return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const core::Diagnostic& d) {
        return QString::fromStdString(d.pointer) == pointer;
    });
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

// The fixture scenario as JSON text with the value at `pointer` replaced by the raw text `raw`
// (raw, so that values nlohmann cannot hold, such as 1e999, can be spliced in), or removed when
// `raw` is null.
QByteArray patched(const char* pointer, const QByteArray& raw)
{
    constexpr const char* kMarker = "@@RAW@@";
    Json doc = Json::parse(core::serializeScenario(tests::multiDcScenario()));
    const Json::json_pointer ptr(pointer);
    if (raw.isNull()) {
        Json& parent = doc.at(ptr.parent_pointer());
        if (parent.is_array())
            parent.erase(std::stoul(ptr.back()));
        else
            parent.erase(ptr.back());
        return QByteArray::fromStdString(doc.dump(2));
    }
    doc[ptr] = kMarker;
    QByteArray text = QByteArray::fromStdString(doc.dump(2));
    text.replace(QByteArray("\"") + kMarker + "\"", raw);
    return text;
}

} // namespace

class TestScenarioIo : public QObject
{
    Q_OBJECT

private slots:
    void builtinCatalogParses();
    void fixtureIsValid();
    void roundTripFixture();
    void roundTripDoubles();
    void roundTripSplitShard();
    void latentAttentionAndRoutingRoundTrip();
    void roundTripPresets_data();
    void roundTripPresets();
    void outputKeyOrder();
    void malformed_data();
    void malformed();
    void collectsAllErrors();
    void unknownKeysWarn();
    void diagnosticsAreCapped();
    void semanticWarningStillLoads();
    void migrationGolden_data();
    void migrationGolden();
    void migrationChainRunsInOrder();
    void loadFileErrors();
    void checkScenarioSurvivesHostileValues();
    void diagnosticToString();
    void pinsRoundTrip();
    void pinsErrorsNameThePin_data();
    void pinsErrorsNameThePin();
    void pinsUnknownKeysWarn();
};

void TestScenarioIo::builtinCatalogParses()
{
    const QByteArray text = readFile(ARCHIPELAGO_SOURCE_DIR "/resources/catalog.json");
    std::vector<core::Diagnostic> diagnostics;
    const auto catalog = core::parseCatalog(text.toStdString(), "catalog.json", diagnostics);
    QVERIFY2(catalog.has_value(), qPrintable(joined(diagnostics)));
    QVERIFY2(diagnostics.empty(), qPrintable(joined(diagnostics)));
    QCOMPARE(*catalog, core::builtinCatalog());
}

void TestScenarioIo::fixtureIsValid()
{
    const core::Scenario s = tests::multiDcScenario();
    const auto diagnostics =
        core::checkScenario(s, core::builtinCatalog().mergedWith(s.catalogOverrides), "fixture");
    QVERIFY2(diagnostics.empty(), qPrintable(joined(diagnostics)));
}

void TestScenarioIo::roundTripFixture()
{
    const core::Scenario s = tests::multiDcScenario();
    const std::string text = core::serializeScenario(s);
    const core::LoadResult r = core::parseScenario(text, "fixture.json");
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    QVERIFY2(r.warnings.empty(), qPrintable(joined(r.warnings)));
    QVERIFY(*r.scenario == s);
    // Saving again gives the same bytes: files do not churn between saves.
    QCOMPARE(core::serializeScenario(*r.scenario), text);
}

// Multi-head latent attention, node-limited FP8 routing and the blockwise FP8 recipe are
// written back exactly; a file without them (every file before they existed) reads as
// standard attention, a flat BF16 all-to-all and delayed scaling, and is written back without
// them.
void TestScenarioIo::latentAttentionAndRoutingRoundTrip()
{
    const core::Scenario plain = tests::multiDcScenario();
    QVERIFY(!plain.workload.mla.enabled());
    const std::string plainText = core::serializeScenario(plain);
    QVERIFY(plainText.find("\"attention\"") == std::string::npos);
    QVERIFY(plainText.find("max_nodes_per_token") == std::string::npos);
    QVERIFY(plainText.find("dispatch_precision") == std::string::npos);
    QVERIFY(plainText.find("fp8_recipe") == std::string::npos);
    QVERIFY(plainText.find("mtp_depth") == std::string::npos);
    QCOMPARE(plain.workload.fp8Recipe, core::Fp8Recipe::Delayed);

    core::Scenario s = plain;
    s.workload.precision = core::Precision::Fp8;
    s.workload.fp8Recipe = core::Fp8Recipe::Blockwise;
    s.workload.mtpDepth = 1;
    s.workload.moe = core::MoeConfig{256, 8, 2048, 1, 3, 4, core::Precision::Fp8};
    s.workload.mla = core::MlaConfig{1536, 512, 128, 64, 128};
    const std::string text = core::serializeScenario(s);
    const Json doc = Json::parse(text);
    QCOMPARE(doc["workload"]["attention"]["kind"].get<std::string>(), std::string("mla"));
    QCOMPARE(doc["workload"]["attention"]["kv_lora_rank"].get<int>(), 512);
    QCOMPARE(doc["workload"]["moe"]["max_nodes_per_token"].get<int>(), 4);
    QCOMPARE(doc["workload"]["moe"]["dispatch_precision"].get<std::string>(), std::string("fp8"));
    QCOMPARE(doc["workload"]["fp8_recipe"].get<std::string>(), std::string("blockwise"));
    QCOMPARE(doc["workload"]["mtp_depth"].get<int>(), 1);
    const core::LoadResult r = core::parseScenario(text, "mla.json");
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    QVERIFY2(r.warnings.empty(), qPrintable(joined(r.warnings)));
    QVERIFY(*r.scenario == s);
    QCOMPARE(core::serializeScenario(*r.scenario), text);

    // "mha" names standard attention explicitly; it reads as the absent block.
    Json mha = Json::parse(plainText);
    mha["workload"]["attention"] = Json{{"kind", "mha"}};
    const core::LoadResult m = core::parseScenario(mha.dump(2), "mha.json");
    QVERIFY2(m.ok(), qPrintable(joined(m.errors)));
    QVERIFY(m.scenario->workload == plain.workload);
}

void TestScenarioIo::roundTripSplitShard()
{
    // One shard whose TP groups span both datacenters: tp * cp * 8 * 4 / 2 = 256 GPUs in each.
    core::Scenario s = tests::multiDcScenario();
    s.placement.shards = {{8, {0, 0, 4, 4}, {0, 4}, core::ParallelDim::Tp}};
    const std::string text = core::serializeScenario(s);
    QVERIFY(text.find("\"split_datacenters\"") != std::string::npos);
    const core::LoadResult r = core::parseScenario(text, "split.json");
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    QVERIFY(*r.scenario == s);
    QCOMPARE(core::serializeScenario(*r.scenario), text);
    // Legal, but it warns at the split dimension.
    QVERIFY2(hasPointer(r.warnings, "/placement/shards/0/split_dim"),
             qPrintable(joined(r.warnings)));
    QVERIFY(joined(r.warnings).contains("TP 8 is split across dc-"));
    // CP split too.
    s.placement.shards.front().splitDim = core::ParallelDim::Cp;
    const core::LoadResult cp = core::parseScenario(core::serializeScenario(s), "split.json");
    QVERIFY2(cp.ok(), qPrintable(joined(cp.errors)));
    QVERIFY(*cp.scenario == s);
    QVERIFY(joined(cp.warnings).contains("CP 2 is split across"));
    // Files without a split do not mention it.
    QVERIFY(core::serializeScenario(tests::multiDcScenario()).find("split_") == std::string::npos);
}

void TestScenarioIo::roundTripDoubles()
{
    core::Scenario s = tests::multiDcScenario();
    auto& dcs = s.topology.datacenters;
    dcs[0].x = 0.1;
    dcs[0].y = std::numeric_limits<double>::denorm_min();
    dcs[1].x = std::numeric_limits<double>::max();
    dcs[1].y = -1e-300;
    s.workload.trainTokens = 1.0 / 7.0 * 1e13;
    s.topology.links[0].equipmentLatencyS = 2.9999999999999997e-5;
    s.topology.links[0].windowBytes = 16777216.000000002;
    const core::LoadResult r = core::parseScenario(core::serializeScenario(s), "doubles.json");
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    QVERIFY(*r.scenario == s); // bit-exact: operator== compares doubles with ==
}

void TestScenarioIo::roundTripPresets_data()
{
    QTest::addColumn<QString>("path");
    const QDir dir(ARCHIPELAGO_SOURCE_DIR "/presets");
    const QStringList files = dir.entryList({"*.json"}, QDir::Files, QDir::Name);
    for (const QString& file : files)
        QTest::newRow(qPrintable(file)) << dir.filePath(file);
    if (files.isEmpty())
        QTest::newRow("no presets yet") << QString();
}

void TestScenarioIo::roundTripPresets()
{
    QFETCH(QString, path);
    if (path.isEmpty())
        QSKIP("presets/ holds no scenario yet");
    const core::LoadResult r = core::loadScenarioFile(path.toStdString());
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    const std::string text = core::serializeScenario(*r.scenario);
    const core::LoadResult again = core::parseScenario(text, "saved");
    QVERIFY2(again.ok(), qPrintable(joined(again.errors)));
    QVERIFY(*again.scenario == *r.scenario);
    QCOMPARE(core::serializeScenario(*again.scenario), text);
}

void TestScenarioIo::outputKeyOrder()
{
    const Json doc = Json::parse(core::serializeScenario(tests::multiDcScenario()));
    QStringList keys;
    for (const auto& [key, value] : doc.items())
        keys << QString::fromStdString(key);
    QCOMPARE(keys, QStringList({"format", "version", "name", "description", "catalog", "topology",
                                "workload", "parallelism", "placement", "schedule"}));
    // Without overrides there is no catalog key.
    core::Scenario s = tests::multiDcScenario();
    s.catalogOverrides = {};
    QVERIFY(!Json::parse(core::serializeScenario(s)).contains("catalog"));
    // Two-space indentation.
    QVERIFY(QByteArray::fromStdString(core::serializeScenario(s))
                .contains(QByteArray("\n  \"version\": ") +
                          QByteArray::number(core::kScenarioVersion)));
}

void TestScenarioIo::malformed_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("pointer"); // must appear in an error

    const auto raw = [](const char* name, const QByteArray& text, const char* pointer) {
        QTest::newRow(name) << text << QString(pointer);
    };
    const auto set = [](const char* name, const char* pointer, const QByteArray& value,
                        const char* expected) {
        QTest::newRow(name) << patched(pointer, value) << QString(expected);
    };
    const auto remove = [](const char* name, const char* pointer, const char* expected) {
        QTest::newRow(name) << patched(pointer, QByteArray()) << QString(expected);
    };
    const QByteArray valid = patched("/name", "\"valid\"");
    const QByteArray head = R"({"format": "archipelago-scenario", "version": 1, )";

    // Not JSON, or not a JSON object.
    raw("empty", "", "");
    raw("whitespace only", " \n\t ", "");
    raw("syntax error", head + R"("name": "x",, })", "");
    raw("truncated", head + R"("topology": {"datacenters": [)", "/topology/datacenters/0");
    raw("truncated serialization", valid.left(valid.indexOf("\"dci_links\": [") + 14),
        "/topology/dci_links/0");
    raw("binary garbage", QByteArray("\x00\xff\xfe\x89PNG\r\n\x1a\n\x00\x00", 12), "");
    raw("invalid utf-8 in string", head + "\"name\": \"\xff\xfe\"}", "/name");
    raw("NaN literal", head + R"("workload": {"train_tokens": NaN}})", "/workload/train_tokens");
    raw("root is an array", "[1, 2, 3]", "");
    raw("root is a string", "\"archipelago-scenario\"", "");
    raw("duplicate key", R"({"format": "archipelago-scenario", "format": "x", "version": 1})",
        "/format");
    raw("nested too deep", QByteArray(100, '[') + QByteArray(100, ']'),
        qPrintable(QString("/0").repeated(64)));

    // Format and version.
    set("wrong format", "/format", "\"archipelago-catalog\"", "/format");
    remove("missing format", "/format", "/format");
    set("version too new", "/version", "7", "/version");
    set("version negative", "/version", "-1", "/version");
    set("version as string", "/version", "\"1\"", "/version");
    remove("missing version", "/version", "/version");

    // Types and required keys.
    set("string for a degree", "/parallelism/tp", "\"eight\"", "/parallelism/tp");
    // Was: names of any length; 1 MB names kept the PDF report busy past 900 s.
    set("name too long", "/name", '"' + QByteArray(1025, 'n') + '"', "/name");
    set("datacenter name too long", "/topology/datacenters/0/name",
        '"' + QByteArray(100'000, 'd') + '"', "/topology/datacenters/0/name");
    {
        QByteArray many = "[";
        for (int i = 0; i <= 100; ++i)
            many += QByteArray(i > 0 ? "," : "") + R"({"name": "p", "scenario": {}})";
        set("too many pins", "/pins", many + "]", "/pins");
    }
    set("description too long", "/description", '"' + QByteArray(16 * 1024 + 1, 't') + '"',
        "/description");
    set("array for an object", "/workload", "[]", "/workload");
    set("number for a string", "/topology/datacenters/0/accelerator", "42",
        "/topology/datacenters/0/accelerator");
    set("fractional count", "/topology/datacenters/0/pods/0/count", "2.5",
        "/topology/datacenters/0/pods/0/count");
    set("unknown enum value", "/topology/datacenters/0/fabric/kind", "\"fat-tree\"",
        "/topology/datacenters/0/fabric/kind");
    set("position of one number", "/topology/datacenters/0/position", "[1]",
        "/topology/datacenters/0/position");
    remove("missing layers", "/workload/layers", "/workload/layers");
    remove("missing topology", "/topology", "/topology");
    remove("missing pod count", "/topology/datacenters/1/pods/0/count",
           "/topology/datacenters/1/pods/0/count");

    // Numbers out of range.
    set("negative count", "/topology/datacenters/0/pods/0/count", "-3",
        "/topology/datacenters/0/pods/0/count");
    set("zero gpus per domain", "/topology/datacenters/1/pods/0/gpus_per_domain", "0",
        "/topology/datacenters/1/pods/0/gpus_per_domain");
    set("overflowing double", "/workload/train_tokens", "1e999", "/workload/train_tokens");
    set("overflowing negative double", "/topology/dci_links/0/distance_km", "-1e999",
        "/topology/dci_links/0/distance_km");
    set("integer beyond int64", "/workload/hidden", "99999999999999999999", "/workload/hidden");
    set("integer beyond int32", "/parallelism/pp", "2147483648", "/parallelism/pp");
    set("more than 10^8 GPUs", "/topology/datacenters/0/pods/0/count", "2000000000",
        "/topology/datacenters/0/pods/0/count");
    set("distance beyond half the earth", "/topology/dci_links/0/distance_km", "25000",
        "/topology/dci_links/0/distance_km");
    set("loss rate above 1", "/topology/dci_links/0/packet_loss_rate", "1.5",
        "/topology/dci_links/0/packet_loss_rate");
    set("oversubscription below 1", "/topology/datacenters/0/fabric/leaf_oversubscription", "0.5",
        "/topology/datacenters/0/fabric/leaf_oversubscription");
    set("four tiers", "/topology/datacenters/0/fabric/tiers", "4",
        "/topology/datacenters/0/fabric/tiers");
    set("zero stage 5", "/parallelism/zero_stage", "5", "/parallelism/zero_stage");
    set("zero layers", "/workload/layers", "0", "/workload/layers");

    // References and ids.
    set("dangling link end", "/topology/dci_links/0/b", "9", "/topology/dci_links/0/b");
    set("self loop", "/topology/dci_links/0/b", "0", "/topology/dci_links/0/b");
    set("duplicate datacenter id", "/topology/datacenters/1/id", "0", "/topology/datacenters/1/id");
    set("duplicate link id", "/topology/dci_links/1",
        R"({"id": 7, "a": 4, "b": 0, "distance_km": 60, "wavelengths": 8,
            "Gbps_per_wavelength": 400})",
        "/topology/dci_links/1/id");
    set("dangling region", "/topology/datacenters/0/region", "9", "/topology/datacenters/0/region");
    set("unknown accelerator", "/topology/datacenters/0/accelerator", "\"B300-imaginary\"",
        "/topology/datacenters/0/accelerator");
    set("unknown optic", "/topology/dci_links/0/optic", "\"nope\"", "/topology/dci_links/0/optic");
    remove("disconnected datacenters", "/topology/dci_links/0", "/topology/dci_links");
    set("dangling stage datacenter", "/placement/shards/0/stage_datacenters/3", "9",
        "/placement/shards/0/stage_datacenters/3");

    // Consistency of the parallel layout.
    // Fewer GPUs than the topology holds is a warning (spare GPUs), more an error.
    set("degrees place more GPUs than the topology holds", "/parallelism/tp", "16", "/parallelism");
    set("tp does not divide heads", "/parallelism/tp", "3", "/parallelism/tp");
    set("kv_heads does not divide heads", "/workload/kv_heads", "7", "/workload/kv_heads");
    set("stage list of wrong size", "/placement/shards/0/stage_datacenters", "[0, 0, 4]",
        "/placement/shards/0/stage_datacenters");
    set("layers per stage do not sum", "/placement/layers_per_stage", "[8, 8, 8, 9]",
        "/placement/layers_per_stage");
    set("global batch not divisible", "/workload/global_batch", "500", "/workload/global_batch");
    set("ep does not divide experts", "/parallelism/ep", "3", "/parallelism/ep");
    remove("ep on a dense model", "/workload/moe", "/parallelism/ep");
    set("seq_len not divisible by 2cp", "/workload/seq_len", "8190", "/parallelism/cp");
    set("rank order repeats a dimension", "/placement/rank_order",
        R"(["tp", "tp", "ep", "dp", "pp"])", "/placement/rank_order");
    set("pp beyond layers", "/workload/layers", "3", "/parallelism/pp");

    // A TP or CP group split across datacenters (docs/scenario-format.md, "Placement").
    set("split across an unknown datacenter", "/placement/shards/0/split_datacenters", "[0, 9]",
        "/placement/shards/0/split_datacenters/1");
    set("split lists a datacenter twice", "/placement/shards/0/split_datacenters", "[0, 0]",
        "/placement/shards/0/split_datacenters/1");
    set("split over one datacenter", "/placement/shards/0/split_datacenters", "[0]",
        "/placement/shards/0/split_datacenters");
    set("attention kind unknown", "/workload/attention", R"({"kind": "gqa"})",
        "/workload/attention/kind");
    set("mla without its latent rank", "/workload/attention",
        R"({"kind": "mla", "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128})",
        "/workload/attention/kv_lora_rank");
    set("dispatch precision unknown", "/workload/moe",
        R"({"experts": 8, "top_k": 2, "expert_ffn_hidden": 64, "dispatch_precision": "fp4"})",
        "/workload/moe/dispatch_precision");
    set("fp8 recipe unknown", "/workload/fp8_recipe", R"("mxfp8")", "/workload/fp8_recipe");
    set("mtp depth negative", "/workload/mtp_depth", "-1", "/workload/mtp_depth");
    set("split dimension not tp or cp", "/placement/shards/0",
        R"({"dp_replicas": 4, "stage_datacenters": [0, 0, 0, 4], "split_datacenters": [0, 4],
            "split_dim": "ep"})",
        "/placement/shards/0/split_dim");
}

void TestScenarioIo::malformed()
{
    QFETCH(QByteArray, input);
    QFETCH(QString, pointer);
    const core::LoadResult r = core::parseScenario(
        std::string_view(input.constData(), static_cast<std::size_t>(input.size())), "bad.json");
    QVERIFY(!r.ok());
    QVERIFY(!r.scenario.has_value());
    QVERIFY(!r.errors.empty());
    QVERIFY2(hasPointer(r.errors, pointer),
             qPrintable("no error at \"" + pointer + "\" in:\n" + joined(r.errors)));
    for (const core::Diagnostic& d : r.errors) {
        QCOMPARE(d.file, std::string("bad.json"));
        QCOMPARE(d.severity, core::Diagnostic::Severity::Error);
        QVERIFY(!d.message.empty());
        QVERIFY(QByteArray::fromStdString(d.toString()).startsWith("bad.json: "));
    }
}

void TestScenarioIo::collectsAllErrors()
{
    Json doc = Json::parse(core::serializeScenario(tests::multiDcScenario()));
    doc["parallelism"]["tp"] = "eight";
    doc["topology"]["datacenters"][1]["pods"][0]["count"] = -1;
    doc["topology"]["dci_links"][0]["wavelengths"] = 0;
    doc["workload"].erase("vocab");
    const core::LoadResult r = core::parseScenario(doc.dump(), "many.json");
    QVERIFY(!r.ok());
    for (const char* pointer : {"/parallelism/tp", "/topology/datacenters/1/pods/0/count",
                                "/topology/dci_links/0/wavelengths", "/workload/vocab"})
        QVERIFY2(hasPointer(r.errors, pointer), qPrintable(pointer + ("\n" + joined(r.errors))));
    QCOMPARE(r.errors.size(), std::size_t{4});
    const QString all = joined(r.errors);
    QVERIFY2(all.contains("expected a positive integer, got \"eight\""), qPrintable(all));
    QVERIFY2(all.contains("expected a positive integer, got -1"), qPrintable(all));
}

void TestScenarioIo::unknownKeysWarn()
{
    Json doc = Json::parse(core::serializeScenario(tests::multiDcScenario()));
    doc["workload"]["colour"] = "red";
    doc["topology"]["datacenters"][1]["fabric"]["a/b~c"] = 1;
    doc["extra"] = Json::object();
    const core::LoadResult r = core::parseScenario(doc.dump(), "unknown.json");
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    QVERIFY(*r.scenario == tests::multiDcScenario());
    QCOMPARE(r.warnings.size(), std::size_t{3});
    QVERIFY(hasPointer(r.warnings, "/workload/colour"));
    QVERIFY(hasPointer(r.warnings, "/topology/datacenters/1/fabric/a~1b~0c"));
    QVERIFY(hasPointer(r.warnings, "/extra"));
    for (const auto& d : r.warnings)
        QCOMPARE(d.severity, core::Diagnostic::Severity::Warning);
}

void TestScenarioIo::diagnosticsAreCapped()
{
    Json doc = Json::parse(core::serializeScenario(tests::multiDcScenario()));
    for (int i = 0; i < 2000; ++i)
        doc["topology"]["regions"].push_back({{"id", "r" + std::to_string(i)}});
    const core::LoadResult r = core::parseScenario(doc.dump(), "many.json");
    QVERIFY(!r.ok());
    QVERIFY(r.errors.size() < 1000);
    QVERIFY(QString::fromStdString(r.errors.back().message).contains("more errors not shown"));
}

void TestScenarioIo::semanticWarningStillLoads()
{
    // TP 16 on 8-GPU scale-up domains: legal (TP runs over the fabric), so a warning.
    core::Scenario s = tests::multiDcScenario();
    s.workload.kvHeads = 16;
    s.parallelism.tp = 16;
    s.placement.shards = {{2, {0, 0, 0, 4}}, {2, {0, 4, 4, 4}}};
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("tp16.json");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(core::serializeScenario(s)));
    file.close();

    const core::LoadResult r = core::loadScenarioFile(path.toStdString());
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    QVERIFY(*r.scenario == s);
    QVERIFY2(hasPointer(r.warnings, "/parallelism/tp"), qPrintable(joined(r.warnings)));
    QVERIFY(joined(r.warnings).contains("exceeds the 8-GPU scale-up domain"));
}

void TestScenarioIo::migrationGolden_data()
{
    QTest::addColumn<QString>("oldFile");
    QTest::addColumn<QString>("expectedFile");
    const QDir dir(ARCHIPELAGO_TEST_DATA "/migration");
    // v<N>-NAME.json migrates to v<current>-NAME.json.
    const QString current = QString("v%1-").arg(core::kScenarioVersion);
    for (const QString& file : dir.entryList({"v*.json"}, QDir::Files, QDir::Name)) {
        if (file.startsWith(current))
            continue;
        const QString expected = current + file.section('-', 1);
        QTest::newRow(qPrintable(file)) << dir.filePath(file) << dir.filePath(expected);
    }
}

void TestScenarioIo::migrationGolden()
{
    QFETCH(QString, oldFile);
    QFETCH(QString, expectedFile);
    QVERIFY2(QFile::exists(expectedFile), qPrintable(expectedFile));
    const core::LoadResult migrated = core::loadScenarioFile(oldFile.toStdString());
    const core::LoadResult expected = core::loadScenarioFile(expectedFile.toStdString());
    QVERIFY2(migrated.ok(), qPrintable(joined(migrated.errors)));
    QVERIFY2(expected.ok(), qPrintable(joined(expected.errors)));
    QVERIFY2(expected.warnings.empty(), qPrintable(joined(expected.warnings)));
    QVERIFY(*migrated.scenario == *expected.scenario);
    // The only warning says that the file was migrated.
    QCOMPARE(migrated.warnings.size(), std::size_t{1});
    QCOMPARE(migrated.warnings[0].pointer, std::string("/version"));

    // The migrated document itself equals the golden one (key order aside).
    Json doc = Json::parse(readFile(oldFile).toStdString());
    QVERIFY(!core::migrate(doc, doc["version"].get<int>(), core::kScenarioVersion,
                           core::scenarioMigrations()));
    QCOMPARE(nlohmann::json::parse(doc.dump()),
             nlohmann::json::parse(readFile(expectedFile).toStdString()));
}

void TestScenarioIo::migrationChainRunsInOrder()
{
    // A chain injected for the test: each step records itself, so order and coverage show.
    static const core::MigrationStep steps[] = {
        {2, "migrate_v2_to_v3", [](Json& d) { d["log"].push_back("2->3"); }},
        {1, "migrate_v1_to_v2", [](Json& d) { d["log"].push_back("1->2"); }},
        {3, "migrate_v3_to_v4", [](Json& d) { d["log"].push_back("3->4"); }},
    };
    Json doc = {{"version", 1}, {"log", Json::array()}};
    QVERIFY(!core::migrate(doc, 1, 4, steps));
    QCOMPARE(doc["log"], Json({"1->2", "2->3", "3->4"}));
    QCOMPARE(doc["version"].get<int>(), 4);

    Json partial = {{"version", 2}, {"log", Json::array()}};
    QVERIFY(!core::migrate(partial, 2, 3, steps));
    QCOMPARE(partial["log"], Json({"2->3"}));

    Json gap = {{"version", 0}};
    const auto error = core::migrate(gap, 0, 2, steps);
    QVERIFY(error.has_value());
    QVERIFY(error->find("from version 0") != std::string::npos);

    // Steps tolerate documents of any shape.
    for (Json odd : {Json(nullptr), Json::array(), Json(3), Json{{"topology", 1}}}) {
        QVERIFY(!core::migrate(odd, 0, core::kScenarioVersion, core::scenarioMigrations()));
    }
}

void TestScenarioIo::loadFileErrors()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto loadFails = [](const QString& path, const char* words) {
        const core::LoadResult r = core::loadScenarioFile(path.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(r.errors.size(), std::size_t{1});
        QCOMPARE(r.errors[0].file, path.toStdString());
        QVERIFY2(QString::fromStdString(r.errors[0].message).contains(words),
                 qPrintable(joined(r.errors)));
    };
    loadFails(dir.filePath("missing.json"), "cannot open");
    loadFails(dir.path(), "directory");

    QFile big(dir.filePath("big.json"));
    QVERIFY(big.open(QIODevice::WriteOnly));
    QVERIFY(big.resize(static_cast<qint64>(core::kMaxFileBytes) + 1)); // sparse: cheap
    big.close();
    loadFails(big.fileName(), "larger than");

    QFile empty(dir.filePath("empty.json"));
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.close();
    loadFails(empty.fileName(), "empty");

    // The same size limit applies to text given directly.
    const std::string huge(core::kMaxFileBytes + 1, ' ');
    QVERIFY(!core::parseScenario(huge, "huge").ok());
}

void TestScenarioIo::checkScenarioSurvivesHostileValues()
{
    const core::Catalog catalog = tests::fixtureCatalog();
    core::Scenario s = tests::multiDcScenario();
    for (auto& dc : s.topology.datacenters)
        for (auto& pod : dc.pods)
            pod = {pod.id, pod.name, std::numeric_limits<int>::max(),
                   std::numeric_limits<int>::max(), std::numeric_limits<int>::max()};
    s.parallelism.pp = std::numeric_limits<int>::max();
    s.parallelism.tp = std::numeric_limits<int>::max();
    s.topology.links[0].distanceKm = std::numeric_limits<double>::quiet_NaN();
    auto diagnostics = core::checkScenario(s, catalog, "hostile");
    QVERIFY(hasPointer(diagnostics, "/topology/datacenters/0/pods/0/count"));
    QVERIFY(hasPointer(diagnostics, "/topology/dci_links/0/distance_km"));

    // Within the GPU bound but with absurd degrees: phase 2 runs and must not overflow.
    s = tests::multiDcScenario();
    s.parallelism.tp = std::numeric_limits<int>::max();
    s.parallelism.cp = std::numeric_limits<int>::max();
    s.parallelism.pp = std::numeric_limits<int>::max();
    s.placement.shards.clear();
    diagnostics = core::checkScenario(s, catalog, "hostile");
    QVERIFY(hasPointer(diagnostics, "/parallelism"));
    QVERIFY(hasPointer(diagnostics, "/parallelism/pp"));

    // An empty scenario reports, never crashes.
    diagnostics = core::checkScenario(core::Scenario{}, catalog);
    QVERIFY(hasPointer(diagnostics, "/topology/datacenters"));
}

void TestScenarioIo::diagnosticToString()
{
    core::Diagnostic d{core::Diagnostic::Severity::Error, "a.json", "/topology/dci_links/0/b",
                       "no datacenter with id 9"};
    QCOMPARE(d.toString(), std::string("a.json: /topology/dci_links/0/b: no datacenter with id 9"));
    d.severity = core::Diagnostic::Severity::Warning;
    QCOMPARE(d.toString(),
             std::string("a.json: warning: /topology/dci_links/0/b: no datacenter with id 9"));
    d.pointer.clear();
    QCOMPARE(d.toString(), std::string("a.json: warning: no datacenter with id 9"));
}

namespace {

std::vector<core::PinnedScenario> twoPins()
{
    core::PinnedScenario a{"PP inside a building", "#1f77b4", tests::multiDcScenario()};
    core::PinnedScenario b{"Pin 2 \u00e9", "", tests::multiDcScenario()};
    b.scenario.name = "variant";
    b.scenario.topology.links.front().distanceKm = 23.456789;
    return {a, b};
}

} // namespace

void TestScenarioIo::pinsRoundTrip()
{
    const core::Scenario s = tests::multiDcScenario();
    const std::vector<core::PinnedScenario> pins = twoPins();
    const std::string text = core::serializeScenario(s, pins);
    const core::LoadResult r = core::parseScenario(text, "pins.json");
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    QVERIFY2(r.warnings.empty(), qPrintable(joined(r.warnings)));
    QVERIFY(*r.scenario == s);
    QVERIFY(r.pins == pins);
    QCOMPARE(core::serializeScenario(*r.scenario, r.pins), text);
    // Without pins the file is exactly what it was before pins existed.
    QCOMPARE(core::serializeScenario(s, {}), core::serializeScenario(s));
    const Json doc = Json::parse(text);
    QVERIFY(!doc["pins"][0]["scenario"].contains("format"));
    QVERIFY(!doc["pins"][0]["scenario"].contains("version"));
    QVERIFY(core::parseScenario(core::serializeScenario(s), "none.json").pins.empty());
}

void TestScenarioIo::pinsErrorsNameThePin_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("type") << "/pins/1/scenario/parallelism/tp"
                          << R"("eight")"
                          << "/pins/1/scenario/parallelism/tp";
    QTest::newRow("semantic") << "/pins/0/scenario/parallelism/tp"
                              << "3"
                              << "/pins/0/scenario/parallelism/tp";
    QTest::newRow("colour") << "/pins/0/color"
                            << R"("red")"
                            << "/pins/0/color";
    QTest::newRow("no name") << "/pins/0/name" << QString() << "/pins/0/name";
    QTest::newRow("no scenario") << "/pins/1/scenario" << QString() << "/pins/1/scenario";
    QTest::newRow("not an array") << "/pins"
                                  << "{}"
                                  << "/pins";
}

void TestScenarioIo::pinsErrorsNameThePin()
{
    QFETCH(QString, pointer);
    QFETCH(QString, json);
    QFETCH(QString, expected);
    Json doc = Json::parse(core::serializeScenario(tests::multiDcScenario(), twoPins()));
    const Json::json_pointer ptr(pointer.toStdString());
    if (json.isNull())
        doc.at(ptr.parent_pointer()).erase(ptr.back());
    else
        doc[ptr] = Json::parse(json.toStdString());
    const core::LoadResult r = core::parseScenario(doc.dump(), "pins.json");
    QVERIFY(!r.ok());
    QVERIFY(r.pins.empty());
    QVERIFY2(hasPointer(r.errors, expected), qPrintable(joined(r.errors)));
}

void TestScenarioIo::pinsUnknownKeysWarn()
{
    Json doc = Json::parse(core::serializeScenario(tests::multiDcScenario(), twoPins()));
    doc["pins"][0]["scenario"]["format"] = "archipelago-scenario";
    doc["pins"][1]["note"] = "x";
    const core::LoadResult r = core::parseScenario(doc.dump(), "pins.json");
    QVERIFY2(r.ok(), qPrintable(joined(r.errors)));
    QVERIFY(hasPointer(r.warnings, "/pins/0/scenario/format"));
    QVERIFY(hasPointer(r.warnings, "/pins/1/note"));
    QVERIFY(r.pins == twoPins());
}

QTEST_GUILESS_MAIN(TestScenarioIo)
#include "test_scenarioio.moc"
