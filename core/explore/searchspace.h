// The design space around a base scenario (docs/explore.md): the values each searched
// dimension may take, and the optional constraints. A point of the space is one value per
// dimension (explore/designpoint.h). Beside the parallelism and the schedule, a point chooses
// how its placement crosses the datacenters (boundary, stage split, rank order, DP degree) and
// the network technology (DCI transport and wavelengths per link, fabric kind per datacenter):
// a topology variant.
#pragma once

#include "explore/elementchoice.h"
#include "model/scenario.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

// Which dimension crosses each datacenter boundary (model/placementpresets.h).
enum class PlacementBoundary
{
    Base, // the base's placement re-made for the shape by io/placementrepair.h (no preset)
    Pp,   // pipeline stages split over the datacenters (ppAcrossDatacenters)
    Dp    // whole replicas per datacenter (dpAcrossDatacenters)
};
const char* toString(PlacementBoundary boundary); // "base", "pp", "dp"
std::optional<PlacementBoundary> placementBoundaryFromString(const std::string& text);

// Innermost first, as Placement::rankOrder.
using RankOrder = std::array<ParallelDim, 5>;
// Megatron-LM's default order, "tp-cp-ep-dp-pp" (megatron/core/parallel_state.py, order).
inline constexpr RankOrder kMegatronRankOrder{ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Ep,
                                              ParallelDim::Dp, ParallelDim::Pp};
std::string rankOrderToString(const RankOrder& order); // "tp-cp-ep-dp-pp"
// Each of tp, cp, ep, dp, pp once, joined by '-'.
std::optional<RankOrder> rankOrderFromString(const std::string& text);

// A value of the fabric dimension: one kind for every datacenter (nullopt: each keeps its own),
// or, when `perDatacenter` is non-empty, one per datacenter in topology order (nullopt: that
// datacenter keeps its own), e.g. rail-only in a new building beside the old one's Clos.
struct FabricChoice
{
    std::optional<FabricKind> all;
    std::vector<std::optional<FabricKind>> perDatacenter;

    // Implicit from the one-kind forms, so that `{std::nullopt, FabricKind::Clos}` lists them.
    FabricChoice() = default;
    FabricChoice(std::nullopt_t) {}
    FabricChoice(FabricKind kind)
        : all(kind)
    {}
    FabricChoice(std::optional<FabricKind> kind)
        : all(kind)
    {}
    explicit FabricChoice(std::vector<std::optional<FabricKind>> kinds)
        : perDatacenter(std::move(kinds))
    {}
    bool isUniform() const { return perDatacenter.empty(); }
    // Datacenter i's kind (nullopt: its own).
    std::optional<FabricKind> of(std::size_t i) const
    {
        return perDatacenter.empty() ? all
                                     : (i < perDatacenter.size() ? perDatacenter[i] : std::nullopt);
    }
    // Every datacenter keeps its own.
    bool isBase() const
    {
        return perDatacenter.empty() ? !all
                                     : std::none_of(perDatacenter.begin(), perDatacenter.end(),
                                                    [](const auto& k) { return k.has_value(); });
    }
    bool operator==(const FabricChoice&) const = default;
};

// A value of the stage split dimension (with PP across the datacenters), relative to the
// proportional split: `offset` moves every boundary (the first datacenter takes that many more
// stages, the last that many fewer), or, when `perBoundary` is non-empty, entry i moves the
// boundary between datacenters i and i + 1 (datacenter j takes perBoundary[j] -
// perBoundary[j - 1] more stages).
struct StageSplit
{
    int offset = 0;
    std::vector<int> perBoundary;

    // Implicit from the one-offset form, so that `{0, -1, 1}` lists them.
    StageSplit() = default;
    StageSplit(int every)
        : offset(every)
    {}
    explicit StageSplit(std::vector<int> offsets)
        : perBoundary(std::move(offsets))
    {}
    bool isUniform() const { return perBoundary.empty(); }
    // The proportional split itself.
    bool isZero() const
    {
        return offset == 0 &&
               std::all_of(perBoundary.begin(), perBoundary.end(), [](int o) { return o == 0; });
    }
    bool operator==(const StageSplit&) const = default;
};

// The global batch of a point: the multiple of micro_batch * dp nearest the base's inside
// [minSequences, maxSequences] (docs/explore.md). min == max == the base's: the batch fixed.
struct GlobalBatchRange
{
    int minSequences = 1;
    int maxSequences = 1;

    bool operator==(const GlobalBatchRange&) const = default;
};

