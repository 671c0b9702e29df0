// The Scenario: one design point (ARCHITECTURE.md section 2).
// Plain value types, cheap to copy (a 100,000-GPU cluster is a few dozen objects: the topology
// is hierarchical with multiplicities, never one object per GPU). Derived quantities such as
// GPUs per datacenter or the DP degree are computed by the free functions at the bottom, never
// stored twice.
#pragma once

#include "model/calibration.h"
#include "model/catalog.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace archipelago::core {

using Id = std::int32_t; // stable integer id of a topology object, unique per kind

// ---------------------------------------------------------------- topology

struct Region
{
    Id id = 0;
    std::string name;

    bool operator==(const Region&) const = default;
};

// `count` identical pods, each of `domainsPerPod` scale-up (high-bandwidth) domains of
// `gpusPerDomain` GPUs. GPUs in a pod = domainsPerPod * gpusPerDomain.
struct Pod
{
    Id id = 0;
    std::string name;
    int count = 1;
    int domainsPerPod = 1;
    int gpusPerDomain = 8;

    bool operator==(const Pod&) const = default;
};

enum class FabricKind
{
    Clos,
    RailOptimized,
    RailOnly
};

// The scale-out fabric of one datacenter. `tiers` is 2 (leaf-spine) or 3 (leaf-spine-core,
// i.e. a fat-tree); rail-only has no spine across rails (Wang et al. 2023, "How to build
// low-cost networks for large language models (without sacrificing performance)").
struct Fabric
{
    FabricKind kind = FabricKind::RailOptimized;
    int tiers = 3;
    // Oversubscription (downlink : uplink) at the leaf and at the spine tier; 1 = full bisection.
    double leafOversubscription = 1.0;
    double spineOversubscription = 1.0;
    std::string switchModel; // catalog switch name
    std::string nicModel;    // catalog NIC name; NIC speed comes from it
    int nicsPerGpu = 1;

    bool operator==(const Fabric&) const = default;
};

struct Datacenter
{
    Id id = 0;
    std::string name;
    Id regionId = 0;
    std::string accelerator; // catalog accelerator name
    Fabric fabric;
    std::vector<Pod> pods;
    double x = 0.0, y = 0.0; // canvas position (look only, does not affect cost)
    // The building's checkpoint storage, GB/s of the whole datacenter (evaluation/goodput.cpp:
    // each datacenter writes and reads its GPUs' share of the checkpoint to its own storage);
    // 0 takes the catalog's `reliability` default.
    double storageWriteGBps = 0.0;
    double storageReadGBps = 0.0;
    // The building's site (evaluation/runcost.cpp): its energy price, PUE and colocation rate,
    // which differ between the regions of a plan; 0 takes the catalog's `economics` default.
    double electricityUsdPerKwh = 0.0;
    double pue = 0.0;
    double facilityUsdPerKwMonth = 0.0;

    bool operator==(const Datacenter&) const = default;
};

// What carries the bytes across a DCI link; each bounds the whole link per direction
// (network/dcimodel.h, docs/network.md "Transport across buildings").
enum class DciTransport
{
    RdmaOtn, // RDMA over a lossless optical transport network: window (outstanding bytes) / RTT
    LossyIp, // TCP over a lossy routed network: window / RTT and Padhye et al. 1998 in the loss
    RocePfc  // RoCE with PFC over the long haul: lossless only if headroom covers the xoff need
};

// NCCL's settings for the GPU flows that cross a DCI link; the defaults are NCCL's (NVIDIA/nccl
// 5067397; docs/network.md, "NCCL's connections"). Each GPU flow (one ring edge of a collective,
// one send/recv peer pair) crossing the link opens one connection per channel; a connection
// has NCCL_STEPS = 8 slots of its buffer in flight at most, shared by its queue pairs.
struct NcclSettings
{
    double buffsizeBytes = 4.0 * 1024 * 1024; // NCCL_BUFFSIZE (src/init.cc DEFAULT_BUFFSIZE)
    // Channels of a collective per GPU flow: NCCL's ring search for one GPU and one 400G NIC per
    // node finds one channel and doubles it (src/graph/search.cc ncclTopoDupChannels);
    // NCCL_MIN_NCHANNELS raises it.
    int channels = 2;
    // Send/recv channels per network peer (NCCL_NCHANNELS_PER_NET_PEER; src/graph/paths.cc:
    // one per 14 GB/s of NIC, 4 for 400G, halved to the communicator's 2 p2p channels).
    int p2pChannelsPerPeer = 2;
    double p2pChunkBytes = 128.0 * 1024; // NCCL_P2P_NET_CHUNKSIZE (src/init.cc)
    int qpsPerConnection = 1;            // NCCL_IB_QPS_PER_CONNECTION (net_ib/connect.cc)

