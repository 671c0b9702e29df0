#include "propertyrows.h"

#include "format.h"
#include "scenarioio.h"
#include "scenariotext.h"

#include <QStringList>

#include <algorithm>

namespace archipelago::views {

namespace {

using Kind = ScenarioItem::Kind;

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

// Collects rows; keeps each describer a flat list of add() calls.
class Rows
{
public:
    void heading(const QString& title) { m_rows.push_back({title, {}, {}, true}); }
    void add(const QString& name, const QString& value, const QString& unit = {})
    {
        m_rows.push_back({name, value, unit, false});
    }
    void add(const QString& name, std::int64_t value, const QString& unit = {})
    {
        add(name, formatCount(value), unit);
    }
    void add(const QString& name, int value, const QString& unit = {})
    {
        add(name, formatCount(value), unit);
    }
    void add(const QString& name, double value, int decimals, const QString& unit = {})
    {
        add(name, formatNumber(value, decimals), unit);
    }
    std::vector<PropertyRow> take() { return std::move(m_rows); }

private:
    std::vector<PropertyRow> m_rows;
};

void describeScenario(Rows& rows, const core::Scenario& s)
{
    rows.heading(QStringLiteral("Scenario"));
    rows.add(QStringLiteral("Name"), fromStd(s.name));
    rows.heading(QStringLiteral("Size"));
    rows.add(QStringLiteral("GPUs"), core::totalGpus(s.topology));
    rows.add(QStringLiteral("Regions"), static_cast<std::int64_t>(s.topology.regions.size()));
    rows.add(QStringLiteral("Datacenters"),
             static_cast<std::int64_t>(s.topology.datacenters.size()));
    rows.add(QStringLiteral("DCI links"), static_cast<std::int64_t>(s.topology.links.size()));
}

void describeRegion(Rows& rows, const core::Scenario& s, core::Id id)
{
    const core::Region* region = core::findRegion(s.topology, id);
    if (!region)
        return;
    std::int64_t gpus = 0;
    QStringList names;
    for (const core::Datacenter& dc : s.topology.datacenters) {
        if (dc.regionId == id) {
            gpus += core::gpusInDatacenter(dc);
            names << fromStd(dc.name);
        }
    }
    rows.heading(QStringLiteral("Region"));
    rows.add(QStringLiteral("Name"), fromStd(region->name));
    rows.add(QStringLiteral("Id"), region->id);
    rows.add(QStringLiteral("Datacenters"), names.join(QStringLiteral(", ")));
    rows.add(QStringLiteral("GPUs"), gpus);
}

void describeAccelerator(Rows& rows, const core::Scenario& s, const std::string& name)
{
    const core::Catalog catalog = core::builtinCatalog().mergedWith(s.catalogOverrides);
    const core::AcceleratorSpec* spec = catalog.accelerator(name);
    rows.heading(QStringLiteral("Accelerator"));
    rows.add(QStringLiteral("Model"), fromStd(name));
    if (!spec) {
        rows.add(QStringLiteral("Catalog"), QStringLiteral("not in the catalog"));
        return;
    }
    rows.add(QStringLiteral("Peak BF16 (dense)"), spec->peakTflopsBf16, 0,
             QStringLiteral("TFLOP/s"));
    if (spec->peakTflopsFp8 > 0.0)
        rows.add(QStringLiteral("Peak FP8 (dense)"), spec->peakTflopsFp8, 0,
                 QStringLiteral("TFLOP/s"));
    rows.add(QStringLiteral("HBM"), spec->hbmGib, 0, QStringLiteral("GiB"));
    rows.add(QStringLiteral("HBM bandwidth"), spec->hbmGBps, 0, QStringLiteral("GB/s"));
    rows.add(QStringLiteral("Scale-up bandwidth"), spec->scaleUpGBpsPerDirection, 0,
             QStringLiteral("GB/s per direction"));
    rows.add(QStringLiteral("Power"), spec->watts, 0, QStringLiteral("W"));
}

void describeDatacenter(Rows& rows, const core::Scenario& s, core::Id id)
{
    const core::Datacenter* dc = core::findDatacenter(s.topology, id);
    if (!dc)
        return;
    const core::Region* region = core::findRegion(s.topology, dc->regionId);
    rows.heading(QStringLiteral("Datacenter"));
    rows.add(QStringLiteral("Name"), fromStd(dc->name));
    rows.add(QStringLiteral("Id"), dc->id);
    rows.add(QStringLiteral("Region"), region ? fromStd(region->name) : QStringLiteral("—"));
    rows.add(QStringLiteral("GPUs"), core::gpusInDatacenter(*dc));
    rows.add(QStringLiteral("Pods"), static_cast<std::int64_t>(dc->pods.size()));
    rows.add(QStringLiteral("Scale-up domain"), core::scaleUpDomainGpus(*dc),
             QStringLiteral("GPUs"));
    rows.add(QStringLiteral("Position"),
             QStringLiteral("%1, %2").arg(formatNumber(dc->x, 0), formatNumber(dc->y, 0)));
    rows.heading(QStringLiteral("Scale-out fabric"));
    rows.add(QStringLiteral("Kind"), fromStd(core::toString(dc->fabric.kind)));
    rows.add(QStringLiteral("Tiers"), dc->fabric.tiers);
    rows.add(QStringLiteral("Leaf oversubscription"), ratio(dc->fabric.leafOversubscription),
             QStringLiteral("down : up"));
    rows.add(QStringLiteral("Spine oversubscription"), ratio(dc->fabric.spineOversubscription),
             QStringLiteral("down : up"));
    rows.add(QStringLiteral("Switch"), dc->fabric.switchModel.empty()
                                           ? QStringLiteral("catalog default")
                                           : fromStd(dc->fabric.switchModel));
    rows.add(QStringLiteral("NIC"), dc->fabric.nicModel.empty()
                                        ? QStringLiteral("accelerator default")
                                        : fromStd(dc->fabric.nicModel));
    rows.add(QStringLiteral("NICs per GPU"), dc->fabric.nicsPerGpu);
    describeAccelerator(rows, s, dc->accelerator);
}

void describePod(Rows& rows, const core::Scenario& s, core::Id dcId, core::Id podId)
{
    const core::Datacenter* dc = core::findDatacenter(s.topology, dcId);
    if (!dc)
        return;
    auto it = std::find_if(dc->pods.begin(), dc->pods.end(),
                           [&](const core::Pod& p) { return p.id == podId; });
    if (it == dc->pods.end())
        return;
    rows.heading(QStringLiteral("Pod"));
    rows.add(QStringLiteral("Name"), fromStd(it->name));
    rows.add(QStringLiteral("Id"), it->id);
    rows.add(QStringLiteral("Datacenter"), fromStd(dc->name));
    rows.add(QStringLiteral("Count"), it->count, QStringLiteral("pods"));
    rows.add(QStringLiteral("Domains per pod"), it->domainsPerPod);
    rows.add(QStringLiteral("GPUs per domain"), it->gpusPerDomain);
    rows.add(QStringLiteral("GPUs"), core::gpusInPod(*it));
}

void describeLink(Rows& rows, const core::Scenario& s, core::Id id)
{
    const core::DciLink* link = core::findLink(s.topology, id);
    if (!link)
        return;
    rows.heading(QStringLiteral("DCI link"));
    rows.add(QStringLiteral("Ends"), linkTitle(s, *link));
    rows.add(QStringLiteral("Id"), link->id);
    rows.add(QStringLiteral("Distance"), link->distanceKm, 1, QStringLiteral("km"));
    rows.add(QStringLiteral("Wavelengths"), link->wavelengths);
    rows.add(QStringLiteral("Rate per wavelength"), link->gbpsPerWavelength, 0,
             QStringLiteral("Gb/s"));
    rows.add(QStringLiteral("Capacity"), formatGbps(link->gbpsPerWavelength * link->wavelengths));
    rows.add(QStringLiteral("Optic"), fromStd(link->optic));
    rows.add(QStringLiteral("Line system"), fromStd(link->lineSystem));
    rows.heading(QStringLiteral("Transport"));
    rows.add(QStringLiteral("Kind"), fromStd(core::toString(link->transport)));
    rows.add(QStringLiteral("Equipment latency"), link->equipmentLatencyS * 1e6, 1,
             QStringLiteral("µs"));
    if (link->transport == core::DciTransport::LossyIp) {
        rows.add(QStringLiteral("Packet loss rate"), QString::number(link->packetLossRate, 'g'));
        rows.add(QStringLiteral("Window"), link->windowBytes / (1024.0 * 1024.0), 1,
                 QStringLiteral("MiB"));
    }
    rows.add(QStringLiteral("Connections per collective"), link->connectionsPerCollective);
}

void describeWorkload(Rows& rows, const core::Workload& w)
{
    rows.heading(QStringLiteral("Model"));
    rows.add(QStringLiteral("Name"), fromStd(w.name));
    rows.add(QStringLiteral("Layers"), w.layers);
    rows.add(QStringLiteral("Hidden"), w.hidden);
    rows.add(QStringLiteral("Attention heads"), w.heads);
    rows.add(QStringLiteral("KV heads"), w.kvHeads);
    rows.add(QStringLiteral("FFN hidden"), w.ffnHidden);
    rows.add(QStringLiteral("FFN activation"), fromStd(core::toString(w.activation)));
    rows.add(QStringLiteral("Vocabulary"), w.vocab, QStringLiteral("tokens"));
    if (w.moe.enabled()) {
        rows.heading(QStringLiteral("Mixture of experts"));
        rows.add(QStringLiteral("Experts"), w.moe.experts);
        rows.add(QStringLiteral("Top-k"), w.moe.topK);
        rows.add(QStringLiteral("Expert FFN hidden"), w.moe.expertFfnHidden);
        rows.add(QStringLiteral("Shared experts"), w.moe.sharedExperts);
        rows.add(QStringLiteral("Leading dense layers"), w.moe.firstDenseLayers);
    }
    rows.heading(QStringLiteral("Training"));
    rows.add(QStringLiteral("Sequence length"), w.seqLen, QStringLiteral("tokens"));
    rows.add(QStringLiteral("Global batch"), w.globalBatch, QStringLiteral("sequences"));
    rows.add(QStringLiteral("Tokens per iteration"),
             static_cast<std::int64_t>(w.globalBatch) * w.seqLen, QStringLiteral("tokens"));
    rows.add(QStringLiteral("Precision"), fromStd(core::toString(w.precision)));
    rows.add(QStringLiteral("Tokens to train"), QString::number(w.trainTokens, 'g', 3),
             QStringLiteral("tokens"));
}

void describeParallelism(Rows& rows, const core::Scenario& s)
{
    const core::Parallelism& p = s.parallelism;
    const std::int64_t dp = core::dataParallel(s);
    rows.heading(QStringLiteral("Degrees"));
    rows.add(QStringLiteral("Tensor parallel (TP)"), p.tp);
    rows.add(QStringLiteral("Context parallel (CP)"), p.cp);
    rows.add(QStringLiteral("Pipeline parallel (PP)"), p.pp);
    rows.add(QStringLiteral("Data parallel (DP, derived)"),
             dp > 0 ? formatCount(dp) : QStringLiteral("does not divide"));
    rows.add(QStringLiteral("Expert parallel (EP)"), p.ep);
    rows.add(QStringLiteral("Virtual stages"), p.virtualStages);
    rows.heading(QStringLiteral("Batching"));
    rows.add(QStringLiteral("Micro-batch"), p.microBatch, QStringLiteral("sequences"));
    rows.add(QStringLiteral("Micro-batches per iteration"), core::microBatchesPerIteration(s));
    rows.heading(QStringLiteral("Memory"));
    rows.add(QStringLiteral("Sequence parallel"), yesNo(p.sequenceParallel));
    rows.add(QStringLiteral("ZeRO stage"), p.zeroStage);
    rows.add(QStringLiteral("Distributed optimizer"), yesNo(p.distributedOptimizer));
    rows.add(QStringLiteral("Activation recompute"), recomputeName(p.recompute));
    rows.heading(QStringLiteral("Overlap with compute"));
    rows.add(QStringLiteral("DP gradient reduce"), yesNo(p.overlap.dpGradReduce));
    rows.add(QStringLiteral("DP parameter gather"), yesNo(p.overlap.dpParamGather));
    rows.add(QStringLiteral("TP collectives"), yesNo(p.overlap.tpComm));
    rows.add(QStringLiteral("CP exchange"), yesNo(p.overlap.cpComm));
    rows.add(QStringLiteral("EP all-to-all"), yesNo(p.overlap.epComm));
    rows.add(QStringLiteral("PP send/receive"), yesNo(p.overlap.ppComm));
}

void describePlacement(Rows& rows, const core::Scenario& s)
{
    QStringList order;
    for (core::ParallelDim dim : s.placement.rankOrder)
        order << fromStd(core::toString(dim));
    QStringList layers;
    for (int n : core::effectiveLayersPerStage(s))
        layers << QString::number(n);
    rows.heading(QStringLiteral("Placement"));
    rows.add(QStringLiteral("Rank order (innermost first)"), order.join(QStringLiteral("-")));
    rows.add(QStringLiteral("Shards"),
             s.placement.shards.empty()
                 ? QStringLiteral("implicit (first datacenter)")
                 : formatCount(static_cast<std::int64_t>(s.placement.shards.size())));
    rows.add(QStringLiteral("Layers per stage"), layers.join(QStringLiteral(", ")));
    const std::vector<std::int64_t> placed = core::placedGpusPerDatacenter(s);
    rows.heading(QStringLiteral("GPUs placed per datacenter"));
    for (std::size_t i = 0; i < s.topology.datacenters.size() && i < placed.size(); ++i) {
        const core::Datacenter& dc = s.topology.datacenters[i];
        rows.add(fromStd(dc.name),
                 QStringLiteral("%1 of %2")
                     .arg(formatCount(placed[i]), formatCount(core::gpusInDatacenter(dc))));
    }
}

void describeShard(Rows& rows, const core::Scenario& s, core::Id index)
{
    const std::vector<core::PlacementShard> shards = core::effectiveShards(s);
    if (index < 0 || static_cast<std::size_t>(index) >= shards.size())
        return;
    const core::PlacementShard& shard = shards[static_cast<std::size_t>(index)];
    rows.heading(QStringLiteral("Shard %1").arg(index));
    rows.add(QStringLiteral("DP replicas"), shard.dpReplicas);
    rows.add(QStringLiteral("Stages"), static_cast<std::int64_t>(shard.stageDatacenters.size()));
    rows.heading(QStringLiteral("Stage → datacenter"));
    for (std::size_t i = 0; i < shard.stageDatacenters.size(); ++i)
        rows.add(QStringLiteral("Stage %1").arg(i), datacenterName(s, shard.stageDatacenters[i]));
}

void describeSchedule(Rows& rows, const core::Scenario& s)
{
    rows.heading(QStringLiteral("Pipeline schedule"));
    rows.add(QStringLiteral("Kind"), scheduleName(s.schedule.kind));
    rows.add(QStringLiteral("Virtual stages"), s.parallelism.virtualStages);
    rows.add(QStringLiteral("Extra in flight at DCI"), s.schedule.extraInFlightAtDci,
             QStringLiteral("micro-batches"));
}

} // namespace

QString itemTitle(const core::Scenario& s, const ScenarioItem& item)
{
    switch (item.kind) {
    case Kind::None:
        return {};
    case Kind::Scenario:
        return fromStd(s.name);
    case Kind::Topology:
        return QStringLiteral("Topology");
    case Kind::Region:
        if (const core::Region* r = core::findRegion(s.topology, item.id))
            return QStringLiteral("Region %1").arg(fromStd(r->name));
        return {};
    case Kind::Datacenter:
        return QStringLiteral("Datacenter %1").arg(datacenterName(s, item.id));
    case Kind::Pod:
        return QStringLiteral("Pod in %1").arg(datacenterName(s, item.parentId));
    case Kind::Links:
        return QStringLiteral("DCI links");
    case Kind::Link:
        if (const core::DciLink* l = core::findLink(s.topology, item.id))
            return QStringLiteral("DCI link %1").arg(linkTitle(s, *l));
        return {};
    case Kind::Workload:
        return QStringLiteral("Workload");
    case Kind::Parallelism:
        return QStringLiteral("Parallelism");
    case Kind::Placement:
        return QStringLiteral("Placement");
    case Kind::Shard:
        return QStringLiteral("Placement shard %1").arg(item.id);
    case Kind::Schedule:
        return QStringLiteral("Schedule");
    }
    return {};
}

QString itemDescription(const core::Scenario& s, const ScenarioItem& item)
{
    return item.kind == Kind::Scenario ? fromStd(s.description) : QString();
}

std::vector<PropertyRow> propertyRows(const core::Scenario& s, const ScenarioItem& item)
{
    Rows rows;
    switch (item.kind) {
    case Kind::None:
        break;
    case Kind::Scenario:
    case Kind::Topology:
    case Kind::Links:
        describeScenario(rows, s);
        break;
    case Kind::Region:
        describeRegion(rows, s, item.id);
        break;
    case Kind::Datacenter:
        describeDatacenter(rows, s, item.id);
        break;
    case Kind::Pod:
        describePod(rows, s, item.parentId, item.id);
        break;
    case Kind::Link:
        describeLink(rows, s, item.id);
        break;
    case Kind::Workload:
        describeWorkload(rows, s.workload);
        break;
    case Kind::Parallelism:
        describeParallelism(rows, s);
        break;
    case Kind::Placement:
        describePlacement(rows, s);
        break;
    case Kind::Shard:
        describeShard(rows, s, item.id);
        break;
    case Kind::Schedule:
        describeSchedule(rows, s);
        break;
    }
    return rows.take();
}

} // namespace archipelago::views
