#include "model/scenario.h"

#include "model/scheduletraits.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace archipelago::core {

namespace {

// One table per enum: the JSON names, in one place.
template <typename E, std::size_t N> using NameTable = std::array<std::pair<E, const char*>, N>;

constexpr NameTable<FabricKind, 3> kFabricKinds{{
    {FabricKind::Clos, "clos"},
    {FabricKind::RailOptimized, "rail-optimized"},
    {FabricKind::RailOnly, "rail-only"},
}};
constexpr NameTable<DciTransport, 3> kTransports{{
    {DciTransport::RdmaOtn, "rdma-otn"},
    {DciTransport::LossyIp, "lossy-ip"},
    {DciTransport::RocePfc, "roce-pfc"},
}};
constexpr NameTable<FfnActivation, 2> kActivations{{
    {FfnActivation::Gelu, "gelu"},
    {FfnActivation::Swiglu, "swiglu"},
}};
constexpr NameTable<Precision, 2> kPrecisions{{
    {Precision::Bf16, "bf16"},
    {Precision::Fp8, "fp8"},
}};
constexpr NameTable<Fp8Recipe, 2> kFp8Recipes{{
    {Fp8Recipe::Delayed, "delayed"},
    {Fp8Recipe::Blockwise, "blockwise"},
}};
constexpr NameTable<GradReduceDtype, 2> kGradReduceDtypes{{
    {GradReduceDtype::Fp32, "fp32"},
    {GradReduceDtype::Bf16, "bf16"},
}};

constexpr NameTable<DatacenterSync, 3> kDatacenterSyncs{{
    {DatacenterSync::Synchronous, "synchronous"},
    {DatacenterSync::DiLoCo, "diloco"},
    {DatacenterSync::StreamingDiLoCo, "streaming-diloco"},
}};

constexpr NameTable<Recompute, 3> kRecomputes{{
    {Recompute::None, "none"},
    {Recompute::Selective, "selective"},
    {Recompute::Full, "full"},
}};
constexpr NameTable<ParallelDim, 5> kDims{{
    {ParallelDim::Tp, "tp"},
    {ParallelDim::Cp, "cp"},
    {ParallelDim::Ep, "ep"},
    {ParallelDim::Dp, "dp"},
    {ParallelDim::Pp, "pp"},
}};

template <typename E, std::size_t N> const char* nameOf(const NameTable<E, N>& table, E value)
{
    for (const auto& [e, name] : table)
        if (e == value)
            return name;
    return "?";
}

template <typename E, std::size_t N>
std::optional<E> valueOf(const NameTable<E, N>& table, const std::string& s)
{
    for (const auto& [e, name] : table)
        if (s == name)
            return e;
    return std::nullopt;
}

template <typename T> Id nextId(const std::vector<T>& items)
{
    Id next = 0;
    for (const T& item : items)
        next = std::max(next, item.id + 1);
    return next;
}

} // namespace

std::int64_t gpusInPod(const Pod& pod)
{
    return std::int64_t{pod.count} * pod.domainsPerPod * pod.gpusPerDomain;
}

std::int64_t gpusInDatacenter(const Datacenter& dc)
{
    std::int64_t total = 0;
    for (const Pod& pod : dc.pods)
        total += gpusInPod(pod);
    return total;
}

std::int64_t totalGpus(const Topology& topology)
{
    std::int64_t total = 0;
    for (const Datacenter& dc : topology.datacenters)
        total += gpusInDatacenter(dc);
    return total;
}

const Datacenter* findDatacenter(const Topology& topology, Id id)
{
    for (const Datacenter& dc : topology.datacenters)
        if (dc.id == id)
            return &dc;
    return nullptr;
}

const DciLink* findLink(const Topology& topology, Id id)
{
    for (const DciLink& link : topology.links)
        if (link.id == id)
            return &link;
    return nullptr;
}

const Region* findRegion(const Topology& topology, Id id)
{
    for (const Region& region : topology.regions)
        if (region.id == id)
            return &region;
    return nullptr;
}

int scaleUpDomainGpus(const Datacenter& dc)
{
    int smallest = std::numeric_limits<int>::max();
    for (const Pod& pod : dc.pods)
        smallest = std::min(smallest, pod.gpusPerDomain);
    return dc.pods.empty() ? 1 : smallest;
}

std::int64_t dataParallel(const Scenario& scenario)
{
    const Parallelism& par = scenario.parallelism;
    if (!scenario.placement.shards.empty()) {
        std::int64_t dp = 0;
        for (const PlacementShard& shard : scenario.placement.shards)
            dp += shard.dpReplicas;
        return dp;
    }
    const std::int64_t modelParallel = std::int64_t{par.tp} * par.cp * par.pp;
    const std::int64_t gpus = scenario.topology.datacenters.empty()
                                  ? 0
                                  : gpusInDatacenter(scenario.topology.datacenters.front());
    if (modelParallel <= 0 || gpus % modelParallel != 0)
        return 0;
    return gpus / modelParallel;
}

std::vector<PlacementShard> effectiveShards(const Scenario& scenario)
{
    if (!scenario.placement.shards.empty())
        return scenario.placement.shards;
    PlacementShard shard;
    shard.dpReplicas = static_cast<int>(dataParallel(scenario));
    const Id dc =
        scenario.topology.datacenters.empty() ? 0 : scenario.topology.datacenters.front().id;
    shard.stageDatacenters.assign(static_cast<std::size_t>(std::max(1, scenario.parallelism.pp)),
                                  dc);
    return {shard};
}

