#include "editing/edittext.h"

#include "common/crossingchoices.h"
#include "common/format.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <utility>
#include <vector>

namespace archipelago::app {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("Commands", text);
}

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString count(std::int64_t n)
{
    return views::formatCount(n);
}

QString onOff(bool on)
{
    return on ? tr("On") : tr("Off");
}

// One changed field: "TP" and "8"; `object` names what it belongs to when there are several
// ("dc-a↔dc-b", "building-a").
struct Change
{
    Change(QString field_, QString value_, QString object_, bool followsOthers_ = false,
           bool bare_ = false, QString pattern_ = {})
        : field(std::move(field_))
        , value(std::move(value_))
        , object(std::move(object_))
        , followsOthers(followsOthers_)
        , bare(bare_)
        , pattern(std::move(pattern_))
    {}

    QString field;
    QString value;
    QString object;
    bool followsOthers = false; // a consequence of another change (placement, fitted batch)
    bool bare = false;          // "Set Model GPT-3 175B": the value names what was set
    QString pattern;            // the whole phrase when alone: "Rename %1 to %2" (objects, value)
};

template <typename T> void add(std::vector<Change>& out, bool differs, const QString& field, T text)
{
    if (differs)
        out.push_back({field, text(), {}});
}

void workloadChanges(const core::Workload& a, const core::Workload& b, std::vector<Change>& out)
{
    add(out, a.name != b.name, tr("Model Name"), [&] { return qs(b.name); });
    add(out, a.layers != b.layers, tr("Layers"), [&] { return count(b.layers); });
    add(out, a.hidden != b.hidden, tr("Hidden Size"), [&] { return count(b.hidden); });
    add(out, a.heads != b.heads, tr("Attention Heads"), [&] { return count(b.heads); });
    add(out, a.kvHeads != b.kvHeads, tr("KV Heads"), [&] { return count(b.kvHeads); });
    add(out, a.ffnHidden != b.ffnHidden, tr("FFN Hidden Size"), [&] { return count(b.ffnHidden); });
    add(out, a.activation != b.activation, tr("FFN Activation"),
        [&] { return b.activation == core::FfnActivation::Swiglu ? tr("SwiGLU") : tr("GeLU"); });
    add(out, a.vocab != b.vocab, tr("Vocabulary"), [&] { return count(b.vocab); });
    add(out, a.seqLen != b.seqLen, tr("Sequence Length"), [&] { return count(b.seqLen); });
    add(out, a.moe.experts != b.moe.experts, tr("Experts"), [&] { return count(b.moe.experts); });
    add(out, a.moe.topK != b.moe.topK, tr("Experts per Token"), [&] { return count(b.moe.topK); });
    add(out, a.moe.expertFfnHidden != b.moe.expertFfnHidden, tr("Expert FFN Hidden Size"),
        [&] { return count(b.moe.expertFfnHidden); });
    add(out, a.moe.sharedExperts != b.moe.sharedExperts, tr("Shared Experts"),
        [&] { return count(b.moe.sharedExperts); });
    add(out, a.moe.firstDenseLayers != b.moe.firstDenseLayers, tr("Leading Dense Layers"),
        [&] { return count(b.moe.firstDenseLayers); });
    add(out, a.precision != b.precision, tr("Precision"),
        [&] { return QString::fromLatin1(core::toString(b.precision)).toUpper(); });
    add(out, a.trainTokens != b.trainTokens, tr("Tokens to Train"),
        [&] { return tr("%1 T").arg(views::formatNumber(b.trainTokens / 1e12, 3)); });
    add(out, a.checkpointIntervalS != b.checkpointIntervalS, tr("Checkpoint Interval"), [&] {
        return b.checkpointIntervalS > 0.0
                   ? tr("%1 s").arg(views::formatNumber(b.checkpointIntervalS, 0))
                   : tr("Optimal");
    });
    add(out, a.checkpointAsynchronous != b.checkpointAsynchronous, tr("Checkpoints"),
        [&] { return b.checkpointAsynchronous ? tr("Asynchronous") : tr("Synchronous"); });
    add(out, a.checkpointRemoteReplica != b.checkpointRemoteReplica, tr("Checkpoint Copy"),
        [&] { return b.checkpointRemoteReplica ? tr("another building") : tr("none"); });
    if (a.globalBatch != b.globalBatch)
        out.push_back({tr("Global Batch"), count(b.globalBatch), {}, true});
    if (!(a == b) && out.empty())
        out.push_back({tr("Workload"), {}, {}});
}

