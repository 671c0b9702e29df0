// A DCI link between two datacenters: an edge whose colour and width follow its capacity,
// labelled "64 × 400G = 25.6 Tb/s" and "10 km". Holds only its id; its ends follow the
// datacenter items (also while they are dragged).
#pragma once

#include "model/scenario.h"

#include <QGraphicsItem>
#include <QLineF>

namespace archipelago::views {

class TopologyScene;

class TopologyLinkItem : public QGraphicsItem
{
public:
    enum
    {
        Type = UserType + 103
    };

    explicit TopologyLinkItem(core::Id id);

    core::Id id() const { return m_id; }
    int type() const override { return Type; }

    // Re-reads the link and re-routes it between the current datacenter item rectangles.
    // `offset` separates parallel links between the same pair (pixels, perpendicular).
    void syncFromData(qreal offset);
    void reroute() { syncFromData(m_offset); }
    QLineF line() const { return m_line; }
    // The label box in scene coordinates: clear of every datacenter card where there is room.
    QRectF labelRect() const { return m_label; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    TopologyScene* topologyScene() const;
    QStringList labelLines() const;
    bool overlapsDatacenter(const QRectF& rect) const;
    QRectF placeLabel(const QSizeF& size, const QPointF& normal) const;

    core::Id m_id;
    qreal m_offset = 0.0;
    QLineF m_line;
    QRectF m_label;   // the label box (scene coordinates)
    QPointF m_anchor; // the visible midpoint of the link between the cards' borders
};

} // namespace archipelago::views
