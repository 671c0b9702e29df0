#include "launch/launchplan.h"

#include "launch/launchbuilders.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace archipelago::core {

const char* toString(Framework framework)
{
    switch (framework) {
    case Framework::MegatronLm:
        return "megatron-lm";
    case Framework::Nemo:
        return "nemo";
    case Framework::TorchTitan:
        return "torchtitan";
    }
    return "megatron-lm";
}

const char* displayName(Framework framework)
{
    switch (framework) {
    case Framework::MegatronLm:
        return "Megatron-LM";
    case Framework::Nemo:
        return "NeMo";
    case Framework::TorchTitan:
        return "TorchTitan";
    }
    return "Megatron-LM";
}

const char* pinnedRelease(Framework framework)
{
    switch (framework) {
    case Framework::MegatronLm:
        return "core_v0.15.3";
    case Framework::Nemo:
        return "v2.4.0";
    case Framework::TorchTitan:
        return "v0.2.2";
    }
    return "";
}

std::optional<Framework> frameworkFromString(const std::string& text)
{
    for (Framework f : {Framework::MegatronLm, Framework::Nemo, Framework::TorchTitan})
        if (text == toString(f))
            return f;
    return std::nullopt;
}

bool pipelineInnerToData(const Placement& placement)
{
    const auto at = [&](ParallelDim d) {
        return std::find(placement.rankOrder.begin(), placement.rankOrder.end(), d) -
               placement.rankOrder.begin();
    };
    return at(ParallelDim::Pp) < at(ParallelDim::Dp);
}

namespace {

int gpusPerNodeOf(const Catalog& catalog)
{
    return catalog.reliability ? std::max(1, catalog.reliability->gpusPerHost) : 8;
}

// The building of one rank: its shard's stage home, or with a split shard the datacenter its
// TP or CP index falls in (each of k datacenters holds degree / k consecutive members).
Id rankDatacenter(const PlacementShard& shard, int stage, int cpIndex, int tpIndex, int tp, int cp)
{
    if (!shard.split())
        return shard.stageDatacenters.at(static_cast<std::size_t>(stage));
    const int k = static_cast<int>(shard.splitDatacenters.size());
    const int degree = shard.splitDim == ParallelDim::Cp ? cp : tp;
    const int index = shard.splitDim == ParallelDim::Cp ? cpIndex : tpIndex;
    const int per = std::max(1, degree / k);
    return shard.splitDatacenters[static_cast<std::size_t>(std::min(k - 1, index / per))];
}

} // namespace

