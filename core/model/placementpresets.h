// Placement presets: the two simplest answers to "which dimension crosses each datacenter
// boundary" (ARCHITECTURE.md section 2, placement). Pure layout arithmetic on the topology and
// the parallelism, no costs: the layout view offers them as one-click choices and the explorer
// may enumerate them.
#pragma once

#include "model/scenario.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace archipelago::core {

// PP crosses the boundaries: one shard whose pipeline stages are split over the datacenters
// (in topology order), the number of stages per datacenter proportional to its GPU count
// (largest-remainder apportionment). The DP degree is the largest that fits every datacenter
// it uses. Rank order and layers per stage are kept from the scenario.
Placement ppAcrossDatacenters(const Scenario& scenario);
// The same with datacenter i holding at most capacityGpus[i] GPUs (the topology's when the
// vector is shorter) and the proportional split moved by `stageOffset`: the first datacenter
// that takes stages takes that many more, the last that many fewer, so every boundary moves by
// `stageOffset` stages (an uneven split for unequal datacenters or a slow DCI). No shard when
// a datacenter would be left with no stage (or fewer than none).
Placement ppAcrossDatacentersWithin(const Scenario& scenario,
                                    const std::vector<std::int64_t>& capacityGpus, int stageOffset);
// The same with each boundary moved on its own: boundaryOffsets[i] (one per boundary, the
// datacenter count minus one entries; missing ones 0) moves the boundary between datacenters i
// and i + 1 in topology order, so datacenter j takes boundaryOffsets[j] - boundaryOffsets[j - 1]
// stages more than its proportional share. No shard when a datacenter that takes stages in the
// proportional split is left with none, one would take fewer than none, or one cannot hold a
// replica of the stages it is given.
Placement ppAcrossDatacentersWithin(const Scenario& scenario,
                                    const std::vector<std::int64_t>& capacityGpus,
                                    const std::vector<int>& boundaryOffsets);

// DP crosses the boundaries: one shard per datacenter with every stage at home, as many
// data-parallel replicas as the datacenter holds (GPUs / (tp * cp * pp)). Datacenters too small
// for one replica are left out. Rank order and layers per stage are kept from the scenario.
Placement dpAcrossDatacenters(const Scenario& scenario);
// The same with datacenter i holding at most capacityGpus[i] GPUs.
Placement dpAcrossDatacentersWithin(const Scenario& scenario,
                                    const std::vector<std::int64_t>& capacityGpus);

// Which dimension crosses each boundary, chosen per boundary. `groupOfDatacenter[i]` names the
// group of datacenter i (topology order; missing entries are groups of their own). Each group
// runs its own pipelines, their stages split over its datacenters in proportion to their GPUs
// (ppAcrossDatacenters on the group alone): PP crosses the boundaries inside a group, DP the
// boundaries between groups (one shard per group). One group is ppAcrossDatacenters; one group
// per datacenter is dpAcrossDatacenters. A group too small for one replica is left out.
Placement pipelinesPerGroup(const Scenario& scenario, const std::vector<int>& groupOfDatacenter);
// The groups where boundary i (between datacenters i and i + 1 in topology order) is crossed by
// crossing[i]: Pp joins the two datacenters' groups, anything else separates them.
std::vector<int> groupsFromBoundaries(const Scenario& scenario,
                                      const std::vector<ParallelDim>& crossing);
// One group per region (datacenters whose region is not listed share one group).
std::vector<int> groupsByRegion(const Scenario& scenario);

// The grouping pipelinesPerGroup would need to make the placement in effect: datacenters that
// hold stages of one shard share a group (and so do the groups of shards that share a
// datacenter); groups are numbered 0, 1, ... in topology order; a datacenter with no stage is
// -1. Empty when a shard is split over datacenters (that is no grouping).
std::vector<int> pipelineGroups(const Scenario& scenario);
// `groups` relabelled 0, 1, ... in order of first appearance, negatives (no group) kept, so two
// labellings of one partition compare equal.
std::vector<int> renumberedGroups(std::vector<int> groups);

// What crosses boundary i of the placement in effect (between datacenters i and i + 1): Pp when
// one pipeline has stages in both, Dp when both hold stages but no pipeline spans the two, and
// nothing when one of them holds no stage (or a split shard spans them).
std::vector<std::optional<ParallelDim>> boundaryDims(const Scenario& scenario);

// The placement in effect with at most `dp` data-parallel replicas in all: each shard keeps a
// share in proportion to its replicas (largest remainder), a shard left with none is dropped,
// and the GPUs they held stay idle. The placement in effect when it has no more than `dp`.
Placement withDataParallelAtMost(const Scenario& scenario, std::int64_t dp);
// The largest data-parallel degree of at most `dp` that divides `globalBatch` into micro-batches
// of `microBatch` (Megatron-LM requires global_batch % (micro_batch * dp) == 0); 0 when none.
std::int64_t largestDividingDataParallel(std::int64_t globalBatch, int microBatch, std::int64_t dp);

// The global batch moved to the multiple of micro_batch * dp nearest to it (ties up, at least
// one), so that a change of the data-parallel degree keeps the batch divisible (Megatron-LM
// requires global_batch % (micro_batch * dp) == 0). Unchanged when that is impossible.
Scenario withFittedGlobalBatch(Scenario scenario);

// Splits `total` items over `weights` in proportion, largest remainder first (Hamilton's
// method); ties go to the earlier entry. The result sums to `total` (all zero when every weight
// is zero).
std::vector<int> apportion(int total, const std::vector<std::int64_t>& weights);

} // namespace archipelago::core
