#include "layout/layoutviewgeometry.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace archipelago::views {

namespace {

constexpr qreal kLaneGap = 4.0;
constexpr qreal kBandGap = 1.5;

core::Id findLinkBetween(const core::Topology& topology, core::Id a, core::Id b)
{
    for (const core::DciLink& link : topology.links)
        if ((link.a == a && link.b == b) || (link.a == b && link.b == a))
            return link.id;
    return -1;
}

} // namespace

int LayoutGeometry::layerAt(double y) const
{
    if (pixelsPerLayer <= 0)
        return 0;
    const auto layer = static_cast<int>(std::lround((y - axis.top()) / pixelsPerLayer));
    return std::clamp(layer, 0, totalLayers);
}

int LayoutGeometry::bandAt(const QPointF& pos) const
{
    for (std::size_t i = 0; i < bands.size(); ++i)
        if (bands[i].rect.contains(pos))
            return static_cast<int>(i);
    return -1;
}

int LayoutGeometry::columnAt(const QPointF& pos) const
{
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].rect.contains(pos))
            return static_cast<int>(i);
    return -1;
}

int LayoutGeometry::boundaryAt(const QPointF& pos, double tolerance) const
{
    if (pos.x() < axis.left() || pos.x() > axis.right())
        return -1;
    int best = -1;
    double bestDistance = tolerance;
    for (std::size_t i = 0; i < boundaryY.size(); ++i) {
        const double d = std::fabs(pos.y() - boundaryY[i]);
        if (d <= bestDistance) {
            bestDistance = d;
            best = static_cast<int>(i);
        }
    }
    return best;
}

int LayoutGeometry::firstLayerOf(int stage) const
{
    const auto end =
        layersPerStage.begin() + std::clamp<std::ptrdiff_t>(stage, 0, std::ssize(layersPerStage));
    return std::accumulate(layersPerStage.begin(), end, 0);
}

