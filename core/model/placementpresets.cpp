#include "model/placementpresets.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

namespace archipelago::core {

namespace {

// GPUs one replica of one stage occupies.
std::int64_t gpusPerStageReplica(const Parallelism& par)
{
    return std::int64_t{std::max(1, par.tp)} * std::max(1, par.cp);
}

// GPUs datacenter i may take: its own, or less when `capacity` says so.
std::int64_t capacityOf(const Scenario& scenario, const std::vector<std::int64_t>& capacity,
                        std::size_t i)
{
    const std::int64_t gpus = gpusInDatacenter(scenario.topology.datacenters[i]);
    return i < capacity.size() ? std::clamp<std::int64_t>(capacity[i], 0, gpus) : gpus;
}

Placement keepOrderAndSplit(const Scenario& scenario)
{
    Placement placement;
    placement.rankOrder = scenario.placement.rankOrder;
    if (static_cast<int>(scenario.placement.layersPerStage.size()) == scenario.parallelism.pp)
        placement.layersPerStage = scenario.placement.layersPerStage;
    return placement;
}

// The proportional split of the stages (ppAcrossDatacenters) and the GPUs each datacenter may
// give them; false when there is nothing to split.
bool proportionalStages(const Scenario& scenario, const std::vector<std::int64_t>& capacityGpus,
                        std::vector<std::int64_t>& weights, std::vector<int>& stages)
{
    const int pp = scenario.parallelism.pp;
    const std::int64_t perStage = gpusPerStageReplica(scenario.parallelism);
    const std::vector<Datacenter>& dcs = scenario.topology.datacenters;
    if (pp < 1 || dcs.empty())
        return false;
    // Datacenters that cannot hold one replica of one stage take no stage.
    weights.clear();
    for (std::size_t i = 0; i < dcs.size(); ++i) {
        const std::int64_t gpus = capacityOf(scenario, capacityGpus, i);
        weights.push_back(gpus >= perStage ? gpus : 0);
    }
    stages = apportion(pp, weights);
    return true;
}

// The one shard of `stages[i]` stages in datacenter i, as many replicas as every datacenter
// holds. A moved boundary may leave a datacenter too many stages for one replica: no shard.
void addPipelineShard(const Scenario& scenario, Placement& placement,
                      const std::vector<std::int64_t>& weights, const std::vector<int>& stages,
                      bool moved)
{
    const std::int64_t perStage = gpusPerStageReplica(scenario.parallelism);
    const std::vector<Datacenter>& dcs = scenario.topology.datacenters;
    PlacementShard shard;
    std::int64_t replicas = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < dcs.size() && i < stages.size(); ++i) {
        if (stages[i] == 0)
            continue;
        shard.stageDatacenters.insert(shard.stageDatacenters.end(),
                                      static_cast<std::size_t>(stages[i]), dcs[i].id);
        replicas = std::min(replicas, weights[i] / (std::int64_t{stages[i]} * perStage));
    }
    if (shard.stageDatacenters.empty() || (moved && replicas < 1))
        return;
    shard.dpReplicas =
        static_cast<int>(std::clamp<std::int64_t>(replicas, 1, std::numeric_limits<int>::max()));
    placement.shards.push_back(std::move(shard));
}

} // namespace

std::vector<int> apportion(int total, const std::vector<std::int64_t>& weights)
{
    std::vector<int> shares(weights.size(), 0);
    const std::int64_t sum = std::accumulate(weights.begin(), weights.end(), std::int64_t{0});
    if (sum <= 0 || total <= 0)
        return shares;
    std::vector<std::int64_t> remainders(weights.size(), 0);
    int given = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        const std::int64_t scaled = std::int64_t{total} * std::max<std::int64_t>(0, weights[i]);
        shares[i] = static_cast<int>(scaled / sum);
        remainders[i] = scaled % sum;
        given += shares[i];
    }
    std::vector<std::size_t> order(weights.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t l, std::size_t r) { return remainders[l] > remainders[r]; });
    for (std::size_t k = 0; given < total && k < order.size(); ++k, ++given)
        ++shares[order[k]];
    return shares;
}

Placement ppAcrossDatacenters(const Scenario& scenario)
{
    return ppAcrossDatacentersWithin(scenario, {}, 0);
}

Placement ppAcrossDatacentersWithin(const Scenario& scenario,
                                    const std::vector<std::int64_t>& capacityGpus, int stageOffset)
{
    Placement placement = keepOrderAndSplit(scenario);
    std::vector<std::int64_t> weights;
    std::vector<int> stages;
    if (!proportionalStages(scenario, capacityGpus, weights, stages))
        return placement;
    if (stageOffset != 0) {
        std::vector<std::size_t> used;
        for (std::size_t i = 0; i < stages.size(); ++i)
            if (stages[i] > 0)
                used.push_back(i);
        if (used.size() < 2)
            return placement; // no boundary to move
        int& first = stages[used.front()];
        int& last = stages[used.back()];
        if (first + stageOffset < 1 || last - stageOffset < 1)
            return placement;
        first += stageOffset;
        last -= stageOffset;
    }
    addPipelineShard(scenario, placement, weights, stages, stageOffset != 0);
    return placement;
}