void parallelismChanges(const core::Parallelism& a, const core::Parallelism& b,
                        std::vector<Change>& out)
{
    const std::size_t before = out.size();
    add(out, a.tp != b.tp, tr("TP"), [&] { return count(b.tp); });
    add(out, a.cp != b.cp, tr("CP"), [&] { return count(b.cp); });
    add(out, a.pp != b.pp, tr("PP"), [&] { return count(b.pp); });
    add(out, a.ep != b.ep, tr("EP"), [&] { return count(b.ep); });
    add(out, a.virtualStages != b.virtualStages, tr("Virtual Stages"),
        [&] { return count(b.virtualStages); });
    add(out, a.microBatch != b.microBatch, tr("Micro-batch"), [&] { return count(b.microBatch); });
    add(out, a.sequenceParallel != b.sequenceParallel, tr("Sequence Parallel"),
        [&] { return onOff(b.sequenceParallel); });
    add(out, a.zeroStage != b.zeroStage, tr("ZeRO Stage"), [&] { return count(b.zeroStage); });
    add(out, a.distributedOptimizer != b.distributedOptimizer, tr("Distributed Optimizer"),
        [&] { return onOff(b.distributedOptimizer); });
    add(out, a.distributedOptimizerInstances != b.distributedOptimizerInstances,
        tr("Distributed-Optimizer Instances"),
        [&] { return count(b.distributedOptimizerInstances); });
    add(out, a.gradReduceDtype != b.gradReduceDtype, tr("Gradient Reduction Precision"),
        [&] { return QString::fromLatin1(core::toString(b.gradReduceDtype)); });
    add(out, a.recompute != b.recompute, tr("Recompute"),
        [&] { return QString::fromLatin1(core::toString(b.recompute)); });
    const core::OverlapOptions& oa = a.overlap;
    const core::OverlapOptions& ob = b.overlap;
    add(out, oa.dpGradReduce != ob.dpGradReduce, tr("DP Gradient Reduce Overlap"),
        [&] { return onOff(ob.dpGradReduce); });
    add(out, oa.dpParamGather != ob.dpParamGather, tr("DP Parameter Gather Overlap"),
        [&] { return onOff(ob.dpParamGather); });
    add(out, oa.tpComm != ob.tpComm, tr("TP Overlap"), [&] { return onOff(ob.tpComm); });
    add(out, oa.cpComm != ob.cpComm, tr("CP Overlap"), [&] { return onOff(ob.cpComm); });
    add(out, oa.epComm != ob.epComm, tr("EP Overlap"), [&] { return onOff(ob.epComm); });
    add(out, oa.ppComm != ob.ppComm, tr("PP Overlap"), [&] { return onOff(ob.ppComm); });
    const core::DatacenterSyncOptions& sa = a.datacenterSync;
    const core::DatacenterSyncOptions& sb = b.datacenterSync;
    add(out, sa.scheme != sb.scheme, tr("Data-Parallel Sync"),
        [&] { return QString::fromLatin1(core::toString(sb.scheme)); });
    add(out, sa.innerSteps != sb.innerSteps, tr("Inner Steps"),
        [&] { return count(sb.innerSteps); });
    add(out, sa.outerGradientBits != sb.outerGradientBits, tr("Outer Gradient Bits"),
        [&] { return count(sb.outerGradientBits); });
    add(out, sa.fragments != sb.fragments, tr("Sync Fragments"),
        [&] { return count(sb.fragments); });
    add(out, sa.overlapSteps != sb.overlapSteps, tr("Sync Overlap Steps"),
        [&] { return count(sb.overlapSteps); });
    if (!(a == b) && out.size() == before)
        out.push_back({tr("Parallelism"), {}, {}});
}

