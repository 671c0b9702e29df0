#include "network/topologymodel.h"

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
    : topology_(&chooseTopology(owned_, topology, ownership))
    , catalog_(&catalog)
    , graph_(*topology_)
    , hasBom_(withBom)
{
    for (const Datacenter& dc : topology_->datacenters) {
        DatacenterFabric f;
        f.design = designFabric(dc, catalog, &f.warnings);
        fabrics_.emplace(dc.id, std::move(f));
    }
    if (!withBom)
        return;
    // The same items and warning order as billOfMaterials(), reusing the fabric designs.
    for (const Datacenter& dc : topology_->datacenters) {
        const DatacenterFabric& f = fabrics_.at(dc.id);
        bomWarnings_.insert(bomWarnings_.end(), f.warnings.begin(), f.warnings.end());
        auto items = fabricBillOfMaterials(dc, f.design, catalog, &bomWarnings_);
        bom_.insert(bom_.end(), items.begin(), items.end());
    }
    for (const DciLink& link : topology_->links) {
        auto items = dciBillOfMaterials(link, *topology_, catalog, &bomWarnings_);
        bom_.insert(bom_.end(), items.begin(), items.end());
    }
    bomTotals_ = bomTotal(bom_);
}

const FabricDesign* TopologyModel::fabric(Id id) const
{
    const auto it = fabrics_.find(id);
    return it == fabrics_.end() ? nullptr : &it->second.design;
}

const std::vector<Warning>& TopologyModel::fabricWarnings(Id id) const
{
    const auto it = fabrics_.find(id);
    return it == fabrics_.end() ? kNoWarnings : it->second.warnings;
}

bool TopologyModel::matches(const Topology& topology, const Catalog& catalog) const
{
    return catalog_ == &catalog && *topology_ == topology;
}

} // namespace archipelago::core
