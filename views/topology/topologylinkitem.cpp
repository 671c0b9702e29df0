#include "topology/topologylinkitem.h"

#include "common/colors.h"
#include "common/format.h"
#include "common/scenariotext.h"
#include "model/dcilink.h"
#include "topology/topologydatacenteritem.h"
#include "topology/topologyscene.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPalette>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace archipelago::views {

namespace {

// Where the segment from the centre of `rect` towards `towards` leaves the rectangle.
QPointF clipToRect(const QRectF& rect, const QPointF& towards)
{
    const QPointF c = rect.center();
    const QPointF d = towards - c;
    if (qFuzzyIsNull(d.x()) && qFuzzyIsNull(d.y()))
        return c;
    const qreal sx = qFuzzyIsNull(d.x()) ? 1e9 : (rect.width() / 2) / std::fabs(d.x());
    const qreal sy = qFuzzyIsNull(d.y()) ? 1e9 : (rect.height() / 2) / std::fabs(d.y());
    const qreal s = std::min({sx, sy, 1.0});
    return c + d * s;
}

constexpr qreal kLabelPadding = 4.0;
constexpr qreal kLinkZ = -1.0;  // under the datacenters, above the regions
constexpr qreal kRaisedZ = 1.0; // over the datacenters, when the label cannot avoid them

} // namespace

