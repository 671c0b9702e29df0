#include "topologyscene.h"

#include "topologydatacenteritem.h"
#include "topologylinkitem.h"
#include "topologypoditem.h"
#include "topologyregionitem.h"

#include <QSet>

#include <algorithm>
#include <map>
#include <set>

namespace archipelago::views {

namespace {

constexpr qreal kParallelLinkSpacing = 16.0;
constexpr qreal kSceneMargin = 1200.0;

// Deletes the items of `items` whose id is not in `keep`.
template <typename Item>
void removeMissing(QGraphicsScene* scene, QHash<core::Id, Item*>& items, const QSet<core::Id>& keep)
{
    for (auto it = items.begin(); it != items.end();) {
        if (keep.contains(it.key())) {
            ++it;
            continue;
        }
        scene->removeItem(it.value());
        delete it.value();
        it = items.erase(it);
    }
}

} // namespace

TopologyScene::TopologyScene(QObject* parent)
    : QGraphicsScene(parent)
{
    setItemIndexMethod(QGraphicsScene::NoIndex); // a few dozen items, often moving
}

TopologyScene::~TopologyScene() = default;

void TopologyScene::setTopology(const core::Topology& topology, const core::Scenario* scenario)
{
    m_syncing = true;
    m_topology = topology;
    computePlacement(scenario);
    syncDatacenters();
    syncPods();
    syncLinks();
    syncRegions();
    m_syncing = false;
    updateSceneRect();
}

void TopologyScene::computePlacement(const core::Scenario* scenario)
{
    m_placement.clear();
    if (!scenario)
        return;
    const std::vector<std::int64_t> placed = core::placedGpusPerDatacenter(*scenario);
    const auto& dcs = scenario->topology.datacenters;
    for (std::size_t i = 0; i < dcs.size(); ++i)
        m_placement[dcs[i].id].placedGpus = placed[i];
    std::map<core::Id, std::set<int>> stages;
    for (const core::PlacementShard& shard : core::effectiveShards(*scenario))
        for (std::size_t stage = 0; stage < shard.stageDatacenters.size(); ++stage)
            stages[shard.stageDatacenters[stage]].insert(static_cast<int>(stage));
    for (const auto& [dc, set] : stages)
        if (m_placement.contains(dc))
            m_placement[dc].stages.assign(set.begin(), set.end());
}

void TopologyScene::syncDatacenters()
{
    QSet<core::Id> ids;
    for (const core::Datacenter& dc : m_topology.datacenters)
        ids.insert(dc.id);
    // Pods of removed datacenters are deleted with them: forget them first.
    for (auto it = m_pods.begin(); it != m_pods.end();) {
        const auto* parent = static_cast<TopologyDatacenterItem*>(it.value()->parentItem());
        if (parent && !ids.contains(parent->id()))
            it = m_pods.erase(it);
        else
            ++it;
    }
    removeMissing(this, m_datacenters, ids);
    for (const core::Datacenter& dc : m_topology.datacenters) {
        TopologyDatacenterItem*& item = m_datacenters[dc.id];
        if (!item) {
            item = new TopologyDatacenterItem(dc.id);
            addItem(item);
        }
        item->setPos(dc.x, dc.y);
        item->syncFromData();
    }
}

void TopologyScene::syncPods()
{
    QSet<core::Id> ids;
    for (const core::Datacenter& dc : m_topology.datacenters)
        for (const core::Pod& pod : dc.pods)
            ids.insert(pod.id);
    removeMissing(this, m_pods, ids);
    for (const core::Datacenter& dc : m_topology.datacenters) {
        TopologyDatacenterItem* parent = m_datacenters.value(dc.id);
        for (std::size_t row = 0; row < dc.pods.size(); ++row) {
            TopologyPodItem*& item = m_pods[dc.pods[row].id];
            if (!item)
                item = new TopologyPodItem(dc.pods[row].id);
            if (item->parentItem() != parent)
                item->setParentItem(parent); // also adds it to the scene
            item->setPos(parent->podPosition(static_cast<int>(row)));
            item->syncFromData();
        }
    }
}

void TopologyScene::syncLinks()
{
    QSet<core::Id> ids;
    for (const core::DciLink& link : m_topology.links)
        ids.insert(link.id);
    removeMissing(this, m_links, ids);

    // Parallel links between the same pair fan out around the straight line.
    std::map<std::pair<core::Id, core::Id>, int> perPair;
    for (const core::DciLink& link : m_topology.links)
        ++perPair[std::minmax(link.a, link.b)];
    std::map<std::pair<core::Id, core::Id>, int> seen;
    for (const core::DciLink& link : m_topology.links) {
        TopologyLinkItem*& item = m_links[link.id];
        if (!item) {
            item = new TopologyLinkItem(link.id);
            addItem(item);
        }
        const auto pair = std::minmax(link.a, link.b);
        const int index = seen[pair]++;
        const qreal sign = link.a <= link.b ? 1.0 : -1.0; // same side whichever way it points
        item->syncFromData(sign * (index - (perPair[pair] - 1) / 2.0) * kParallelLinkSpacing);
    }
}

void TopologyScene::syncRegions()
{
    QSet<core::Id> ids;
    for (const core::Region& region : m_topology.regions)
        ids.insert(region.id);
    removeMissing(this, m_regions, ids);
    for (const core::Region& region : m_topology.regions) {
        TopologyRegionItem*& item = m_regions[region.id];
        if (!item) {
            item = new TopologyRegionItem(region.id);
            addItem(item);
        }
        item->syncFromData();
    }
}

void TopologyScene::updateSceneRect()
{
    const QRectF content = itemsBoundingRect();
    setSceneRect(content.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
}

void TopologyScene::datacenterMoved(core::Id id)
{
    if (m_syncing)
        return; // setTopology re-routes everything once at the end
    for (const core::DciLink& link : m_topology.links)
        if (link.a == id || link.b == id)
            if (TopologyLinkItem* item = m_links.value(link.id))
                item->reroute();
    if (const core::Datacenter* dc = datacenter(id))
        if (TopologyRegionItem* item = m_regions.value(dc->regionId))
            item->syncFromData();
    if (const TopologyDatacenterItem* item = m_datacenters.value(id)) {
        const QRectF needed = item->sceneBoundingRect().adjusted(-200, -200, 200, 200);
        if (!sceneRect().contains(needed))
            setSceneRect(sceneRect().united(needed));
    }
}

QPointF TopologyScene::suggestedDatacenterPosition() const
{
    QRectF bounds;
    for (const TopologyDatacenterItem* item : m_datacenters)
        bounds = bounds.united(item->sceneBoundingRect());
    if (bounds.isNull())
        return {0, 0};
    return {bounds.right() + 120.0, bounds.top()};
}

const core::Datacenter* TopologyScene::datacenter(core::Id id) const
{
    return core::findDatacenter(m_topology, id);
}

const core::DciLink* TopologyScene::link(core::Id id) const
{
    return core::findLink(m_topology, id);
}

const core::Region* TopologyScene::region(core::Id id) const
{
    return core::findRegion(m_topology, id);
}

const core::Pod* TopologyScene::pod(core::Id id) const
{
    for (const core::Datacenter& dc : m_topology.datacenters)
        for (const core::Pod& p : dc.pods)
            if (p.id == id)
                return &p;
    return nullptr;
}

core::Id TopologyScene::datacenterOfPod(core::Id podId) const
{
    for (const core::Datacenter& dc : m_topology.datacenters)
        for (const core::Pod& p : dc.pods)
            if (p.id == podId)
                return dc.id;
    return -1;
}

const DatacenterPlacementInfo* TopologyScene::placementInfo(core::Id datacenter) const
{
    const auto it = m_placement.constFind(datacenter);
    return it == m_placement.constEnd() ? nullptr : &it.value();
}

QGraphicsItem* TopologyScene::item(TopologyItemKind kind, core::Id id) const
{
    switch (kind) {
    case TopologyItemKind::Region:
        return m_regions.value(id);
    case TopologyItemKind::Datacenter:
        return m_datacenters.value(id);
    case TopologyItemKind::Pod:
        return m_pods.value(id);
    case TopologyItemKind::Link:
        return m_links.value(id);
    }
    return nullptr;
}

int TopologyScene::topologyItemCount() const
{
    return static_cast<int>(m_regions.size() + m_datacenters.size() + m_pods.size() +
                            m_links.size());
}

TopologySelection TopologyScene::topologySelection() const
{
    // In topology order, so that the app gets a stable order whatever the click order was.
    TopologySelection selection;
    for (const core::Datacenter& dc : m_topology.datacenters) {
        if (const auto* item = m_datacenters.value(dc.id); item && item->isSelected())
            selection.datacenters << dc.id;
        for (const core::Pod& p : dc.pods)
            if (const auto* item = m_pods.value(p.id); item && item->isSelected())
                selection.pods << p.id;
    }
    for (const core::DciLink& link : m_topology.links)
        if (const auto* item = m_links.value(link.id); item && item->isSelected())
            selection.links << link.id;
    return selection;
}

void TopologyScene::setTopologySelection(const TopologySelection& selection)
{
    const QSet<core::Id> dcs(selection.datacenters.begin(), selection.datacenters.end());
    const QSet<core::Id> pods(selection.pods.begin(), selection.pods.end());
    const QSet<core::Id> links(selection.links.begin(), selection.links.end());
    for (auto it = m_datacenters.cbegin(); it != m_datacenters.cend(); ++it)
        it.value()->setSelected(dcs.contains(it.key()));
    for (auto it = m_pods.cbegin(); it != m_pods.cend(); ++it)
        it.value()->setSelected(pods.contains(it.key()));
    for (auto it = m_links.cbegin(); it != m_links.cend(); ++it)
        it.value()->setSelected(links.contains(it.key()));
}

} // namespace archipelago::views
