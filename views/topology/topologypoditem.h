// A pod row inside a datacenter: its scale-up domains drawn as one aggregate glyph with the
// multiplicity ("×2,048"), never one item per domain or GPU. Holds only its id.
#pragma once

#include "model/scenario.h"

#include <QGraphicsItem>

namespace archipelago::views {

class TopologyScene;

class TopologyPodItem : public QGraphicsItem
{
public:
    enum
    {
        Type = UserType + 102
    };

    explicit TopologyPodItem(core::Id id);

    core::Id id() const { return m_id; }
    int type() const override { return Type; }
    void syncFromData();

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    TopologyScene* topologyScene() const;
    void paintDomainGlyph(QPainter* painter, const QRectF& area, std::int64_t domains) const;

    core::Id m_id;
};

} // namespace archipelago::views
