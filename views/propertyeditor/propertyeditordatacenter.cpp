#include "propertyeditor/propertyeditordatacenter.h"

#include "common/format.h"
#include "io/scenarioio.h"
#include "model/scenariolimits.h"
#include "model/scenariotemplates.h"
#include "propertyeditor/propertyeditorregion.h"

#include <QFormLayout>
#include <QLabel>

#include <algorithm>

namespace archipelago::views {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

const QString kNewRegion = QStringLiteral("new"); // the Region box's "New region" choice

} // namespace

DatacenterEditor::DatacenterEditor(EditSink* sink, QWidget* parent)
    : PropertyEditorPage(sink, tr("Datacenter"), parent)
{
    buildGeneral();
    buildFabric();
    buildStorage();
    buildSite();
    buildPods();
}

void DatacenterEditor::buildGeneral()
{
    QFormLayout* form = addSection(tr("Datacenter"));
    m_name = new TextField;
    m_name->setMaxLength(core::kMaxNameChars); // what the reader takes back
    m_nameRow = addField(form, tr("Name"), m_name, tr("Name of the building (free text)."));
    connect(m_name, &TextField::committed, this, &DatacenterEditor::rename);
    m_region = new ChoiceField;
    m_regionRow = addField(form, tr("Region"), m_region,
                           tr("The region the building is in; \"New region\" moves the selected "
                              "datacenters into a region of their own."));
    connect(m_region, &ChoiceField::committed, this, [this](const QString& id) {
        if (id != kNewRegion) {
            editDatacenters(m_regionRow, [&](core::Datacenter& dc) { dc.regionId = id.toInt(); });
            return;
        }
        // One step: the region added and the datacenters moved into it.
        EditProposal proposal;
        proposal.candidate = scenario();
        core::Topology& t = proposal.candidate.topology;
        const core::Region region = core::newRegion(t);
        t.regions.push_back(region);
        for (core::Datacenter& dc : t.datacenters)
            if (m_dcIds.contains(dc.id))
                dc.regionId = region.id;
        proposal.fields = m_regionRow->pointers();
        proposal.row = m_regionRow;
        sink()->propose(proposal);
    });
    m_gpus = addNote(form, tr("GPUs"), tr("Derived: the sum over the pods."));

    QFormLayout* hardware = addSection(tr("Accelerator"));
    m_accelerator = new ChoiceField;
    m_acceleratorRow = addField(hardware, tr("Accelerator"), m_accelerator,
                                tr("GPU model of every pod, from the hardware catalog (built-in "
                                   "plus the scenario's overrides)."));
    connect(m_accelerator, &ChoiceField::committed, this, [this](const QString& name) {
        editDatacenters(m_acceleratorRow,
                        [&](core::Datacenter& dc) { dc.accelerator = name.toStdString(); });
    });
    m_acceleratorSpec = addNote(hardware, tr("Specification"),
                                tr("From the catalog: dense peak, HBM capacity and bandwidth, "
                                   "scale-up bandwidth per direction, default NIC."));
}

