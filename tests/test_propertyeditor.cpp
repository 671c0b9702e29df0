// Property editor. Offscreen widget tests: loading never emits; valid edits
// leave as one intent whose candidate passes the loader's checks; invalid ones are refused inline
// with the loader's reason in words and emit nothing; a multi-selection shows "mixed" and is
// edited as a whole. The editor never changes a document: the tests only listen.
#include "common/format.h"
#include "model/placementpresets.h"
#include "propertyeditor/propertyeditor.h"
#include "propertyeditor/propertyeditordatacenter.h"
#include "propertyeditor/propertyeditorfields.h"
#include "propertyeditor/propertyeditorlink.h"
#include "propertyeditor/propertyeditorparallelism.h"
#include "propertyeditor/propertyeditorschedule.h"
#include "propertyeditor/propertyeditorvalidation.h"
#include "propertyeditor/propertyeditorworkload.h"

#include "evaluation/costmodel.h"
#include "io/editcheck.h"
#include "io/scenarioio.h"
#include "model/dcilink.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace archipelago;
using Kind = views::PropertyEditor::Kind;

namespace {

core::Scenario twoBuildings()
{
    const core::LoadResult result =
        core::loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    if (!result.ok())
        qFatal("cannot load the two-buildings preset");
    return *result.scenario;
}

// The one intent signal, edited(): each accepted edit's candidate, fields and repair mode.
struct IntentSpies
{
    explicit IntentSpies(views::PropertyEditor* e)
        : spy(e, &views::PropertyEditor::edited)
    {}
    qsizetype total() const { return spy.count(); }
    views::ProposedEdit at(qsizetype i) const
    {
        return spy.at(i).at(0).value<views::ProposedEdit>();
    }
    QSignalSpy spy;
};

// The scenario the app makes of an edit: the same check the editor judged it with.
core::Scenario appliedAs(const core::Scenario& before, const views::ProposedEdit& edit)
{
    const core::EditCheck check =
        core::checkEdit(before, edit.candidate, edit.fields,
                        edit.repairPlacement ? core::PlacementRepairMode::Repair
                                             : core::PlacementRepairMode::KeepPlacement);
    if (!check.accepted())
        qFatal("the app refuses an edit the editor accepted");
    return *check.scenario;
}

bool hasErrors(const core::Scenario& s)
{
    for (const core::Diagnostic& d : views::checkCandidate(s))
        if (d.severity == core::Diagnostic::Severity::Error)
            return true;
    return false;
}

views::FieldRow* rowOf(QWidget* editor)
{
    return qobject_cast<views::FieldRow*>(editor->parentWidget());
}

} // namespace

class TestPropertyEditor : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void loadingDoesNotEmit();
    void validTpEmitsParallelismAndPlacement_data();
    void validTpEmitsParallelismAndPlacement();
    void invalidTpIsRefusedWithReason_data();
    void invalidTpIsRefusedWithReason();
    void derivedDpIsReadOnly();
    void tooLargeIsRefusedInWordsAndEscReverts();
    void multiSelectShowsMixedAndEditsAll();
    void linkDistanceEmitsLinks();
    void linkProtectionEmitsLinks();
    void checkpointCopyEmitsWorkload();
    void linkNcclSettingsEmitLinks();
    void linkLatencyIsTheModels();
    void datacenterStorageEmitsDatacenters();
    void datacenterSiteEmitsDatacenters();
    void podEditAcrossDatacentersAdaptsPlacement();
    void podEditThatBreaksTheBatchLetsTheBatchFollow();
    void warningsShowButDoNotBlock();
    void datacenterSyncEditsParallelism();
    void modelWithOtherLayersResplitsTheStages();
    void numericFieldsHaveUnits_data();
    void numericFieldsHaveUnits();
    void nothingClipsAtDockWidth_data();
    void nothingClipsAtDockWidth();
    void renderToPng();

private:
    std::unique_ptr<views::PropertyEditor> m_editor;
    core::Scenario m_scenario;
};

void TestPropertyEditor::init()
{
    m_scenario = twoBuildings();
    m_editor = std::make_unique<views::PropertyEditor>();
    m_editor->resize(420, 900);
    m_editor->setScenario(m_scenario);
}

