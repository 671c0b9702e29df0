// Scenario -> JSON. Every field is written (except groups equal to their defaults that the
// format marks optional), in the order of docs/scenario-format.md, so that a saved file reads
// back to exactly the same Scenario and diffs between saves stay small.
#include "io/scenariojson.h"

namespace archipelago::core {

namespace {

Json toJson(const Fabric& f)
{
    Json j;
    j["kind"] = toString(f.kind);
    j["tiers"] = f.tiers;
    j["leaf_oversubscription"] = f.leafOversubscription;
    j["spine_oversubscription"] = f.spineOversubscription;
    j["switch"] = f.switchModel;
    j["nic"] = f.nicModel;
    j["nics_per_gpu"] = f.nicsPerGpu;
    return j;
}

Json toJson(const Pod& pod)
{
    Json j;
    j["id"] = pod.id;
    j["name"] = pod.name;
    j["count"] = pod.count;
    j["domains_per_pod"] = pod.domainsPerPod;
    j["gpus_per_domain"] = pod.gpusPerDomain;
    return j;
}

Json toJson(const Datacenter& dc)
{
    Json j;
    j["id"] = dc.id;
    j["name"] = dc.name;
    j["region"] = dc.regionId;
    j["accelerator"] = dc.accelerator;
    j["position"] = Json::array({dc.x, dc.y});
    j["fabric"] = toJson(dc.fabric);
    j["pods"] = Json::array();
    for (const Pod& pod : dc.pods)
        j["pods"].push_back(toJson(pod));
    return j;
}

Json toJson(const DciLink& link)
{
    Json j;
    j["id"] = link.id;
    j["a"] = link.a;
    j["b"] = link.b;
    j["distance_km"] = link.distanceKm;
    j["wavelengths"] = link.wavelengths;
    j["Gbps_per_wavelength"] = link.gbpsPerWavelength;
    j["optic"] = link.optic;
    j["line_system"] = link.lineSystem;
    j["transport"] = toString(link.transport);
    j["equipment_latency_s"] = link.equipmentLatencyS;
    j["packet_loss_rate"] = link.packetLossRate;
    j["window_bytes"] = link.windowBytes;
    j["connections_per_collective"] = link.connectionsPerCollective;
    return j;
}

Json toJson(const Topology& t)
{
    Json j;
    j["regions"] = Json::array();
    for (const Region& region : t.regions)
        j["regions"].push_back(Json{{"id", region.id}, {"name", region.name}});
    j["datacenters"] = Json::array();
    for (const Datacenter& dc : t.datacenters)
        j["datacenters"].push_back(toJson(dc));
    j["dci_links"] = Json::array();
    for (const DciLink& link : t.links)
        j["dci_links"].push_back(toJson(link));
    return j;
}

Json toJson(const Workload& w)
{
    Json j;
    j["name"] = w.name;
    j["layers"] = w.layers;
    j["hidden"] = w.hidden;
    j["heads"] = w.heads;
    j["kv_heads"] = w.kvHeads;
    j["ffn_hidden"] = w.ffnHidden;
    j["ffn_activation"] = toString(w.activation);
    j["vocab"] = w.vocab;
    j["seq_len"] = w.seqLen;
    // Absent means a dense model; written whenever it differs from the default so that the
    // round trip stays exact.
    if (w.moe != MoeConfig{}) {
        j["moe"] = Json{{"experts", w.moe.experts},
                        {"top_k", w.moe.topK},
                        {"expert_ffn_hidden", w.moe.expertFfnHidden},
                        {"shared_experts", w.moe.sharedExperts},
                        {"first_dense_layers", w.moe.firstDenseLayers}};
    }
    j["global_batch"] = w.globalBatch;
    j["precision"] = toString(w.precision);
    j["train_tokens"] = w.trainTokens;
    return j;
}

Json toJson(const Parallelism& p)
{
    Json j;
    j["tp"] = p.tp;
    j["cp"] = p.cp;
    j["pp"] = p.pp;
    j["ep"] = p.ep;
    j["virtual_stages"] = p.virtualStages;
    j["micro_batch"] = p.microBatch;
    j["sequence_parallel"] = p.sequenceParallel;
    j["zero_stage"] = p.zeroStage;
    j["distributed_optimizer"] = p.distributedOptimizer;
    j["recompute"] = toString(p.recompute);
    const OverlapOptions& o = p.overlap;
    j["overlap"] = Json{{"dp_grad_reduce", o.dpGradReduce},
                        {"dp_param_gather", o.dpParamGather},
                        {"tp_comm", o.tpComm},
                        {"cp_comm", o.cpComm},
                        {"ep_comm", o.epComm},
                        {"pp_comm", o.ppComm}};
    return j;
}

Json toJson(const Placement& p)
{
    Json j;
    j["rank_order"] = Json::array();
    for (ParallelDim dim : p.rankOrder)
        j["rank_order"].push_back(toString(dim));
    if (!p.shards.empty()) {
        j["shards"] = Json::array();
        for (const PlacementShard& shard : p.shards) {
            Json js{{"dp_replicas", shard.dpReplicas},
                    {"stage_datacenters", shard.stageDatacenters}};
            // Written only when set, so files without a split stay byte-identical.
            if (!shard.splitDatacenters.empty())
                js["split_datacenters"] = shard.splitDatacenters;
            if (!shard.splitDatacenters.empty() || shard.splitDim != ParallelDim::Tp)
                js["split_dim"] = toString(shard.splitDim);
            j["shards"].push_back(std::move(js));
        }
    }
    if (!p.layersPerStage.empty())
        j["layers_per_stage"] = p.layersPerStage;
    return j;
}

} // namespace

Json scenarioToJson(const Scenario& s)
{
    Json j;
    j["format"] = kScenarioFormat;
    j["version"] = kScenarioVersion;
    j["name"] = s.name;
    j["description"] = s.description;
    if (!s.catalogOverrides.empty())
        j["catalog"] = catalogToJson(s.catalogOverrides);
    j["topology"] = toJson(s.topology);
    j["workload"] = toJson(s.workload);
    j["parallelism"] = toJson(s.parallelism);
    j["placement"] = toJson(s.placement);
    j["schedule"] = Json{{"kind", toString(s.schedule.kind)},
                         {"extra_in_flight_at_dci", s.schedule.extraInFlightAtDci}};
    return j;
}

std::string serializeScenario(const Scenario& scenario)
{
    // Shortest round-trip representation of doubles is nlohmann's default (Grisu2), so no
    // precision is lost; invalid UTF-8 in a name is replaced rather than thrown on.
    return scenarioToJson(scenario).dump(2, ' ', false, Json::error_handler_t::replace) + '\n';
}

} // namespace archipelago::core