void placementChanges(const core::Scenario& before, const core::Scenario& after,
                      std::vector<Change>& out)
{
    const core::Placement& a = before.placement;
    const core::Placement& b = after.placement;
    if (a == b)
        return;
    if (a.rankOrder != b.rankOrder) {
        QStringList order;
        for (core::ParallelDim dim : b.rankOrder)
            order << QString::fromLatin1(core::toString(dim));
        out.push_back({tr("Rank Order"), order.join(QStringLiteral(", ")), {}, true});
    }
    if (a.layersPerStage != b.layersPerStage) {
        QStringList split;
        for (int layers : b.layersPerStage)
            split << QString::number(layers);
        out.push_back({tr("Layers per Stage"),
                       split.isEmpty() ? tr("even split") : split.join(QStringLiteral(", ")),
                       {},
                       true});
    }
    // What crosses each boundary, when that changed: "Set Layout to a ─PP─ b ─DP─ c".
    const QString chain = views::crossingChain(after);
    if (a.shards != b.shards && !chain.isEmpty() && chain != views::crossingChain(before))
        out.push_back({tr("Layout"), chain, {}, true});
    else if (a.shards != b.shards)
        out.push_back({tr("Placement"), {}, {}, true});
}

QString linkName(const core::Topology& t, const core::DciLink& link)
{
    const core::Datacenter* a = core::findDatacenter(t, link.a);
    const core::Datacenter* b = core::findDatacenter(t, link.b);
    return (a ? qs(a->name) : QString::number(link.a)) + QStringLiteral("↔") +
           (b ? qs(b->name) : QString::number(link.b));
}

void linkChanges(const core::Topology& t, const core::DciLink& a, const core::DciLink& b,
                 std::vector<Change>& out)
{
    const std::size_t before = out.size();
    add(out, a.distanceKm != b.distanceKm, tr("Distance"),
        [&] { return views::formatKm(b.distanceKm); });
    add(out, a.wavelengths != b.wavelengths, tr("Wavelengths"),
        [&] { return count(b.wavelengths); });
    add(out, a.gbpsPerWavelength != b.gbpsPerWavelength, tr("Rate per Wavelength"),
        [&] { return views::formatGbps(b.gbpsPerWavelength); });
    add(out, a.optic != b.optic, tr("Optic"), [&] { return qs(b.optic); });
    add(out, a.lineSystem != b.lineSystem, tr("Line System"), [&] { return qs(b.lineSystem); });
    add(out, a.transport != b.transport, tr("Transport"),
        [&] { return QString::fromLatin1(core::toString(b.transport)); });
    add(out, a.equipmentLatencyS != b.equipmentLatencyS, tr("Equipment Latency"),
        [&] { return views::formatSeconds(b.equipmentLatencyS); });
    add(out, a.opticalProtection != b.opticalProtection, tr("Optical Protection"),
        [&] { return b.opticalProtection ? tr("1+1") : tr("none"); });
    add(out, a.packetLossRate != b.packetLossRate, tr("Packet Loss"),
        [&] { return views::formatPercent(b.packetLossRate, 4); });
    const auto mib = [](double bytes) { return tr("%1 MiB").arg(bytes / (1024.0 * 1024.0)); };
    add(out, a.nccl.buffsizeBytes != b.nccl.buffsizeBytes, tr("NCCL Buffer"),
        [&] { return mib(b.nccl.buffsizeBytes); });
    add(out, a.nccl.channels != b.nccl.channels, tr("NCCL Channels"),
        [&] { return count(b.nccl.channels); });
    add(out, a.nccl.p2pChannelsPerPeer != b.nccl.p2pChannelsPerPeer, tr("NCCL P2P Channels"),
        [&] { return count(b.nccl.p2pChannelsPerPeer); });
    add(out, a.nccl.p2pChunkBytes != b.nccl.p2pChunkBytes, tr("NCCL P2P Chunk"),
        [&] { return mib(b.nccl.p2pChunkBytes); });
    add(out, a.nccl.qpsPerConnection != b.nccl.qpsPerConnection, tr("QPs per Connection"),
        [&] { return count(b.nccl.qpsPerConnection); });
    if (!(a == b) && out.size() == before)
        out.push_back({tr("DCI Link"), {}, {}});
    for (std::size_t i = before; i < out.size(); ++i)
        out[i].object = linkName(t, b);
}