LayoutGeometry computeLayoutGeometry(const core::Scenario& scenario,
                                     const std::vector<int>& layersPerStage, const QRectF& area)
{
    LayoutGeometry g;
    g.area = area;
    const int pp = std::max(1, scenario.parallelism.pp);
    g.layersPerStage = layersPerStage;
    if (static_cast<int>(g.layersPerStage.size()) != pp)
        g.layersPerStage = core::effectiveLayersPerStage(scenario);
    if (static_cast<int>(g.layersPerStage.size()) != pp)
        g.layersPerStage.assign(static_cast<std::size_t>(pp), 1);
    for (int& layers : g.layersPerStage)
        layers = std::max(1, layers);
    g.totalLayers = std::accumulate(g.layersPerStage.begin(), g.layersPerStage.end(), 0);

    const core::Topology& topo = scenario.topology;
    const std::vector<core::PlacementShard> shards = core::effectiveShards(scenario);

    // DP crosses a boundary when replicas of one stage sit in several datacenters.
    for (int stage = 0; stage < pp; ++stage) {
        std::set<core::Id> dcs;
        for (const core::PlacementShard& shard : shards)
            if (stage < std::ssize(shard.stageDatacenters))
                dcs.insert(shard.stageDatacenters[static_cast<std::size_t>(stage)]);
        g.dpCrossingDatacenters = std::max(g.dpCrossingDatacenters, static_cast<int>(dcs.size()));
    }
    const qreal footer = g.dpCrossingDatacenters > 1 ? LayoutGeometry::kFooterHeight : 0.0;

    const auto n = static_cast<qreal>(std::max<std::size_t>(1, topo.datacenters.size()));
    const qreal left = area.left() + LayoutGeometry::kGutter;
    const qreal columnWidth =
        std::max(40.0, (area.right() - left - (n - 1) * LayoutGeometry::kColumnGap) / n);
    const qreal bodyTop = area.top() + LayoutGeometry::kHeaderHeight + 6;
    const qreal bodyBottom = area.bottom() - footer - 8;
    g.axis = QRectF(left, bodyTop, area.right() - left, std::max(10.0, bodyBottom - bodyTop));
    g.pixelsPerLayer = g.axis.height() / std::max(1, g.totalLayers);
    if (footer > 0)
        g.footer = QRectF(left, area.bottom() - footer, g.axis.width(), footer);
    for (int i = 0; i + 1 < pp; ++i)
        g.boundaryY.push_back(g.layerY(g.firstLayerOf(i + 1)));

    const std::vector<std::int64_t> placed = core::placedGpusPerDatacenter(scenario);
    std::map<core::Id, int> columnOf;
    for (std::size_t c = 0; c < topo.datacenters.size(); ++c) {
        LayoutColumn column;
        column.datacenter = topo.datacenters[c].id;
        const qreal x = left + static_cast<qreal>(c) * (columnWidth + LayoutGeometry::kColumnGap);
        column.rect = QRectF(x, area.top(), columnWidth, bodyBottom + 4 - area.top());
        column.header = QRectF(x, area.top(), columnWidth, LayoutGeometry::kHeaderHeight);
        column.body = QRectF(x, bodyTop, columnWidth, g.axis.height());
        column.capacity = core::gpusInDatacenter(topo.datacenters[c]);
        column.placed = c < placed.size() ? placed[c] : 0;
        for (std::size_t s = 0; s < shards.size(); ++s) {
            const auto& stages = shards[s].stageDatacenters;
            if (std::find(stages.begin(), stages.end(), column.datacenter) != stages.end())
                column.laneShards << static_cast<int>(s);
        }
        columnOf[column.datacenter] = static_cast<int>(c);
        g.columns.push_back(column);
    }

    const std::int64_t perStage =
        std::int64_t{std::max(1, scenario.parallelism.tp)} * std::max(1, scenario.parallelism.cp);
    std::map<std::pair<int, int>, std::size_t> bandOf; // (shard, stage) -> band index
    for (std::size_t s = 0; s < shards.size(); ++s) {
        const auto& stages = shards[s].stageDatacenters;
        for (int stage = 0; stage < pp && stage < std::ssize(stages); ++stage) {
            const auto it = columnOf.find(stages[static_cast<std::size_t>(stage)]);
            if (it == columnOf.end())
                continue;
            const LayoutColumn& column = g.columns[static_cast<std::size_t>(it->second)];
            const auto lanes = static_cast<qreal>(std::max<qsizetype>(1, column.laneShards.size()));
            const auto lane = static_cast<qreal>(column.laneShards.indexOf(static_cast<int>(s)));
            const qreal laneWidth = (column.body.width() - 2 * kLaneGap) / lanes;
            LayoutBand band;
            band.shard = static_cast<int>(s);
            band.stage = stage;
            band.column = it->second;
            band.datacenter = column.datacenter;
            band.firstLayer = g.firstLayerOf(stage);
            band.lastLayer =
                band.firstLayer + g.layersPerStage[static_cast<std::size_t>(stage)] - 1;
            const qreal top = g.layerY(band.firstLayer) + kBandGap;
            const qreal bottom = g.layerY(band.lastLayer + 1) - kBandGap;
            band.rect = QRectF(column.body.left() + kLaneGap + lane * laneWidth + 1, top,
                               laneWidth - 2, std::max(1.0, bottom - top));
            band.dpReplicas = shards[s].dpReplicas;
            band.gpus = perStage * shards[s].dpReplicas;
            bandOf[{band.shard, stage}] = g.bands.size();
            g.bands.push_back(band);
        }
    }

    for (std::size_t s = 0; s < shards.size(); ++s) {
        for (int stage = 0; stage + 1 < pp; ++stage) {
            const auto a = bandOf.find({static_cast<int>(s), stage});
            const auto b = bandOf.find({static_cast<int>(s), stage + 1});
            if (a == bandOf.end() || b == bandOf.end())
                continue;
            const LayoutBand& from = g.bands[a->second];
            const LayoutBand& to = g.bands[b->second];
            if (from.datacenter == to.datacenter)
                continue;
            LayoutCrossing crossing;
            crossing.shard = static_cast<int>(s);
            crossing.boundary = stage;
            crossing.fromColumn = from.column;
            crossing.toColumn = to.column;
            const double y = g.boundaryY[static_cast<std::size_t>(stage)];
            const bool rightwards = from.rect.center().x() < to.rect.center().x();
            crossing.start = QPointF(rightwards ? from.rect.right() : from.rect.left(), y);
            crossing.end = QPointF(rightwards ? to.rect.left() : to.rect.right(), y);
            crossing.link = findLinkBetween(topo, from.datacenter, to.datacenter);
            g.crossings.push_back(crossing);
        }
    }
    return g;
}

std::vector<int> evenSplit(const core::Scenario& scenario)
{
    core::Scenario even = scenario;
    even.placement.layersPerStage.clear();
    return core::effectiveLayersPerStage(even);
}

} // namespace archipelago::views