RankLayout rankLayout(const Scenario& scenario, const Catalog& catalog)
{
    RankLayout layout;
    layout.gpusPerNode = gpusPerNodeOf(catalog);
    const Parallelism& par = scenario.parallelism;
    const int tp = std::max(1, par.tp);
    const int cp = std::max(1, par.cp);
    const int pp = std::max(1, par.pp);
    const std::vector<PlacementShard> shards = effectiveShards(scenario);
    // The shard of every data-parallel index: shards take consecutive DP ranks in order.
    std::vector<std::size_t> shardOf;
    for (std::size_t j = 0; j < shards.size(); ++j)
        shardOf.insert(shardOf.end(), static_cast<std::size_t>(std::max(0, shards[j].dpReplicas)),
                       j);
    const auto dp = static_cast<std::int64_t>(shardOf.size());
    const bool ppInner = pipelineInnerToData(scenario.placement);
    layout.worldSize = dp * pp * cp * tp;

    std::map<Id, std::int64_t> perBuilding;
    const auto host = [&](Id dc, std::int64_t ranks) {
        perBuilding[dc] += ranks;
        if (!layout.runs.empty() && layout.runs.back().datacenter == dc)
            layout.runs.back().ranks += ranks;
        else
            layout.runs.push_back({dc, ranks});
    };
    // One block of cp x tp ranks (Megatron-LM's innermost dimensions) at a time.
    const auto block = [&](std::int64_t d, int s) {
        const PlacementShard& shard = shards[shardOf[static_cast<std::size_t>(d)]];
        if (s >= static_cast<int>(shard.stageDatacenters.size()))
            return;
        if (!shard.split()) {
            host(shard.stageDatacenters[static_cast<std::size_t>(s)],
                 static_cast<std::int64_t>(cp) * tp);
            return;
        }
        for (int c = 0; c < cp; ++c)
            for (int t = 0; t < tp; ++t)
                host(rankDatacenter(shard, s, c, t, tp, cp), 1);
    };
    if (ppInner) {
        for (std::int64_t d = 0; d < dp; ++d)
            for (int s = 0; s < pp; ++s)
                block(d, s);
    } else {
        for (int s = 0; s < pp; ++s)
            for (std::int64_t d = 0; d < dp; ++d)
                block(d, s);
    }
    for (const Datacenter& dc : scenario.topology.datacenters) {
        const auto it = perBuilding.find(dc.id);
        if (it == perBuilding.end())
            continue;
        const std::int64_t nodes = (it->second + layout.gpusPerNode - 1) / layout.gpusPerNode;
        layout.buildings.push_back({dc.id, dc.name, it->second, nodes});
        if (it->second % layout.gpusPerNode != 0)
            layout.notes.push_back(dc.name + " hosts " + std::to_string(it->second) +
                                   " ranks, not a whole number of " +
                                   std::to_string(layout.gpusPerNode) +
                                   "-GPU nodes: its last node is part-used");
    }
    // A run that is not a whole number of nodes shares a node with the building's next run.
    if (tp < layout.gpusPerNode && layout.gpusPerNode % tp != 0)
        layout.notes.push_back("TP " + std::to_string(tp) + " does not divide " +
                               std::to_string(layout.gpusPerNode) +
                               " GPUs per node: some TP groups span two nodes");
    return layout;
}

std::vector<std::string> hostfileLines(const RankLayout& layout,
                                       const std::vector<std::vector<std::string>>& nodeNames)
{
    std::vector<std::string> lines;
    lines.reserve(static_cast<std::size_t>(layout.worldSize));
    std::map<Id, std::size_t> index;
    for (std::size_t b = 0; b < layout.buildings.size(); ++b)
        index[layout.buildings[b].datacenter] = b;
    std::vector<std::int64_t> used(layout.buildings.size(), 0);
    for (const RankRun& run : layout.runs) {
        const std::size_t b = index.at(run.datacenter);
        for (std::int64_t r = 0; r < run.ranks; ++r, ++used[b]) {
            const auto node = static_cast<std::size_t>(used[b] / layout.gpusPerNode);
            lines.push_back(b < nodeNames.size() && node < nodeNames[b].size() ? nodeNames[b][node]
                                                                               : std::string{});
        }
    }
    return lines;
}

namespace launch {

std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

std::vector<int> chunkLayers(const Scenario& scenario)
{
    const std::vector<int> perRank = effectiveLayersPerStage(scenario);
    const int pp = static_cast<int>(perRank.size());
    const int v = std::max(1, scenario.parallelism.virtualStages);
    std::vector<int> chunks(static_cast<std::size_t>(pp * v), 0);
    for (int r = 0; r < pp; ++r)
        for (int c = 0; c < v; ++c)
            chunks[static_cast<std::size_t>(c * pp + r)] =
                perRank[static_cast<std::size_t>(r)] / v +
                (c < perRank[static_cast<std::size_t>(r)] % v ? 1 : 0);
    return chunks;
}

std::string pipelineLayout(const Scenario& scenario)
{
    const std::vector<int> layers = chunkLayers(scenario);
    std::vector<std::string> chunks;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        std::string c = i == 0 ? "E" : "";
        if (layers[i] > 0)
            c += layers[i] == 1 ? std::string("t") : "t*" + std::to_string(layers[i]);
        if (i + 1 == layers.size()) {
            const int mtp = scenario.workload.mtpDepth;
            if (mtp > 0)
                c += mtp == 1 ? std::string("m") : "m*" + std::to_string(mtp);
            c += 'L';
        }
        chunks.push_back(std::move(c));
    }
    // Repeated chunks as "(t*2|)*46," (Megatron-LM's own notation; the comma is cosmetic).
    std::string layout;
    for (std::size_t i = 0; i < chunks.size();) {
        if (i + 1 == chunks.size()) {
            layout += chunks[i];
            break;
        }
        std::size_t j = i + 1;
        while (j + 1 < chunks.size() && chunks[j] == chunks[i])
            ++j;
        if (j - i >= 2)
            layout += "(" + chunks[i] + "|)*" + std::to_string(j - i) + ",";
        else
            layout += chunks[i] + "|";
        i = j;
    }
    return layout;
}