    bool operator==(const NcclSettings&) const = default;
};

// A datacenter interconnect: wavelengths x rate on a fibre path of `distanceKm`.
struct DciLink
{
    Id id = 0;
    Id a = 0, b = 0; // datacenter ids
    double distanceKm = 10.0;
    int wavelengths = 16;
    double gbpsPerWavelength = 400.0;
    std::string optic;      // catalog coherent optic, e.g. "400ZR"
    std::string lineSystem; // catalog line system
    DciTransport transport = DciTransport::RdmaOtn;
    double equipmentLatencyS = 20e-6;         // transponders, ROADMs, switches, both ends
    double packetLossRate = 0.0;              // LossyIp and RocePfc (rdma-otn is lossless)
    double windowBytes = 16.0 * 1024 * 1024;  // LossyIp per-socket window
    double headroomBytes = 8.0 * 1024 * 1024; // RocePfc headroom per port and priority
    double mssBytes = 1460.0;                 // LossyIp segment (RFC 879: 1500 MTU - 40)
    NcclSettings nccl;                        // the collective library's connections on the link
    // 1+1 optical protection over a second, diverse fibre route of the same length: a cut
    // switches over in under 50 ms (ITU-T G.873.1), inside NCCL's transport retries, so it
    // does not stop the job (evaluation/goodput.cpp); the bill counts the second route's
    // amplifiers.
    bool opticalProtection = false;

    bool operator==(const DciLink&) const = default;
};

struct Topology
{
    std::vector<Region> regions;
    std::vector<Datacenter> datacenters;
    std::vector<DciLink> links;

    bool operator==(const Topology&) const = default;
};

// ---------------------------------------------------------------- workload

enum class FfnActivation
{
    Gelu,
    Swiglu
};
enum class Precision
{
    Bf16,
    Fp8
};
// How FP8 GEMM inputs are scaled (Megatron-LM --fp8-recipe). Delayed: one scale per tensor
// from an amax history (Transformer Engine's default); the cast to FP8 rides on the kernel
// that produces the tensor (the layer norm, the activation function). Blockwise: one scale per
// 1 x 128 activation tile and per 128 x 128 weight block (DeepSeek-V3 report section 3.3.2),
// computed online; the cast is a pass of its own through HBM (section 3.5.2).
enum class Fp8Recipe
{
    Delayed,
    Blockwise
};

struct MoeConfig
{
    int experts = 0; // 0 = dense model
    int topK = 1;
    int expertFfnHidden = 0;
    int sharedExperts = 0;
    int firstDenseLayers = 0; // leading layers that stay dense (DeepSeek-V3: 3)
    // Node-limited routing (DeepSeek-V3 report section 2.1.2): each token goes to at most this
    // many nodes, and its dispatch and combine run hierarchically, once per node over the
    // scale-out fabric, then forwarded over the scale-up domain (section 3.2.2). 0 = no limit
    // and a flat all-to-all with one copy per token and expert (GShard).
    int maxNodesPerToken = 0;
    // Precision of the dispatched activations (and of the activation gradients sent to the
    // experts in backward); the combine stays BF16 (DeepSeek-V3 report section 3.3.3).
    Precision dispatchPrecision = Precision::Bf16;
    bool enabled() const { return experts > 0; }
    bool nodeLimited() const { return maxNodesPerToken > 0; }

    bool operator==(const MoeConfig&) const = default;
};

// Multi-head latent attention (DeepSeek-AI 2024, DeepSeek-V2 report section 2.1 and DeepSeek-V3
// report section 2.1.1; dimensions as in deepseek-ai/DeepSeek-V3 inference/model.py, class MLA):
// queries through a rank-qLoraRank bottleneck (0 = one direct projection), keys and values
// from one compressed latent of kvLoraRank plus a shared rotary key of qkRopeHeadDim, each head
// with qkNopeHeadDim + qkRopeHeadDim query/key dimensions and vHeadDim value dimensions.
// kvLoraRank 0 = standard multi-head or grouped-query attention (heads, kv_heads, h / heads).
struct MlaConfig
{
    int qLoraRank = 0;
    int kvLoraRank = 0;
    int qkNopeHeadDim = 0;
    int qkRopeHeadDim = 0;
    int vHeadDim = 0;
    bool enabled() const { return kvLoraRank > 0; }
    int qkHeadDim() const { return qkNopeHeadDim + qkRopeHeadDim; }

