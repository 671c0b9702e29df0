#include "explore/pointplacement.h"

#include "io/placementrepair.h"
#include "io/scenarioio.h"
#include "model/placementpresets.h"
#include "network/topologymodel.h"

#include <algorithm>

namespace archipelago::core {

namespace {

// Cuts the shards' replicas to `dp` in all, each shard keeping its share (core::apportion);
// false when the placement holds fewer than `dp`.
bool cutReplicas(Placement& placement, int dp)
{
    std::vector<std::int64_t> replicas;
    std::int64_t total = 0;
    for (const PlacementShard& shard : placement.shards) {
        replicas.push_back(shard.dpReplicas);
        total += shard.dpReplicas;
    }
    if (dp > total)
        return false;
    if (dp == total)
        return true;
    const std::vector<int> shares = apportion(dp, replicas);
    for (std::size_t i = 0; i < shares.size(); ++i)
        placement.shards[i].dpReplicas = shares[i];
    std::erase_if(placement.shards, [](const PlacementShard& s) { return s.dpReplicas < 1; });
    return true;
}

} // namespace

const char* toString(PruneReason reason)
{
    switch (reason) {
    case PruneReason::Redundant:
        return "redundant";
    case PruneReason::Placement:
        return "placement";
    case PruneReason::GlobalBatch:
        return "global-batch";
    case PruneReason::Shape:
        return "shape";
    case PruneReason::Check:
        return "check";
    case PruneReason::TooLarge:
        return "too-large";
    case PruneReason::Memory:
        return "memory";
    case PruneReason::DciCapacity:
        return "dci-capacity";
    case PruneReason::DatacenterGpus:
        return "datacenter-gpus";
    case PruneReason::Bound:
        return "bound";
    case PruneReason::Count:
        break;
    }
    return "?";
}

std::vector<std::int64_t> datacenterCaps(const Scenario& base, const SearchSpace& space)
{
    const std::vector<Datacenter>& dcs = base.topology.datacenters;
    std::vector<std::int64_t> caps;
    for (std::size_t i = 0; i < dcs.size(); ++i) {
        std::int64_t cap = gpusInDatacenter(dcs[i]);
        const std::vector<std::int64_t>& given = space.maxGpusPerDatacenter;
        if (given.size() == 1)
            cap = std::min(cap, given.front());
        else if (i < given.size())
            cap = std::min(cap, given[i]);
        caps.push_back(cap);
    }
    return caps;
}

PointPlacement makePointPlacement(const Scenario& base, const Catalog& catalog,
                                  const DesignPoint& p, const SearchSpace& space, bool batchFixed,
                                  TopologyRules topology)
{
    PointPlacement out;
    // The base with the point's shape, its other knobs the base's.
    Scenario edited = base;
    edited.parallelism.tp = p.tp;
    edited.parallelism.cp = p.cp;
    edited.parallelism.pp = p.pp;
    edited.parallelism.ep = p.ep;
    edited.parallelism.virtualStages = 1;
    edited.parallelism.microBatch = 1;
    edited.parallelism.sequenceParallel = base.parallelism.sequenceParallel && p.tp > 1;
    edited.schedule.kind = ScheduleKind::OneFOneB;
    edited.schedule.extraInFlightAtDci = 0;
    edited.placement.rankOrder.assign(p.rankOrder.begin(), p.rankOrder.end());
    const std::vector<std::int64_t> caps = datacenterCaps(base, space);

    Placement placement;
    bool checked = false; // repairPlacement checked it already
    switch (p.boundary) {
    case PlacementBoundary::Base: {
        const PlacementRepair repair =
            repairPlacement(edited, base, catalog, PlacementRepairMode::Repair, topology);
        if (!repair.scenario)
            return out;
        if (batchFixed && repair.scenario->workload.globalBatch != base.workload.globalBatch) {
            out.reason = PruneReason::GlobalBatch;
            return out;
        }
        placement = repair.scenario->placement;
        checked = true;
        break;
    }
    case PlacementBoundary::Pp:
        placement = p.stageSplit.isUniform()
                        ? ppAcrossDatacentersWithin(edited, caps, p.stageSplit.offset)
                        : ppAcrossDatacentersWithin(edited, caps, p.stageSplit.perBoundary);
        break;
    case PlacementBoundary::Dp:
        placement = dpAcrossDatacentersWithin(edited, caps);
        break;
    }
    if (p.boundary != PlacementBoundary::Base && placement.shards.empty())
        return out;
    edited.placement = placement;
    if (p.dataParallel > 0 && p.dataParallel != dataParallel(edited)) {
        if (edited.placement.shards.empty() || !cutReplicas(edited.placement, p.dataParallel))
            return out;
        checked = false;
    }
    const std::vector<std::int64_t> placed = placedGpusPerDatacenter(edited);
    for (std::size_t i = 0; i < placed.size() && i < caps.size(); ++i)
        if (placed[i] > caps[i]) {
            out.reason = PruneReason::DatacenterGpus;
            return out;
        }
    // What the loader accepts, with the batch fitted to DP: the batch is the point's to choose
    // (SearchSpace::globalBatch), the placement must hold on its own.
    if (!checked && scenarioRefused(withFittedGlobalBatch(edited), catalog, topology))
        return out;
    out.placement = edited.placement;
    out.dataParallel = dataParallel(edited);
    for (const PlacementShard& shard : effectiveShards(edited))
        for (std::size_t i = 1; i < shard.stageDatacenters.size(); ++i)
            if (shard.stageDatacenters[i] != shard.stageDatacenters[i - 1])
                out.pipelineCrossesDatacenter = true;
    out.dataParallelCrossesDatacenters = dataParallelCrossesDatacenters(edited);
    return out;
}

bool topologyRefused(const Scenario& base, const Topology& topology, const Catalog& catalog)
{
    const auto onTopology = [](const Diagnostic& d) { return d.pointer.starts_with("/topology"); };
    const std::vector<Diagnostic> own = checkScenario(base, catalog);
    Scenario variant = base;
    variant.topology = topology;
    for (const Diagnostic& d : checkScenario(variant, catalog)) {
        if (d.severity == Diagnostic::Severity::Error)
            return true;
        const bool drawnByBase = std::any_of(own.begin(), own.end(), [&](const Diagnostic& o) {
            return o.pointer == d.pointer && o.message == d.message;
        });
        if (onTopology(d) && !drawnByBase)
            return true;
    }
    return false;
}

TopologyVariant makeTopologyVariant(const Topology& topology, const Catalog& catalog)
{
    TopologyVariant v;
    const TopologyModel model(topology, catalog, TopologyModel::Ownership::Borrow, true);
    v.networkCapexUsd = model.bomTotals().capexUsd;
    v.networkPowerW = model.bomTotals().powerW;
    for (const DciLink& link : topology.links)
        v.minDciCapacityGbps =
            std::min(v.minDciCapacityGbps, link.wavelengths * link.gbpsPerWavelength);
    return v;
}

} // namespace archipelago::core
