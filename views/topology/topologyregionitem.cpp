#include "topology/topologyregionitem.h"

#include "common/colors.h"
#include "common/format.h"
#include "topology/topologydatacenteritem.h"
#include "topology/topologyscene.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPalette>

namespace archipelago::views {

namespace {
constexpr qreal kMargin = 24.0;
constexpr qreal kLabelHeight = 26.0;
} // namespace

TopologyRegionItem::TopologyRegionItem(core::Id id)
    : m_id(id)
{
    setZValue(-10.0);
}

TopologyScene* TopologyRegionItem::topologyScene() const
{
    return static_cast<TopologyScene*>(scene());
}

QString TopologyRegionItem::label() const
{
    const TopologyScene* s = topologyScene();
    const core::Region* region = s->region(m_id);
    int count = 0;
    std::int64_t gpus = 0;
    for (const core::Datacenter& dc : s->topology().datacenters) {
        if (dc.regionId == m_id) {
            ++count;
            gpus += core::gpusInDatacenter(dc);
        }
    }
    return QStringLiteral("%1 · %2 · %3")
        .arg(region ? QString::fromStdString(region->name) : QString(),
             count == 1 ? QStringLiteral("1 datacenter")
                        : QStringLiteral("%1 datacenters").arg(count),
             formatGpus(gpus));
}

void TopologyRegionItem::syncFromData()
{
    const TopologyScene* s = topologyScene();
    if (!s)
        return;
    QRectF bounds;
    for (const core::Datacenter& dc : s->topology().datacenters) {
        if (dc.regionId != m_id)
            continue;
        if (const TopologyDatacenterItem* item = s->datacenterItem(dc.id))
            bounds = bounds.united(item->sceneBoundingRect());
    }
    setVisible(!bounds.isNull() && s->region(m_id));
    if (bounds.isNull())
        return;
    const QRectF rect = bounds.adjusted(-kMargin, -kMargin - kLabelHeight, kMargin, kMargin);
    if (rect != m_rect) {
        prepareGeometryChange();
        m_rect = rect;
    }
    update();
}

QRectF TopologyRegionItem::boundingRect() const
{
    return m_rect.adjusted(-1, -1, 1, 1);
}

void TopologyRegionItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* /*option*/,
                               QWidget* /*widget*/)
{
    const TopologyScene* s = topologyScene();
    if (!s || !s->region(m_id))
        return;
    const QPalette pal = s->palette();
    painter->setRenderHint(QPainter::Antialiasing);
    QColor fill = pal.color(QPalette::Highlight);
    fill.setAlphaF(0.07f);
    QColor border = mixColors(pal.color(QPalette::Base), pal.color(QPalette::Text), 0.25);
    painter->setBrush(fill);
    painter->setPen(QPen(border, 1.0, Qt::DashLine));
    painter->drawRoundedRect(m_rect, 16, 16);

    QFont font = s->font();
    font.setBold(true);
    painter->setFont(font);
    painter->setPen(pal.color(QPalette::PlaceholderText));
    const QRectF labelRect(m_rect.left() + 16, m_rect.top() + 4, m_rect.width() - 32, kLabelHeight);
    painter->drawText(labelRect, Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetricsF(font).elidedText(label(), Qt::ElideRight, labelRect.width()));
}

} // namespace archipelago::views
