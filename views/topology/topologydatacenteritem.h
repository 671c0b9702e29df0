// A datacenter on the topology canvas: a rounded box with its name, accelerator, GPU count and
// fabric, the pipeline stages placed in it, and its pods as child items. Holds only its id.
#pragma once

#include "model/scenario.h"

#include <QGraphicsItem>

namespace archipelago::views {

class TopologyScene;

class TopologyDatacenterItem : public QGraphicsItem
{
public:
    enum
    {
        Type = UserType + 101
    };
    static constexpr qreal kWidth = 320.0;
    static constexpr qreal kHeaderHeight = 64.0;
    static constexpr qreal kPlacementHeight = 22.0;
    static constexpr qreal kPodRowHeight = 46.0;
    static constexpr qreal kPadding = 8.0;

    explicit TopologyDatacenterItem(core::Id id);

    core::Id id() const { return m_id; }
    int type() const override { return Type; }

    // Re-reads the datacenter from the scene: size (pod rows) and repaint.
    void syncFromData();
    // Where the pod at `row` sits, in item coordinates.
    QPointF podPosition(int row) const;

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;

private:
    TopologyScene* topologyScene() const;
    qreal placementHeight() const;
    void paintPlacement(QPainter* painter, const QRectF& strip) const;

    core::Id m_id;
    QSizeF m_size{kWidth, kHeaderHeight};
};

} // namespace archipelago::views