    bool operator==(const MlaConfig&) const = default;
};

struct Workload
{
    std::string name;
    int layers = 1;
    int hidden = 1;
    int heads = 1;
    int kvHeads = 1; // < heads means grouped-query attention
    int ffnHidden = 1;
    FfnActivation activation = FfnActivation::Gelu;
    int vocab = 1;
    int seqLen = 1;
    MoeConfig moe;
    MlaConfig mla;       // disabled = standard attention
    int globalBatch = 1; // sequences per iteration
    Precision precision = Precision::Bf16;
    Fp8Recipe fp8Recipe = Fp8Recipe::Delayed; // with precision fp8
    // Multi-token prediction (DeepSeek-V3 report section 2.2): D sequential modules after the
    // last layer, each a projection of [norm(h); norm(embedding)] (2h -> h), one transformer
    // layer and the shared output head, on every token. 0 = next-token prediction only.
    int mtpDepth = 0;
    double trainTokens = 1e12; // tokens to train, for time and GPU-hours to train
    // Checkpoints of the run (evaluation/goodput.h): seconds of training between two, 0 for
    // Daly's optimum; asynchronous (training waits only for the copy to host memory, as
    // PyTorch DCP's async_save and Megatron-LM's --async-save) or synchronous (training waits
    // for the write to storage).
    double checkpointIntervalS = 0.0;
    bool checkpointAsynchronous = true;
    // Each building copies its share of every checkpoint to the nearest other building's
    // storage over the DCI, in what the training traffic leaves of each link (a copy that
    // survives the loss of a building's storage); the next checkpoint waits for it.
    bool checkpointRemoteReplica = false;
    // Attention and MLP side by side on one layer norm (GPT-J; Chowdhery et al. 2022, PaLM,
    // section 2): one fused input GEMM and one TP reduction per layer and pass.
    bool parallelBlock = false;
    // Sliding-window attention: each query attends to the previous `attentionWindow` tokens
    // (Beltagy et al. 2020; MegaScale, Jiang et al. 2024, section 3.1); 0 = the whole sequence.
    int attentionWindow = 0;
    // The output layer shares the input embedding's weights (Press and Wolf 2017; GPT-2/3 and
    // Megatron-LM's GPT default, --untie-embeddings-and-output-weights off). With pipeline
    // parallelism the first and last stage each hold a copy and all-reduce its gradient every
    // iteration (Megatron-LM megatron/core/distributed/finalize_model_grads.py,
    // _allreduce_word_embedding_grads).
    bool tiedEmbeddings = false;

    bool operator==(const Workload&) const = default;
};

// ---------------------------------------------------------------- parallelism

enum class Recompute
{
    None,
    Selective,
    Full
};

// The data type gradients are accumulated in and reduced across data-parallel ranks.
// Megatron-LM accumulates and all-reduces a bf16 model's gradients in fp32 unless told
// otherwise (megatron/training/arguments.py: --accumulate-allreduce-grads-in-fp32 is switched
// on for bf16, --grad-reduce-in-bf16 turns it off; Megatron-Core
// DistributedDataParallelConfig.grad_reduce_in_fp32).
enum class GradReduceDtype
{
    Fp32,
    Bf16
};

// Which communication is overlapped with compute; what is not overlapped is exposed.
struct OverlapOptions
{
    bool dpGradReduce = true;  // gradient reduce-scatter/all-reduce under backward
    bool dpParamGather = true; // distributed-optimizer all-gather under next forward
    bool tpComm = false;       // TP collectives overlapped with GEMMs
    bool cpComm = true;        // CP ring exchange overlapped with attention
    bool epComm = false;       // EP all-to-all overlapped with expert compute
    bool ppComm = true;        // PP send/recv asynchronous to compute

    bool operator==(const OverlapOptions&) const = default;
};

// Kernel implementations: what the training stack fuses. Unset flash attention follows the
// accelerator generation (computemodel.h fusedAttention).
struct Kernels
{
    std::optional<bool> flashAttention; // fused causal attention (Dao 2023, FlashAttention-2)
    // LayerNorm fused with the residual add before it and the activation function fused into
    // fc1's epilogue (MegaScale section 3.3); off = Megatron-LM 2021-23's fusions only.
    bool fusedElementwise = false;

    bool operator==(const Kernels&) const = default;
};