Placement ppAcrossDatacentersWithin(const Scenario& scenario,
                                    const std::vector<std::int64_t>& capacityGpus,
                                    const std::vector<int>& boundaryOffsets)
{
    Placement placement = keepOrderAndSplit(scenario);
    std::vector<std::int64_t> weights;
    std::vector<int> stages;
    if (!proportionalStages(scenario, capacityGpus, weights, stages))
        return placement;
    // Boundary i lies between datacenters i and i + 1: past the last datacenter there is none.
    const auto offset = [&](std::size_t i) -> std::int64_t {
        return i + 1 < stages.size() && i < boundaryOffsets.size() ? boundaryOffsets[i] : 0;
    };
    bool moved = false;
    for (std::size_t j = 0; j < stages.size(); ++j) {
        const std::int64_t next = stages[j] + offset(j) - (j > 0 ? offset(j - 1) : 0);
        if (next < 0 || next > scenario.parallelism.pp || (stages[j] > 0 && next == 0))
            return placement;
        moved = moved || next != stages[j];
        stages[j] = static_cast<int>(next);
    }
    addPipelineShard(scenario, placement, weights, stages, moved);
    return placement;
}

Placement dpAcrossDatacenters(const Scenario& scenario)
{
    return dpAcrossDatacentersWithin(scenario, {});
}

Placement dpAcrossDatacentersWithin(const Scenario& scenario,
                                    const std::vector<std::int64_t>& capacityGpus)
{
    Placement placement = keepOrderAndSplit(scenario);
    const int pp = scenario.parallelism.pp;
    if (pp < 1)
        return placement;
    const std::int64_t perReplica = gpusPerStageReplica(scenario.parallelism) * pp;
    for (std::size_t i = 0; i < scenario.topology.datacenters.size(); ++i) {
        const Datacenter& dc = scenario.topology.datacenters[i];
        const std::int64_t replicas = capacityOf(scenario, capacityGpus, i) / perReplica;
        if (replicas < 1)
            continue;
        PlacementShard shard;
        shard.dpReplicas =
            static_cast<int>(std::min<std::int64_t>(replicas, std::numeric_limits<int>::max()));
        shard.stageDatacenters.assign(static_cast<std::size_t>(pp), dc.id);
        placement.shards.push_back(std::move(shard));
    }
    return placement;
}

Placement pipelinesPerGroup(const Scenario& scenario, const std::vector<int>& groupOfDatacenter)
{
    Placement placement = keepOrderAndSplit(scenario);
    const std::vector<Datacenter>& dcs = scenario.topology.datacenters;
    // Groups in the order their first datacenter comes, so shards follow the topology.
    const auto groupOf = [&](std::size_t i) {
        return i < groupOfDatacenter.size() ? std::int64_t{groupOfDatacenter[i]}
                                            : std::int64_t{-1} - static_cast<std::int64_t>(i);
    };
    std::vector<std::int64_t> seen;
    for (std::size_t i = 0; i < dcs.size(); ++i) {
        const std::int64_t group = groupOf(i);
        if (std::find(seen.begin(), seen.end(), group) != seen.end())
            continue;
        seen.push_back(group);
        // The group alone: the other datacenters may take no GPU.
        std::vector<std::int64_t> capacity(dcs.size(), 0);
        for (std::size_t j = i; j < dcs.size(); ++j)
            if (groupOf(j) == group)
                capacity[j] = gpusInDatacenter(dcs[j]);
        const Placement pipelines = ppAcrossDatacentersWithin(scenario, capacity, 0);
        placement.shards.insert(placement.shards.end(), pipelines.shards.begin(),
                                pipelines.shards.end());
    }
    return placement;
}

std::vector<int> groupsFromBoundaries(const Scenario& scenario,
                                      const std::vector<ParallelDim>& crossing)
{
    const std::size_t count = scenario.topology.datacenters.size();
    std::vector<int> groups(count, 0);
    for (std::size_t i = 1; i < count; ++i) {
        const bool joined = i - 1 < crossing.size() && crossing[i - 1] == ParallelDim::Pp;
        groups[i] = groups[i - 1] + (joined ? 0 : 1);
    }
    return groups;
}

std::vector<int> groupsByRegion(const Scenario& scenario)
{
    const Topology& t = scenario.topology;
    std::vector<int> groups;
    for (const Datacenter& dc : t.datacenters) {
        int group = -1;
        for (std::size_t r = 0; r < t.regions.size(); ++r)
            if (t.regions[r].id == dc.regionId)
                group = static_cast<int>(r);
        groups.push_back(group);
    }
    return groups;
}

