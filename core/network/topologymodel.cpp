#include "network/topologymodel.h"

#include <algorithm>

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

} // namespace

TopologyModel::TopologyModel(const Topology& topology, const Catalog& catalog, Ownership ownership,
                             bool withBom)
    : m_topology(&chooseTopology(m_owned, topology, ownership))
    , m_catalog(&catalog)
    , m_graph(*m_topology)
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