namespace {

// NCCL's environment is per process, so a link's settings apply to every connection of the
// job; the largest of the links between hosting buildings goes job-wide (docs/network.md,
// "NCCL's connections"; names as in NCCL's documentation, "Environment Variables").
void addNcclEnvironment(const Scenario& scenario, const RankLayout& layout, LaunchPlan& plan)
{
    if (layout.buildings.size() < 2)
        return;
    const NcclSettings defaults;
    NcclSettings most = defaults;
    const auto hosts = [&](Id dc) {
        return std::any_of(layout.buildings.begin(), layout.buildings.end(),
                           [&](const BuildingNodes& b) { return b.datacenter == dc; });
    };
    for (const DciLink& link : scenario.topology.links) {
        if (!hosts(link.a) || !hosts(link.b))
            continue;
        const NcclSettings& n = link.nccl;
        most.buffsizeBytes = std::max(most.buffsizeBytes, n.buffsizeBytes);
        most.channels = std::max(most.channels, n.channels);
        most.p2pChannelsPerPeer = std::max(most.p2pChannelsPerPeer, n.p2pChannelsPerPeer);
        most.p2pChunkBytes = std::max(most.p2pChunkBytes, n.p2pChunkBytes);
        most.qpsPerConnection = std::max(most.qpsPerConnection, n.qpsPerConnection);
    }
    const std::size_t before = plan.environment.size();
    const auto bytes = [](double b) { return std::to_string(static_cast<std::int64_t>(b)); };
    if (most.buffsizeBytes != defaults.buffsizeBytes)
        plan.environment.push_back({"NCCL_BUFFSIZE", bytes(most.buffsizeBytes),
                                    "the long-haul links' buffer per connection"});
    if (most.channels != defaults.channels)
        plan.environment.push_back({"NCCL_MIN_NCHANNELS", std::to_string(most.channels),
                                    "collective channels per GPU flow on the long-haul links"});
    if (most.p2pChannelsPerPeer != defaults.p2pChannelsPerPeer)
        plan.environment.push_back({"NCCL_NCHANNELS_PER_NET_PEER",
                                    std::to_string(most.p2pChannelsPerPeer),
                                    "send/recv channels per network peer"});
    if (most.p2pChunkBytes != defaults.p2pChunkBytes)
        plan.environment.push_back({"NCCL_P2P_NET_CHUNKSIZE", bytes(most.p2pChunkBytes),
                                    "send/recv chunk over the network"});
    if (most.qpsPerConnection != defaults.qpsPerConnection)
        plan.environment.push_back({"NCCL_IB_QPS_PER_CONNECTION",
                                    std::to_string(most.qpsPerConnection),
                                    "queue pairs per connection"});
    if (plan.environment.size() > before)
        plan.notes.push_back("NCCL reads its settings once per process: the largest of the "
                             "long-haul links' settings applies to every connection of the job, "
                             "inside buildings too (more buffer memory per peer, no slower)");
    for (const DciLink& link : scenario.topology.links)
        if (link.transport == DciTransport::LossyIp && hosts(link.a) && hosts(link.b))
            plan.notes.push_back("link " + std::to_string(link.id) +
                                 " is modelled as TCP over a lossy network: its window is the "
                                 "hosts' TCP buffers (net.ipv4.tcp_rmem / tcp_wmem), set outside "
                                 "the job");
}

} // namespace
} // namespace launch

