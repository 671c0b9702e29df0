#include "network/topologymodel.h"

#include "model/dcilink.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>

namespace archipelago::core {

namespace {

const Topology& chooseTopology(std::optional<Topology>& owned, const Topology& given,
                               TopologyModel::Ownership ownership)
{
    if (ownership == TopologyModel::Ownership::Borrow)
        return given;
    owned = given;
    return *owned;
}

const std::vector<Warning> kNoWarnings;

// Links joining the same two datacenters that bundleParallelLinks could not bundle (their
// transport settings differ): a route takes one of them (TopologyGraph::route, the shortest),
// so the others carry no traffic here although the bill counts them. Said once per pair of
// `routed` (the bundled topology), naming the link the route takes and the capacity left idle.
void warnParallelLinks(const Topology& topology, const TopologyGraph& graph,
                       std::vector<Warning>& out)
{
    std::map<std::pair<Id, Id>, std::vector<const DciLink*>> byPair;
    for (const DciLink& link : topology.links)
        if (link.a != link.b)
            byPair[{std::min(link.a, link.b), std::max(link.a, link.b)}].push_back(&link);
    for (const auto& [pair, links] : byPair) {
        if (links.size() < 2)
            continue;
        const std::optional<DciRoute> route = graph.route(pair.first, pair.second);
        const Id used = route && route->links.size() == 1 ? route->links.front() : -1;
        double usedGBps = 0.0;
        double idleGBps = 0.0;
        std::int64_t idle = 0;
        for (const DciLink* link : links) {
            if (link->id == used) {
                usedGBps = dciCapacityGBps(*link);
            } else {
                idleGBps += dciCapacityGBps(*link);
                ++idle;
            }
        }
        const Datacenter* a = findDatacenter(topology, pair.first);
        const Datacenter* b = findDatacenter(topology, pair.second);
        const std::string aName = a ? a->name : "?";
        const std::string bName = b ? b->name : "?";
        out.push_back(Warning{WarningCode::ParallelDciLinks}
                          .count("links", static_cast<std::int64_t>(links.size()))
                          .name("from_datacenter", aName)
                          .name("to_datacenter", bName)
                          .count("link_id", used)
                          .name("link", used >= 0 ? "link " + std::to_string(used) + " " + aName +
                                                        " ↔ " + bName
                                                  : std::string("a route through another "
                                                                "datacenter"))
                          .num("used_tbps", usedGBps * 8.0 / 1000.0)
                          .count("idle_links", idle)
                          .num("idle_tbps", idleGBps * 8.0 / 1000.0));
    }
}

} // namespace

// What must be equal for two parallel links to share a hop's traffic (bundleParallelLinks).
bool bundleAlike(const DciLink& x, const DciLink& y)
{
    return std::minmax(x.a, x.b) == std::minmax(y.a, y.b) &&
           x.gbpsPerWavelength == y.gbpsPerWavelength && x.optic == y.optic &&
           x.lineSystem == y.lineSystem && x.transport == y.transport &&
           x.packetLossRate == y.packetLossRate && x.windowBytes == y.windowBytes &&
           x.headroomBytes == y.headroomBytes && x.mssBytes == y.mssBytes && x.nccl == y.nccl;
}

Topology bundleParallelLinks(const Topology& topology)
{
    Topology out;
    out.regions = topology.regions;
    out.datacenters = topology.datacenters;
    // The first link of each datacenter pair's bundles, by pair: few bundles per pair, so a
    // linear look among them keeps this O(links).
    std::map<std::pair<Id, Id>, std::vector<std::size_t>> bundles;
    std::vector<std::int64_t> wavelengths;
    for (const DciLink& link : topology.links) {
        std::vector<std::size_t>& pair = bundles[std::minmax(link.a, link.b)];
        const auto same = std::find_if(pair.begin(), pair.end(), [&](std::size_t i) {
            return bundleAlike(out.links[i], link);
        });
        if (link.a == link.b || same == pair.end()) {
            if (link.a != link.b)
                pair.push_back(out.links.size());
            out.links.push_back(link);
            wavelengths.push_back(link.wavelengths);
            continue;
        }
        DciLink& bundle = out.links[*same];
        wavelengths[*same] += link.wavelengths;
        bundle.distanceKm = std::max(bundle.distanceKm, link.distanceKm);
        bundle.equipmentLatencyS = std::max(bundle.equipmentLatencyS, link.equipmentLatencyS);
    }
    for (std::size_t i = 0; i < out.links.size(); ++i)
        out.links[i].wavelengths = static_cast<int>(
            std::min<std::int64_t>(wavelengths[i], std::numeric_limits<int>::max()));
    return out;
}

TopologyModel::TopologyModel(const Topology& topology, const Catalog& catalog, Ownership ownership,
                             bool withBom)
    : m_topology(&chooseTopology(m_owned, topology, ownership))
    , m_catalog(&catalog)
    , m_routed(bundleParallelLinks(*m_topology))
    , m_graph(m_routed)
    , m_hasBom(withBom)
{
    for (const Datacenter& dc : m_topology->datacenters)
        m_ids.push_back(dc.id);
    if (m_ids.size() <= kRouteTableMax) {
        // One Dijkstra per source datacenter gives its row of the table.
        m_routes.reserve(m_ids.size() * m_ids.size());
        for (const Id from : m_ids)
            for (std::optional<DciRoute>& r : m_graph.routesFrom(from))
                m_routes.push_back(std::move(r));
    }
    for (const Datacenter& dc : m_topology->datacenters) {
        DatacenterFabric f;
        f.design = designFabric(dc, catalog, &f.warnings);
        m_fabrics.emplace(dc.id, std::move(f));
    }
    if (!withBom)
        return;
    // The same items and warning order as billOfMaterials(), reusing the fabric designs.
    for (const Datacenter& dc : m_topology->datacenters) {
        const DatacenterFabric& f = m_fabrics.at(dc.id);
        m_bomWarnings.insert(m_bomWarnings.end(), f.warnings.begin(), f.warnings.end());
        auto items = fabricBillOfMaterials(dc, f.design, catalog, &m_bomWarnings);
        m_bom.insert(m_bom.end(), items.begin(), items.end());
    }
    for (const DciLink& link : m_topology->links) {
        auto items = dciBillOfMaterials(link, *m_topology, catalog, &m_bomWarnings);
        m_bom.insert(m_bom.end(), items.begin(), items.end());
    }
    m_bomTotals = bomTotal(m_bom);
    warnParallelLinks(m_routed, m_graph, m_bomWarnings);
}

const DciRoute* TopologyModel::route(Id from, Id to, std::optional<DciRoute>& scratch) const
{
    if (!m_routes.empty()) {
        const auto at = [&](Id id) {
            return static_cast<std::size_t>(std::find(m_ids.begin(), m_ids.end(), id) -
                                            m_ids.begin());
        };
        const std::size_t i = at(from);
        const std::size_t j = at(to);
        if (i == m_ids.size() || j == m_ids.size())
            return nullptr;
        const std::optional<DciRoute>& r = m_routes[i * m_ids.size() + j];
        return r ? &*r : nullptr;
    }
    scratch = m_graph.route(from, to);
    return scratch ? &*scratch : nullptr;
}

const DciLink* TopologyModel::link(Id id) const
{
    return findLink(m_routed, id);
}

const FabricDesign* TopologyModel::fabric(Id id) const
{
    const auto it = m_fabrics.find(id);
    return it == m_fabrics.end() ? nullptr : &it->second.design;
}

const std::vector<Warning>& TopologyModel::fabricWarnings(Id id) const
{
    const auto it = m_fabrics.find(id);
    return it == m_fabrics.end() ? kNoWarnings : it->second.warnings;
}

bool TopologyModel::matches(const Topology& topology, const Catalog& catalog) const
{
    return m_catalog == &catalog && *m_topology == topology;
}

} // namespace archipelago::core