void TestPropertyEditor::loadingDoesNotEmit()
{
    IntentSpies spies(m_editor.get());
    const QList<std::pair<Kind, QList<core::Id>>> selections{
        {Kind::Scenario, {}}, {Kind::Workload, {}},    {Kind::Parallelism, {}},
        {Kind::Schedule, {}}, {Kind::Datacenter, {0}}, {Kind::Datacenter, {0, 1}},
        {Kind::Pod, {0, 2}},  {Kind::Link, {0}},       {Kind::Links, {}},
        {Kind::Topology, {}}};
    for (const auto& [kind, ids] : selections) {
        m_editor->setSelection(kind, ids);
        core::Scenario changed = m_scenario;
        changed.topology.links[0].distanceKm = 42.0;
        changed.parallelism.recompute = core::Recompute::Selective;
        m_editor->setScenario(changed);
        m_editor->setScenario(m_scenario);
    }
    QCOMPARE(spies.total(), 0);
}

void TestPropertyEditor::validTpEmitsParallelismAndPlacement_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<int>("value");
    QTest::addColumn<int>("replicas");
    QTest::newRow("tp 4 doubles the replicas") << "tp" << 4 << 256;
    QTest::newRow("tp 2") << "tp" << 2 << 512;
    // Splits the 126 layers explicitly and keeps stages 0-3 / 4-7 in each building.
    QTest::newRow("pp 8 re-splits the stages") << "pp" << 8 << 256;
}

void TestPropertyEditor::validTpEmitsParallelismAndPlacement()
{
    QFETCH(QString, key);
    QFETCH(int, value);
    QFETCH(int, replicas);
    m_editor->setSelection(Kind::Parallelism);
    IntentSpies spies(m_editor.get());
    views::IntField* field = m_editor->parallelismEditor()->intField(key);
    QVERIFY(field);
    field->setValue(value);

    QCOMPARE(spies.total(), 1);
    const views::ProposedEdit edit = spies.at(0);
    QVERIFY(edit.repairPlacement);
    QCOMPARE(edit.candidate.placement, m_scenario.placement); // the app re-makes it
    // The editor shows the edit as the app applies it: one check, one result.
    const core::Scenario candidate = m_editor->scenario();
    QCOMPARE(candidate, appliedAs(m_scenario, edit));
    QCOMPARE(key == QLatin1String("tp") ? candidate.parallelism.tp : candidate.parallelism.pp,
             value);
    QVERIFY(!hasErrors(candidate));
    QCOMPARE(candidate.placement.shards.size(), std::size_t{1});
    QCOMPARE(candidate.placement.shards[0].dpReplicas, replicas);
    QCOMPARE(core::dataParallel(candidate), std::int64_t{replicas});
    QVERIFY(!rowOf(field)->isRefused());
}

void TestPropertyEditor::invalidTpIsRefusedWithReason_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<QString>("reason");
    QTest::newRow("tp 3 does not divide the heads")
        << 3 << "TP 3 does not divide the 128 attention heads.";
    QTest::newRow("tp 16 splits KV groups") << 16 << "TP 16 does not divide the 8 KV heads";
}

void TestPropertyEditor::invalidTpIsRefusedWithReason()
{
    QFETCH(int, tp);
    QFETCH(QString, reason);
    m_editor->setSelection(Kind::Parallelism);
    m_editor->show();
    IntentSpies spies(m_editor.get());
    QSignalSpy refused(m_editor.get(), &views::PropertyEditor::editRefused);
    views::IntField* field = m_editor->parallelismEditor()->intField(QStringLiteral("tp"));
    field->setValue(tp);

    QCOMPARE(spies.total(), 0);
    QCOMPARE(refused.count(), 1);
    views::FieldRow* row = rowOf(field);
    QVERIFY(row->isRefused());
    QVERIFY2(row->message().contains(reason), qPrintable(row->message()));
    QVERIFY(field->property("invalid").toBool());
    // The reason is on screen, under the field.
    auto* message = row->findChild<QLabel*>();
    QVERIFY(message && message->isVisible());
    QCOMPARE(field->value(), tp); // the refused value stays visible to be corrected

    // Correcting it clears the mark; the scenario it shows is unchanged.
    field->setValue(8);
    QVERIFY(!row->isRefused());
    QVERIFY(!field->property("invalid").toBool());
    QCOMPARE(spies.total(), 0);
    QCOMPARE(m_editor->scenario(), m_scenario);
}