std::string memoryWarning(const Evaluation& evaluation)
{
    char figures[96];
    std::snprintf(figures, sizeof figures, "%.1f GiB of %.1f GiB", evaluation.memoryPeakGib,
                  evaluation.hbmGib);
    return std::string("WARNING: the model predicts this design does not fit in memory (") +
           figures + " at the tightest stage)";
}

LaunchPlan launchPlan(const Scenario& scenario, const Catalog& catalog,
                      const Evaluation& evaluation, Framework framework)
{
    LaunchPlan plan;
    plan.framework = framework;
    plan.scenarioName = scenario.name;
    plan.ranks = rankLayout(scenario, catalog);

    launch::PlanInputs in{scenario};
    in.dp = dataParallel(scenario);
    in.gpusPerNode = plan.ranks.gpusPerNode;
    in.buildings = static_cast<int>(plan.ranks.buildings.size());
    in.dpCrossesBuildings = dataParallelCrossesDatacenters(scenario);
    const double tokensPerIteration = static_cast<double>(scenario.workload.globalBatch) *
                                      static_cast<double>(scenario.workload.seqLen);
    if (tokensPerIteration > 0.0)
        in.trainIterations = static_cast<std::int64_t>(
            std::ceil(scenario.workload.trainTokens / tokensPerIteration));
    // The interval the scenario sets, else the model's (Daly's optimum, evaluation/goodput.cpp).
    const double intervalS = scenario.workload.checkpointIntervalS > 0.0
                                 ? scenario.workload.checkpointIntervalS
                                 : evaluation.goodput.checkpointIntervalS;
    if (evaluation.ok && evaluation.iterationTimeS > 0.0 && std::isfinite(intervalS) &&
        intervalS > 0.0)
        in.checkpointIterations =
            std::max<std::int64_t>(1, std::llround(intervalS / evaluation.iterationTimeS));

    switch (framework) {
    case Framework::MegatronLm:
        launch::addMegatronSettings(in, plan);
        break;
    case Framework::Nemo:
        launch::addNemoSettings(in, plan);
        break;
    case Framework::TorchTitan:
        launch::addTorchTitanSettings(in, plan);
        break;
    }
    // Synchronous DP across buildings with one optimizer instance sends every gradient byte over
    // the DCI; the hierarchical scheme sends only the shards (evaluation/datacost.cpp).
    const Parallelism& par = scenario.parallelism;
    if (in.dpCrossesBuildings && in.buildings > 1 && optimizerInstances(par) == 1 &&
        par.datacenterSync.scheme == DatacenterSync::Synchronous) {
        const char* setting =
            framework == Framework::MegatronLm ? "--num-distributed-optimizer-instances"
            : framework == Framework::Nemo ? "trainer.strategy.num_distributed_optimizer_instances"
                                           : "parallelism.data_parallel_replicate_degree (HSDP)";
        plan.notes.push_back(
            "DP crosses buildings with one optimizer instance, so every gradient byte crosses the "
            "DCI. The hierarchical scheme (the distributed optimizer with one instance per "
            "building, " +
            std::to_string(in.buildings) +
            " here) sends only the shards; set it in the scenario "
            "to see its effect, and " +
            setting + " carries it");
    }
    launch::addNcclEnvironment(scenario, plan.ranks, plan);
    plan.notes.insert(plan.notes.end(), plan.ranks.notes.begin(), plan.ranks.notes.end());
    // A design that does not fit is written, never silently: the warning heads the notes.
    if (!evaluation.fitsInMemory) {
        std::vector<std::string> notes{memoryWarning(evaluation)};
        notes.insert(notes.end(), plan.notes.begin(), plan.notes.end());
        plan.notes = std::move(notes);
    }
    return plan;
}

} // namespace archipelago::core
