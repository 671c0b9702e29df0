#include "setpipelineparallel.h"

#include "model/placementpresets.h"
#include "valuecommands.h"

#include <QCoreApplication>

#include <algorithm>
#include <set>

namespace archipelago::app {

namespace {

enum class PlacementStyle
{
    Implicit,
    PpAcross,
    DpAcross
};

PlacementStyle placementStyle(const core::Placement& placement)
{
    if (placement.shards.empty())
        return PlacementStyle::Implicit;
    for (const core::PlacementShard& shard : placement.shards) {
        const std::set<core::Id> dcs(shard.stageDatacenters.begin(), shard.stageDatacenters.end());
        if (dcs.size() > 1)
            return PlacementStyle::PpAcross;
    }
    return PlacementStyle::DpAcross;
}

} // namespace

core::Scenario SetPipelineParallel::withPipelineParallel(const core::Scenario& scenario, int pp)
{
    core::Scenario next = scenario;
    next.parallelism.pp = pp;
    if (next.placement.layersPerStage.size() != static_cast<std::size_t>(pp))
        next.placement.layersPerStage.clear(); // an even split for the new stage count
    switch (placementStyle(scenario.placement)) {
    case PlacementStyle::Implicit:
        break;
    case PlacementStyle::PpAcross:
        next.placement = core::ppAcrossDatacenters(next);
        break;
    case PlacementStyle::DpAcross:
        next.placement = core::dpAcrossDatacenters(next);
        break;
    }
    // Interleaving needs whole chunks: when the layers do not divide into pp * virtual stages,
    // spell out the uneven split that core would use (the first stages take the remainder).
    const int chunks = pp * std::max(1, next.parallelism.virtualStages);
    if (next.placement.layersPerStage.empty() && chunks > 0 && next.workload.layers % chunks != 0)
        next.placement.layersPerStage = core::effectiveLayersPerStage(next);
    return next;
}

SetPipelineParallel::SetPipelineParallel(Document* document, int pp, QUndoCommand* parent)
    : MacroCommand(document,
                   QCoreApplication::translate("Commands", "Set Pipeline Parallel to %1").arg(pp),
                   parent)
{
    const core::Scenario next = withPipelineParallel(document->scenario(), pp);
    // Children run in order on redo and in reverse on undo.
    new SetParallelism(document, next.parallelism, this);
    new SetPlacement(document, next.placement, this);
    if (next == document->scenario())
        setObsolete(true);
}

} // namespace archipelago::app
