// The scenario's shape rules have one source (model/shapecheck.h): a scenario that a rule
// rejects is rejected by checkScenario (the file path) and by evaluate() (the cost-model path)
// with the same message, and the rules only a file must satisfy leave evaluate() as permissive
// as scenarios built in code need.
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "model/shapecheck.h"
#include "scenariofixtures.h"

#include <QtTest>

#include <algorithm>
#include <functional>

using namespace archipelago;
using core::Scenario;

Q_DECLARE_METATYPE(archipelago::core::Scenario)

namespace {

// One datacenter of 256 GPUs, a dense workload, TP 8 x CP 2 x PP 4 x DP 4 without shards.
Scenario denseScenario()
{
    Scenario s = tests::multiDcScenario();
    s.topology.datacenters.resize(1);
    s.topology.links.clear();
    s.workload.moe = {};
    s.parallelism.ep = 1;
    s.parallelism.virtualStages = 1;
    s.placement.shards.clear();
    s.placement.layersPerStage.clear();
    s.schedule.kind = core::ScheduleKind::OneFOneB;
    return s;
}

// The fixture's two buildings, MoE and shards: TP 8 x CP 2 x PP 4 x DP 8, EP 2.
Scenario moeScenario()
{
    return tests::multiDcScenario();
}

Scenario edited(Scenario s, const std::function<void(Scenario&)>& edit)
{
    edit(s);
    return s;
}

// What evaluate() says about a diagnostic: "/pointer: message".
std::string withoutFile(core::Diagnostic d)
{
    d.file.clear();
    return d.toString();
}

QString joined(const std::vector<core::Diagnostic>& list)
{
    QString out;
    for (const core::Diagnostic& d : list)
        out += QString::fromStdString(d.toString()) + '\n';
    return out;
}

std::vector<core::Diagnostic> fileErrors(const Scenario& s)
{
    std::vector<core::Diagnostic> errors;
    for (core::Diagnostic& d : core::checkScenario(s, core::effectiveCatalog(s), "shape.json"))
        if (d.severity == core::Diagnostic::Severity::Error)
            errors.push_back(std::move(d));
    return errors;
}

} // namespace

class TestShapeCheck : public QObject
{
    Q_OBJECT
private slots:
    void baseScenariosPassBoth_data();
    void baseScenariosPassBoth();
    void bothPathsReject_data();
    void bothPathsReject();
    void onlyFilesReject_data();
    void onlyFilesReject();
    void warningCodes();
    void idleGpusAreAWarning();
};

void TestShapeCheck::baseScenariosPassBoth_data()
{
    QTest::addColumn<Scenario>("scenario");
    QTest::newRow("dense, one datacenter") << denseScenario();
    QTest::newRow("moe, two buildings with shards") << moeScenario();
}

void TestShapeCheck::baseScenariosPassBoth()
{
    QFETCH(Scenario, scenario);
    const std::vector<core::Diagnostic> errors = fileErrors(scenario);
    QVERIFY2(errors.empty(), qPrintable(joined(errors)));
    const core::Evaluation ev = core::evaluate(scenario);
    QVERIFY2(ev.ok, ev.warnings.empty() ? "" : core::warningText(ev.warnings.back()).c_str());
}

