// Internal helpers of placement.cpp: per-datacenter rank layout, container arithmetic, DCI
// route loads and the warnings that name them. Not a public contract (namespace detail).
#pragma once

#include "model/topologygraph.h"
#include "network/dcimodel.h"
#include "network/fabric.h"
#include "network/placement.h"
#include "network/topologymodel.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace archipelago::core::detail {

// How one datacenter lays out the ranks it holds.
struct DcLayout
{
    const Datacenter* dc = nullptr;
    FabricDesign fabric;
    double scaleUpGBps = 0.0;
    std::int64_t dpLocal = 0; // most data-parallel replicas of one stage placed here
    std::int64_t ppLocal = 0; // most pipeline stages of one shard placed here
};

// Flows (GPU-level, concurrent) per directed DCI link: (link id, a->b?).
using DciLoads = std::map<std::pair<Id, bool>, double>;

// What one DCI link's transport does for the collectives and boundaries that cross it, kept
// so that the link gets one warning (warnTransport) naming all of them.
struct TransportUse
{
    double connections = 0.0;       // crossing one direction at once, in the worst case below
    double rttS = 0.0;              // of the route in the worst case
    double usableGBps = 0.0;        // the worst (lowest) usable capacity any user sees
    std::vector<Id> route;          // datacenters of that route
    bool bound = false;             // some user sees less than the wavelengths' capacity
    std::vector<std::string> users; // "stage 10->11", "DP all-reduce", in order of asking
};

struct Context
{
    const Scenario& scenario;
    const Catalog& catalog;
    const TopologyModel& model; // fabric designs per datacenter, built once per topology
    const TopologyGraph& graph;
    std::map<Id, DcLayout> layouts;
    std::vector<Warning> warnings;
    std::map<Id, TransportUse> transport; // by DCI link id, filled only with wantWarnings
    bool wantWarnings = true;             // false: the caller reads numbers only (no text is built)
};

DcLayout& layoutFor(Context& ctx, Id dc);

// Sizes of the five dimensions, indexed by ParallelDim (tp, cp, ep, dp, pp).
using Sizes = std::array<std::int64_t, 5>;
// Dense layer groups: ep does not split ranks (Megatron-core decoder rank generator).
Sizes denseSizes(const Parallelism& par, const DcLayout& layout);
// Expert layer groups: cp = 1, dp = dp * cp / ep (Megatron-core expert rank generator).
Sizes expertSizes(const Parallelism& par, const DcLayout& layout);
// Rank stride of `dim`: product of the sizes of the dimensions inside it in `order`.
std::int64_t stride(const std::vector<ParallelDim>& order, ParallelDim dim, const Sizes& sizes);

// Levels of a group of `n` members at rank stride `stride` inside one datacenter.
// `railAligned`: an all-to-all whose scale-out hop always lands on the peer of the same local
// index (the same rail) and is forwarded over the scale-up domain as a level of its own
// (DeepSeek-V3 report section 3.2.2), so a rail-only fabric adds no forwarding to the hop.
LevelList intraLevels(const DcLayout& layout, std::int64_t stride, std::int64_t n, bool allToAll,
                      bool railAligned = false);

// Add `flows` to every directed link on the route a -> b.
void addRouteLoads(Context& ctx, Id a, Id b, double flows, DciLoads& loads);
// A ring over `dcs` (in order, closing back to the first): each hop's route carries `flows`.
void addRingLoads(Context& ctx, const std::vector<Id>& dcs, double flows, DciLoads& loads);
// A ring over `dcs` that carries `part` of a group's DCI bytes: each of its k edges moves part/k
// along every directed link of its route (Thakur, Rabenseifner, Gropp 2005: a ring step sends
// to the next member only).
void addRingSpread(Context& ctx, const std::vector<Id>& dcs, double part, DciSpread& spread);
// The DCI level of a ring over `dcs` (a single hop when `dcs` has two entries and `oneWay`).
// `loads` null: the ring carries only `ownFlows`. `traffic` says which NCCL buffers the flows
// keep in flight (network/dcimodel.h); `user` names who crosses (for the transport warning:
// "DP all-reduce", "stage 3->4").
LevelLink dciLevel(Context& ctx, const std::vector<Id>& dcs, double ownFlows, int participants,
                   const DciLoads* loads, NcclTraffic traffic, std::string_view user,
                   bool oneWay = false);

// Stage boundary i -> i+1 (or p-1 -> 0 when `wrap`) of one shard.
LevelLink boundaryLink(Context& ctx, const Scenario& scenario, const PlacementShard& shard, int i,
                       bool wrap, const DciLoads& loads);

// Proxies used to pick the slowest of several candidates: a 1 GB hierarchical ring
// all-reduce (2(n-1)/n S/B + 2(n-1) alpha per level, Thakur et al. 2005) and a 100 MB send.
double allReduceProxyS(const GroupPath& path);
double transferProxyS(const LevelLink& link);

void warnCrossRail(Context& ctx, const DcLayout& layout, const GroupPath& path,
                   const std::string& what);
void warnBoundary(Context& ctx, int from, int to, const LevelLink& link);
void warnShared(Context& ctx, const GroupPath& path, const std::string& what);
// A TP or CP group split across datacenters: names the DCI link and the per-GPU bandwidth.
void warnSplit(Context& ctx, ParallelDim dim, int degree, const LevelLink& link);
// One dci-transport-bound warning per DCI link that some user finds transport bound.
void warnTransport(Context& ctx);

} // namespace archipelago::core::detail
