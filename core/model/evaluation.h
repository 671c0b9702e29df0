// What the cost model returns for a scenario (ARCHITECTURE.md sections 2 and 3).
#pragma once

#include "model/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace archipelago::core {

// Seconds per iteration, per part. Compute parts are per pipeline rank on the critical path;
// communication parts are what stays exposed (not hidden under compute).
struct Breakdown
{
    double forwardS = 0.0;
    double backwardS = 0.0;
    double recomputeS = 0.0;
    double tpCommS = 0.0;
    double cpCommS = 0.0;
    double epCommS = 0.0;
    double ppCommS = 0.0;
    double dpCommS = 0.0;
    double optimizerS = 0.0;
    double bubbleS = 0.0;
    double interferenceS = 0.0; // slowdown of compute by overlapped communication
    // Waiting for the slowest of the job's GPUs: a synchronous step runs at the pace of its
    // slowest participant (evaluation/iterationoverhead.h).
    double variabilityS = 0.0;
    // Fixed per-iteration work outside the pipeline and the optimizer step: the tied
    // embedding's gradient all-reduce between the first and last stage, the gradient-norm
    // all-reduce for clipping (evaluation/iterationoverhead.h).
    double overheadS = 0.0;

    bool operator==(const Breakdown&) const = default;
};

struct MemoryBreakdown
{
    double weightsGib = 0.0;
    double gradientsGib = 0.0;
    double optimizerGib = 0.0;
    double activationsGib = 0.0;
    double otherGib = 0.0;        // buffers, fragmentation reserve, CUDA context
    int inFlightMicroBatches = 0; // on the worst stage
    int worstStage = 0;

    double totalGib() const
    {
        return weightsGib + gradientsGib + optimizerGib + activationsGib + otherGib;
    }
    bool operator==(const MemoryBreakdown&) const = default;
};

enum class LinkClass
{
    ScaleUp,
    Leaf,
    Spine,
    Core,
    Dci
};
const char* toString(LinkClass c);

// Traffic per iteration on a class of links, or on one DCI link (dciLinkId >= 0).
struct LinkTraffic
{
    LinkClass linkClass = LinkClass::ScaleUp;
    Id dciLinkId = -1;
    double bytesPerIteration = 0.0; // summed over all links of the class
    double busyS = 0.0;             // time the busiest link of the class carries traffic
    double utilisation = 0.0;       // busyS / iteration time
    // DCI links only: bytes and busy time (bytes / capacity) per direction, from the link's
    // end a to b and back; busyS is the busier direction's.
    double bytesAToB = 0.0;
    double bytesBToA = 0.0;
    double busyAToBS = 0.0;
    double busyBToAS = 0.0;

    bool operator==(const LinkTraffic&) const = default;
};

// One line of the bill of materials.
struct BomItem
{
    std::string item;     // catalog name
    std::string category; // "switch", "nic", "optic", "cable", "dci-optic", "amplifier", ...
    std::string scope;    // "dc-west", "dci dc-west<->dc-east", ...
    std::int64_t count = 0;
    double unitPriceUsd = 0.0;
    double unitWatts = 0.0;
    std::string detail; // tier and reach, e.g. "leaf", "leaf-spine, 150 m"
    double capexUsd() const { return static_cast<double>(count) * unitPriceUsd; }
    double powerW() const { return static_cast<double>(count) * unitWatts; }

    bool operator==(const BomItem&) const = default;
};

// One block of the pipeline timeline (for the GUI and reports).
enum class BlockKind
{
    Forward,
    Backward,
    WeightGrad,
    Send
};
struct TimelineBlock
{
    int stage = 0; // pipeline rank
    int chunk = 0; // virtual stage on that rank
    int microBatch = 0;
    BlockKind kind = BlockKind::Forward;
    double startS = 0.0;
    double endS = 0.0;
    bool crossesDci = false; // Send blocks only

    bool operator==(const TimelineBlock&) const = default;
};