// One row per rule that evaluate() enforces: the scenario breaks that rule (and as few others
// as it can), `pointer` is where the file path reports it and `code` is evaluate()'s Warning
// code.
void TestShapeCheck::bothPathsReject_data()
{
    QTest::addColumn<Scenario>("scenario");
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("code");
    const auto row = [](const char* name, const Scenario& s, const char* pointer,
                        const char* code) { QTest::newRow(name) << s << QString(pointer) << code; };
    const Scenario dense = denseScenario();
    const Scenario moe = moeScenario();
    using S = Scenario;

    // Field rules.
    row("no datacenter", edited(dense, [](S& s) { s.topology.datacenters.clear(); }),
        "/topology/datacenters", "invalid");
    row("unknown accelerator",
        edited(moe, [](S& s) { s.topology.datacenters[1].accelerator = "B300-imaginary"; }),
        "/topology/datacenters/1/accelerator", "unknown-accelerator");
    row("accelerator not named",
        edited(dense, [](S& s) { s.topology.datacenters[0].accelerator.clear(); }),
        "/topology/datacenters/0/accelerator", "unknown-accelerator");
    row("zero layers", edited(dense, [](S& s) { s.workload.layers = 0; }), "/workload/layers",
        "invalid");
    row("zero hidden", edited(dense, [](S& s) { s.workload.hidden = 0; }), "/workload/hidden",
        "invalid");
    row("negative kv heads", edited(dense, [](S& s) { s.workload.kvHeads = -8; }),
        "/workload/kv_heads", "invalid");
    row("zero global batch", edited(dense, [](S& s) { s.workload.globalBatch = 0; }),
        "/workload/global_batch", "invalid");
    row("zero tp", edited(dense, [](S& s) { s.parallelism.tp = 0; }), "/parallelism/tp", "invalid");
    row("zero virtual stages", edited(dense, [](S& s) { s.parallelism.virtualStages = 0; }),
        "/parallelism/virtual_stages", "invalid");
    row("zero micro-batch", edited(dense, [](S& s) { s.parallelism.microBatch = 0; }),
        "/parallelism/micro_batch", "invalid");
    row("stage of zero layers",
        edited(moe,
               [](S& s) {
                   s.placement.layersPerStage = {0, 16, 8, 8};
               }),
        "/placement/layers_per_stage/0", "invalid");
    row("no data-parallel replica",
        edited(
            moe,
            [](S& s) { s.placement.shards[0].dpReplicas = s.placement.shards[1].dpReplicas = 0; }),
        "/placement/shards/0/dp_replicas", "invalid");

    // Consistency rules.
    row("tp * cp * pp does not divide the datacenter",
        edited(dense, [](S& s) { s.parallelism.pp = 3; }), "/parallelism", "degrees-do-not-divide");
    row("tp does not divide heads", edited(dense, [](S& s) { s.workload.heads = 36; }),
        "/parallelism/tp", "degrees-do-not-divide");
    row("tp does not divide kv heads",
        edited(dense,
               [](S& s) {
                   s.workload.heads = 48;
                   s.workload.kvHeads = 12;
                   s.workload.hidden = 6144;
               }),
        "/parallelism/tp", "degrees-do-not-divide");
    row("global batch not divisible", edited(dense, [](S& s) { s.workload.globalBatch = 510; }),
        "/workload/global_batch", "degrees-do-not-divide");
    row("ep does not divide experts", edited(moe, [](S& s) { s.workload.moe.experts = 9; }),
        "/parallelism/ep", "degrees-do-not-divide");
    row("ep does not divide dp * cp",
        edited(moe,
               [](S& s) {
                   s.workload.moe.experts = 12;
                   s.parallelism.ep = 3;
               }),
        "/parallelism/ep", "degrees-do-not-divide");
    row("pp exceeds layers", edited(dense, [](S& s) { s.workload.layers = 3; }), "/parallelism/pp",
        "degrees-do-not-divide");
    row("fewer layers than chunks",
        edited(dense,
               [](S& s) {
                   s.workload.layers = 6;
                   s.parallelism.virtualStages = 2;
                   s.schedule.kind = core::ScheduleKind::Interleaved1F1B;
               }),
        "/parallelism/virtual_stages", "degrees-do-not-divide");
    row("layers per stage of the wrong size",
        edited(moe,
               [](S& s) {
                   s.placement.layersPerStage = {16, 16};
               }),
        "/placement/layers_per_stage", "invalid");
    row("layers per stage do not sum",
        edited(moe,
               [](S& s) {
                   s.placement.layersPerStage = {9, 8, 8, 8};
               }),
        "/placement/layers_per_stage", "invalid");
    row("stage with fewer layers than virtual stages",
        edited(moe,
               [](S& s) {
                   s.placement.layersPerStage = {1, 15, 8, 8};
               }),
        "/placement/layers_per_stage/0", "degrees-do-not-divide");
}

void TestShapeCheck::bothPathsReject()
{
    QFETCH(Scenario, scenario);
    QFETCH(QString, pointer);
    QFETCH(QString, code);

    const std::vector<core::Diagnostic> errors = fileErrors(scenario);
    QVERIFY2(!errors.empty(), "checkScenario accepts the scenario");

    const core::Evaluation ev = core::evaluate(scenario);
    QVERIFY(!ev.ok);
    QVERIFY(!ev.warnings.empty());
    const core::Warning& failure = ev.warnings.back();
    QCOMPARE(QString::fromUtf8(toString(failure.code).data()), code);
    // The same rule, the same words: evaluate()'s message is one of the file's errors.
    const auto same = std::find_if(errors.begin(), errors.end(), [&](const core::Diagnostic& d) {
        return withoutFile(d) == core::warningText(failure);
    });
    QVERIFY2(same != errors.end(),
             qPrintable("evaluate: " + QString::fromStdString(core::warningText(failure)) +
                        "\ncheckScenario:\n" + joined(errors)));
    QCOMPARE(QString::fromStdString(same->pointer), pointer);
}

