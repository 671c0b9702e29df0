#include "topology/topologyscene.h"

#include "topology/topologydatacenteritem.h"
#include "topology/topologylinkitem.h"
#include "topology/topologypoditem.h"
#include "topology/topologyregionitem.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace archipelago::views {

namespace {

constexpr qreal kParallelLinkSpacing = 16.0;
constexpr qreal kSceneMargin = 1200.0;
// More parallel links than this between one pair are drawn as one bundle: a fan of thousands
// of lines shows nothing, and an item per link made a file with 100,000 of them take most of a
// minute to open.
constexpr int kMaxFannedLinks = 8;
// Positions are kept as they are while every coordinate lies within this bound (pixels).
// Beyond it, QGraphicsScene's rectangles overflow (1e308 - -1e308 is infinite) and the canvas
// shows nothing, so the positions are mapped into it instead, keeping their order on each axis.
// Only the drawing changes: the scenario keeps its numbers until a datacenter is moved.
constexpr double kMaxCoordinate = 1e6;
// A datacenter's width and room for a link's label between neighbours.
constexpr double kSpreadSpacing = TopologyDatacenterItem::kWidth + 240.0;

bool withinBound(double v)
{
    return std::isfinite(v) && std::fabs(v) <= kMaxCoordinate;
}

// One axis replaced by the rank of each value among the distinct values, evenly spaced: the
// order survives, and unlike a linear rescaling an outlier does not squash the others onto one
// point. A value that is not finite counts as 0.
std::vector<double> rankedAxis(const std::vector<double>& values)
{
    std::vector<double> finite;
    finite.reserve(values.size());
    for (double v : values)
        finite.push_back(std::isfinite(v) ? v : 0.0);
    std::vector<double> distinct = finite;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const double spacing =
        std::min(kSpreadSpacing, kMaxCoordinate / static_cast<double>(distinct.size()));
    std::vector<double> result;
    result.reserve(values.size());
    for (double v : finite) {
        const auto rank = std::lower_bound(distinct.begin(), distinct.end(), v) - distinct.begin();
        result.push_back(static_cast<double>(rank) * spacing);
    }
    return result;
}

// Where each datacenter is drawn: its position, unless some position is out of bounds.
std::vector<QPointF> displayPositions(const std::vector<core::Datacenter>& dcs)
{
    std::vector<QPointF> result;
    result.reserve(dcs.size());
    const bool inBounds = std::all_of(dcs.begin(), dcs.end(), [](const core::Datacenter& dc) {
        return withinBound(dc.x) && withinBound(dc.y);
    });
    if (inBounds) {
        for (const core::Datacenter& dc : dcs)
            result.emplace_back(dc.x, dc.y);
        return result;
    }
    std::vector<double> xs, ys;
    for (const core::Datacenter& dc : dcs) {
        xs.push_back(dc.x);
        ys.push_back(dc.y);
    }
    xs = rankedAxis(xs);
    ys = rankedAxis(ys);
    for (std::size_t i = 0; i < dcs.size(); ++i)
        result.emplace_back(xs[i], ys[i]);
    return result;
}

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
    indexTopology();
    computePlacement(scenario);
    syncDatacenters();
    syncPods();
    syncLinks();
    syncRegions();
    m_syncing = false;
    updateSceneRect();
}

void TopologyScene::indexTopology()
{
    m_datacenterIndex.clear();
    m_linkIndex.clear();
    for (std::size_t i = 0; i < m_topology.datacenters.size(); ++i)
        m_datacenterIndex.insert(m_topology.datacenters[i].id, i);
    for (std::size_t i = 0; i < m_topology.links.size(); ++i)
        m_linkIndex.insert(m_topology.links[i].id, i);
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
    const std::vector<QPointF> positions = displayPositions(m_topology.datacenters);
    for (std::size_t i = 0; i < m_topology.datacenters.size(); ++i) {
        const core::Datacenter& dc = m_topology.datacenters[i];
        TopologyDatacenterItem*& item = m_datacenters[dc.id];
        if (!item) {
            item = new TopologyDatacenterItem(dc.id);
            addItem(item);
        }
        item->setPos(positions[i]);
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
    // Parallel links between the same pair fan out around the straight line, up to
    // kMaxFannedLinks; more are one bundle drawn by the item of the pair's first link.
    std::map<std::pair<core::Id, core::Id>, std::vector<const core::DciLink*>> perPair;
    for (const core::DciLink& link : m_topology.links)
        perPair[std::minmax(link.a, link.b)].push_back(&link);
    m_bundles.clear();
    m_bundledIn.clear();
    QSet<core::Id> drawn;
    for (const auto& [pair, links] : perPair) {
        if (static_cast<int>(links.size()) <= kMaxFannedLinks) {
            for (const core::DciLink* link : links)
                drawn.insert(link->id);
            continue;
        }
        const core::Id first = links.front()->id;
        drawn.insert(first);
        LinkBundle& bundle = m_bundles[first];
        bundle.count = static_cast<int>(links.size());
        for (const core::DciLink* link : links) {
            bundle.totalGbps += link->wavelengths * link->gbpsPerWavelength;
            if (link->id != first)
                m_bundledIn.insert(link->id, first);
        }
    }
    removeMissing(this, m_links, drawn);

    for (const auto& [pair, links] : perPair) {
        const bool bundled = static_cast<int>(links.size()) > kMaxFannedLinks;
        const std::size_t shown = bundled ? 1 : links.size();
        for (std::size_t index = 0; index < shown; ++index) {
            const core::DciLink& link = *links[index];
            TopologyLinkItem*& item = m_links[link.id];
            if (!item) {
                item = new TopologyLinkItem(link.id);
                addItem(item);
            }
            const qreal sign = link.a <= link.b ? 1.0 : -1.0; // same side whichever way
            const qreal slot = static_cast<qreal>(index) - static_cast<qreal>(shown - 1) / 2.0;
            item->syncFromData(sign * slot * kParallelLinkSpacing);
        }
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
    for (auto it = m_links.cbegin(); it != m_links.cend(); ++it)
        if (const core::DciLink* l = link(it.key()); l && (l->a == id || l->b == id))
            it.value()->reroute();
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
    const auto it = m_datacenterIndex.constFind(id);
    return it == m_datacenterIndex.constEnd() ? nullptr : &m_topology.datacenters[it.value()];
}

const core::DciLink* TopologyScene::link(core::Id id) const
{
    const auto it = m_linkIndex.constFind(id);
    return it == m_linkIndex.constEnd() ? nullptr : &m_topology.links[it.value()];
}

const LinkBundle* TopologyScene::linkBundle(core::Id id) const
{
    const auto it = m_bundles.constFind(id);
    return it == m_bundles.constEnd() ? nullptr : &it.value();
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
        return linkItem(id);
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
    // A bundle is selected when any of its links is.
    QSet<core::Id> links;
    for (core::Id id : selection.links)
        links.insert(m_bundledIn.value(id, id));
    for (auto it = m_datacenters.cbegin(); it != m_datacenters.cend(); ++it)
        it.value()->setSelected(dcs.contains(it.key()));
    for (auto it = m_pods.cbegin(); it != m_pods.cend(); ++it)
        it.value()->setSelected(pods.contains(it.key()));
    for (auto it = m_links.cbegin(); it != m_links.cend(); ++it)
        it.value()->setSelected(links.contains(it.key()));
}

} // namespace archipelago::views
