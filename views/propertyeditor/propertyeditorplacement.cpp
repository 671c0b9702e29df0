#include "propertyeditor/propertyeditorplacement.h"

#include "common/format.h"

#include <QObject>
#include <QStringList>

namespace archipelago::views {

QString placementSummary(const core::Scenario& scenario)
{
    const core::Placement& placement = scenario.placement;
    const auto dcName = [&](core::Id id) {
        const core::Datacenter* dc = core::findDatacenter(scenario.topology, id);
        return dc ? QString::fromStdString(dc->name) : QStringLiteral("#%1").arg(id);
    };
    if (placement.shards.empty()) {
        const QString first = scenario.topology.datacenters.empty()
                                  ? QStringLiteral("—")
                                  : dcName(scenario.topology.datacenters.front().id);
        return QObject::tr("Whole job in %1 (no shards; DP derived from its GPUs)").arg(first);
    }
    QStringList lines;
    for (const core::PlacementShard& shard : placement.shards) {
        QStringList runs;
        const auto& stages = shard.stageDatacenters;
        for (std::size_t i = 0; i < stages.size();) {
            std::size_t j = i;
            while (j + 1 < stages.size() && stages[j + 1] == stages[i])
                ++j;
            runs << (i == j
                         ? QObject::tr("stage %1 in %2").arg(i).arg(dcName(stages[i]))
                         : QObject::tr("stages %1–%2 in %3").arg(i).arg(j).arg(dcName(stages[i])));
            i = j + 1;
        }
        lines << QObject::tr("%1 replicas: %2")
                     .arg(formatCount(shard.dpReplicas), runs.join(QStringLiteral(", ")));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace archipelago::views
