#include "placementrepair.h"

#include "evaluation/costmodel.h"
#include "model/placementpresets.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>

namespace archipelago::app {

namespace {

bool crossesWithPipeline(const core::Placement& placement)
{
    for (const core::PlacementShard& shard : placement.shards) {
        const std::set<core::Id> dcs(shard.stageDatacenters.begin(), shard.stageDatacenters.end());
        if (dcs.size() > 1)
            return true;
    }
    return false;
}

// Layers per stage that still fit the degrees: kept when the stage count is unchanged,
// otherwise an even split, spelled out when interleaving needs it (as core would split).
void fitLayersPerStage(core::Scenario& s)
{
    if (s.placement.layersPerStage.size() != static_cast<std::size_t>(s.parallelism.pp))
        s.placement.layersPerStage.clear();
    const int chunks = s.parallelism.pp * std::max(1, s.parallelism.virtualStages);
    if (s.placement.layersPerStage.empty() && chunks > 0 && s.workload.layers % chunks != 0)
        s.placement.layersPerStage = core::effectiveLayersPerStage(s);
}

std::vector<core::Scenario> placementCandidates(const core::Scenario& candidate,
                                                const core::Scenario& before)
{
    core::Scenario base = candidate;
    fitLayersPerStage(base);
    core::Scenario pp = base;
    pp.placement = core::ppAcrossDatacenters(base);
    core::Scenario dp = base;
    dp.placement = core::dpAcrossDatacenters(base);
    core::Scenario implicit = base;
    implicit.placement.shards.clear();
    std::vector<core::Scenario> out{base};
    if (crossesWithPipeline(before.placement))
        out.insert(out.end(), {pp, dp});
    else
        out.insert(out.end(), {dp, pp});
    out.push_back(implicit);
    return out;
}

QString describe(const core::Diagnostic& d)
{
    return d.pointer.empty() ? QString::fromStdString(d.message)
                             : QStringLiteral("%1: %2").arg(QString::fromStdString(d.pointer),
                                                            QString::fromStdString(d.message));
}

} // namespace

std::vector<core::Diagnostic> scenarioErrors(const core::Scenario& scenario)
{
    std::vector<core::Diagnostic> errors;
    for (core::Diagnostic& d : core::checkScenario(scenario, core::effectiveCatalog(scenario)))
        if (d.severity == core::Diagnostic::Severity::Error)
            errors.push_back(std::move(d));
    return errors;
}

ValidatedEdit validateEdit(const core::Scenario& candidate, const core::Scenario& before,
                           bool repairPlacement)
{
    const std::vector<core::Diagnostic> errors = scenarioErrors(candidate);
    if (errors.empty())
        return {candidate, {}, {}};
    std::vector<core::Scenario> candidates{candidate};
    if (repairPlacement) {
        candidates = placementCandidates(candidate, before);
        for (const core::Scenario& repaired : candidates)
            if (repaired.placement != candidate.placement && scenarioErrors(repaired).empty())
                return {repaired, {}, {}};
    }
    // The edit changed the GPUs or the degrees, not the batch: let the batch follow DP.
    if (candidate.workload.globalBatch == before.workload.globalBatch)
        for (const core::Scenario& placed : candidates) {
            core::Scenario fitted = core::withFittedGlobalBatch(placed);
            if (fitted.workload.globalBatch != placed.workload.globalBatch &&
                scenarioErrors(fitted).empty())
                return {fitted,
                        {},
                        QCoreApplication::translate("placementrepair",
                                                    "global batch %1 -> %2 sequences to divide "
                                                    "micro-batch %3 x DP %4")
                            .arg(placed.workload.globalBatch)
                            .arg(fitted.workload.globalBatch)
                            .arg(fitted.parallelism.microBatch)
                            .arg(core::dataParallel(fitted))};
        }
    return {std::nullopt, describe(errors.front()), {}};
}

} // namespace archipelago::app