struct SearchSpace
{
    // The topology variant (slowest in the odometer): one value for every DCI link or one per
    // link (in topology order), one fabric kind for every datacenter or one per datacenter;
    // nullopt keeps the link's or datacenter's own value.
    std::vector<ElementChoice<DciTransport>> dciTransports;
    std::vector<ElementChoice<int>> wavelengths;
    std::vector<FabricChoice> fabrics;
    // NCCL channels per GPU flow on every DCI link (collective channels and send/recv channels
    // per peer alike); 0: each link's own. {0} unless a space asks, also for hand-made spaces.
    std::vector<int> ncclChannels{0};
    // The placement.
    std::vector<int> tp;
    std::vector<int> cp;
    std::vector<int> pp;
    std::vector<int> ep;
    std::vector<PlacementBoundary> boundaries;
    // With PP across: how far the boundaries move from the proportional split.
    std::vector<StageSplit> stageSplits;
    std::vector<RankOrder> rankOrders;
    std::vector<int> dataParallel; // 0: the largest DP that fits ("max")
    // The rest.
    std::vector<bool> sequenceParallel;
    std::vector<int> virtualStages;
    std::vector<int> microBatch;
    std::vector<ScheduleKind> schedules;
    std::vector<int> extraInFlightAtDci; // the cross-DC-aware variant's extra warm-up forwards
    std::vector<Recompute> recompute;
    std::vector<int> zeroStage;
    std::vector<bool> distributedOptimizer;
    std::vector<GradReduceDtype> gradReduceDtype;
    // The run: how the datacenters stay in step where DP crosses them (Parallelism::
    // datacenterSync: the scheme and H; the base's other options kept) and the seconds of
    // training between checkpoints (Workload::checkpointIntervalS, 0: Daly's optimum); nullopt
    // keeps the base's. {nullopt} unless a space asks, also for hand-made spaces: a loosely
    // coupled point's iteration time leaves out the extra steps it needs, which only the
    // effective time to train counts (docs/explore.md).
    std::vector<std::optional<DatacenterSync>> datacenterSync{std::nullopt};
    std::vector<std::optional<int>> innerSteps{std::nullopt};
    std::vector<std::optional<double>> checkpointIntervalS{std::nullopt};
    // Constraints beyond HBM fit (always on).
    std::optional<double> networkCapexBudgetUsd;
    std::optional<double> networkPowerBudgetW;
    std::optional<double> dciCapacityGbpsMin; // every DCI link carries at least this
    std::optional<double> maxDciUtilisation;  // busy time / iteration time of any DCI link
    // GPUs a point may place per datacenter: empty none, one value every datacenter, else one
    // per datacenter in topology order.
    std::vector<std::int64_t> maxGpusPerDatacenter;
    GlobalBatchRange globalBatch;
};

// Values per dimension at most, points in a space at most, and placements (the product of
// the placement dimensions, each made once) at most: bounds for a hostile file.
inline constexpr std::size_t kMaxValuesPerDimension = 64;
inline constexpr std::uint64_t kMaxSpacePoints = std::uint64_t{1} << 40;
inline constexpr std::uint64_t kMaxSpacePlacements = std::uint64_t{1} << 16;
inline constexpr std::uint64_t kMaxSpaceTopologies = std::uint64_t{1} << 12;

// The default space of docs/explore.md: the base's value of every dimension and its
// neighbours (halved and doubled degrees, every schedule, every recompute mode, ...).
SearchSpace defaultSearchSpace(const Scenario& base);
// The defaults that follow other dimensions, for a space file that sets those: sequence
// parallelism follows TP, the stage split follows the boundaries.
std::vector<bool> defaultSequenceParallel(const Scenario& base, const std::vector<int>& tp);
std::vector<StageSplit> defaultStageSplits(const Scenario& base,
                                           const std::vector<PlacementBoundary>& boundaries);

// Points in the space (the product of the dimension sizes), capped at kMaxSpacePoints + 1.
std::uint64_t spacePoints(const SearchSpace& space);
// Placements (tp, cp, pp, ep, boundary, split, rank order, dp) and topology variants
// (transport, wavelengths, fabric, NCCL channels), each capped at its bound + 1.
std::uint64_t spacePlacements(const SearchSpace& space);
std::uint64_t spaceTopologies(const SearchSpace& space);

// The topology of a variant: `base` with each DCI link's transport and wavelength count and
// each datacenter's fabric kind and every link's NCCL channels set (nullopt / 0: kept).
void applyTopologyVariant(Topology& topology, const Topology& base,
                          const ElementChoice<DciTransport>& transport,
                          const ElementChoice<int>& wavelengths, const FabricChoice& fabric,
                          int ncclChannels = 0);

} // namespace archipelago::core
