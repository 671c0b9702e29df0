// Where each parallel group lands, and what its collectives see (ARCHITECTURE.md section 3;
// issue "Topologies, placement and network cost"). The cost model asks this module, never the
// topology directly, for the bandwidth and latency of a group.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <vector>

namespace archipelago::core {

// One level of a hierarchical collective: `participants` peers talk over `linkClass` at
// `bandwidthGBps` per GPU per direction (after sharing with concurrent flows and
// oversubscription) and `latencyS` per step (the alpha of the alpha-beta model).
struct LevelLink
{
    LinkClass linkClass = LinkClass::ScaleUp;
    int participants = 1;
    double bandwidthGBps = 0.0; // GB/s (10^9 bytes/s) per GPU, each direction
    double latencyS = 0.0;
    Id dciLinkId = -1; // the DCI link crossed, when linkClass == Dci
    // A stage boundary across datacenters: the datacenters it joins (its slowest shard's).
    Id fromDatacenter = -1;
    Id toDatacenter = -1;
    int concurrentFlows = 1; // flows sharing the bottleneck at the same time

    bool operator==(const LevelLink&) const = default;
};

// The levels of one path, held inline: a path has at most scale-up, leaf, spine, core and one
// DCI level, so a fixed capacity keeps the placement analysis free of heap allocations (it
// runs once per design point in the explorer). Going past kCapacity is a bug and throws.
class LevelList
{
public:
    static constexpr std::size_t kCapacity = 8;
    LevelList() = default;
    LevelList(std::initializer_list<LevelLink> levels);

    void push_back(const LevelLink& level);
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    LevelLink& operator[](std::size_t i) { return m_levels[i]; }
    const LevelLink& operator[](std::size_t i) const { return m_levels[i]; }
    LevelLink& front() { return m_levels[0]; }
    const LevelLink& front() const { return m_levels[0]; }
    LevelLink& back() { return m_levels[m_size - 1]; }
    const LevelLink& back() const { return m_levels[m_size - 1]; }
    LevelLink* begin() { return m_levels.data(); }
    LevelLink* end() { return m_levels.data() + m_size; }
    const LevelLink* begin() const { return m_levels.data(); }
    const LevelLink* end() const { return m_levels.data() + m_size; }
    bool operator==(const LevelList& other) const
    {
        return std::equal(begin(), end(), other.begin(), other.end());
    }

private:
    std::array<LevelLink, kCapacity> m_levels{};
    std::size_t m_size = 0;
};

// A parallel group's path, innermost level first. The product of participants is the group
// size. A group inside one scale-up domain has one ScaleUp level.
struct GroupPath
{
    LevelList levels;
    int size() const;
    bool crossesDci() const;

    bool operator==(const GroupPath&) const = default;
};

// Where a group's DCI level puts its bytes: every directed DCI link of every route its rings
// take, with the fraction of the bytes that cross the level (over all GPUs) that this link
// carries one way. A ring over k sites moves 1/k of them along each of its k edges, and an
// edge's route may take several links (A2 -> A1 -> B1), each of which carries the edge's part;
// a ring that only some GPUs run (one stage's DP groups, one shard's split TP) carries their
// part. Empty when the group stays inside one datacenter.
struct DciLinkShare
{
    Id dciLinkId = -1;
    bool fromA = true; // from the link's end `a` to `b`
    double share = 0.0;

    bool operator==(const DciLinkShare&) const = default;
};
using DciSpread = std::vector<DciLinkShare>;

struct PlacementAnalysis
{
    GroupPath tp;
    GroupPath cp;
    GroupPath ep;
    GroupPath dp;       // gradient reduction group of dense parameters
    GroupPath expertDp; // gradient reduction group of expert parameters (dp*cp/ep)
    // The DCI links each group's DCI level loads (network/linktraffic.cpp charges them).
    DciSpread tpDci;
    DciSpread cpDci;
    DciSpread epDci;
    DciSpread dpDci; // also the expert DP groups', which span the same datacenters per stage
    // Boundary i joins pipeline rank i to rank i+1 (size pp-1); for interleaved schedules the
    // wrap-around boundary from rank p-1 to rank 0 is `wrapBoundary`. The worst (slowest) shard
    // decides each boundary, since data-parallel replicas wait for one another.
    std::vector<LevelLink> stageBoundaries;
    LevelLink wrapBoundary;
    std::vector<Warning> warnings;
};

// A group cut into `instances` runs of consecutive members (Megatron-Core's distributed-
// optimizer instances, parallel_state.py): `inner` gets the levels one instance spans, `outer`
// the levels joining the members at the same position in each instance. Members are laid out
// innermost level first, so an instance fills the inner levels and the cut falls at the level
// where their product reaches the instance size; a level the cut falls inside is split in two
// over the same links. One instance: inner = path, outer empty.
void splitGroupPath(const GroupPath& path, int instances, GroupPath& inner, GroupPath& outer);
// A path cut at its first DCI level: `inside` the levels within one datacenter, `across` the
// DCI level and any above it (DiLoCo's inner and outer groups). Either may be empty.
void splitAtDatacenters(const GroupPath& path, GroupPath& inside, GroupPath& across);

class TopologyModel;
// `model`, when given, must match the scenario's topology and `catalog` (TopologyModel::matches);
// without one the analysis builds what it needs for this call. `warnings` false skips the
// warnings' text (the explorer's hot path); the numbers are the same.
PlacementAnalysis analyzePlacement(const Scenario& scenario, const Catalog& catalog,
                                   const TopologyModel* model = nullptr, bool warnings = true);

} // namespace archipelago::core
