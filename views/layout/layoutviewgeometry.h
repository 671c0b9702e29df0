// Where the layout view draws what: one column per datacenter, the layer axis running down,
// pipeline stages as bands spanning their layers, one lane per shard in a column, and the DCI
// crossings between consecutive stages placed in different datacenters. Pure layout arithmetic
// (no painting, no costs), shared by painting and hit-testing.
#pragma once

#include "model/scenario.h"

#include <QList>
#include <QRectF>

#include <cstdint>
#include <vector>

namespace archipelago::views {

struct LayoutColumn
{
    core::Id datacenter = -1;
    QRectF rect;               // the whole column
    QRectF header;             // name, hardware, placed GPUs
    QRectF body;               // the bands
    QList<int> laneShards;     // shard index per lane, ascending
    std::int64_t capacity = 0; // GPUs in the datacenter
    std::int64_t placed = 0;   // GPUs the placement puts there
};

struct LayoutBand
{
    int shard = 0;
    int stage = 0;
    int column = -1;
    core::Id datacenter = -1;
    QRectF rect;
    int firstLayer = 0; // inclusive, 0-based
    int lastLayer = 0;  // inclusive
    int dpReplicas = 0;
    std::int64_t gpus = 0; // tp * cp * dpReplicas
};

// Consecutive stages `boundary` and `boundary + 1` of one shard in different datacenters.
struct LayoutCrossing
{
    int shard = 0;
    int boundary = 0;
    int fromColumn = -1;
    int toColumn = -1;
    QPointF start;
    QPointF end;
    core::Id link = -1; // a direct DCI link between the two datacenters, or -1
};

struct LayoutGeometry
{
    static constexpr qreal kGutter = 40.0; // layer ticks on the left
    static constexpr qreal kHeaderHeight = 62.0;
    static constexpr qreal kFooterHeight = 30.0;
    static constexpr qreal kColumnGap = 18.0;

    QRectF area;
    QRectF axis;   // the layer axis: top = layer 0, bottom = last layer
    QRectF footer; // DP-crossing bracket (empty when DP stays home)
    int totalLayers = 0;
    double pixelsPerLayer = 0.0;
    std::vector<int> layersPerStage;
    std::vector<double> boundaryY; // between stage i and i + 1
    std::vector<LayoutColumn> columns;
    std::vector<LayoutBand> bands;
    std::vector<LayoutCrossing> crossings;
    int dpCrossingDatacenters = 1; // most datacenters hosting replicas of one stage

    double layerY(double layer) const { return axis.top() + layer * pixelsPerLayer; }
    int layerAt(double y) const;                                // nearest layer boundary, clamped
    int bandAt(const QPointF& pos) const;                       // index into bands, or -1
    int columnAt(const QPointF& pos) const;                     // index into columns, or -1
    int boundaryAt(const QPointF& pos, double tolerance) const; // or -1
    int firstLayerOf(int stage) const;
};

// `layersPerStage` overrides the scenario's split (a drag preview); pass empty for the split in
// effect. Stages placed in datacenters that are not in the topology are left out.
LayoutGeometry computeLayoutGeometry(const core::Scenario& scenario,
                                     const std::vector<int>& layersPerStage, const QRectF& area);

// Layers per stage when split evenly (the first stages take the remainder).
std::vector<int> evenSplit(const core::Scenario& scenario);

} // namespace archipelago::views