QString regionName(const core::Topology& t, core::Id id)
{
    const core::Region* region = core::findRegion(t, id);
    return region ? qs(region->name) : QString::number(id);
}

void datacenterChanges(const core::Topology& t, const core::Datacenter& a,
                       const core::Datacenter& b, std::vector<Change>& out)
{
    const std::size_t before = out.size();
    if (a.name != b.name)
        out.push_back({tr("Name"), qs(b.name), qs(a.name), false, false, tr("Rename %1 to %2")});
    add(out, a.accelerator != b.accelerator, tr("Accelerator"), [&] { return qs(b.accelerator); });
    if (a.regionId != b.regionId)
        out.push_back(
            {tr("Region"), regionName(t, b.regionId), {}, false, false, tr("Move %1 to %2")});
    const core::Fabric& fa = a.fabric;
    const core::Fabric& fb = b.fabric;
    add(out, fa.kind != fb.kind, tr("Fabric"),
        [&] { return QString::fromLatin1(core::toString(fb.kind)); });
    add(out, fa.tiers != fb.tiers, tr("Fabric Tiers"), [&] { return count(fb.tiers); });
    add(out, fa.leafOversubscription != fb.leafOversubscription, tr("Leaf Oversubscription"),
        [&] { return views::formatNumber(fb.leafOversubscription, 2); });
    add(out, fa.spineOversubscription != fb.spineOversubscription, tr("Spine Oversubscription"),
        [&] { return views::formatNumber(fb.spineOversubscription, 2); });
    add(out, fa.switchModel != fb.switchModel, tr("Switch"), [&] { return qs(fb.switchModel); });
    add(out, fa.nicModel != fb.nicModel, tr("NIC"), [&] { return qs(fb.nicModel); });
    add(out, fa.nicsPerGpu != fb.nicsPerGpu, tr("NICs per GPU"),
        [&] { return count(fb.nicsPerGpu); });
    if (a.pods.size() == b.pods.size()) {
        for (std::size_t i = 0; i < a.pods.size(); ++i) {
            const core::Pod& pa = a.pods[i];
            const core::Pod& pb = b.pods[i];
            add(out, pa.name != pb.name, tr("Pod Name"), [&] { return qs(pb.name); });
            add(out, pa.count != pb.count, tr("Pod Count"), [&] { return count(pb.count); });
            add(out, pa.domainsPerPod != pb.domainsPerPod, tr("Domains per Pod"),
                [&] { return count(pb.domainsPerPod); });
            add(out, pa.gpusPerDomain != pb.gpusPerDomain, tr("GPUs per Domain"),
                [&] { return count(pb.gpusPerDomain); });
        }
    }
    if (!(a == b) && out.size() == before && (a.x != b.x || a.y != b.y))
        return; // a move is named by its own command
    if (!(a == b) && out.size() == before)
        out.push_back({tr("Datacenter"), {}, {}});
    for (std::size_t i = before; i < out.size(); ++i)
        if (out[i].object.isEmpty())
            out[i].object = qs(b.name);
}

// A region added, deleted or renamed, with the datacenters that moved: "Add Region region-2",
// "Move dc-3 to New Region region-2", "Delete Region region-b (dc-c to region-a)", "Rename
// Region region-2 to B". Empty when the regions are as they were.
QString regionEdit(const core::Topology& ta, const core::Topology& tb)
{
    if (ta.regions == tb.regions)
        return {};
    QStringList moved;
    QString movedTo;
    for (const core::Datacenter& dc : tb.datacenters)
        if (const core::Datacenter* old = core::findDatacenter(ta, dc.id);
            old && old->regionId != dc.regionId) {
            moved << qs(dc.name);
            movedTo = regionName(tb, dc.regionId);
        }
    for (const core::Region& region : tb.regions)
        if (!core::findRegion(ta, region.id))
            return moved.isEmpty() ? tr("Add Region %1").arg(qs(region.name))
                                   : tr("Move %1 to New Region %2")
                                         .arg(moved.join(QStringLiteral(", ")), qs(region.name));
    for (const core::Region& region : ta.regions)
        if (!core::findRegion(tb, region.id))
            return moved.isEmpty()
                       ? tr("Delete Region %1").arg(qs(region.name))
                       : tr("Delete Region %1 (%2 to %3)")
                             .arg(qs(region.name), moved.join(QStringLiteral(", ")), movedTo);
    for (const core::Region& region : tb.regions)
        if (const core::Region* old = core::findRegion(ta, region.id); old && *old != region)
            return tr("Rename Region %1 to %2").arg(qs(old->name), qs(region.name));
    return tr("Change Regions");
}