// How the datacenters' data-parallel replicas stay in step, where DP crosses a datacenter
// boundary (docs/loose-sync.md). Synchronous: every step's gradients cross the DCI. DiLoCo
// (Douillard et al. 2023, arXiv 2311.08105, Algorithm 1): each datacenter's replicas run
// `innerSteps` (H) steps among themselves, then the datacenters all-reduce the pseudo-gradient
// (the weights' change) and apply an outer Nesterov step; the outer all-reduce blocks. Streaming
// DiLoCo (Douillard et al. 2025, arXiv 2501.18512, sections 2.2-2.3): the model is synchronised
// in `fragments` pieces in turn, each every H steps, and each piece's result is applied
// `overlapSteps` (tau) steps after it is sent, so its transfer runs under that compute.
enum class DatacenterSync
{
    Synchronous,
    DiLoCo,
    StreamingDiLoCo
};

struct DatacenterSyncOptions
{
    DatacenterSync scheme = DatacenterSync::Synchronous;
    int innerSteps = 100; // H; INTELLECT-1's 100 (PrimeIntellect-ai/prime configs/10B)
    // Bits per element of the outer gradient on the DCI: 32, 16 (Charles et al. 2025, bf16),
    // 8 (INTELLECT-1's int8) or 4 (Streaming DiLoCo's E3M0).
    int outerGradientBits = 16;
    // Streaming only: 0 = one fragment per three layers (Streaming DiLoCo section 3.3.1).
    int fragments = 0;
    int overlapSteps = 1; // Streaming only: tau (the paper's main runs use 1)

    bool operator==(const DatacenterSyncOptions&) const = default;
};

struct Parallelism
{
    int tp = 1;
    int cp = 1;
    int pp = 1;
    int ep = 1;            // carved out of DP x CP as in Megatron-LM
    int virtualStages = 1; // interleaved model chunks per pipeline rank
    int microBatch = 1;    // sequences per micro-batch
    bool sequenceParallel = false;
    int zeroStage = 0; // 0..3
    bool distributedOptimizer = false;
    // Copies of the distributed optimizer across the data-parallel group (Megatron-Core
    // DistributedDataParallelConfig.num_distributed_optimizer_instances, Megatron-LM
    // --num-distributed-optimizer-instances, default 1): the group is cut into this many
    // instances of consecutive ranks; gradients are reduce-scattered inside an instance,
    // the shards all-reduced across instances, weights all-gathered inside. With one
    // instance per building only the shards cross the DCI (evaluation/datacost.cpp).
    int distributedOptimizerInstances = 1;
    GradReduceDtype gradReduceDtype = GradReduceDtype::Fp32;
    Recompute recompute = Recompute::None;
    OverlapOptions overlap;
    Kernels kernels;
    DatacenterSyncOptions datacenterSync;

    bool operator==(const Parallelism&) const = default;
};

// ---------------------------------------------------------------- placement

enum class ParallelDim
{
    Tp,
    Cp,
    Ep,
    Dp,
    Pp
};

// One shard of the job: `dpReplicas` data-parallel replicas of the full pipeline whose stage i
// runs in datacenter `stageDatacenters[i]`. PP crosses a datacenter boundary where two
// consecutive entries differ; DP crosses it between shards placed in different datacenters.
// A split shard (k = splitDatacenters.size() >= 2) spreads every stage evenly over those k
// datacenters, each `splitDim` group (Tp or Cp) having degree/k members in each (allowed, with
// a warning); stageDatacenters then only names each stage's home, one of the split
// datacenters, for drawing.
struct PlacementShard
{
    // Constructors rather than an aggregate, so `{replicas, {stages}}` stays warning-free
    // (-Wmissing-field-initializers) without naming the split fields.
    PlacementShard() = default;
    PlacementShard(int replicas, std::vector<Id> stages, std::vector<Id> splitDcs = {},
                   ParallelDim dim = ParallelDim::Tp)
        : dpReplicas(replicas)
        , stageDatacenters(std::move(stages))
        , splitDatacenters(std::move(splitDcs))
        , splitDim(dim)
    {}

    int dpReplicas = 1;
    std::vector<Id> stageDatacenters;       // size pp
    std::vector<Id> splitDatacenters;       // empty = no split
    ParallelDim splitDim = ParallelDim::Tp; // Tp or Cp; used only when split

    bool split() const { return splitDatacenters.size() >= 2; }

    bool operator==(const PlacementShard&) const = default;
};

struct Placement
{
    // Rank order of the parallel dimensions, innermost first (Megatron: tp-cp-ep-dp-pp).
    std::vector<ParallelDim> rankOrder{ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Ep,
                                       ParallelDim::Dp, ParallelDim::Pp};
    // Empty = the whole job in the first datacenter, DP derived from its GPU count.
    std::vector<PlacementShard> shards;
    // Layers per pipeline stage (size pp, summing to the layer count); empty = even split.
    std::vector<int> layersPerStage;

