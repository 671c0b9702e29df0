// The design space around a base scenario (docs/explore.md): the values each searched
// dimension may take, and the optional constraints. A point of the space is one value per
// dimension (explore/designpoint.h). Beside the parallelism and the schedule, a point chooses
// how its placement crosses the datacenters (boundary, stage split, rank order, DP degree) and
// the network technology (DCI transport and wavelengths, fabric kind): a topology variant.
#pragma once

#include "model/scenario.h"

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
    // The topology variant (slowest in the odometer): nullopt / 0 keep each link's or
    // datacenter's own value.
    std::vector<std::optional<DciTransport>> dciTransports;
    std::vector<int> wavelengths; // per DCI link; 0: each link's own
    std::vector<std::optional<FabricKind>> fabrics;
    // The placement.
    std::vector<int> tp;
    std::vector<int> cp;
    std::vector<int> pp;
    std::vector<int> ep;
    std::vector<PlacementBoundary> boundaries;
    // With PP across: the first datacenter's stage count minus its proportional share (the
    // last datacenter takes the difference), so every boundary moves by that many stages.
    std::vector<int> stageSplits;
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
std::vector<int> defaultStageSplits(const Scenario& base,
                                    const std::vector<PlacementBoundary>& boundaries);

// Points in the space (the product of the dimension sizes), capped at kMaxSpacePoints + 1.
std::uint64_t spacePoints(const SearchSpace& space);
// Placements (tp, cp, pp, ep, boundary, split, rank order, dp) and topology variants
// (transport, wavelengths, fabric), each capped at its bound + 1.
std::uint64_t spacePlacements(const SearchSpace& space);
std::uint64_t spaceTopologies(const SearchSpace& space);

// The topology of a variant: `base` with every DCI link's transport and wavelength count and
// every datacenter's fabric kind set (nullopt / 0: kept).
void applyTopologyVariant(Topology& topology, const Topology& base,
                          std::optional<DciTransport> transport, int wavelengths,
                          std::optional<FabricKind> fabric);

} // namespace archipelago::core
