#include "common/scenariotext.h"

#include "common/format.h"

#include "model/dcilink.h"
#include "model/scheduletraits.h"

#include <QStringList>

#include <algorithm>
#include <cmath>

namespace archipelago::views {

namespace {

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

QString datacenterName(const core::Scenario& scenario, core::Id id)
{
    if (const core::Datacenter* dc = core::findDatacenter(scenario.topology, id))
        return dc->name.empty() ? QStringLiteral("#%1").arg(id) : fromStd(dc->name);
    return QStringLiteral("#%1 (missing)").arg(id);
}

QString podSummary(const core::Pod& pod)
{
    return QStringLiteral("%1 × %2 domains × %3 GPUs = %4 GPUs")
        .arg(formatCount(pod.count), formatCount(pod.domainsPerPod), formatCount(pod.gpusPerDomain),
             formatCount(core::gpusInPod(pod)));
}

QString podShape(const core::Pod& pod)
{
    return QStringLiteral("%1 × %2 × %3-GPU domains")
        .arg(formatCount(pod.count), formatCount(pod.domainsPerPod),
             formatCount(pod.gpusPerDomain));
}

QString fabricSummary(const core::Fabric& fabric)
{
    QString text =
        QStringLiteral("%1 %2-tier").arg(fromStd(core::toString(fabric.kind))).arg(fabric.tiers);
    if (fabric.leafOversubscription != 1.0 || fabric.spineOversubscription != 1.0)
        text += QStringLiteral(", %1 leaf, %2 spine")
                    .arg(ratio(fabric.leafOversubscription), ratio(fabric.spineOversubscription));
    return text;
}

QString fabricShort(const core::Fabric& fabric)
{
    QString kind;
    switch (fabric.kind) {
    case core::FabricKind::Clos:
        kind = QStringLiteral("Clos");
        break;
    case core::FabricKind::RailOptimized:
        kind = QStringLiteral("rail-optimized");
        break;
    case core::FabricKind::RailOnly:
        kind = QStringLiteral("rail-only");
        break;
    }
    QString text = kind;
    if (fabric.kind != core::FabricKind::RailOnly)
        text += QStringLiteral(" · %1-tier").arg(fabric.tiers);
    const double over = std::max(fabric.leafOversubscription, fabric.spineOversubscription);
    if (over > 1.0)
        text += QStringLiteral(" · ") + ratio(over);
    return text;
}

QString datacenterSummary(const core::Datacenter& dc)
{
    return QStringLiteral("%1 × %2, %3")
        .arg(formatCount(core::gpusInDatacenter(dc)), fromStd(dc.accelerator),
             fabricSummary(dc.fabric));
}

QString linkTitle(const core::Scenario& scenario, const core::DciLink& link)
{
    return QStringLiteral("%1 ↔ %2").arg(datacenterName(scenario, link.a),
                                         datacenterName(scenario, link.b));
}

QString linkSummary(const core::DciLink& link)
{
    return QStringLiteral("%1 × %2, %3")
        .arg(formatCount(link.wavelengths), formatGbps(link.gbpsPerWavelength),
             formatKm(link.distanceKm));
}

QString linkCapacity(const core::DciLink& link)
{
    return QStringLiteral("%1 × %2 = %3")
        .arg(formatCount(link.wavelengths), formatLinkRate(link.gbpsPerWavelength),
             formatGbps(core::dciCapacityGbps(link)));
}

QString workloadSummary(const core::Workload& w)
{
    QString text =
        QStringLiteral("%1: %2 layers, hidden %3, seq %4, batch %5")
            .arg(w.name.empty() ? QStringLiteral("model") : fromStd(w.name))
            .arg(w.layers)
            .arg(formatCount(w.hidden), formatCount(w.seqLen), formatCount(w.globalBatch));
    if (w.moe.enabled())
        text += QStringLiteral(", MoE %1 experts top-%2").arg(w.moe.experts).arg(w.moe.topK);
    return text;
}

QString parallelismSummary(const core::Scenario& scenario)
{
    const core::Parallelism& p = scenario.parallelism;
    const std::int64_t dp = core::dataParallel(scenario);
    return QStringLiteral("TP %1 · CP %2 · PP %3 · DP %4 · EP %5")
        .arg(p.tp)
        .arg(p.cp)
        .arg(p.pp)
        .arg(dp > 0 ? formatCount(dp) : QStringLiteral("—"))
        .arg(p.ep);
}

QString scheduleName(core::ScheduleKind kind)
{
    const std::string_view name = core::scheduleTraits(kind).displayName;
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QString recomputeName(core::Recompute recompute)
{
    switch (recompute) {
    case core::Recompute::None:
        return QStringLiteral("None");
    case core::Recompute::Selective:
        return QStringLiteral("Selective");
    case core::Recompute::Full:
        return QStringLiteral("Full");
    }
    return {};
}

QString transportName(core::DciTransport transport)
{
    switch (transport) {
    case core::DciTransport::RdmaOtn:
        return QStringLiteral("RDMA/OTN");
    case core::DciTransport::LossyIp:
        return QStringLiteral("lossy IP");
    case core::DciTransport::RocePfc:
        return QStringLiteral("RoCE/PFC");
    }
    return {};
}

QString shardSummary(const core::Scenario& scenario, const core::PlacementShard& shard)
{
    // Runs of consecutive stages in one datacenter: "dc-a × 8 → dc-b × 8".
    QStringList runs;
    std::size_t i = 0;
    while (i < shard.stageDatacenters.size()) {
        std::size_t j = i;
        while (j < shard.stageDatacenters.size() &&
               shard.stageDatacenters[j] == shard.stageDatacenters[i])
            ++j;
        runs << QStringLiteral("%1 × %2")
                    .arg(datacenterName(scenario, shard.stageDatacenters[i]))
                    .arg(j - i);
        i = j;
    }
    return QStringLiteral("%1, stages %2")
        .arg(countOf(shard.dpReplicas, QStringLiteral("replica"), QStringLiteral("replicas")),
             runs.join(QStringLiteral(" → ")));
}

QString yesNo(bool value)
{
    return value ? QStringLiteral("yes") : QStringLiteral("no");
}

QString countOf(std::int64_t n, const QString& singular, const QString& plural)
{
    return formatCount(n) + QLatin1Char(' ') + (n == 1 ? singular : plural);
}

QString ratio(double value)
{
    return formatNumber(value, value == std::floor(value) ? 0 : 1) + QStringLiteral(":1");
}

} // namespace archipelago::views
