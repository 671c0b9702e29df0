// Everything about a scenario that depends on its topology and catalog alone: the datacenter
// graph, each datacenter's fabric design and, on request, the bill of materials. Built once per
// topology and shared by every evaluation of that topology (the explorer varies parallelism and
// schedule thousands of times over one topology; the GUI re-evaluates on every edit).
#pragma once

#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"
#include "model/topologygraph.h"
#include "network/bom.h"
#include "network/fabric.h"

#include <map>
#include <optional>
#include <vector>

namespace archipelago::core {

// Parallel DCI links that differ in nothing but distance, equipment latency and wavelengths
// carry a hop's traffic together: flows are hashed over equal next hops (ECMP, RFC 2992) and
// weighted by capacity where the capacities differ (WCMP, Zhou et al., EuroSys 2014), so the hop
// has the wavelengths of all. Every flow waits for the slowest member, so the bundle takes the
// longest distance and latency. Links that differ otherwise (transport, rate, NCCL settings)
// stay apart: a route takes the shortest, and the evaluation says so (parallel-dci-links).
Topology bundleParallelLinks(const Topology& topology);
// Whether two links join the same datacenters with the same transport settings, so that
// bundleParallelLinks makes them one hop.
bool bundleAlike(const DciLink& x, const DciLink& y);

class TopologyModel
{
public:
    enum class Ownership
    {
        Borrow,
        Copy
    };
    // Borrow: `topology` must outlive the model (one evaluation). Copy: the model keeps its own
    // copy, so it can be cached beyond the scenario it came from. `catalog` must always outlive
    // it. `withBom` also builds the bill of materials.
    TopologyModel(const Topology& topology, const Catalog& catalog, Ownership ownership,
                  bool withBom);
    TopologyModel(const TopologyModel&) = delete;
    TopologyModel& operator=(const TopologyModel&) = delete;

    const Topology& topology() const { return *m_topology; }
    // The topology routes run on: parallel DCI links joining the same two datacenters that
    // differ in nothing but distance, equipment latency and wavelengths are one link here (the
    // first's id), with the wavelengths of all and the longest latency (bundleParallelLinks).
    const Topology& routedTopology() const { return m_routed; }
    // A DCI link of routedTopology() by id; nullptr when none.
    const DciLink* link(Id id) const;
    const Catalog& catalog() const { return *m_catalog; }
    const TopologyGraph& graph() const { return m_graph; }
    // The shortest DCI route between two datacenters (TopologyGraph::route). Tabulated for
    // every pair when the topology has at most kRouteTableMax datacenters, so placement asks
    // without running Dijkstra or allocating; otherwise computed into `scratch`. nullptr when
    // there is no route.
    static constexpr std::size_t kRouteTableMax = 64;
    const DciRoute* route(Id from, Id to, std::optional<DciRoute>& scratch) const;
    // The fabric of datacenter `id` and the warnings designing it raised (missing catalog
    // names), in the order designFabric gives them. nullptr for an unknown id.
    const FabricDesign* fabric(Id id) const;
    const std::vector<Warning>& fabricWarnings(Id id) const;

    bool hasBom() const { return m_hasBom; }
    const std::vector<BomItem>& bom() const { return m_bom; }
    const std::vector<Warning>& bomWarnings() const { return m_bomWarnings; }
    const BomTotals& bomTotals() const { return m_bomTotals; }

    // Whether this model answers for `topology` under `catalog` (same catalog object, equal
    // topology).
    bool matches(const Topology& topology, const Catalog& catalog) const;

private:
    struct DatacenterFabric
    {
        FabricDesign design;
        std::vector<Warning> warnings;
    };

    std::optional<Topology> m_owned;
    const Topology* m_topology;
    const Catalog* m_catalog;
    Topology m_routed; // before m_graph, which points into its links
    TopologyGraph m_graph;
    std::map<Id, DatacenterFabric> m_fabrics;
    std::vector<Id> m_ids;                         // datacenter ids in topology order
    std::vector<std::optional<DciRoute>> m_routes; // m_ids.size()^2 when tabulated
    bool m_hasBom = false;
    std::vector<BomItem> m_bom;
    std::vector<Warning> m_bomWarnings;
    BomTotals m_bomTotals;
};

} // namespace archipelago::core