// A number typed past the maximum is refused in words, not cut to fewer digits by the spin box
// (TP 99999 used to become 999); Esc gives back the value shown before.
void TestPropertyEditor::tooLargeIsRefusedInWordsAndEscReverts()
{
    m_editor->setSelection(Kind::Parallelism);
    m_editor->show();
    IntentSpies spies(m_editor.get());
    views::IntField* field = m_editor->parallelismEditor()->intField(QStringLiteral("tp"));
    const int maximum = field->acceptedMaximum();
    field->setFocus();
    field->selectAll();
    QTest::keyClicks(field, QString::number(maximum) + QStringLiteral("0"));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(field->value(), maximum * 10); // every digit kept
    views::FieldRow* row = rowOf(field);
    QVERIFY(row->isRefused());
    QVERIFY2(row->message().contains(views::formatCount(maximum * 10)), qPrintable(row->message()));
    QCOMPARE(spies.total(), 0);

    QTest::keyClick(field, Qt::Key_Escape);
    QCOMPARE(field->value(), m_scenario.parallelism.tp);
    QVERIFY(!row->isRefused());
    QCOMPARE(spies.total(), 0);

    // A DCI link is never 0 km: the field starts at 0.1 km.
    m_editor->setSelection(Kind::Links);
    QVERIFY(m_editor->linkEditor()->distanceField()->acceptedMinimum() > 0.0);
}

void TestPropertyEditor::derivedDpIsReadOnly()
{
    m_editor->setSelection(Kind::Parallelism);
    bool found = false;
    for (QLabel* label : m_editor->parallelismEditor()->findChildren<QLabel*>())
        found = found || label->text() == QLatin1String("DP 128 (derived)");
    QVERIFY(found);
    QVERIFY(!m_editor->parallelismEditor()->intField(QStringLiteral("dp")));
}

void TestPropertyEditor::multiSelectShowsMixedAndEditsAll()
{
    core::Scenario mixed = m_scenario;
    mixed.topology.datacenters[1].accelerator = "H800-SXM5-80GB";
    m_editor->setScenario(mixed);
    m_editor->setSelection(Kind::Datacenter, {0, 1});
    IntentSpies spies(m_editor.get());
    views::ChoiceField* accelerator = m_editor->datacenterEditor()->acceleratorField();
    QVERIFY(accelerator->isMixed());
    QCOMPARE(accelerator->currentText(), QString());
    QCOMPARE(accelerator->placeholderText(), views::mixedText());
    // Fields the two share are not mixed.
    QVERIFY(!m_editor->datacenterEditor()->findChild<views::IntField*>()->isMixed());

    const int h100 = accelerator->findData(QStringLiteral("H100-SXM5-80GB"));
    QVERIFY(h100 >= 0);
    accelerator->setCurrentIndex(h100);
    emit accelerator->activated(h100);

    QCOMPARE(spies.total(), 1);
    const std::vector<core::Datacenter> dcs = spies.at(0).candidate.topology.datacenters;
    QCOMPARE(dcs.size(), std::size_t{2});
    for (const core::Datacenter& dc : dcs)
        QCOMPARE(dc.accelerator, std::string("H100-SXM5-80GB"));
    QCOMPARE(dcs[0].id, 0);
    QCOMPARE(dcs[1].id, 1);
    QVERIFY(!accelerator->isMixed());
}

void TestPropertyEditor::linkDistanceEmitsLinks()
{
    m_editor->setSelection(Kind::Link, {0});
    IntentSpies spies(m_editor.get());
    views::DoubleField* distance = m_editor->linkEditor()->distanceField();
    QCOMPARE(distance->value(), 10.0);
    distance->setValue(100.0);
    QCOMPARE(spies.total(), 1);
    const views::ProposedEdit edit = spies.at(0);
    const std::vector<core::DciLink>& links = edit.candidate.topology.links;
    QCOMPARE(links.size(), m_scenario.topology.links.size());
    QCOMPARE(edit.fields, std::vector<std::string>{"/topology/dci_links/0/distance_km"});
    QVERIFY(!edit.repairPlacement);
    QCOMPARE(links[0].distanceKm, 100.0);
    QCOMPARE(links[0].wavelengths, 64); // the rest of the link is kept

    // Out of range for the loader is refused by the field, in words, and never sent.
    distance->setValue(1e9);
    QVERIFY(rowOf(distance)->isRefused());
    QVERIFY2(rowOf(distance)->message().contains(QStringLiteral("20,000")),
             qPrintable(rowOf(distance)->message()));
    QCOMPARE(spies.total(), 1);
}