// Rules a file must satisfy but evaluate() does not enforce: scenarios built in code (GUI edits
// in progress, validation runs, the explorer) evaluate as they did before the rules were shared.
void TestShapeCheck::onlyFilesReject_data()
{
    QTest::addColumn<Scenario>("scenario");
    QTest::addColumn<QString>("pointer");
    const Scenario dense = denseScenario();
    const Scenario moe = moeScenario();
    using S = Scenario;

    QTest::newRow("an empty shard")
        << edited(moe, [](S& s) { s.placement.shards[1].dpReplicas = 0; })
        << "/placement/shards/1/dp_replicas";
    QTest::newRow("tp above kv heads (KV heads replicated)")
        << edited(dense, [](S& s) { s.parallelism.tp = 16; }) << "/parallelism/tp";
    QTest::newRow("layers above the file bound")
        << edited(dense, [](S& s) { s.workload.layers = 10'004; }) << "/workload/layers";
    QTest::newRow("an uneven interleaved split") << edited(dense, [](S& s) {
        s.workload.layers = 30;
        s.parallelism.virtualStages = 2;
        s.schedule.kind = core::ScheduleKind::Interleaved1F1B;
    }) << "/parallelism/virtual_stages";
    QTest::newRow("a datacenter not linked yet") << edited(dense, [](S& s) {
        core::Datacenter extra = s.topology.datacenters[0];
        extra.id = 9;
        extra.name = "dc-new";
        s.topology.datacenters.push_back(extra);
    }) << "/topology/dci_links";
    QTest::newRow("seq_len not divisible by 2 * cp")
        << edited(dense, [](S& s) { s.workload.seqLen = 8190; }) << "/parallelism/cp";
}

void TestShapeCheck::onlyFilesReject()
{
    QFETCH(Scenario, scenario);
    QFETCH(QString, pointer);
    const std::vector<core::Diagnostic> errors = fileErrors(scenario);
    QVERIFY2(
        std::any_of(errors.begin(), errors.end(),
                    [&](const core::Diagnostic& d) { return d.pointer == pointer.toStdString(); }),
        qPrintable(joined(errors)));
    const core::Evaluation ev = core::evaluate(scenario);
    QVERIFY2(ev.ok, ev.warnings.empty() ? "" : core::warningText(ev.warnings.back()).c_str());
}

void TestShapeCheck::warningCodes()
{
    QCOMPARE(core::toString(core::warningCode(core::ShapeCategory::Invalid)), "invalid");
    QCOMPARE(core::toString(core::warningCode(core::ShapeCategory::UnknownAccelerator)),
             "unknown-accelerator");
    QCOMPARE(core::toString(core::warningCode(core::ShapeCategory::DegreesDoNotDivide)),
             "degrees-do-not-divide");
}

// A placement that leaves a datacenter's GPUs idle is legal (the explorer's spare GPUs): the
// file check warns at the datacenter, evaluate() names it (spare-gpus). More GPUs placed than
// held stays an error.
void TestShapeCheck::idleGpusAreAWarning()
{
    Scenario s = moeScenario();
    s.placement.shards = {{2, {0, 0, 0, 0}}, {2, {0, 0, 0, 0}}};
    QVERIFY2(fileErrors(s).empty(), qPrintable(joined(fileErrors(s))));
    const std::vector<core::Diagnostic> all =
        core::checkScenario(s, core::effectiveCatalog(s), "shape.json");
    QVERIFY(std::any_of(all.begin(), all.end(), [](const core::Diagnostic& d) {
        return d.severity == core::Diagnostic::Severity::Warning &&
               d.pointer == "/topology/datacenters/1" &&
               d.message.find("stay idle") != std::string::npos;
    }));
    const core::Evaluation ev = core::evaluate(s);
    QVERIFY(ev.ok);
    QVERIFY(std::any_of(ev.warnings.begin(), ev.warnings.end(), [](const core::Warning& w) {
        return w.code == core::WarningCode::SpareGpus && w.integer("placed_gpus") == 0;
    }));
    // Findings that keep errors only (a sweep's question) drop the warning, not the verdict.
    core::ShapeFindings errorsOnly(core::ShapeFindings::Keep::ErrorsOnly);
    core::checkShapeConsistency(s, core::ShapeRules::Scenario, errorsOnly);
    QVERIFY(errorsOnly.all().empty());
    QVERIFY(!core::scenarioRefused(s, core::effectiveCatalog(s), core::TopologyRules::Run));
    s.placement.shards[0].dpReplicas = 1000;
    const std::vector<core::Diagnostic> over = fileErrors(s);
    QVERIFY(std::any_of(over.begin(), over.end(), [](const core::Diagnostic& d) {
        return d.pointer == "/topology/datacenters/0";
    }));
    core::ShapeFindings refused(core::ShapeFindings::Keep::ErrorsOnly);
    core::checkShapeConsistency(s, core::ShapeRules::Scenario, refused);
    QVERIFY(refused.hasErrors());
    QVERIFY(core::scenarioRefused(s, core::effectiveCatalog(s), core::TopologyRules::Run));
}

QTEST_GUILESS_MAIN(TestShapeCheck)
#include "test_shapecheck.moc"
