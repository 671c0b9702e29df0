// JSON -> Scenario. Keys exactly as in docs/scenario-format.md; a key the reader does not read is
// reported as unknown by ObjectReader.
#include "io/scenariojson.h"
#include "model/scenariolimits.h"

namespace archipelago::core {

namespace keys = scenariokeys;

namespace {

using namespace limits;

constexpr Need kReq = Need::Required;
constexpr Need kOpt = Need::Optional;

void readPosition(ObjectReader& r, Datacenter& dc)
{
    const Json* v = r.find(keys::kPosition, kOpt, "an array of two numbers [x, y]");
    if (!v)
        return;
    if (!v->is_array() || v->size() != 2) {
        r.error(keys::kPosition,
                "expected an array of two numbers [x, y], got " + describeJson(*v));
        return;
    }
    const std::string ptr = r.pointerOf(keys::kPosition);
    readNumber((*v)[0], childPointer(ptr, 0), r.sink(), dc.x);
    readNumber((*v)[1], childPointer(ptr, 1), r.sink(), dc.y);
}

void readFabric(ObjectReader& r, Fabric& f)
{
    r.enumeration(keys::kKind, f.kind, fabricKindFromString, "clos | rail-optimized | rail-only");
    r.integer(keys::kTiers, f.tiers, kOpt, kTiers.expected);
    r.number(keys::kLeafOversubscription, f.leafOversubscription, kOpt, kOversubscription.expected);
    r.number(keys::kSpineOversubscription, f.spineOversubscription, kOpt,
             kOversubscription.expected);
    r.string(keys::kSwitch, f.switchModel);
    r.string(keys::kNic, f.nicModel);
    r.integer(keys::kNicsPerGpu, f.nicsPerGpu, kOpt, kNicsPerGpu.expected);
}

void readPod(ObjectReader& r, Pod& pod)
{
    r.integer(keys::kId, pod.id, kReq, kId.expected);
    r.string(keys::kName, pod.name, Need::Optional, kMaxNameBytes);
    r.integer(keys::kCount, pod.count, kReq);
    r.integer(keys::kDomainsPerPod, pod.domainsPerPod, kReq);
    r.integer(keys::kGpusPerDomain, pod.gpusPerDomain, kReq);
}

void readDatacenter(ObjectReader& r, Datacenter& dc)
{
    r.integer(keys::kId, dc.id, kReq, kId.expected);
    r.string(keys::kName, dc.name, Need::Optional, kMaxNameBytes);
    r.integer(keys::kRegion, dc.regionId, kOpt, kId.expected);
    r.string(keys::kAccelerator, dc.accelerator, kReq);
    readPosition(r, dc);
    r.object(keys::kFabric, kOpt, [&](ObjectReader& f) { readFabric(f, dc.fabric); });
    r.objects(keys::kPods, kReq, [&](ObjectReader& p) { readPod(p, dc.pods.emplace_back()); });
    r.number(keys::kStorageWriteGBps, dc.storageWriteGBps, kOpt, kDatacenterStorageGBps.expected);
    r.number(keys::kStorageReadGBps, dc.storageReadGBps, kOpt, kDatacenterStorageGBps.expected);
    r.number(keys::kElectricityUsdPerKwh, dc.electricityUsdPerKwh, kOpt,
             kDatacenterElectricityUsdPerKwh.expected);
    r.number(keys::kPue, dc.pue, kOpt, kDatacenterPue.expected);
    r.number(keys::kFacilityUsdPerKwMonth, dc.facilityUsdPerKwMonth, kOpt,
             kDatacenterFacilityUsdPerKwMonth.expected);
}

void readNccl(ObjectReader& r, NcclSettings& nccl)
{
    r.number(keys::kBuffsizeBytes, nccl.buffsizeBytes, kOpt, kNcclBufferBytes.expected);
    r.integer(keys::kChannels, nccl.channels, kOpt, kNcclChannels.expected);
    r.integer(keys::kP2pChannelsPerPeer, nccl.p2pChannelsPerPeer, kOpt, kNcclChannels.expected);
    r.number(keys::kP2pChunkBytes, nccl.p2pChunkBytes, kOpt, kNcclBufferBytes.expected);
    r.integer(keys::kQpsPerConnection, nccl.qpsPerConnection, kOpt, kQpsPerConnection.expected);
}

void readLink(ObjectReader& r, DciLink& link)
{
    r.integer(keys::kId, link.id, kReq, kId.expected);
    r.integer(keys::kA, link.a, kReq, kId.expected);
    r.integer(keys::kB, link.b, kReq, kId.expected);
    r.number(keys::kDistanceKm, link.distanceKm, kReq, kDistanceKm.expected);
    r.integer(keys::kWavelengths, link.wavelengths, kReq, kWavelengths.expected);
    r.number(keys::kGbpsPerWavelength, link.gbpsPerWavelength, kReq, kGbpsPerWavelength.expected);
    r.string(keys::kOptic, link.optic);
    r.string(keys::kLineSystem, link.lineSystem);
    r.enumeration(keys::kTransport, link.transport, dciTransportFromString,
                  "rdma-otn | lossy-ip | roce-pfc");
    r.number(keys::kEquipmentLatencyS, link.equipmentLatencyS, kOpt, kLatencyS.expected);
    r.number(keys::kPacketLossRate, link.packetLossRate, kOpt, kProbability.expected);
    r.number(keys::kWindowBytes, link.windowBytes, kOpt);
    r.number(keys::kHeadroomBytes, link.headroomBytes, kOpt, kHeadroomBytes.expected);
    r.number(keys::kMssBytes, link.mssBytes, kOpt, kMssBytes.expected);
    r.object(keys::kNccl, kOpt, [&](ObjectReader& n) { readNccl(n, link.nccl); });
    r.boolean(keys::kOpticalProtection, link.opticalProtection);
}

void readTopology(ObjectReader& r, Topology& t)
{
    r.objects(keys::kRegions, kOpt, [&](ObjectReader& o) {
        Region& region = t.regions.emplace_back();
        o.integer(keys::kId, region.id, kReq, kId.expected);
        o.string(keys::kName, region.name, Need::Optional, kMaxNameBytes);
    });
    r.objects(keys::kDatacenters, kReq,
              [&](ObjectReader& o) { readDatacenter(o, t.datacenters.emplace_back()); });
    r.objects(keys::kDciLinks, kOpt, [&](ObjectReader& o) { readLink(o, t.links.emplace_back()); });
}

void readMoe(ObjectReader& r, MoeConfig& moe)
{
    r.integer(keys::kExperts, moe.experts, kReq, kNonNegative.expected);
    r.integer(keys::kTopK, moe.topK, kReq);
    r.integer(keys::kExpertFfnHidden, moe.expertFfnHidden, kReq);
    r.integer(keys::kSharedExperts, moe.sharedExperts, kOpt, kNonNegative.expected);
    r.integer(keys::kFirstDenseLayers, moe.firstDenseLayers, kOpt, kNonNegative.expected);
    r.integer(keys::kMaxNodesPerToken, moe.maxNodesPerToken, kOpt, kNonNegative.expected);
    r.enumeration(keys::kDispatchPrecision, moe.dispatchPrecision, precisionFromString,
                  "bf16 | fp8");
}

// "mha": standard multi-head or grouped-query attention from heads and kv_heads (also what an
// absent object means); "mla": multi-head latent attention with its ranks and head dimensions.
void readAttention(ObjectReader& r, MlaConfig& mla)
{
    std::string kind;
    if (!r.string(keys::kKind, kind, kReq) || kind == "mha")
        return;
    if (kind != "mla") {
        r.error(keys::kKind, "expected one of mha | mla, got \"" + kind + "\"");
        return;
    }
    r.integer(keys::kQLoraRank, mla.qLoraRank, kOpt, kNonNegative.expected);
    r.integer(keys::kKvLoraRank, mla.kvLoraRank, kReq);
    r.integer(keys::kQkNopeHeadDim, mla.qkNopeHeadDim, kReq);
    r.integer(keys::kQkRopeHeadDim, mla.qkRopeHeadDim, kReq, kNonNegative.expected);
    r.integer(keys::kVHeadDim, mla.vHeadDim, kReq);
}

void readWorkload(ObjectReader& r, Workload& w)
{
    r.string(keys::kName, w.name, Need::Optional, kMaxNameBytes);
    r.integer(keys::kLayers, w.layers, kReq, kLayers.expected);
    r.integer(keys::kHidden, w.hidden, kReq);
    r.integer(keys::kHeads, w.heads, kReq);
    // Optional: multi-head attention (one KV head per query head) when absent.
    if (!r.integer(keys::kKvHeads, w.kvHeads, kOpt))
        w.kvHeads = w.heads;
    r.integer(keys::kFfnHidden, w.ffnHidden, kReq);
    r.enumeration(keys::kFfnActivation, w.activation, ffnActivationFromString, "gelu | swiglu");
    r.integer(keys::kVocab, w.vocab, kReq);
    r.integer(keys::kSeqLen, w.seqLen, kReq);
    r.object(keys::kMoe, kOpt, [&](ObjectReader& m) { readMoe(m, w.moe); });
    r.object(keys::kAttention, kOpt, [&](ObjectReader& a) { readAttention(a, w.mla); });
    r.integer(keys::kGlobalBatch, w.globalBatch, kReq, kGlobalBatch.expected);
    r.enumeration(keys::kPrecision, w.precision, precisionFromString, "bf16 | fp8");
    r.enumeration(keys::kFp8Recipe, w.fp8Recipe, fp8RecipeFromString, "delayed | blockwise");
    r.integer(keys::kMtpDepth, w.mtpDepth, kOpt, limits::kMtpDepth);
    r.number(keys::kTrainTokens, w.trainTokens, kOpt);
    r.boolean(keys::kParallelBlock, w.parallelBlock);
    r.boolean(keys::kTiedEmbeddings, w.tiedEmbeddings);
    r.integer(keys::kAttentionWindow, w.attentionWindow, kOpt, kNonNegative.expected);
    r.number(keys::kCheckpointIntervalS, w.checkpointIntervalS, kOpt);
    r.boolean(keys::kCheckpointAsynchronous, w.checkpointAsynchronous);
    r.boolean(keys::kCheckpointRemoteReplica, w.checkpointRemoteReplica);
}

void readKernels(ObjectReader& r, Kernels& k)
{
    // Absent: the accelerator generation decides (computemodel.h fusedAttention).
    if (bool flash = false; r.boolean(keys::kFlashAttention, flash))
        k.flashAttention = flash;
    r.boolean(keys::kFusedElementwise, k.fusedElementwise);
}

void readOverlap(ObjectReader& r, OverlapOptions& o)
{
    r.boolean(keys::kDpGradReduce, o.dpGradReduce);
    r.boolean(keys::kDpParamGather, o.dpParamGather);
    r.boolean(keys::kTpComm, o.tpComm);
    r.boolean(keys::kCpComm, o.cpComm);
    r.boolean(keys::kEpComm, o.epComm);
    r.boolean(keys::kPpComm, o.ppComm);
}

void readDatacenterSync(ObjectReader& r, DatacenterSyncOptions& d)
{
    r.enumeration(keys::kScheme, d.scheme, datacenterSyncFromString,
                  "synchronous | diloco | streaming-diloco");
    r.integer(keys::kInnerSteps, d.innerSteps, kOpt, kInnerSteps);
    if (r.integer(keys::kOuterGradientBits, d.outerGradientBits, kOpt, kOuterGradientBits) &&
        d.outerGradientBits != 4 && d.outerGradientBits != 8 && d.outerGradientBits != 16 &&
        d.outerGradientBits != 32)
        r.error(keys::kOuterGradientBits, "expected " + std::string(kOuterGradientBits.expected) +
                                              ", got " + std::to_string(d.outerGradientBits));
    r.integer(keys::kFragments, d.fragments, kOpt, kFragments);
    r.integer(keys::kOverlapSteps, d.overlapSteps, kOpt, kOverlapSteps);
}

void readParallelism(ObjectReader& r, Parallelism& p)
{
    r.integer(keys::kTp, p.tp, kOpt);
    r.integer(keys::kCp, p.cp, kOpt);
    r.integer(keys::kPp, p.pp, kOpt);
    r.integer(keys::kEp, p.ep, kOpt);
    r.integer(keys::kVirtualStages, p.virtualStages, kOpt);
    r.integer(keys::kMicroBatch, p.microBatch, kOpt);
    r.boolean(keys::kSequenceParallel, p.sequenceParallel);
    r.integer(keys::kZeroStage, p.zeroStage, kOpt, kZeroStage.expected);
    r.boolean(keys::kDistributedOptimizer, p.distributedOptimizer);
    // Both absent in files before they existed: one instance, fp32 (Megatron's defaults).
    r.integer(keys::kDistributedOptimizerInstances, p.distributedOptimizerInstances, kOpt);
    r.enumeration(keys::kGradReduceDtype, p.gradReduceDtype, gradReduceDtypeFromString,
                  "fp32 | bf16");
    r.enumeration(keys::kRecompute, p.recompute, recomputeFromString, "none | selective | full");
    r.object(keys::kOverlap, kOpt, [&](ObjectReader& o) { readOverlap(o, p.overlap); });
    r.object(keys::kKernels, kOpt, [&](ObjectReader& k) { readKernels(k, p.kernels); });
    // Absent in files before loosely coupled training: synchronous.
    r.object(keys::kDatacenterSync, kOpt,
             [&](ObjectReader& d) { readDatacenterSync(d, p.datacenterSync); });
}

void readPlacement(ObjectReader& r, Placement& p)
{
    constexpr std::string_view kDims = "tp | cp | ep | dp | pp";
    DiagnosticSink& sink = r.sink();
    if (r.find(keys::kRankOrder, kOpt, "an array"))
        p.rankOrder.clear();
    r.array(keys::kRankOrder, kOpt, [&](const Json& v, const std::string& ptr) {
        const auto dim = v.is_string() ? parallelDimFromString(v.get<std::string>()) : std::nullopt;
        if (dim)
            p.rankOrder.push_back(*dim);
        else
            sink.error(ptr, "expected one of " + std::string(kDims) + ", got " + describeJson(v));
    });
    r.objects(keys::kShards, kOpt, [&](ObjectReader& o) {
        PlacementShard& shard = p.shards.emplace_back();
        o.integer(keys::kDpReplicas, shard.dpReplicas, kReq);
        o.array(keys::kStageDatacenters, kReq, [&](const Json& v, const std::string& ptr) {
            int id = 0;
            readInt(v, ptr, sink, id, kId.expected);
            shard.stageDatacenters.push_back(id);
        });
        // Optional split of a TP or CP group across datacenters (docs/scenario-format.md).
        o.array(keys::kSplitDatacenters, kOpt, [&](const Json& v, const std::string& ptr) {
            int id = 0;
            readInt(v, ptr, sink, id, kId.expected);
            shard.splitDatacenters.push_back(id);
        });
        o.enumeration(keys::kSplitDim, shard.splitDim, parallelDimFromString, "tp | cp");
    });
    r.array(keys::kLayersPerStage, kOpt, [&](const Json& v, const std::string& ptr) {
        int layers = 0;
        readInt(v, ptr, sink, layers);
        p.layersPerStage.push_back(layers);
    });
}

void readSchedule(ObjectReader& r, Schedule& s)
{
    r.enumeration(keys::kKind, s.kind, scheduleKindFromString,
                  "gpipe | 1f1b | interleaved-1f1b | zb-h1 | zb-h2 | dualpipe");
    r.integer(keys::kExtraInFlightAtDci, s.extraInFlightAtDci, kOpt, kExtraInFlight.expected);
}

} // namespace

void readScenario(ObjectReader& root, Scenario& out)
{
    root.string(keys::kName, out.name, Need::Optional, kMaxNameBytes);
    root.string(keys::kDescription, out.description);
    root.object(keys::kCatalog, kOpt,
                [&](ObjectReader& r) { readCatalog(r, out.catalogOverrides); });
    // Only the name here: parseScenario reads the file it names (io/calibrationio.h).
    std::string calibration;
    if (root.string(keys::kCalibration, calibration, kOpt)) {
        if (calibration.empty()) {
            root.error(keys::kCalibration, "expected the name of a calibration file, got \"\"");
        } else {
            out.calibration.emplace();
            out.calibration->file = calibration;
        }
    }
    root.object(keys::kTopology, kReq, [&](ObjectReader& r) { readTopology(r, out.topology); });
    root.object(keys::kWorkload, kReq, [&](ObjectReader& r) { readWorkload(r, out.workload); });
    root.object(keys::kParallelism, kOpt,
                [&](ObjectReader& r) { readParallelism(r, out.parallelism); });
    root.object(keys::kPlacement, kOpt, [&](ObjectReader& r) { readPlacement(r, out.placement); });
    root.object(keys::kSchedule, kOpt, [&](ObjectReader& r) { readSchedule(r, out.schedule); });
}

} // namespace archipelago::core