void TestPropertyEditor::datacenterSiteEmitsDatacenters()
{
    // A building's energy price and PUE: 0 (the catalog's) until set, and an edit is that
    // building's only, as one Datacenters intent.
    m_editor->setSelection(Kind::Datacenter, {1});
    views::DoubleField* price = m_editor->datacenterEditor()->electricityField();
    views::DoubleField* pue = m_editor->datacenterEditor()->pueField();
    QCOMPARE(price->value(), 0.0);
    QCOMPARE(pue->value(), 0.0);
    QVERIFY(rowOf(price) && rowOf(pue));
    IntentSpies spies(m_editor.get());
    price->setValue(0.045);
    QCOMPARE(spies.total(), 1);
    const std::vector<core::Datacenter>& dcs = spies.at(0).candidate.topology.datacenters;
    QCOMPARE(dcs[0], m_scenario.topology.datacenters[0]); // the other building is untouched
    QCOMPARE(dcs[1].id, m_scenario.topology.datacenters[1].id);
    QCOMPARE(dcs[1].electricityUsdPerKwh, 0.045);
    QCOMPARE(dcs[1].pue, 0.0); // the rest of the building is kept
}

void TestPropertyEditor::datacenterStorageEmitsDatacenters()
{
    // A building's checkpoint storage: 0 (the catalog's) until set, a rate typed is that
    // building's only, and the edit leaves as one Datacenters intent.
    m_editor->setSelection(Kind::Datacenter, {1});
    views::DoubleField* write = m_editor->datacenterEditor()->storageWriteField();
    QCOMPARE(write->value(), 0.0);
    QVERIFY(rowOf(write));
    IntentSpies spies(m_editor.get());
    write->setValue(250.0);
    QCOMPARE(spies.total(), 1);
    const std::vector<core::Datacenter>& dcs = spies.at(0).candidate.topology.datacenters;
    QCOMPARE(dcs[0], m_scenario.topology.datacenters[0]); // the other building is untouched
    QCOMPARE(dcs[1].id, m_scenario.topology.datacenters[1].id);
    QCOMPARE(dcs[1].storageWriteGBps, 250.0);
    QCOMPARE(dcs[1].storageReadGBps, 0.0); // the rest of the building is kept
}

void TestPropertyEditor::linkLatencyIsTheModels()
{
    // The derived one-way latency the page shows is the one the evaluation uses (light in G.652
    // fibre, 4.90 us/km), not a rounder 5 us/km: at 800 km they differ by 80 us.
    m_scenario.topology.links[0].distanceKm = 800.0;
    m_editor->setScenario(m_scenario);
    m_editor->setSelection(Kind::Link, {0});
    const core::DciLink& link = m_scenario.topology.links[0];
    QCOMPARE(m_editor->linkEditor()->latencyLabel()->text(),
             views::formatSeconds(core::dciOneWayLatencyS(link)));
    QVERIFY(m_editor->linkEditor()->latencyLabel()->text() !=
            views::formatSeconds(800.0 * 5e-6 + link.equipmentLatencyS));
}

void TestPropertyEditor::linkProtectionEmitsLinks()
{
    // The protection box edits the link's optical_protection and nothing else of it.
    m_editor->setSelection(Kind::Link, {0});
    IntentSpies spies(m_editor.get());
    views::CheckField* box = m_editor->linkEditor()->protectionField();
    QVERIFY(!box->isChecked());
    box->click();
    QCOMPARE(spies.total(), 1);
    core::DciLink expected = m_scenario.topology.links[0];
    expected.opticalProtection = true;
    QCOMPARE(spies.at(0).candidate.topology.links[0], expected);
}