TopologyLinkItem::TopologyLinkItem(core::Id id)
    : m_id(id)
{
    setFlags(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setZValue(kLinkZ);
}

TopologyScene* TopologyLinkItem::topologyScene() const
{
    return static_cast<TopologyScene*>(scene());
}

QStringList TopologyLinkItem::labelLines() const
{
    const core::DciLink* link = topologyScene()->link(m_id);
    if (!link)
        return {};
    QString second = formatKm(link->distanceKm);
    if (link->transport == core::DciTransport::LossyIp)
        second += QStringLiteral(" · lossy IP");
    if (const LinkBundle* bundle = topologyScene()->linkBundle(m_id))
        return {QStringLiteral("%1 links = %2")
                    .arg(formatCount(bundle->count), formatGbps(bundle->totalGbps)),
                second};
    return {linkCapacity(*link), second};
}

void TopologyLinkItem::syncFromData(qreal offset)
{
    m_offset = offset;
    const TopologyScene* s = topologyScene();
    const core::DciLink* link = s ? s->link(m_id) : nullptr;
    const TopologyDatacenterItem* a = link ? s->datacenterItem(link->a) : nullptr;
    const TopologyDatacenterItem* b = link ? s->datacenterItem(link->b) : nullptr;
    const bool valid = a && b && a != b;
    setVisible(valid);
    if (!valid)
        return;

    prepareGeometryChange();
    const QRectF ra = a->sceneBoundingRect().adjusted(2, 2, -2, -2);
    const QRectF rb = b->sceneBoundingRect().adjusted(2, 2, -2, -2);
    QLineF centres(ra.center(), rb.center());
    const QPointF normal = centres.length() > 0
                               ? QPointF(-centres.dy(), centres.dx()) / centres.length()
                               : QPointF(0, 0);
    const QPointF shift = normal * offset;
    m_line = QLineF(clipToRect(ra.translated(shift), rb.center() + shift),
                    clipToRect(rb.translated(shift), ra.center() + shift));

    const QStringList lines = labelLines();
    const QFontMetricsF metrics(s->font());
    qreal width = 0;
    for (const QString& line : lines)
        width = std::max(width, metrics.horizontalAdvance(line));
    const QSizeF size(width + 2 * kLabelPadding,
                      metrics.height() * static_cast<qreal>(lines.size()) + 2 * kLabelPadding);
    m_anchor = m_line.center();
    m_label = placeLabel(size, normal);
    // Where no free place is found the label stays at the midpoint, drawn over the cards.
    setZValue(overlapsDatacenter(m_label) ? kRaisedZ : kLinkZ);

    // A bundle's distance and optic are its first link's.
    setToolTip(QStringLiteral("DCI %1 ↔ %2\n%3\n%4, %5")
                   .arg(QString::fromStdString(s->datacenter(link->a)->name),
                        QString::fromStdString(s->datacenter(link->b)->name), lines.value(0),
                        lines.value(1), QString::fromStdString(link->optic)));
    update();
}

bool TopologyLinkItem::overlapsDatacenter(const QRectF& rect) const
{
    const TopologyScene* s = topologyScene();
    for (const core::Datacenter& dc : s->topology().datacenters)
        if (const TopologyDatacenterItem* item = s->datacenterItem(dc.id))
            if (item->sceneBoundingRect().intersects(rect))
                return true;
    return false;
}

QRectF TopologyLinkItem::placeLabel(const QSizeF& size, const QPointF& normal) const
{
    // The visible midpoint between the two cards' borders when the label fits there; else the
    // nearest free place stepping off the link on either side (a leader line joins it to the
    // midpoint). A parallel link's label tries its own side first.
    const auto at = [&](const QPointF& centre) {
        return QRectF(centre - QPointF(size.width() / 2, size.height() / 2), size);
    };
    const QRectF midpoint = at(m_anchor);
    if (!overlapsDatacenter(midpoint))
        return midpoint;
    const qreal side = m_offset < 0 ? -1.0 : 1.0;
    const qreal step = size.height() / 2;
    for (int i = 1; i <= 80; ++i)
        for (const qreal sign : {side, -side}) {
            const QRectF off = at(m_anchor + normal * sign * step * i);
            if (!overlapsDatacenter(off))
                return off;
        }
    return midpoint;
}

QRectF TopologyLinkItem::boundingRect() const
{
    const qreal pad = 8.0;
    return QRectF(m_line.p1(), m_line.p2())
        .normalized()
        .adjusted(-pad, -pad, pad, pad)
        .united(m_label.adjusted(-2, -2, 2, 2));
}

QPainterPath TopologyLinkItem::shape() const
{
    QPainterPath path(m_line.p1());
    path.lineTo(m_line.p2());
    QPainterPathStroker stroker;
    stroker.setWidth(12.0);
    QPainterPath result = stroker.createStroke(path);
    result.addRect(m_label);
    return result;
}

void TopologyLinkItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                             QWidget* /*widget*/)
{
    const TopologyScene* s = topologyScene();
    const core::DciLink* link = s ? s->link(m_id) : nullptr;
    if (!link)
        return;
    const QPalette pal = s->palette();
    const bool selected = option->state & QStyle::State_Selected;
    const bool hovered = option->state & QStyle::State_MouseOver;
    const LinkBundle* bundle = s->linkBundle(m_id);
    const double gbps = bundle ? bundle->totalGbps : core::dciCapacityGbps(*link);
    const QColor colour = linkCapacityColor(gbps);
    const qreal width = linkCapacityWidth(gbps);

    painter->setRenderHint(QPainter::Antialiasing);
    if (selected || hovered) {
        QColor halo = pal.color(QPalette::Highlight);
        halo.setAlphaF(selected ? 0.55f : 0.25f);
        painter->setPen(QPen(halo, width + 6, Qt::SolidLine, Qt::RoundCap));
        painter->drawLine(m_line);
    }
    painter->setPen(QPen(colour, width, Qt::SolidLine, Qt::RoundCap));
    painter->drawLine(m_line);

    // Label box over the middle of the edge, or joined to it by a leader when moved off it.
    if (!m_label.contains(m_anchor)) {
        painter->setPen(QPen(colour, 1.0, Qt::DotLine));
        const QPointF end(std::clamp(m_anchor.x(), m_label.left(), m_label.right()),
                          std::clamp(m_anchor.y(), m_label.top(), m_label.bottom()));
        painter->drawLine(m_anchor, end);
    }
    QColor background = pal.color(QPalette::Base);
    background.setAlphaF(0.92f);
    painter->setBrush(background);
    painter->setPen(QPen(selected ? pal.color(QPalette::Highlight) : colour, selected ? 2.0 : 1.0));
    painter->drawRoundedRect(m_label, 4, 4);
    const QStringList lines = labelLines();
    const QFontMetricsF metrics(s->font());
    painter->setFont(s->font());
    qreal y = m_label.top() + kLabelPadding;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        painter->setPen(i == 0 ? pal.color(QPalette::Text) : pal.color(QPalette::PlaceholderText));
        painter->drawText(QRectF(m_label.left(), y, m_label.width(), metrics.height()),
                          Qt::AlignHCenter | Qt::AlignVCenter, lines[i]);
        y += metrics.height();
    }
}

} // namespace archipelago::views
