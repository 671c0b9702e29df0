// JSON -> Scenario. Keys exactly as in docs/scenario-format.md; a key the reader does not read is
// reported as unknown by ObjectReader.
#include "io/scenariojson.h"
#include "model/scenariolimits.h"

namespace archipelago::core {

namespace {

using namespace limits;

constexpr Need kReq = Need::Required;
constexpr Need kOpt = Need::Optional;

void readPosition(ObjectReader& r, Datacenter& dc)
{
    const Json* v = r.find("position", kOpt, "an array of two numbers [x, y]");
    if (!v)
        return;
    if (!v->is_array() || v->size() != 2) {
        r.error("position", "expected an array of two numbers [x, y], got " + describeJson(*v));
        return;
    }
    const std::string ptr = r.pointerOf("position");
    readNumber((*v)[0], childPointer(ptr, 0), r.sink(), dc.x);
    readNumber((*v)[1], childPointer(ptr, 1), r.sink(), dc.y);
}

void readFabric(ObjectReader& r, Fabric& f)
{
    r.enumeration("kind", f.kind, fabricKindFromString, "clos | rail-optimized | rail-only");
    r.integer("tiers", f.tiers, kOpt, kTiers.expected);
    r.number("leaf_oversubscription", f.leafOversubscription, kOpt, kOversubscription.expected);
    r.number("spine_oversubscription", f.spineOversubscription, kOpt, kOversubscription.expected);
    r.string("switch", f.switchModel);
    r.string("nic", f.nicModel);
    r.integer("nics_per_gpu", f.nicsPerGpu, kOpt, kNicsPerGpu.expected);
}

void readPod(ObjectReader& r, Pod& pod)
{
    r.integer("id", pod.id, kReq, kId.expected);
    r.string("name", pod.name);
    r.integer("count", pod.count, kReq);
    r.integer("domains_per_pod", pod.domainsPerPod, kReq);
    r.integer("gpus_per_domain", pod.gpusPerDomain, kReq);
}

void readDatacenter(ObjectReader& r, Datacenter& dc)
{
    r.integer("id", dc.id, kReq, kId.expected);
    r.string("name", dc.name);
    r.integer("region", dc.regionId, kOpt, kId.expected);
    r.string("accelerator", dc.accelerator, kReq);
    readPosition(r, dc);
    r.object("fabric", kOpt, [&](ObjectReader& f) { readFabric(f, dc.fabric); });
    r.objects("pods", kReq, [&](ObjectReader& p) { readPod(p, dc.pods.emplace_back()); });
}

void readLink(ObjectReader& r, DciLink& link)
{
    r.integer("id", link.id, kReq, kId.expected);
    r.integer("a", link.a, kReq, kId.expected);
    r.integer("b", link.b, kReq, kId.expected);
    r.number("distance_km", link.distanceKm, kReq, kDistanceKm.expected);
    r.integer("wavelengths", link.wavelengths, kReq, kWavelengths.expected);
    r.number("Gbps_per_wavelength", link.gbpsPerWavelength, kReq);
    r.string("optic", link.optic);
    r.string("line_system", link.lineSystem);
    r.enumeration("transport", link.transport, dciTransportFromString, "rdma-otn | lossy-ip");
    r.number("equipment_latency_s", link.equipmentLatencyS, kOpt, kLatencyS.expected);
    r.number("packet_loss_rate", link.packetLossRate, kOpt, kProbability.expected);
    r.number("window_bytes", link.windowBytes, kOpt);
    r.integer("connections_per_collective", link.connectionsPerCollective, kOpt,
              kConnections.expected);
}

void readTopology(ObjectReader& r, Topology& t)
{
    r.objects("regions", kOpt, [&](ObjectReader& o) {
        Region& region = t.regions.emplace_back();
        o.integer("id", region.id, kReq, kId.expected);
        o.string("name", region.name);
    });
    r.objects("datacenters", kReq,
              [&](ObjectReader& o) { readDatacenter(o, t.datacenters.emplace_back()); });
    r.objects("dci_links", kOpt, [&](ObjectReader& o) { readLink(o, t.links.emplace_back()); });
}

void readMoe(ObjectReader& r, MoeConfig& moe)
{
    r.integer("experts", moe.experts, kReq, kNonNegative.expected);
    r.integer("top_k", moe.topK, kReq);
    r.integer("expert_ffn_hidden", moe.expertFfnHidden, kReq);
    r.integer("shared_experts", moe.sharedExperts, kOpt, kNonNegative.expected);
    r.integer("first_dense_layers", moe.firstDenseLayers, kOpt, kNonNegative.expected);
}

void readWorkload(ObjectReader& r, Workload& w)
{
    r.string("name", w.name);
    r.integer("layers", w.layers, kReq, kLayers.expected);
    r.integer("hidden", w.hidden, kReq);
    r.integer("heads", w.heads, kReq);
    // Optional: multi-head attention (one KV head per query head) when absent.
    if (!r.integer("kv_heads", w.kvHeads, kOpt))
        w.kvHeads = w.heads;
    r.integer("ffn_hidden", w.ffnHidden, kReq);
    r.enumeration("ffn_activation", w.activation, ffnActivationFromString, "gelu | swiglu");
    r.integer("vocab", w.vocab, kReq);
    r.integer("seq_len", w.seqLen, kReq);
    r.object("moe", kOpt, [&](ObjectReader& m) { readMoe(m, w.moe); });
    r.integer("global_batch", w.globalBatch, kReq, kGlobalBatch.expected);
    r.enumeration("precision", w.precision, precisionFromString, "bf16 | fp8");
    r.number("train_tokens", w.trainTokens, kOpt);
}

void readOverlap(ObjectReader& r, OverlapOptions& o)
{
    r.boolean("dp_grad_reduce", o.dpGradReduce);
    r.boolean("dp_param_gather", o.dpParamGather);
    r.boolean("tp_comm", o.tpComm);
    r.boolean("cp_comm", o.cpComm);
    r.boolean("ep_comm", o.epComm);
    r.boolean("pp_comm", o.ppComm);
}

void readParallelism(ObjectReader& r, Parallelism& p)
{
    r.integer("tp", p.tp, kOpt);
    r.integer("cp", p.cp, kOpt);
    r.integer("pp", p.pp, kOpt);
    r.integer("ep", p.ep, kOpt);
    r.integer("virtual_stages", p.virtualStages, kOpt);
    r.integer("micro_batch", p.microBatch, kOpt);
    r.boolean("sequence_parallel", p.sequenceParallel);
    r.integer("zero_stage", p.zeroStage, kOpt, kZeroStage.expected);
    r.boolean("distributed_optimizer", p.distributedOptimizer);
    r.enumeration("recompute", p.recompute, recomputeFromString, "none | selective | full");
    r.object("overlap", kOpt, [&](ObjectReader& o) { readOverlap(o, p.overlap); });
}

void readPlacement(ObjectReader& r, Placement& p)
{
    constexpr std::string_view kDims = "tp | cp | ep | dp | pp";
    DiagnosticSink& sink = r.sink();
    if (r.find("rank_order", kOpt, "an array"))
        p.rankOrder.clear();
    r.array("rank_order", kOpt, [&](const Json& v, const std::string& ptr) {
        const auto dim = v.is_string() ? parallelDimFromString(v.get<std::string>()) : std::nullopt;
        if (dim)
            p.rankOrder.push_back(*dim);
        else
            sink.error(ptr, "expected one of " + std::string(kDims) + ", got " + describeJson(v));
    });
    r.objects("shards", kOpt, [&](ObjectReader& o) {
        PlacementShard& shard = p.shards.emplace_back();
        o.integer("dp_replicas", shard.dpReplicas, kReq);
        o.array("stage_datacenters", kReq, [&](const Json& v, const std::string& ptr) {
            int id = 0;
            readInt(v, ptr, sink, id, kId.expected);
            shard.stageDatacenters.push_back(id);
        });
        // Optional split of a TP or CP group across datacenters (docs/scenario-format.md).
        o.array("split_datacenters", kOpt, [&](const Json& v, const std::string& ptr) {
            int id = 0;
            readInt(v, ptr, sink, id, kId.expected);
            shard.splitDatacenters.push_back(id);
        });
        o.enumeration("split_dim", shard.splitDim, parallelDimFromString, "tp | cp");
    });
    r.array("layers_per_stage", kOpt, [&](const Json& v, const std::string& ptr) {
        int layers = 0;
        readInt(v, ptr, sink, layers);
        p.layersPerStage.push_back(layers);
    });
}

void readSchedule(ObjectReader& r, Schedule& s)
{
    r.enumeration("kind", s.kind, scheduleKindFromString,
                  "gpipe | 1f1b | interleaved-1f1b | zb-h1 | zb-h2");
    r.integer("extra_in_flight_at_dci", s.extraInFlightAtDci, kOpt, kExtraInFlight.expected);
}

} // namespace

void readScenario(ObjectReader& root, Scenario& out)
{
    root.string("name", out.name);
    root.string("description", out.description);
    root.object("catalog", kOpt, [&](ObjectReader& r) { readCatalog(r, out.catalogOverrides); });
    root.object("topology", kReq, [&](ObjectReader& r) { readTopology(r, out.topology); });
    root.object("workload", kReq, [&](ObjectReader& r) { readWorkload(r, out.workload); });
    root.object("parallelism", kOpt, [&](ObjectReader& r) { readParallelism(r, out.parallelism); });
    root.object("placement", kOpt, [&](ObjectReader& r) { readPlacement(r, out.placement); });
    root.object("schedule", kOpt, [&](ObjectReader& r) { readSchedule(r, out.schedule); });
}

} // namespace archipelago::core