std::vector<int> pipelineGroups(const Scenario& scenario)
{
    const std::vector<Datacenter>& dcs = scenario.topology.datacenters;
    std::vector<int> groups(dcs.size(), -1);
    const std::vector<PlacementShard> shards = effectiveShards(scenario);
    for (std::size_t k = 0; k < shards.size(); ++k) {
        if (shards[k].split())
            return {};
        const std::vector<Id>& stages = shards[k].stageDatacenters;
        const auto holds = [&](std::size_t i) {
            return std::find(stages.begin(), stages.end(), dcs[i].id) != stages.end();
        };
        // The shard joins its datacenters and every group one of them is already in.
        std::vector<int> joined;
        for (std::size_t i = 0; i < dcs.size(); ++i)
            if (holds(i) && groups[i] >= 0)
                joined.push_back(groups[i]);
        for (std::size_t i = 0; i < dcs.size(); ++i)
            if (holds(i) || std::find(joined.begin(), joined.end(), groups[i]) != joined.end())
                groups[i] = static_cast<int>(k);
    }
    return renumberedGroups(std::move(groups));
}

std::vector<int> renumberedGroups(std::vector<int> groups)
{
    std::vector<int> seen;
    for (int& g : groups) {
        if (g < 0)
            continue;
        auto it = std::find(seen.begin(), seen.end(), g);
        if (it == seen.end())
            it = seen.insert(seen.end(), g);
        g = static_cast<int>(it - seen.begin());
    }
    return groups;
}

std::vector<std::optional<ParallelDim>> boundaryDims(const Scenario& scenario)
{
    const std::vector<Datacenter>& dcs = scenario.topology.datacenters;
    const std::vector<PlacementShard> shards = effectiveShards(scenario);
    const auto holds = [](const PlacementShard& shard, Id dc) {
        return std::find(shard.stageDatacenters.begin(), shard.stageDatacenters.end(), dc) !=
                   shard.stageDatacenters.end() ||
               std::find(shard.splitDatacenters.begin(), shard.splitDatacenters.end(), dc) !=
                   shard.splitDatacenters.end();
    };
    std::vector<std::optional<ParallelDim>> dims;
    for (std::size_t i = 0; i + 1 < dcs.size(); ++i) {
        bool first = false, second = false, pipeline = false, split = false;
        for (const PlacementShard& shard : shards) {
            const bool a = holds(shard, dcs[i].id);
            const bool b = holds(shard, dcs[i + 1].id);
            first = first || a;
            second = second || b;
            if (a && b)
                (shard.split() ? split : pipeline) = true;
        }
        if (split || !first || !second)
            dims.emplace_back();
        else
            dims.emplace_back(pipeline ? ParallelDim::Pp : ParallelDim::Dp);
    }
    return dims;
}

Placement withDataParallelAtMost(const Scenario& scenario, std::int64_t dp)
{
    Placement placement = scenario.placement;
    placement.shards = effectiveShards(scenario);
    std::int64_t total = 0;
    std::vector<std::int64_t> weights;
    for (const PlacementShard& shard : placement.shards) {
        weights.push_back(shard.dpReplicas);
        total += shard.dpReplicas;
    }
    if (total <= dp || dp < 1 || dp > std::numeric_limits<int>::max())
        return placement;
    const std::vector<int> shares = apportion(static_cast<int>(dp), weights);
    std::vector<PlacementShard> kept;
    for (std::size_t i = 0; i < placement.shards.size(); ++i) {
        if (shares[i] < 1)
            continue;
        kept.push_back(placement.shards[i]);
        kept.back().dpReplicas = shares[i];
    }
    placement.shards = std::move(kept);
    return placement;
}

std::int64_t largestDividingDataParallel(std::int64_t globalBatch, int microBatch, std::int64_t dp)
{
    if (microBatch < 1 || globalBatch < 1 || globalBatch % microBatch != 0)
        return 0;
    const std::int64_t microBatches = globalBatch / microBatch;
    for (std::int64_t d = std::min(dp, microBatches); d >= 1; --d)
        if (microBatches % d == 0)
            return d;
    return 0;
}

Scenario withFittedGlobalBatch(Scenario s)
{
    const std::int64_t perStep = std::int64_t{s.parallelism.microBatch} * dataParallel(s);
    if (perStep <= 0 || perStep > std::numeric_limits<int>::max())
        return s;
    const std::int64_t batch = s.workload.globalBatch;
    const std::int64_t steps = std::max<std::int64_t>(1, (batch + perStep / 2) / perStep);
    if (steps * perStep <= std::numeric_limits<int>::max())
        s.workload.globalBatch = static_cast<int>(steps * perStep);
    return s;
}

} // namespace archipelago::core