    bool operator==(const Placement&) const = default;
};

// ---------------------------------------------------------------- schedule

enum class ScheduleKind
{
    GPipe,
    OneFOneB,
    Interleaved1F1B,
    ZeroBubbleH1,
    ZeroBubbleH2,
    DualPipe
};

struct Schedule
{
    ScheduleKind kind = ScheduleKind::OneFOneB;
    // Cross-DC-aware variant: extra micro-batches in flight before a slow (DCI) boundary,
    // bounded by HBM. 0 = plain schedule.
    int extraInFlightAtDci = 0;

    bool operator==(const Schedule&) const = default;
};

// ---------------------------------------------------------------- scenario

struct Scenario
{
    std::string name;
    std::string description;
    Catalog catalogOverrides; // entries replacing or extending the built-in catalog
    // Efficiency parameters fitted on the user's measured runs (model/calibration.h), read from
    // the file the scenario names; applied over catalogOverrides.
    std::optional<Calibration> calibration;
    Topology topology;
    Workload workload;
    Parallelism parallelism;
    Placement placement;
    Schedule schedule;

    bool operator==(const Scenario&) const = default;
};

// ---------------------------------------------------------------- derived quantities

std::int64_t gpusInPod(const Pod& pod); // count * domainsPerPod * gpusPerDomain
std::int64_t gpusInDatacenter(const Datacenter& dc);
std::int64_t totalGpus(const Topology& topology);
const Datacenter* findDatacenter(const Topology& topology, Id id);
const DciLink* findLink(const Topology& topology, Id id);
const Region* findRegion(const Topology& topology, Id id);
// Scale-up domain size used for TP placement: the smallest domain in the datacenter.
int scaleUpDomainGpus(const Datacenter& dc);

// Data-parallel degree: sum of shard replicas, or GPUs / (tp*cp*pp) without shards
// (0 when that does not divide).
std::int64_t dataParallel(const Scenario& scenario);
// The shards in effect (one implicit shard in the first datacenter when none are given).
std::vector<PlacementShard> effectiveShards(const Scenario& scenario);
// Layers per pipeline stage in effect (even split when not given; the first stages take the
// remainder).
std::vector<int> effectiveLayersPerStage(const Scenario& scenario);
// GPUs the placement puts in each datacenter, in topology order.
std::vector<std::int64_t> placedGpusPerDatacenter(const Scenario& scenario);
// Whether some pipeline stage has data-parallel replicas in more than one datacenter (then the
// datacenter sync scheme applies).
bool dataParallelCrossesDatacenters(const Scenario& scenario);
// Distributed-optimizer instances in effect: the scenario's count with the distributed optimizer
// (ZeRO stage at most 1), else 1 (the checks refuse the other combinations).
int optimizerInstances(const Parallelism& parallelism);
// Micro-batches per iteration per pipeline: globalBatch / (microBatch * dp).
std::int64_t microBatchesPerIteration(const Scenario& scenario);
// Next free id for a kind of object.
Id nextDatacenterId(const Topology& topology);
Id nextLinkId(const Topology& topology);
Id nextRegionId(const Topology& topology);
Id nextPodId(const Topology& topology);

// Enum names as they appear in the JSON format.
const char* toString(FabricKind v);
const char* toString(DciTransport v);
const char* toString(FfnActivation v);
const char* toString(Precision v);
const char* toString(Fp8Recipe v);
const char* toString(Recompute v);
const char* toString(GradReduceDtype v);
const char* toString(DatacenterSync v);
const char* toString(ParallelDim v);
const char* toString(ScheduleKind v);
std::optional<FabricKind> fabricKindFromString(const std::string& s);
std::optional<DciTransport> dciTransportFromString(const std::string& s);
std::optional<FfnActivation> ffnActivationFromString(const std::string& s);
std::optional<Precision> precisionFromString(const std::string& s);
std::optional<Fp8Recipe> fp8RecipeFromString(const std::string& s);
std::optional<Recompute> recomputeFromString(const std::string& s);
std::optional<GradReduceDtype> gradReduceDtypeFromString(const std::string& s);
std::optional<DatacenterSync> datacenterSyncFromString(const std::string& s);
std::optional<ParallelDim> parallelDimFromString(const std::string& s);
std::optional<ScheduleKind> scheduleKindFromString(const std::string& s);

} // namespace archipelago::core