void TestPropertyEditor::checkpointCopyEmitsWorkload()
{
    // The Workload page's "Copy to another building" edits checkpoint_remote_replica only.
    m_editor->setSelection(Kind::Workload);
    views::CheckField* box = nullptr;
    for (views::CheckField* f : m_editor->workloadEditor()->findChildren<views::CheckField*>())
        if (f->text() == QStringLiteral("Copy to another building"))
            box = f;
    QVERIFY(box && !box->isChecked());
    IntentSpies spies(m_editor.get());
    box->click();
    QCOMPARE(spies.total(), 1);
    core::Workload expected = m_scenario.workload;
    expected.checkpointRemoteReplica = true;
    QVERIFY(spies.at(0).candidate.workload == expected);
}

void TestPropertyEditor::linkNcclSettingsEmitLinks()
{
    // NCCL's settings of the link: the page shows NCCL's defaults and edits the nested keys.
    m_editor->setSelection(Kind::Link, {0});
    IntentSpies spies(m_editor.get());
    views::IntField* channels = m_editor->linkEditor()->ncclChannelsField();
    views::DoubleField* buffer = m_editor->linkEditor()->ncclBufferField();
    QCOMPARE(channels->value(), 2);
    QCOMPARE(buffer->value(), 4.0); // MiB
    channels->setValue(16);
    QCOMPARE(spies.total(), 1);
    std::vector<core::DciLink> links = spies.at(0).candidate.topology.links;
    QCOMPARE(links[0].nccl.channels, 16);
    QCOMPARE(links[0].nccl.buffsizeBytes, 4.0 * 1024 * 1024); // the rest is kept
    buffer->setValue(64.0);
    QCOMPARE(spies.total(), 2);
    links = spies.at(1).candidate.topology.links;
    QCOMPARE(links[0].nccl.buffsizeBytes, 64.0 * 1024 * 1024);
    // NCCL's MAXCHANNELS bounds the field as it bounds the loader: more is refused.
    channels->setValue(1000);
    QVERIFY(rowOf(channels)->isRefused());
    QCOMPARE(spies.total(), 2);
}