std::vector<int> effectiveLayersPerStage(const Scenario& scenario)
{
    if (!scenario.placement.layersPerStage.empty())
        return scenario.placement.layersPerStage;
    const int pp = std::max(1, scenario.parallelism.pp);
    const int layers = scenario.workload.layers;
    std::vector<int> split(static_cast<std::size_t>(pp), layers / pp);
    for (int i = 0; i < layers % pp; ++i)
        ++split[static_cast<std::size_t>(i)];
    return split;
}

std::vector<std::int64_t> placedGpusPerDatacenter(const Scenario& scenario)
{
    const Topology& topo = scenario.topology;
    std::vector<std::int64_t> placed(topo.datacenters.size(), 0);
    const std::int64_t perStage = std::int64_t{scenario.parallelism.tp} * scenario.parallelism.cp;
    const std::int64_t pp = std::max(1, scenario.parallelism.pp);
    for (const PlacementShard& shard : effectiveShards(scenario)) {
        if (shard.split()) {
            // tp * cp * dpReplicas * pp / k in each split datacenter, none via the stage list.
            const auto k = static_cast<std::int64_t>(shard.splitDatacenters.size());
            for (Id dcId : shard.splitDatacenters)
                for (std::size_t i = 0; i < topo.datacenters.size(); ++i)
                    if (topo.datacenters[i].id == dcId)
                        placed[i] += perStage * shard.dpReplicas * pp / k;
            continue;
        }
        for (Id dcId : shard.stageDatacenters) {
            for (std::size_t i = 0; i < topo.datacenters.size(); ++i)
                if (topo.datacenters[i].id == dcId)
                    placed[i] += perStage * shard.dpReplicas;
        }
    }
    return placed;
}

bool dataParallelCrossesDatacenters(const Scenario& scenario)
{
    const std::vector<PlacementShard> shards = effectiveShards(scenario);
    for (std::size_t a = 0; a < shards.size(); ++a)
        for (std::size_t b = a + 1; b < shards.size(); ++b) {
            const auto& sa = shards[a].stageDatacenters;
            const auto& sb = shards[b].stageDatacenters;
            for (std::size_t i = 0; i < std::min(sa.size(), sb.size()); ++i)
                if (sa[i] != sb[i])
                    return true;
        }
    return false;
}

int optimizerInstances(const Parallelism& p)
{
    const int zero = std::max(p.zeroStage, p.distributedOptimizer ? 1 : 0);
    return zero == 1 ? std::max(1, p.distributedOptimizerInstances) : 1;
}

std::int64_t microBatchesPerIteration(const Scenario& scenario)
{
    const std::int64_t dp = dataParallel(scenario);
    const std::int64_t perIteration = std::int64_t{scenario.parallelism.microBatch} * dp;
    if (perIteration <= 0)
        return 0;
    return scenario.workload.globalBatch / perIteration;
}

Id nextDatacenterId(const Topology& topology)
{
    return nextId(topology.datacenters);
}
Id nextLinkId(const Topology& topology)
{
    return nextId(topology.links);
}
Id nextRegionId(const Topology& topology)
{
    return nextId(topology.regions);
}
Id nextPodId(const Topology& topology)
{
    Id next = 0;
    for (const Datacenter& dc : topology.datacenters)
        next = std::max(next, nextId(dc.pods));
    return next;
}

const char* toString(FabricKind v)
{
    return nameOf(kFabricKinds, v);
}
const char* toString(DciTransport v)
{
    return nameOf(kTransports, v);
}
const char* toString(FfnActivation v)
{
    return nameOf(kActivations, v);
}
const char* toString(Precision v)
{
    return nameOf(kPrecisions, v);
}
const char* toString(Fp8Recipe v)
{
    return nameOf(kFp8Recipes, v);
}
const char* toString(Recompute v)
{
    return nameOf(kRecomputes, v);
}
const char* toString(ParallelDim v)
{
    return nameOf(kDims, v);
}
const char* toString(ScheduleKind v)
{
    return scheduleTraits(v).key.data(); // the table's keys are string literals
}
std::optional<FabricKind> fabricKindFromString(const std::string& s)
{
    return valueOf(kFabricKinds, s);
}
std::optional<DciTransport> dciTransportFromString(const std::string& s)
{
    return valueOf(kTransports, s);
}
std::optional<FfnActivation> ffnActivationFromString(const std::string& s)
{
    return valueOf(kActivations, s);
}
std::optional<Precision> precisionFromString(const std::string& s)
{
    return valueOf(kPrecisions, s);
}
std::optional<Fp8Recipe> fp8RecipeFromString(const std::string& s)
{
    return valueOf(kFp8Recipes, s);
}
std::optional<Recompute> recomputeFromString(const std::string& s)
{
    return valueOf(kRecomputes, s);
}

const char* toString(GradReduceDtype v)
{
    return nameOf(kGradReduceDtypes, v);
}

std::optional<GradReduceDtype> gradReduceDtypeFromString(const std::string& s)
{
    return valueOf(kGradReduceDtypes, s);
}

const char* toString(DatacenterSync v)
{
    return nameOf(kDatacenterSyncs, v);
}

std::optional<DatacenterSync> datacenterSyncFromString(const std::string& s)
{
    return valueOf(kDatacenterSyncs, s);
}
std::optional<ParallelDim> parallelDimFromString(const std::string& s)
{
    return valueOf(kDims, s);
}
std::optional<ScheduleKind> scheduleKindFromString(const std::string& s)
{
    for (const ScheduleTraits& t : allScheduleTraits())
        if (t.key == s)
            return t.kind;
    return std::nullopt;
}

} // namespace archipelago::core