// "Set TP to 8"; "Set Accelerator of building-a, building-b to H100"; "Set TP to 4, PP to 2".
QString phrase(const std::vector<Change>& changes)
{
    if (changes.empty())
        return {};
    const Change& first = changes.front();
    const bool sameField = std::all_of(changes.begin(), changes.end(), [&](const Change& c) {
        return c.field == first.field && c.value == first.value;
    });
    if (sameField) {
        QStringList objects;
        for (const Change& c : changes)
            if (!c.object.isEmpty() && !objects.contains(c.object))
                objects << c.object;
        if (!first.pattern.isEmpty() && !objects.isEmpty())
            return first.pattern.arg(objects.join(QStringLiteral(", ")), first.value);
        QString field = first.field;
        if (objects.size() == 1)
            field += QLatin1Char(' ') + objects.front();
        else if (objects.size() > 1)
            field = tr("%1 of %2 Objects").arg(field).arg(objects.size());
        if (first.value.isEmpty())
            return tr("Change %1").arg(field);
        return first.bare ? tr("Set %1 %2").arg(field, first.value)
                          : tr("Set %1 to %2").arg(field, first.value);
    }
    QStringList parts;
    for (const Change& c : changes) {
        const QString part = c.value.isEmpty() ? c.field : tr("%1 to %2").arg(c.field, c.value);
        if (!parts.contains(part))
            parts << part;
    }
    if (parts.size() > 3)
        return QCoreApplication::translate("Commands", "Set %1, %2 and %n More", nullptr,
                                           static_cast<int>(parts.size() - 2))
            .arg(parts[0], parts[1]);
    return tr("Set %1").arg(parts.join(QStringLiteral(", ")));
}

} // namespace

QString describeEdit(const core::Scenario& before, const core::Scenario& after,
                     const QString& fallback)
{
    std::vector<Change> changes;
    if (before.name != after.name)
        changes.push_back({tr("Scenario Name"), qs(after.name), {}});
    if (before.description != after.description)
        changes.push_back({tr("Scenario Description"), {}, {}});

    // A whole model picked at once: name and shape together.
    const core::Workload& wa = before.workload;
    const core::Workload& wb = after.workload;
    std::vector<Change> workload;
    workloadChanges(wa, wb, workload);
    if (wa.name != wb.name && workload.size() >= 3 && !wb.name.empty())
        changes.push_back({tr("Model"), qs(wb.name), {}, false, true});
    else
        changes.insert(changes.end(), workload.begin(), workload.end());

    parallelismChanges(before.parallelism, after.parallelism, changes);
    if (before.schedule.kind != after.schedule.kind)
        changes.push_back(
            {tr("Schedule"), QString::fromLatin1(core::toString(after.schedule.kind)), {}});
    else if (!(before.schedule == after.schedule))
        changes.push_back({tr("Schedule"), {}, {}});

    const core::Topology& ta = before.topology;
    const core::Topology& tb = after.topology;
    if (const QString regions = regionEdit(ta, tb); !regions.isEmpty())
        return regions;
    for (const core::Datacenter& dc : tb.datacenters)
        if (const core::Datacenter* old = core::findDatacenter(ta, dc.id))
            datacenterChanges(tb, *old, dc, changes);
    for (const core::DciLink& link : tb.links)
        if (const core::DciLink* old = core::findLink(ta, link.id))
            linkChanges(tb, *old, link, changes);
    placementChanges(before, after, changes);

    // What follows from another change is not what the user did.
    std::vector<Change> own;
    for (const Change& c : changes)
        if (!c.followsOthers)
            own.push_back(c);
    const QString text = phrase(own.empty() ? changes : own);
    return text.isEmpty() ? fallback : text;
}

} // namespace archipelago::app