void TestPropertyEditor::podEditAcrossDatacentersAdaptsPlacement()
{
    // The 3,072-GPU pods of both buildings, grown to 7,168 GPUs: 16,384 GPUs per building.
    m_editor->setSelection(Kind::Pod, {0, 2});
    QVERIFY(m_editor->currentPage()->title().contains(QLatin1String("building-a, building-b")));
    IntentSpies spies(m_editor.get());
    views::IntField* domains = nullptr;
    for (views::IntField* f : m_editor->datacenterEditor()->findChildren<views::IntField*>())
        if (f->value() == 384)
            domains = f;
    QVERIFY(domains && !domains->isMixed());
    domains->setValue(896);

    QCOMPARE(spies.total(), 1);
    const views::ProposedEdit edit = spies.at(0);
    QVERIFY(edit.repairPlacement);
    for (const core::Datacenter& dc : edit.candidate.topology.datacenters)
        QCOMPARE(core::gpusInDatacenter(dc), std::int64_t{16'384});
    const core::Scenario candidate = m_editor->scenario();
    QCOMPARE(candidate, appliedAs(m_scenario, edit));
    QVERIFY(candidate.placement != m_scenario.placement);
    QVERIFY(!hasErrors(candidate));
    QCOMPARE(core::dataParallel(candidate), std::int64_t{256});
}

void TestPropertyEditor::podEditThatBreaksTheBatchLetsTheBatchFollow()
{
    // 392 domains per 3,072-GPU pod: 8,320 GPUs per building, DP 130, and the global batch of
    // 2,048 no longer divides by DP. The edit is accepted; the batch follows DP as the app's
    // edit controller applies it (core::withFittedGlobalBatch), not refused.
    m_editor->setSelection(Kind::Pod, {0, 2});
    IntentSpies spies(m_editor.get());
    views::IntField* domains = nullptr;
    for (views::IntField* f : m_editor->datacenterEditor()->findChildren<views::IntField*>())
        if (f->value() == 384)
            domains = f;
    QVERIFY(domains);
    domains->setValue(392);
    QCOMPARE(spies.total(), 1);
    const views::ProposedEdit edit = spies.at(0);
    // The edit leaves the batch alone (the app asks before changing it)...
    QCOMPARE(edit.candidate.workload.globalBatch, m_scenario.workload.globalBatch);
    // ...and the scenario it makes has it fitted to the new DP.
    const core::Scenario fitted = appliedAs(m_scenario, edit);
    QCOMPARE(core::dataParallel(fitted), std::int64_t{130});
    core::Scenario unfitted = fitted;
    unfitted.workload.globalBatch = m_scenario.workload.globalBatch;
    QVERIFY(hasErrors(unfitted)); // 2,048 sequences do not divide by DP 130
    QCOMPARE(fitted.workload.globalBatch, 2080);
    QVERIFY(!hasErrors(fitted));
    QCOMPARE(m_editor->scenario(), fitted); // shown optimistically
}

void TestPropertyEditor::warningsShowButDoNotBlock()
{
    // 1F1B with two virtual stages: valid, but the loader warns that they do nothing.
    m_editor->setSelection(Kind::Schedule);
    IntentSpies spies(m_editor.get());
    auto* kind = m_editor->scheduleEditor()->findChild<views::ChoiceField*>();
    const int oneFOneB = kind->findData(QStringLiteral("1f1b"));
    kind->setCurrentIndex(oneFOneB);
    emit kind->activated(oneFOneB);
    QCOMPARE(spies.total(), 1);
    QCOMPARE(spies.at(0).candidate.schedule.kind, core::ScheduleKind::OneFOneB);
    views::FieldRow* row = rowOf(kind);
    QVERIFY(!row->isRefused());
    QVERIFY2(row->message().contains(QLatin1String("takes effect only")),
             qPrintable(row->message()));
}

// The "Across datacenters" section: the scheme and its H are parallelism edits, and the page
// says when the scheme has no effect (the preset's DP stays inside each building).
// Choosing a published model with another layer count (Llama 3 405B's 126 to 70B's 80) was
// refused: the placement's layers per stage still added up to 126. The split follows the model.
void TestPropertyEditor::modelWithOtherLayersResplitsTheStages()
{
    QVERIFY(!m_scenario.placement.layersPerStage.empty());
    m_editor->setSelection(Kind::Workload);
    IntentSpies spies(m_editor.get());
    QSignalSpy refusals(m_editor.get(), &views::PropertyEditor::editRefused);
    views::ChoiceField* model = m_editor->workloadEditor()->modelField();
    const int index = model->findData(QStringLiteral("Llama 3 70B"));
    QVERIFY(index > 0);
    model->setCurrentIndex(index);
    emit model->activated(index);
    QVERIFY2(refusals.isEmpty(),
             qPrintable(refusals.isEmpty() ? QString() : refusals.front().front().toString()));
    QCOMPARE(spies.total(), qsizetype{1});
    const core::Scenario applied = appliedAs(m_scenario, spies.at(0));
    QCOMPARE(applied.workload.layers, 80);
    QCOMPARE(applied.workload.globalBatch, m_scenario.workload.globalBatch);
    int layers = 0;
    for (int n : core::effectiveLayersPerStage(applied))
        layers += n;
    QCOMPARE(layers, 80);
    QVERIFY(!hasErrors(applied));
}

void TestPropertyEditor::datacenterSyncEditsParallelism()
{
    m_editor->setSelection(Kind::Parallelism);
    IntentSpies spies(m_editor.get());
    views::ChoiceField* scheme = nullptr;
    for (auto* field : m_editor->parallelismEditor()->findChildren<views::ChoiceField*>())
        if (field->findData(QStringLiteral("diloco")) >= 0)
            scheme = field;
    QVERIFY(scheme);
    const int diloco = scheme->findData(QStringLiteral("diloco"));
    scheme->setCurrentIndex(diloco);
    emit scheme->activated(diloco);
    QCOMPARE(spies.total(), 1);
    core::Parallelism p = spies.at(0).candidate.parallelism;
    QCOMPARE(p.datacenterSync.scheme, core::DatacenterSync::DiLoCo);
    QVERIFY(!rowOf(scheme)->isRefused());

    m_scenario.parallelism = p;
    m_editor->setScenario(m_scenario);
    bool saysNoEffect = false;
    for (QLabel* label : m_editor->parallelismEditor()->findChildren<QLabel*>())
        saysNoEffect = saysNoEffect || label->text().contains(QLatin1String("no effect"));
    QVERIFY(saysNoEffect);

    views::IntField* inner = nullptr;
    for (auto* field : m_editor->parallelismEditor()->findChildren<views::IntField*>())
        if (rowOf(field)->pointers().contains(
                QStringLiteral("/parallelism/datacenter_sync/inner_steps")))
            inner = field;
    QVERIFY(inner);
    QCOMPARE(inner->value(), 100);
    inner->setValue(30);
    QCOMPARE(spies.total(), 2);
    p = spies.at(1).candidate.parallelism;
    QCOMPARE(p.datacenterSync.innerSteps, 30);
    QCOMPARE(p.datacenterSync.scheme, core::DatacenterSync::DiLoCo);
}

void TestPropertyEditor::numericFieldsHaveUnits_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QStringList>("labels");
    QTest::newRow("link") << int(Kind::Link)
                          << QStringList{"Distance (km)", "Rate per wavelength (Gb/s)",
                                         "Equipment latency (µs)", "Window per connection (MiB)",
                                         "Packet loss (%)"};
    QTest::newRow("workload") << int(Kind::Workload)
                              << QStringList{"Sequence length (tokens)", "Global batch (sequences)",
                                             "Tokens to train (trillions)"};
    QTest::newRow("parallelism") << int(Kind::Parallelism)
                                 << QStringList{"Tensor parallel TP (GPUs)",
                                                "Pipeline parallel PP (stages)",
                                                "Micro-batch (sequences)"};
    QTest::newRow("datacenter") << int(Kind::Datacenter)
                                << QStringList{"Domains per pod (scale-up domains)",
                                               "GPUs per domain (GPUs)", "Count (pods)"};
}

void TestPropertyEditor::numericFieldsHaveUnits()
{
    QFETCH(int, kind);
    QFETCH(QStringList, labels);
    m_editor->setSelection(Kind(kind), {0});
    QWidget* page = m_editor->currentPage();
    QVERIFY(page);
    QStringList shown;
    for (QLabel* label : page->findChildren<QLabel*>())
        shown << label->text();
    for (const QString& label : labels)
        QVERIFY2(shown.contains(label), qPrintable(label));
    // Every numeric editor explains itself (meaning and unit) in a tooltip.
    for (QAbstractSpinBox* spin : page->findChildren<QAbstractSpinBox*>())
        QVERIFY2(!spin->toolTip().isEmpty(), qPrintable(spin->objectName()));
}

void TestPropertyEditor::nothingClipsAtDockWidth_data()
{
    QTest::addColumn<int>("width");
    QTest::newRow("narrowest dock") << 300;
    QTest::newRow("default dock") << 370;
    QTest::newRow("wide dock") << 520;
}

void TestPropertyEditor::nothingClipsAtDockWidth()
{
    // Every editor keeps at least its minimum width and ends inside the panel: no clipped spin
    // arrows, drop-downs or texts, whatever the page and the dock's width.
    QFETCH(int, width);
    m_editor->resize(width, 900);
    m_editor->show();
    const QList<std::pair<Kind, QList<core::Id>>> pages{
        {Kind::Scenario, {}}, {Kind::Workload, {}},    {Kind::Parallelism, {}},
        {Kind::Schedule, {}}, {Kind::Datacenter, {0}}, {Kind::Datacenter, {0, 1}},
        {Kind::Pod, {0}},     {Kind::Link, {0}}};
    for (const auto& [kind, ids] : pages) {
        m_editor->setSelection(kind, ids);
        views::PropertyEditorPage* page = m_editor->currentPage();
        QVERIFY(page);
        QTest::qWait(10);
        auto* scroll = page->findChild<QScrollArea*>();
        QVERIFY(scroll);
        QWidget* viewport = scroll->viewport();
        const QList<QWidget*> editors = page->findChildren<QWidget*>();
        for (QWidget* w : editors) {
            if (!w->isVisible() || !(qobject_cast<QAbstractSpinBox*>(w) ||
                                     qobject_cast<QComboBox*>(w) || qobject_cast<QLineEdit*>(w)))
                continue;
            if (qobject_cast<QAbstractSpinBox*>(w->parentWidget()))
                continue; // the line edit inside a spin box
            const QPoint topLeft = w->mapTo(viewport, QPoint(0, 0));
            const QString what = QStringLiteral("%1 at %2: %3 from x %4, width %5 of %6")
                                     .arg(page->title())
                                     .arg(width)
                                     .arg(QString::fromLatin1(w->metaObject()->className()))
                                     .arg(topLeft.x())
                                     .arg(w->width())
                                     .arg(viewport->width());
            QVERIFY2(topLeft.x() + w->width() <= viewport->width(), qPrintable(what));
            QVERIFY2(w->width() >= w->minimumSizeHint().width(), qPrintable(what));
        }
        // A field's name too long for its column wraps onto a second line, tall enough to be
        // read whole ("Pipeline parallel PP" over "(stages)"), rather than "Pipeline parallel
        // PP (stag…".
        for (views::ElidedLabel* label : page->findChildren<views::ElidedLabel*>()) {
            if (!label->isVisible())
                continue;
            const QString what = QStringLiteral("%1 at %2: \"%3\" in %4 × %5 px")
                                     .arg(page->title())
                                     .arg(width)
                                     .arg(label->text())
                                     .arg(label->width())
                                     .arg(label->height());
            QVERIFY2(label->height() >= label->heightForWidth(label->width()), qPrintable(what));
            if (kind == Kind::Parallelism && label->text().contains(QStringLiteral(" parallel ")))
                QVERIFY2(!label->isElided(), qPrintable(what));
        }
    }
    // The wrap itself: whole words on the first line, the rest elided on the second.
    views::ElidedLabel label(QStringLiteral("Pipeline parallel PP (stages)"));
    const int narrow =
        label.fontMetrics().horizontalAdvance(QStringLiteral("Pipeline parallel PP (s"));
    QCOMPARE(label.shownLines(narrow),
             QStringList({QStringLiteral("Pipeline parallel PP"), QStringLiteral("(stages)")}));
    QCOMPARE(label.shownLines(10 * narrow), QStringList{label.text()});
}

void TestPropertyEditor::renderToPng()
{
    // A look at the panels for review (not an assertion on pixels).
    m_editor->show();
    const QList<std::pair<Kind, QList<core::Id>>> pages{{Kind::Parallelism, {}},
                                                        {Kind::Datacenter, {0, 1}},
                                                        {Kind::Link, {0}},
                                                        {Kind::Workload, {}}};
    int i = 0;
    for (const auto& [kind, ids] : pages) {
        m_editor->setSelection(kind, ids);
        if (kind == Kind::Parallelism)
            m_editor->parallelismEditor()->intField(QStringLiteral("tp"))->setValue(3);
        QTest::qWait(20); // let the layouts settle
        QVERIFY(m_editor->grab().save(QStringLiteral("/tmp/propertyeditor-%1.png").arg(i++)));
    }
    // The default dock width, with a refusal in words on the link page.
    m_editor->resize(370, 900);
    m_editor->setSelection(Kind::Link, {0});
    m_editor->linkEditor()->findChild<views::IntField*>()->setValue(0);
    QTest::qWait(20);
    QVERIFY(m_editor->grab().save(QStringLiteral("/tmp/propertyeditor-narrow-link.png")));
    m_editor->setSelection(Kind::Datacenter, {0});
    QTest::qWait(20);
    QVERIFY(m_editor->grab().save(QStringLiteral("/tmp/propertyeditor-narrow-datacenter.png")));
    m_editor->setSelection(Kind::Workload);
    QTest::qWait(20);
    QVERIFY(m_editor->grab().save(QStringLiteral("/tmp/propertyeditor-narrow-workload.png")));
    m_editor->setSelection(Kind::Scenario);
    QTest::qWait(20);
    QVERIFY(m_editor->grab().save(QStringLiteral("/tmp/propertyeditor-narrow-scenario.png")));
    m_editor->setSelection(Kind::Parallelism);
    m_editor->parallelismEditor()->intField(QStringLiteral("tp"))->setValue(3);
    QTest::qWait(20);
    QVERIFY(m_editor->grab().save(QStringLiteral("/tmp/propertyeditor-narrow-tp.png")));
}

QTEST_MAIN(TestPropertyEditor)
#include "test_propertyeditor.moc"
