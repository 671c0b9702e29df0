// Scenario -> JSON. Every field is written (except groups equal to their defaults that the
// format marks optional), in the order of docs/scenario-format.md, so that a saved file reads
// back to exactly the same Scenario and diffs between saves stay small.
#include "io/scenariojson.h"

namespace archipelago::core {

namespace keys = scenariokeys;

namespace {

Json toJson(const Fabric& f)
{
    Json j;
    j[keys::kKind] = toString(f.kind);
    j[keys::kTiers] = f.tiers;
    j[keys::kLeafOversubscription] = f.leafOversubscription;
    j[keys::kSpineOversubscription] = f.spineOversubscription;
    j[keys::kSwitch] = f.switchModel;
    j[keys::kNic] = f.nicModel;
    j[keys::kNicsPerGpu] = f.nicsPerGpu;
    return j;
}

Json toJson(const Pod& pod)
{
    Json j;
    j[keys::kId] = pod.id;
    j[keys::kName] = pod.name;
    j[keys::kCount] = pod.count;
    j[keys::kDomainsPerPod] = pod.domainsPerPod;
    j[keys::kGpusPerDomain] = pod.gpusPerDomain;
    return j;
}

Json toJson(const Datacenter& dc)
{
    Json j;
    j[keys::kId] = dc.id;
    j[keys::kName] = dc.name;
    j[keys::kRegion] = dc.regionId;
    j[keys::kAccelerator] = dc.accelerator;
    j[keys::kPosition] = Json::array({dc.x, dc.y});
    j[keys::kFabric] = toJson(dc.fabric);
    j[keys::kPods] = Json::array();
    for (const Pod& pod : dc.pods)
        j[keys::kPods].push_back(toJson(pod));
    if (dc.storageWriteGBps > 0.0)
        j[keys::kStorageWriteGBps] = dc.storageWriteGBps;
    if (dc.storageReadGBps > 0.0)
        j[keys::kStorageReadGBps] = dc.storageReadGBps;
    if (dc.electricityUsdPerKwh > 0.0)
        j[keys::kElectricityUsdPerKwh] = dc.electricityUsdPerKwh;
    if (dc.pue > 0.0)
        j[keys::kPue] = dc.pue;
    if (dc.facilityUsdPerKwMonth > 0.0)
        j[keys::kFacilityUsdPerKwMonth] = dc.facilityUsdPerKwMonth;
    return j;
}

Json toJson(const DciLink& link)
{
    Json j;
    j[keys::kId] = link.id;
    j[keys::kA] = link.a;
    j[keys::kB] = link.b;
    j[keys::kDistanceKm] = link.distanceKm;
    j[keys::kWavelengths] = link.wavelengths;
    j[keys::kGbpsPerWavelength] = link.gbpsPerWavelength;
    j[keys::kOptic] = link.optic;
    j[keys::kLineSystem] = link.lineSystem;
    j[keys::kTransport] = toString(link.transport);
    j[keys::kEquipmentLatencyS] = link.equipmentLatencyS;
    j[keys::kPacketLossRate] = link.packetLossRate;
    j[keys::kWindowBytes] = link.windowBytes;
    j[keys::kHeadroomBytes] = link.headroomBytes;
    j[keys::kMssBytes] = link.mssBytes;
    j[keys::kNccl] = Json{{keys::kBuffsizeBytes, link.nccl.buffsizeBytes},
                          {keys::kChannels, link.nccl.channels},
                          {keys::kP2pChannelsPerPeer, link.nccl.p2pChannelsPerPeer},
                          {keys::kP2pChunkBytes, link.nccl.p2pChunkBytes},
                          {keys::kQpsPerConnection, link.nccl.qpsPerConnection}};
    if (link.opticalProtection) // older files stay as they were
        j[keys::kOpticalProtection] = true;
    return j;
}

Json toJson(const Topology& t)
{
    Json j;
    j[keys::kRegions] = Json::array();
    for (const Region& region : t.regions)
        j[keys::kRegions].push_back(Json{{keys::kId, region.id}, {keys::kName, region.name}});
    j[keys::kDatacenters] = Json::array();
    for (const Datacenter& dc : t.datacenters)
        j[keys::kDatacenters].push_back(toJson(dc));
    j[keys::kDciLinks] = Json::array();
    for (const DciLink& link : t.links)
        j[keys::kDciLinks].push_back(toJson(link));
    return j;
}

Json toJson(const Workload& w)
{
    Json j;
    j[keys::kName] = w.name;
    j[keys::kLayers] = w.layers;
    j[keys::kHidden] = w.hidden;
    j[keys::kHeads] = w.heads;
    j[keys::kKvHeads] = w.kvHeads;
    j[keys::kFfnHidden] = w.ffnHidden;
    j[keys::kFfnActivation] = toString(w.activation);
    j[keys::kVocab] = w.vocab;
    j[keys::kSeqLen] = w.seqLen;
    // Absent means a dense model; written whenever it differs from the default so that the
    // round trip stays exact.
    if (w.moe != MoeConfig{}) {
        j[keys::kMoe] = Json{{keys::kExperts, w.moe.experts},
                             {keys::kTopK, w.moe.topK},
                             {keys::kExpertFfnHidden, w.moe.expertFfnHidden},
                             {keys::kSharedExperts, w.moe.sharedExperts},
                             {keys::kFirstDenseLayers, w.moe.firstDenseLayers}};
        // Routing switches, written when set (absent = a flat BF16 all-to-all).
        if (w.moe.maxNodesPerToken != 0)
            j[keys::kMoe][keys::kMaxNodesPerToken] = w.moe.maxNodesPerToken;
        if (w.moe.dispatchPrecision != Precision::Bf16)
            j[keys::kMoe][keys::kDispatchPrecision] = toString(w.moe.dispatchPrecision);
    }
    // Absent means standard attention; the whole block when any field differs, so that the
    // round trip stays exact.
    if (w.mla != MlaConfig{}) {
        j[keys::kAttention] = Json{{keys::kKind, "mla"},
                                   {keys::kQLoraRank, w.mla.qLoraRank},
                                   {keys::kKvLoraRank, w.mla.kvLoraRank},
                                   {keys::kQkNopeHeadDim, w.mla.qkNopeHeadDim},
                                   {keys::kQkRopeHeadDim, w.mla.qkRopeHeadDim},
                                   {keys::kVHeadDim, w.mla.vHeadDim}};
    }
    j[keys::kGlobalBatch] = w.globalBatch;
    j[keys::kPrecision] = toString(w.precision);
    if (w.fp8Recipe != Fp8Recipe::Delayed)
        j[keys::kFp8Recipe] = toString(w.fp8Recipe);
    if (w.mtpDepth > 0)
        j[keys::kMtpDepth] = w.mtpDepth;
    j[keys::kTrainTokens] = w.trainTokens;
    // Optional architecture switches, written when set (absent = today's default).
    if (w.parallelBlock)
        j[keys::kParallelBlock] = true;
    if (w.attentionWindow != 0)
        j[keys::kAttentionWindow] = w.attentionWindow;
    if (w.tiedEmbeddings)
        j[keys::kTiedEmbeddings] = true;
    if (w.checkpointIntervalS != 0.0)
        j[keys::kCheckpointIntervalS] = w.checkpointIntervalS;
    if (!w.checkpointAsynchronous)
        j[keys::kCheckpointAsynchronous] = false;
    if (w.checkpointRemoteReplica)
        j[keys::kCheckpointRemoteReplica] = true;
    return j;
}

Json toJson(const Parallelism& p)
{
    Json j;
    j[keys::kTp] = p.tp;
    j[keys::kCp] = p.cp;
    j[keys::kPp] = p.pp;
    j[keys::kEp] = p.ep;
    j[keys::kVirtualStages] = p.virtualStages;
    j[keys::kMicroBatch] = p.microBatch;
    j[keys::kSequenceParallel] = p.sequenceParallel;
    j[keys::kZeroStage] = p.zeroStage;
    j[keys::kDistributedOptimizer] = p.distributedOptimizer;
    // Written when set (absent = one instance, fp32: Megatron's defaults).
    if (p.distributedOptimizerInstances != 1)
        j[keys::kDistributedOptimizerInstances] = p.distributedOptimizerInstances;
    if (p.gradReduceDtype != GradReduceDtype::Fp32)
        j[keys::kGradReduceDtype] = toString(p.gradReduceDtype);
    j[keys::kRecompute] = toString(p.recompute);
    const OverlapOptions& o = p.overlap;
    j[keys::kOverlap] = Json{{keys::kDpGradReduce, o.dpGradReduce},
                             {keys::kDpParamGather, o.dpParamGather},
                             {keys::kTpComm, o.tpComm},
                             {keys::kCpComm, o.cpComm},
                             {keys::kEpComm, o.epComm},
                             {keys::kPpComm, o.ppComm}};
    // Absent kernels = the accelerator generation's defaults; written when set.
    if (p.kernels != Kernels{}) {
        Json k;
        if (p.kernels.flashAttention)
            k[keys::kFlashAttention] = *p.kernels.flashAttention;
        k[keys::kFusedElementwise] = p.kernels.fusedElementwise;
        j[keys::kKernels] = k;
    }
    // Written when not synchronous (absent = synchronous, as before it existed).
    if (p.datacenterSync != DatacenterSyncOptions{}) {
        const DatacenterSyncOptions& d = p.datacenterSync;
        j[keys::kDatacenterSync] = Json{{keys::kScheme, toString(d.scheme)},
                                        {keys::kInnerSteps, d.innerSteps},
                                        {keys::kOuterGradientBits, d.outerGradientBits},
                                        {keys::kFragments, d.fragments},
                                        {keys::kOverlapSteps, d.overlapSteps}};
    }
    return j;
}

Json toJson(const Placement& p)
{
    Json j;
    j[keys::kRankOrder] = Json::array();
    for (ParallelDim dim : p.rankOrder)
        j[keys::kRankOrder].push_back(toString(dim));
    if (!p.shards.empty()) {
        j[keys::kShards] = Json::array();
        for (const PlacementShard& shard : p.shards) {
            Json js{{keys::kDpReplicas, shard.dpReplicas},
                    {keys::kStageDatacenters, shard.stageDatacenters}};
            // Written only when set, so files without a split stay byte-identical.
            if (!shard.splitDatacenters.empty())
                js[keys::kSplitDatacenters] = shard.splitDatacenters;
            if (!shard.splitDatacenters.empty() || shard.splitDim != ParallelDim::Tp)
                js[keys::kSplitDim] = toString(shard.splitDim);
            j[keys::kShards].push_back(std::move(js));
        }
    }
    if (!p.layersPerStage.empty())
        j[keys::kLayersPerStage] = p.layersPerStage;
    return j;
}

} // namespace

Json scenarioToJson(const Scenario& s)
{
    Json j;
    j[keys::kFormat] = kScenarioFormat;
    // Version 3 only says that the file names a calibration, which version 2 readers would
    // drop with an "unknown key" warning and evaluate without; other files stay readable there.
    j[keys::kVersion] = s.calibration ? kScenarioVersionWithCalibration : kScenarioVersion;
    j[keys::kName] = s.name;
    j[keys::kDescription] = s.description;
    if (!s.catalogOverrides.empty())
        j[keys::kCatalog] = catalogToJson(s.catalogOverrides);
    if (s.calibration)
        j[keys::kCalibration] = s.calibration->file;
    j[keys::kTopology] = toJson(s.topology);
    j[keys::kWorkload] = toJson(s.workload);
    j[keys::kParallelism] = toJson(s.parallelism);
    j[keys::kPlacement] = toJson(s.placement);
    j[keys::kSchedule] = Json{{keys::kKind, toString(s.schedule.kind)},
                              {keys::kExtraInFlightAtDci, s.schedule.extraInFlightAtDci}};
    return j;
}

std::string serializeScenario(const Scenario& scenario)
{
    // Shortest round-trip representation of doubles is nlohmann's default (Grisu2), so no
    // precision is lost; invalid UTF-8 in a name is replaced rather than thrown on.
    const Json j = scenarioToJson(scenario);
    return j.dump(2, ' ', false, Json::error_handler_t::replace) + '\n';
}

} // namespace archipelago::core