// What a warning is about. Code matches on the enum; the key (toString) is the stable name
// that files, the CLI and the window's tooltips show.
enum class WarningCode : std::uint8_t
{
    Invalid,              // "invalid"
    UnknownAccelerator,   // "unknown-accelerator"
    DegreesDoNotDivide,   // "degrees-do-not-divide"
    Pipeline,             // "pipeline"
    VirtualStagesIgnored, // "virtual-stages-ignored"
    InterleavingFallback, // "interleaving-fallback"
    PlacementInvalid,     // "placement-invalid"
    CatalogMissing,       // "catalog-missing"
    FabricOverCapacity,   // "fabric-over-capacity"
    TpExceedsScaleUp,     // "tp-exceeds-scale-up"
    TpCrossesDc,          // "tp-crosses-dc"
    CpCrossesDc,          // "cp-crosses-dc"
    EpCrossesDc,          // "ep-crosses-dc"
    PpCrossesDc,          // "pp-crosses-dc"
    DciUnreachable,       // "dci-unreachable"
    DciShared,            // "dci-shared"
    DciTransportBound,    // "dci-transport-bound"
    DciReach,             // "dci-reach"
    RailOnlyForwarding,   // "rail-only-forwarding"
    DciExposed,           // "dci-exposed"
    OutOfMemory,          // "oom"
    Bubble,               // "bubble"
    DpExposed,            // "dp-exposed"
    TpExposed,            // "tp-exposed"
    InternalError,        // "internal-error": the cost model threw (a bug, reported, never a crash)
    NonFinite,            // "non-finite": a result is infinite, NaN or beyond an integer's range
    SpareGpus,            // "spare-gpus": the placement leaves GPUs of a datacenter idle
    ParallelDciLinks,     // "parallel-dci-links": links joining the same two datacenters, one used
    CheckpointInterval,   // "checkpoint-interval": the asked interval is shorter than possible
    MemoryHeadroom,       // "memory-headroom": fits only if the allocator fragments little
    CheckpointReplica,    // "checkpoint-replica": the asked copy in another building cannot be made
};
std::string_view toString(WarningCode code);
std::optional<WarningCode> warningCodeFromString(std::string_view key);

// One named figure of a warning: a number (its key names the unit: "_s", "_ms", "_gib",
// "_km", "_gbps", "_pct"), an integer (a count, a degree, an id) or a name. Keys are literals.
struct WarningValue
{
    std::string_view key;
    std::variant<double, std::int64_t, std::string> value;

    bool operator==(const WarningValue&) const = default;
};

// Which of a code's texts a warning takes (model/warningtext.cpp); most codes have one.
enum class WarningForm : std::uint8_t
{
    Default,
    Detail,            // the text is the "detail" value: a shape diagnostic, an error's text
    GpuOverflow,       // invalid: tp * cp * pp * dp past 2^63
    ScaleOutFabric,    // tp-exceeds-scale-up, from the scenario (no placement analysed)
    Accelerator,       // catalog-missing
    Nic,               // catalog-missing
    Switch,            // catalog-missing
    NoSwitch,          // catalog-missing
    UnpricedLink,      // catalog-missing
    DciOptic,          // catalog-missing, dci-reach
    LineSystem,        // catalog-missing, dci-reach
    NoDatacenter,      // placement-invalid
    ShardStages,       // placement-invalid
    UnknownDatacenter, // placement-invalid
    InvalidSplit,      // placement-invalid
    NoReplica,         // placement-invalid
    OpticCount,        // non-finite
    AmplifierCount,    // non-finite
};

// A warning is its code and its figures; the text is made only where it is shown
// (warningText). Build one as Warning{code, form}.num("bubble_s", x).count("pp", p).
struct Warning
{
    WarningCode code = WarningCode::Invalid;
    WarningForm form = WarningForm::Default;
    std::vector<WarningValue> data;

    Warning() = default;
    explicit Warning(WarningCode c, WarningForm f = WarningForm::Default)
        : code(c)
        , form(f)
    {}

    Warning&& num(std::string_view key, double value) &&;
    Warning&& count(std::string_view key, std::int64_t value) &&;
    Warning&& name(std::string_view key, std::string value) &&;

    const WarningValue* find(std::string_view key) const;
    double number(std::string_view key) const;         // 0 when absent or not a number
    std::int64_t integer(std::string_view key) const;  // 0 when absent or not an integer
    std::string_view text(std::string_view key) const; // "" when absent or not a name

    bool operator==(const Warning&) const = default;
};

// The text of a warning, from its code's template (model/warningtext.cpp): what the CLI, the
// JSON, the window and the reports show.
std::string warningText(const Warning& warning);

// The run, not the iteration (evaluation/goodput.h): interruptions, checkpoints and restarts
// around the iteration time.
// How the datacenters stay in step (model/scenario.h DatacenterSyncOptions), as evaluated.
struct DatacenterSyncResult
{
    // The scheme in effect: synchronous also when the scenario asks for DiLoCo but its
    // data-parallel group stays in one datacenter.
    DatacenterSync scheme = DatacenterSync::Synchronous;
    int replicas = 1;   // M, the datacenters' replicas
    int innerSteps = 1; // H
    int fragments = 1;
    double outerBytesPerGpu = 0.0;  // one GPU's share of the outer all-reduce, every H steps
    double outerStepS = 0.0;        // the whole outer all-reduce over the DCI
    double outerExposedS = 0.0;     // what the outer steps add to each step, on average
    double lossRatio = 1.0;         // DiLoCo's loss over synchronous training's, equal tokens
    double computeMultiplier = 1.0; // steps to reach synchronous training's loss, over its own
};