void DatacenterEditor::buildFabric()
{
    QFormLayout* form = addSection(tr("Scale-out fabric"));
    m_fabricKind = new ChoiceField;
    m_fabricKind->setChoices(
        {{tr("Clos"), core::toString(core::FabricKind::Clos)},
         {tr("Rail-optimized"), core::toString(core::FabricKind::RailOptimized)},
         {tr("Rail-only"), core::toString(core::FabricKind::RailOnly)}});
    m_fabricKindRow = addField(form, tr("Kind"), m_fabricKind,
                               tr("Clos (fat-tree), rail-optimized (one leaf per rail) or "
                                  "rail-only (no spine across rails, Wang et al. 2023)."));
    connect(m_fabricKind, &ChoiceField::committed, this, [this](const QString& v) {
        const auto kind = core::fabricKindFromString(v.toStdString());
        editDatacenters(m_fabricKindRow, [&](core::Datacenter& dc) {
            dc.fabric.kind = kind.value_or(dc.fabric.kind);
        });
    });
    m_tiers = new IntField(2, 3);
    m_tiersRow =
        addField(form, tr("Tiers (2–3)"), m_tiers, tr("2: leaf–spine; 3: leaf–spine–core."));
    connect(m_tiers, &IntField::committed, this, [this](int v) {
        editDatacenters(m_tiersRow, [&](core::Datacenter& dc) { dc.fabric.tiers = v; });
    });
    m_leafOversubscription = new DoubleField(1.0, 1'000.0, 2);
    m_leafOversubscription->setSuffix(QStringLiteral(" : 1"));
    m_leafRow = addField(
        form, tr("Leaf oversubscription"), m_leafOversubscription,
        tr("Downlink : uplink bandwidth at the leaf tier (ratio : 1); 1 = full bisection."));
    connect(m_leafOversubscription, &DoubleField::committed, this, [this](double v) {
        editDatacenters(m_leafRow,
                        [&](core::Datacenter& dc) { dc.fabric.leafOversubscription = v; });
    });
    m_spineOversubscription = new DoubleField(1.0, 1'000.0, 2);
    m_spineOversubscription->setSuffix(QStringLiteral(" : 1"));
    m_spineRow =
        addField(form, tr("Spine oversubscription"), m_spineOversubscription,
                 tr("Downlink : uplink bandwidth at the spine tier (ratio : 1), 3 tiers only."));
    connect(m_spineOversubscription, &DoubleField::committed, this, [this](double v) {
        editDatacenters(m_spineRow,
                        [&](core::Datacenter& dc) { dc.fabric.spineOversubscription = v; });
    });
    m_switch = new ChoiceField;
    m_switchRow = addField(form, tr("Switch"), m_switch,
                           tr("Switch model of every tier (radix × port speed, Gb/s)."));
    connect(m_switch, &ChoiceField::committed, this, [this](const QString& name) {
        editDatacenters(m_switchRow,
                        [&](core::Datacenter& dc) { dc.fabric.switchModel = name.toStdString(); });
    });
    m_nic = new ChoiceField;
    m_nicRow =
        addField(form, tr("NIC"), m_nic, tr("Scale-out NIC model; sets the NIC speed, Gb/s."));
    connect(m_nic, &ChoiceField::committed, this, [this](const QString& name) {
        editDatacenters(m_nicRow,
                        [&](core::Datacenter& dc) { dc.fabric.nicModel = name.toStdString(); });
    });
    m_nicsPerGpu = new IntField(1, 16);
    m_nicsPerGpuRow =
        addField(form, tr("NICs per GPU"), m_nicsPerGpu, tr("Scale-out NICs per GPU, 1–16."));
    connect(m_nicsPerGpu, &IntField::committed, this, [this](int v) {
        editDatacenters(m_nicsPerGpuRow, [&](core::Datacenter& dc) { dc.fabric.nicsPerGpu = v; });
    });
}

void DatacenterEditor::buildStorage()
{
    QFormLayout* form = addSection(tr("Checkpoint storage"));
    const auto field = [&](DoubleField*& edit, FieldRow*& row, const QString& label,
                           const QString& tip, double core::Datacenter::*member) {
        edit = new DoubleField(0.0, 1e6, 0);
        edit->setSuffix(tr(" GB/s"));
        row = addField(form, label, edit, tip);
        connect(edit, &DoubleField::committed, this, [this, row, member](double v) {
            editDatacenters(row, [&](core::Datacenter& dc) { dc.*member = v; });
        });
    };
    field(m_storageWrite, m_storageWriteRow, tr("Write (GB/s, 0 = catalog's)"),
          tr("Bandwidth at which the building's storage takes its GPUs' share of a checkpoint; "
             "0 takes the catalog's (Llama 3's Tectonic, 2 TB/s)."),
          &core::Datacenter::storageWriteGBps);
    field(m_storageRead, m_storageReadRow, tr("Read (GB/s, 0 = catalog's)"),
          tr("Bandwidth at which a restart reads the building's share back; 0 takes the "
             "catalog's."),
          &core::Datacenter::storageReadGBps);
}

void DatacenterEditor::buildSite()
{
    QFormLayout* form = addSection(tr("Site (run cost; 0 = the catalog's)"));
    const auto field = [&](DoubleField*& edit, FieldRow*& row, double max, int decimals,
                           const QString& suffix, const QString& label, const QString& tip,
                           double core::Datacenter::*member) {
        edit = new DoubleField(0.0, max, decimals);
        edit->setSuffix(suffix);
        row = addField(form, label, edit, tip);
        connect(edit, &DoubleField::committed, this, [this, row, member](double v) {
            editDatacenters(row, [&](core::Datacenter& dc) { dc.*member = v; });
        });
    };
    field(m_electricity, m_electricityRow, 10.0, 4, tr(" USD/kWh"), tr("Energy price"),
          tr("What the building pays for energy; 0 takes the catalog's (EIA's 2023 U.S. "
             "industrial average, 8.06 cents). Regions differ: 5.75 cents in New Mexico, 18.64 "
             "in California."),
          &core::Datacenter::electricityUsdPerKwh);
    field(m_pue, m_pueRow, 5.0, 2, QString(), tr("PUE"),
          tr("Power usage effectiveness: the facility's power over its IT load, 1 or more; 0 "
             "takes the catalog's (1.10, Google's fleet)."),
          &core::Datacenter::pue);
    field(m_facility, m_facilityRow, 10'000.0, 2, tr(" USD/kW-month"), tr("Colocation"),
          tr("The building's rate per kW of IT load and month, energy apart; 0 takes the "
             "catalog's (CBRE, North American primary markets, H2 2024)."),
          &core::Datacenter::facilityUsdPerKwMonth);
}

void DatacenterEditor::buildPods()
{
    QFormLayout* form = addSection(tr("Pods"));
    m_podChooser = new ChoiceField;
    addField(form, tr("Pod"), m_podChooser, tr("The pod of this datacenter to edit."));
    connect(m_podChooser, &ChoiceField::committed, this, [this](const QString& id) {
        m_podIds = {id.toInt()}; // choosing what to edit is not an edit
        loadPods();
    });
    m_podName = new TextField;
    m_podName->setMaxLength(core::kMaxNameChars); // what the reader takes back
    m_podNameRow = addField(form, tr("Name"), m_podName, tr("Name of the pod (free text)."));
    connect(m_podName, &TextField::committed, this, [this](const QString& name) {
        editPods(m_podNameRow, [&](core::Pod& pod) { pod.name = name.toStdString(); });
    });
    m_podCount = new IntField(1, 100'000);
    m_podCountRow = addField(form, tr("Count (pods)"), m_podCount,
                             tr("Identical pods of this kind in the datacenter."));
    m_podCountRow->setRangeRule([](double typed) {
        return tr("A pod count must be a whole number from 1 to 100,000; %1 is not. To take the "
                  "pods out, remove the pod (Delete on the canvas).")
            .arg(formatCount(static_cast<std::int64_t>(typed)));
    });
    connect(m_podCount, &IntField::committed, this,
            [this](int v) { editPods(m_podCountRow, [&](core::Pod& pod) { pod.count = v; }); });
    m_domainsPerPod = new IntField(1, 1'000'000);
    m_domainsRow = addField(form, tr("Domains per pod (scale-up domains)"), m_domainsPerPod,
                            tr("Scale-up (NVLink) domains in one pod."));
    connect(m_domainsPerPod, &IntField::committed, this, [this](int v) {
        editPods(m_domainsRow, [&](core::Pod& pod) { pod.domainsPerPod = v; });
    });
    m_gpusPerDomain = new IntField(1, 1'024);
    m_gpusPerDomainRow = addField(form, tr("GPUs per domain (GPUs)"), m_gpusPerDomain,
                                  tr("GPUs in one scale-up domain (8 for HGX, 72 for NVL72)."));
    connect(m_gpusPerDomain, &IntField::committed, this, [this](int v) {
        editPods(m_gpusPerDomainRow, [&](core::Pod& pod) { pod.gpusPerDomain = v; });
    });
    m_podGpus = addNote(form, tr("GPUs in the pods"), tr("Derived: count × domains × GPUs."));
    m_podHint = new QLabel(tr("Select one datacenter, or pods, to edit pods."));
    m_podHint->setWordWrap(true);
    m_podHint->setEnabled(false);
    form->addRow(m_podHint);
    m_podForm = form;
}

std::vector<const core::Datacenter*> DatacenterEditor::selectedDatacenters() const
{
    std::vector<const core::Datacenter*> dcs;
    for (core::Id id : m_dcIds)
        if (const core::Datacenter* dc = core::findDatacenter(scenario().topology, id))
            dcs.push_back(dc);
    return dcs;
}

std::vector<const core::Pod*> DatacenterEditor::selectedPods() const
{
    std::vector<const core::Pod*> pods;
    for (const core::Datacenter& dc : scenario().topology.datacenters)
        for (const core::Pod& pod : dc.pods)
            if (m_podIds.contains(pod.id))
                pods.push_back(&pod);
    return pods;
}

QStringList DatacenterEditor::podPointers(const QString& suffix) const
{
    QStringList pointers;
    const auto& dcs = scenario().topology.datacenters;
    for (std::size_t d = 0; d < dcs.size(); ++d)
        for (std::size_t p = 0; p < dcs[d].pods.size(); ++p)
            if (m_podIds.contains(dcs[d].pods[p].id))
                pointers << QStringLiteral("/topology/datacenters/%1/pods/%2").arg(d).arg(p) +
                                suffix;
    return pointers;
}

void DatacenterEditor::editDatacenters(FieldRow* row,
                                       const std::function<void(core::Datacenter&)>& apply)
{
    EditProposal proposal;
    proposal.candidate = scenario();
    for (core::Datacenter& dc : proposal.candidate.topology.datacenters)
        if (m_dcIds.contains(dc.id))
            apply(dc);
    proposal.fields = row->pointers();
    proposal.row = row;
    proposal.adaptPlacement = true; // no-op unless the GPU counts change
    sink()->propose(proposal);
}

void DatacenterEditor::rename(const QString& typed)
{
    QStringList taken;
    for (const core::Datacenter& dc : scenario().topology.datacenters)
        if (!m_dcIds.contains(dc.id))
            taken << qs(dc.name);
    QString refusal = nameRefusal(typed, taken, tr("datacenter"));
    if (!refusal.isEmpty()) {
        m_nameRow->refuse({refusal});
        const auto dcs = selectedDatacenters();
        m_name->load(commonValue(dcs, [](auto* dc) { return qs(dc->name); }));
        return;
    }
    editDatacenters(m_nameRow,
                    [&](core::Datacenter& dc) { dc.name = typed.trimmed().toStdString(); });
}

void DatacenterEditor::editPods(FieldRow* row, const std::function<void(core::Pod&)>& apply)
{
    editDatacenters(row, [&](core::Datacenter& dc) {
        for (core::Pod& pod : dc.pods)
            if (m_podIds.contains(pod.id))
                apply(pod);
    });
}

void DatacenterEditor::loadCatalogChoices()
{
    const core::Catalog catalog = core::effectiveCatalog(scenario());
    std::vector<std::pair<QString, QString>> accelerators;
    for (const core::AcceleratorSpec& a : catalog.accelerators)
        accelerators.emplace_back(qs(a.name), qs(a.name));
    m_accelerator->setChoices(accelerators);
    std::vector<std::pair<QString, QString>> switches{{tr("(catalog default)"), QString()}};
    for (const core::SwitchSpec& s : catalog.switches)
        switches.emplace_back(qs(s.name), qs(s.name));
    m_switch->setChoices(switches);
    std::vector<std::pair<QString, QString>> nics{{tr("(the accelerator's)"), QString()}};
    for (const core::NicSpec& n : catalog.nics)
        nics.emplace_back(qs(n.name), qs(n.name));
    m_nic->setChoices(nics);
    for (int i = 0; i < m_switch->count(); ++i)
        if (const core::SwitchSpec* spec =
                catalog.switchSpec(m_switch->itemData(i).toString().toStdString()))
            m_switch->setItemData(
                i, tr("%1 ports × %2").arg(spec->radix).arg(formatGbps(spec->portGbps)),
                Qt::ToolTipRole);
    for (int i = 0; i < m_nic->count(); ++i)
        if (const core::NicSpec* spec = catalog.nic(m_nic->itemData(i).toString().toStdString()))
            m_nic->setItemData(i, formatGbps(spec->gbps), Qt::ToolTipRole);
    std::vector<std::pair<QString, QString>> regions;
    for (const core::Region& r : scenario().topology.regions)
        regions.emplace_back(qs(r.name), QString::number(r.id));
    regions.emplace_back(tr("New region"), kNewRegion);
    m_region->setChoices(regions);

    const auto dcs = selectedDatacenters();
    const auto accelerator = commonValue(dcs, [](auto* dc) { return dc->accelerator; });
    const core::AcceleratorSpec* spec = accelerator ? catalog.accelerator(*accelerator) : nullptr;
    m_acceleratorSpec->setText(
        spec ? tr("%1 TFLOP/s BF16 · %2 HBM at %3 GB/s · %4 GB/s scale-up · %5 NIC")
                   .arg(formatNumber(spec->peakTflopsBf16, 0), formatGib(spec->hbmGib),
                        formatNumber(spec->hbmGBps, 0),
                        formatNumber(spec->scaleUpGBpsPerDirection, 0), formatGbps(spec->nicGbps))
             : (accelerator ? tr("not in the catalog") : mixedText()));
}

void DatacenterEditor::loadValues()
{
    const core::Scenario& s = scenario();
    const QList<core::Id> chosenPods = m_podIds; // kept across reloads of the same datacenter
    m_dcIds.clear();
    m_podIds.clear();
    if (kind() == Kind::Pod) {
        for (const core::Datacenter& dc : s.topology.datacenters)
            for (const core::Pod& pod : dc.pods)
                if (ids().contains(pod.id)) {
                    m_podIds << pod.id;
                    if (!m_dcIds.contains(dc.id))
                        m_dcIds << dc.id;
                }
    } else {
        m_dcIds = ids();
    }
    const auto dcs = selectedDatacenters();
    if (kind() == Kind::Datacenter && dcs.size() == 1 && !dcs.front()->pods.empty()) {
        const auto& pods = dcs.front()->pods;
        const bool keep = chosenPods.size() == 1 &&
                          std::any_of(pods.begin(), pods.end(), [&](const core::Pod& pod) {
                              return pod.id == chosenPods.front();
                          });
        m_podIds = {keep ? chosenPods.front() : pods.front().id};
    }

    QStringList names;
    std::int64_t gpus = 0;
    for (const core::Datacenter* dc : dcs) {
        names << qs(dc->name);
        gpus += core::gpusInDatacenter(*dc);
    }
    setTitle(kind() == Kind::Pod ? tr("Pods in %1").arg(names.join(QStringLiteral(", ")))
             : dcs.size() == 1
                 ? tr("Datacenter: %1").arg(names.front())
                 : tr("%1 datacenters: %2").arg(dcs.size()).arg(names.join(QStringLiteral(", "))));
    loadCatalogChoices();

    m_name->load(commonValue(dcs, [](auto* dc) { return qs(dc->name); }));
    m_name->setEnabled(dcs.size() <= 1); // one name for several buildings is never meant
    m_region->load(commonValue(dcs, [](auto* dc) { return QString::number(dc->regionId); }));
    m_gpus->setText(formatCount(gpus));
    m_accelerator->load(commonValue(dcs, [](auto* dc) { return qs(dc->accelerator); }));
    m_fabricKind->load(
        commonValue(dcs, [](auto* dc) { return QString::fromLatin1(toString(dc->fabric.kind)); }));
    m_tiers->load(commonValue(dcs, [](auto* dc) { return dc->fabric.tiers; }));
    m_leafOversubscription->load(
        commonValue(dcs, [](auto* dc) { return dc->fabric.leafOversubscription; }));
    m_spineOversubscription->load(
        commonValue(dcs, [](auto* dc) { return dc->fabric.spineOversubscription; }));
    m_switch->load(commonValue(dcs, [](auto* dc) { return qs(dc->fabric.switchModel); }));
    m_nic->load(commonValue(dcs, [](auto* dc) { return qs(dc->fabric.nicModel); }));
    m_nicsPerGpu->load(commonValue(dcs, [](auto* dc) { return dc->fabric.nicsPerGpu; }));
    m_storageWrite->load(commonValue(dcs, [](auto* dc) { return dc->storageWriteGBps; }));
    m_storageRead->load(commonValue(dcs, [](auto* dc) { return dc->storageReadGBps; }));
    m_electricity->load(commonValue(dcs, [](auto* dc) { return dc->electricityUsdPerKwh; }));
    m_pue->load(commonValue(dcs, [](auto* dc) { return dc->pue; }));
    m_facility->load(commonValue(dcs, [](auto* dc) { return dc->facilityUsdPerKwMonth; }));
    m_electricityRow->setPointers(
        datacenterPointers(s, m_dcIds, QStringLiteral("/electricity_usd_per_kwh")));
    m_pueRow->setPointers(datacenterPointers(s, m_dcIds, QStringLiteral("/pue")));
    m_facilityRow->setPointers(
        datacenterPointers(s, m_dcIds, QStringLiteral("/facility_usd_per_kw_month")));
    m_storageWriteRow->setPointers(
        datacenterPointers(s, m_dcIds, QStringLiteral("/storage_write_GBps")));
    m_storageReadRow->setPointers(
        datacenterPointers(s, m_dcIds, QStringLiteral("/storage_read_GBps")));

    m_nameRow->setPointers(datacenterPointers(s, m_dcIds, QStringLiteral("/name")));
    m_regionRow->setPointers(datacenterPointers(s, m_dcIds, QStringLiteral("/region")));
    m_acceleratorRow->setPointers(datacenterPointers(s, m_dcIds, QStringLiteral("/accelerator")));
    const auto fabric = [&](const char* key) {
        return datacenterPointers(s, m_dcIds, QStringLiteral("/fabric/") + QLatin1String(key));
    };
    m_fabricKindRow->setPointers(fabric("kind"));
    m_tiersRow->setPointers(fabric("tiers"));
    m_leafRow->setPointers(fabric("leaf_oversubscription"));
    m_spineRow->setPointers(fabric("spine_oversubscription"));
    m_switchRow->setPointers(fabric("switch"));
    m_nicRow->setPointers(fabric("nic"));
    m_nicsPerGpuRow->setPointers(fabric("nics_per_gpu"));

    std::vector<std::pair<QString, QString>> pods;
    if (dcs.size() == 1)
        for (const core::Pod& pod : dcs.front()->pods)
            pods.emplace_back(
                tr("%1 (%2 GPUs)").arg(qs(pod.name), formatCount(core::gpusInPod(pod))),
                QString::number(pod.id));
    m_podChooser->setChoices(pods);
    loadPods();
}

void DatacenterEditor::loadPods()
{
    const auto pods = selectedPods();
    const bool chooser = kind() == Kind::Datacenter && m_dcIds.size() == 1;
    for (QWidget* field :
         {static_cast<QWidget*>(m_podNameRow), static_cast<QWidget*>(m_podCountRow),
          static_cast<QWidget*>(m_domainsRow), static_cast<QWidget*>(m_gpusPerDomainRow),
          static_cast<QWidget*>(m_podGpus)})
        m_podForm->setRowVisible(field, !pods.empty());
    m_podForm->setRowVisible(m_podChooser->parentWidget(), chooser && !pods.empty());
    m_podHint->setVisible(pods.empty());
    if (pods.empty())
        return;
    const QSignalBlocker blocker(this);
    if (pods.size() == 1)
        m_podChooser->load(QString::number(pods.front()->id));
    m_podName->load(commonValue(pods, [](auto* p) { return qs(p->name); }));
    m_podCount->load(commonValue(pods, [](auto* p) { return p->count; }));
    m_domainsPerPod->load(commonValue(pods, [](auto* p) { return p->domainsPerPod; }));
    m_gpusPerDomain->load(commonValue(pods, [](auto* p) { return p->gpusPerDomain; }));
    std::int64_t gpus = 0;
    for (const core::Pod* pod : pods)
        gpus += core::gpusInPod(*pod);
    m_podGpus->setText(formatCount(gpus));
    m_podNameRow->setPointers(podPointers(QStringLiteral("/name")));
    m_podCountRow->setPointers(podPointers(QStringLiteral("/count")));
    m_domainsRow->setPointers(podPointers(QStringLiteral("/domains_per_pod")));
    m_gpusPerDomainRow->setPointers(podPointers(QStringLiteral("/gpus_per_domain")));
}

} // namespace archipelago::views
