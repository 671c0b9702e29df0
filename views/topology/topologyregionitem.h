// A region: a labelled background behind the datacenters it groups. Its rectangle follows the
// datacenter items (also while dragged). Not selectable, so that rubber-band selection picks
// datacenters, pods and links only; double-click edits it.
#pragma once

#include "model/scenario.h"

#include <QGraphicsItem>

namespace archipelago::views {

class TopologyScene;

class TopologyRegionItem : public QGraphicsItem
{
public:
    enum
    {
        Type = UserType + 104
    };

    explicit TopologyRegionItem(core::Id id);

    core::Id id() const { return m_id; }
    int type() const override { return Type; }
    // Re-reads the region and fits the background around its datacenter items (hidden when it
    // has none).
    void syncFromData();

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    TopologyScene* topologyScene() const;
    QString label() const;

    core::Id m_id;
    QRectF m_rect;
};

} // namespace archipelago::views