struct Goodput
{
    double interruptionsPerDay = 0.0; // unexpected, that stop the job or a building of it
    // The same by failure domain (model/reliability.h): GPUs and hosts; the fabric (ports,
    // leaves, a spine or core that is its tier's only path); the DCI (fibre cuts and
    // wavelengths that leave a hop without a path); buildings. They sum to interruptionsPerDay.
    double serverInterruptionsPerDay = 0.0;
    double fabricInterruptionsPerDay = 0.0;
    double dciInterruptionsPerDay = 0.0;
    double buildingInterruptionsPerDay = 0.0;
    // Failures that slow the job without stopping it (a spine among many, a wavelength of
    // several), and those that neither stop nor slow it (a protected fibre's cut; DCI events
    // under DiLoCo).
    double degradationsPerDay = 0.0;
    double absorbedPerDay = 0.0;
    double mtbfS = 0.0; // mean time between interruptions (infinite without any)
    // The share of the job one interruption stops: 1 when the datacenters step together; with
    // DiLoCo the largest datacenter's, whose replicas alone wait for the restart.
    double stalledShare = 1.0;
    double checkpointBytes = 0.0;     // weights and optimizer state of the whole model
    double checkpointBlockingS = 0.0; // training stops this long for each checkpoint
    double checkpointWriteS = 0.0;    // the slowest datacenter's write to its storage
    double checkpointIntervalS = 0.0; // compute between checkpoints (infinite without failures)
    // A copy of each checkpoint in another building (Workload::checkpointRemoteReplica): the
    // bytes that cross the DCI per checkpoint and the time the slowest link takes for them in
    // what training leaves of it (infinite when a link has nothing left or no building is
    // reachable).
    double replicaBytes = 0.0;
    double replicaS = 0.0;
    // Relaunch, communicators and reading the checkpoint, and the wait for a repair where
    // nothing stands in (a fibre, a building): the mean over the interruptions, by their rates.
    double restartS = 0.0;
    double ettr = 1.0; // effective training time ratio: useful / wall time
    double effectiveTimeToTrainS = 0.0;
    double effectiveGpuHours = 0.0;
    // The wall time split by what it does; the six sum to effectiveTimeToTrainS.
    double usefulS = 0.0;
    // The extra steps loosely coupled training needs to reach synchronous training's loss.
    double convergenceS = 0.0;
    // Running slower while a degrading failure is repaired (an upper bound: as if the
    // degraded tier's busiest link were never hidden behind compute).
    double degradedS = 0.0;
    double checkpointS = 0.0;
    double restartTotalS = 0.0;
    double lostWorkS = 0.0;
};

// What the run costs (evaluation/runcost.h, model/economics.h): the cluster's cost per hour
// while the run holds it, times the run's wall time. Zero throughout when the catalog has no
// economics assumptions (`priced` false).
struct RunCost
{
    bool priced = false;
    bool rented = false;              // a rental rate per GPU-hour, not the owned cluster
    double capexUsd = 0.0;            // GPUs, their servers and the network
    double itPowerW = 0.0;            // servers at full load and the network
    double ownershipUsdPerHour = 0.0; // the capex over its service life
    double facilityUsdPerHour = 0.0;  // colocation per kW of IT load
    double energyUsdPerHour = 0.0;    // IT power x PUE x the electricity price
    double usdPerHour = 0.0;          // the three, or the rental rate x GPUs
    double usdPerGpuHour = 0.0;
    double runCostUsd = 0.0;          // over the failure-free time to train
    double effectiveRunCostUsd = 0.0; // over the effective time to train (Goodput)
};

struct Evaluation
{
    bool ok = false; // false: the scenario could not be evaluated (see warnings)
    double iterationTimeS = 0.0;
    Breakdown breakdown;
    double bubbleRatio = 0.0;     // idle / makespan, averaged over stages
    double idleOverCompute = 0.0; // Megatron's (p-1)/m for 1F1B
    double mfu = 0.0;
    double hfu = 0.0;
    double tokensPerS = 0.0;
    double modelFlopsPerIteration = 0.0;
    double hardwareFlopsPerIteration = 0.0;
    MemoryBreakdown memory; // worst stage
    double memoryPeakGib = 0.0;
    bool fitsInMemory = true;
    double hbmGib = 0.0;
    std::vector<LinkTraffic> traffic;
    std::vector<BomItem> bom;
    double networkCapexUsd = 0.0;
    double networkPowerW = 0.0;
    double timeToTrainS = 0.0;
    double gpuHoursToTrain = 0.0;
    DatacenterSyncResult datacenterSync;
    Goodput goodput;
    RunCost runCost; // needs the bill of materials (EvaluateOptions::billOfMaterials)
    std::int64_t gpus = 0;
    std::vector<TimelineBlock> timeline; // one representative pipeline
    std::vector<Warning> warnings;
    std::vector<std::string> assumptions; // choices the model made (e.g. micro-batch chosen)
    // The scenario's calibration when it applies to an accelerator the job uses.
    std::optional<Calibration> calibration;
};

} // namespace archipelago::core
