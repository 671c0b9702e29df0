// The scene behind the topology canvas. It keeps a copy of the topology it shows and one item
// per object, keyed by id; setTopology() reconciles the items with a new topology (create,
// update, remove) so that items, and with them the selection, survive edits. Items hold only
// their id and read everything else from here (cf. paceholder/nodeeditor BasicGraphicsScene).
#pragma once

#include "topology/topologyselection.h"

#include "model/scenario.h"

#include <QGraphicsScene>
#include <QHash>

#include <vector>

namespace archipelago::views {

class TopologyDatacenterItem;
class TopologyLinkItem;
class TopologyPodItem;
class TopologyRegionItem;

// What the placement puts in one datacenter, for colouring (looks only).
struct DatacenterPlacementInfo
{
    std::vector<int> stages;     // pipeline stages placed here (any shard), ascending
    std::int64_t placedGpus = 0; // core::placedGpusPerDatacenter
};

// Parallel links between one pair of datacenters beyond what fans out legibly: drawn as one
// item, keyed by the first link's id, that shows their number and their total capacity.
struct LinkBundle
{
    int count = 0;
    double totalGbps = 0.0;
};

class TopologyScene : public QGraphicsScene
{
    Q_OBJECT

public:
    explicit TopologyScene(QObject* parent = nullptr);
    ~TopologyScene() override;

    // Reconciles the items with `topology`; `scenario` (optional) colours datacenters by the
    // pipeline stages its placement puts there.
    void setTopology(const core::Topology& topology, const core::Scenario* scenario = nullptr);
    const core::Topology& topology() const { return m_topology; }

    const core::Datacenter* datacenter(core::Id id) const;
    const core::DciLink* link(core::Id id) const;
    // The bundle drawn by the item of link `id`, or nullptr when that item shows one link.
    const LinkBundle* linkBundle(core::Id id) const;
    const core::Region* region(core::Id id) const;
    const core::Pod* pod(core::Id id) const;
    core::Id datacenterOfPod(core::Id podId) const; // -1 when unknown
    const DatacenterPlacementInfo* placementInfo(core::Id datacenter) const;

    TopologyDatacenterItem* datacenterItem(core::Id id) const { return m_datacenters.value(id); }
    // The item that draws link `id` (a bundle's item for each of its links).
    TopologyLinkItem* linkItem(core::Id id) const
    {
        return m_links.value(m_bundledIn.value(id, id));
    }
    TopologyPodItem* podItem(core::Id id) const { return m_pods.value(id); }
    TopologyRegionItem* regionItem(core::Id id) const { return m_regions.value(id); }
    QGraphicsItem* item(TopologyItemKind kind, core::Id id) const;
    int topologyItemCount() const;

    TopologySelection topologySelection() const;
    void setTopologySelection(const TopologySelection& selection);

    // Called by a datacenter item whose position changed (also while dragged, before the model
    // has it): links and regions follow.
    void datacenterMoved(core::Id id);
    // Where a new datacenter goes: to the right of the existing ones.
    QPointF suggestedDatacenterPosition() const;

private:
    void syncRegions();
    void syncDatacenters();
    void syncPods();
    void syncLinks();
    void updateSceneRect();
    void indexTopology();
    void computePlacement(const core::Scenario* scenario);

    core::Topology m_topology;
    QHash<core::Id, DatacenterPlacementInfo> m_placement;
    QHash<core::Id, TopologyRegionItem*> m_regions;
    QHash<core::Id, TopologyDatacenterItem*> m_datacenters;
    QHash<core::Id, TopologyPodItem*> m_pods;
    QHash<core::Id, TopologyLinkItem*> m_links;     // one per drawn link or bundle
    QHash<core::Id, LinkBundle> m_bundles;          // by the id of the bundle's item
    QHash<core::Id, core::Id> m_bundledIn;          // bundled link -> its item's id
    QHash<core::Id, std::size_t> m_datacenterIndex; // id -> index in m_topology
    QHash<core::Id, std::size_t> m_linkIndex;
    bool m_syncing = false;
};

} // namespace archipelago::views
