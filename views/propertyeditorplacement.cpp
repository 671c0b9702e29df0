#include "propertyeditorplacement.h"

#include "format.h"
#include "model/placementpresets.h"

#include <QObject>
#include <QStringList>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

namespace archipelago::views {

namespace {

std::vector<std::int64_t> gpusPerDatacenter(const core::Topology& topology)
{
    std::vector<std::int64_t> gpus;
    for (const core::Datacenter& dc : topology.datacenters)
        gpus.push_back(core::gpusInDatacenter(dc));
    return gpus;
}

// The shards with dp_replicas scaled by oldTpCp / newTpCp, when that is exact everywhere.
std::optional<core::Placement> rescaled(const core::Placement& placement, std::int64_t oldTpCp,
                                        std::int64_t newTpCp, int pp)
{
    core::Placement out = placement;
    for (core::PlacementShard& shard : out.shards) {
        if (shard.stageDatacenters.size() != static_cast<std::size_t>(pp))
            return std::nullopt;
        const std::int64_t gpusPerStage = std::int64_t{shard.dpReplicas} * oldTpCp;
        if (gpusPerStage % newTpCp != 0 || gpusPerStage / newTpCp < 1 ||
            gpusPerStage / newTpCp > std::numeric_limits<int>::max())
            return std::nullopt;
        shard.dpReplicas = static_cast<int>(gpusPerStage / newTpCp);
    }
    return out;
}

// Layers over pp stages as evenly as possible, the first stages taking the remainder (the rule
// of core::effectiveLayersPerStage, written out).
std::vector<int> balancedSplit(int layers, int pp)
{
    if (pp < 1 || layers < pp)
        return {};
    std::vector<int> split(static_cast<std::size_t>(pp), layers / pp);
    for (int i = 0; i < layers % pp; ++i)
        ++split[static_cast<std::size_t>(i)];
    return split;
}

} // namespace

PlacementShape placementShape(const core::Placement& placement)
{
    if (placement.shards.empty())
        return PlacementShape::Implicit;
    bool allHome = true;
    for (const core::PlacementShard& shard : placement.shards) {
        const std::set<core::Id> dcs(shard.stageDatacenters.begin(), shard.stageDatacenters.end());
        allHome = allHome && dcs.size() <= 1;
        if (placement.shards.size() == 1 && dcs.size() > 1)
            return PlacementShape::PpAcross;
    }
    return allHome ? PlacementShape::DpAcross : PlacementShape::Custom;
}

std::vector<core::Placement> placementOptions(const core::Scenario& before,
                                              const core::Scenario& candidate)
{
    const core::Parallelism& oldPar = before.parallelism;
    const core::Parallelism& newPar = candidate.parallelism;
    const bool sameGpus =
        gpusPerDatacenter(before.topology) == gpusPerDatacenter(candidate.topology);
    const bool sameDegrees =
        oldPar.tp == newPar.tp && oldPar.cp == newPar.cp && oldPar.pp == newPar.pp;
    if (sameGpus && sameDegrees)
        return {candidate.placement};

    // A split of the wrong length: an explicit balanced one (when the old split was explicit,
    // or when the even split does not divide into pp * virtual stages), else none.
    core::Placement kept = candidate.placement;
    std::vector<std::vector<int>> splits{kept.layersPerStage};
    if (kept.layersPerStage.size() != static_cast<std::size_t>(std::max(0, newPar.pp))) {
        const std::vector<int> balanced = balancedSplit(candidate.workload.layers, newPar.pp);
        splits = kept.layersPerStage.empty() ? std::vector<std::vector<int>>{{}, balanced}
                                             : std::vector<std::vector<int>>{balanced, {}};
        kept.layersPerStage = splits.front();
    }

    std::vector<core::Placement> options;
    const auto offer = [&](const core::Placement& p) {
        for (const std::vector<int>& split : splits) {
            core::Placement variant = p;
            variant.layersPerStage = split;
            if (std::find(options.begin(), options.end(), variant) == options.end())
                options.push_back(variant);
        }
    };
    core::Scenario base = candidate;
    base.placement = kept;
    const PlacementShape shape = placementShape(kept);
    if (shape != PlacementShape::Implicit) {
        if (sameGpus && oldPar.pp == newPar.pp) {
            const std::int64_t oldTpCp = std::int64_t{oldPar.tp} * oldPar.cp;
            const std::int64_t newTpCp = std::int64_t{newPar.tp} * newPar.cp;
            if (newTpCp > 0)
                if (auto p = rescaled(kept, oldTpCp, newTpCp, newPar.pp))
                    offer(*p);
        }
        if (shape == PlacementShape::PpAcross)
            offer(core::ppAcrossDatacenters(base));
        else if (shape == PlacementShape::DpAcross)
            offer(core::dpAcrossDatacenters(base));
    }
    offer(kept);
    return options;
}

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
