#include "topology/topologypoditem.h"

#include "common/colors.h"
#include "common/format.h"
#include "common/scenariotext.h"
#include "topology/topologydatacenteritem.h"
#include "topology/topologyscene.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPalette>
#include <QStyleOptionGraphicsItem>

namespace archipelago::views {

namespace {

constexpr qreal kGlyphWidth = 74.0;

QSizeF podSize()
{
    return {TopologyDatacenterItem::kWidth - 2 * TopologyDatacenterItem::kPadding,
            TopologyDatacenterItem::kPodRowHeight - 6.0};
}

} // namespace

TopologyPodItem::TopologyPodItem(core::Id id)
    : m_id(id)
{
    setFlags(ItemIsSelectable);
    setAcceptHoverEvents(true);
}

TopologyScene* TopologyPodItem::topologyScene() const
{
    return static_cast<TopologyScene*>(scene());
}

void TopologyPodItem::syncFromData()
{
    const TopologyScene* s = topologyScene();
    const core::Pod* pod = s ? s->pod(m_id) : nullptr;
    if (pod) {
        setToolTip(QStringLiteral("%1: %2\n%3 per pod, %4 in total")
                       .arg(QString::fromStdString(pod->name), podShape(*pod),
                            formatGpus(std::int64_t{pod->domainsPerPod} * pod->gpusPerDomain),
                            formatGpus(core::gpusInPod(*pod))));
    }
    update();
}

QRectF TopologyPodItem::boundingRect() const
{
    return QRectF(QPointF(0, 0), podSize()).adjusted(-1.5, -1.5, 1.5, 1.5);
}

void TopologyPodItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                            QWidget* /*widget*/)
{
    const TopologyScene* s = topologyScene();
    const core::Pod* pod = s ? s->pod(m_id) : nullptr;
    if (!pod)
        return;
    const QPalette pal = s->palette();
    const bool selected = option->state & QStyle::State_Selected;
    const bool hovered = option->state & QStyle::State_MouseOver;
    const QRectF box(QPointF(0, 0), podSize());

    painter->setRenderHint(QPainter::Antialiasing);
    QColor fill = mixColors(pal.color(QPalette::Base), pal.color(QPalette::Text), 0.06);
    if (hovered)
        fill = mixColors(fill, pal.color(QPalette::Highlight), 0.10);
    painter->setBrush(fill);
    painter->setPen(selected ? QPen(pal.color(QPalette::Highlight), 2.0)
                             : QPen(mixColors(fill, pal.color(QPalette::Text), 0.18), 1.0));
    painter->drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);

    const std::int64_t domains = std::int64_t{pod->count} * pod->domainsPerPod;
    paintDomainGlyph(painter, QRectF(box.left() + 6, box.top(), kGlyphWidth, box.height()),
                     domains);

    // Name and GPU count on the first line, the shape on the second.
    const QRectF text = box.adjusted(kGlyphWidth + 12, 3, -8, -3);
    QFont bold = s->font();
    bold.setBold(true);
    const QFontMetricsF boldMetrics(bold);
    const QFontMetricsF metrics(s->font());
    const QString gpus = formatGpus(core::gpusInPod(*pod));
    const qreal gpusWidth = metrics.horizontalAdvance(gpus);
    const qreal lineHeight = text.height() / 2;

    painter->setPen(pal.color(QPalette::Text));
    painter->setFont(s->font());
    painter->drawText(QRectF(text.left(), text.top(), text.width(), lineHeight),
                      Qt::AlignRight | Qt::AlignVCenter, gpus);
    painter->setFont(bold);
    const qreal nameWidth = text.width() - gpusWidth - 8;
    painter->drawText(
        QRectF(text.left(), text.top(), nameWidth, lineHeight), Qt::AlignLeft | Qt::AlignVCenter,
        boldMetrics.elidedText(QString::fromStdString(pod->name), Qt::ElideRight, nameWidth));
    painter->setFont(s->font());
    painter->setPen(pal.color(QPalette::PlaceholderText));
    painter->drawText(QRectF(text.left(), text.top() + lineHeight, text.width(), lineHeight),
                      Qt::AlignLeft | Qt::AlignVCenter,
                      metrics.elidedText(podShape(*pod), Qt::ElideRight, text.width()));
}

void TopologyPodItem::paintDomainGlyph(QPainter* painter, const QRectF& area,
                                       std::int64_t domains) const
{
    // A 3 × 3 grid of domain cells stands for "many domains"; the count says how many.
    const QPalette pal = topologyScene()->palette();
    const QColor cell = mixColors(pal.color(QPalette::Highlight), pal.color(QPalette::Base), 0.15);
    const qreal size = 5.0;
    const qreal gap = 1.5;
    const qreal grid = 3 * size + 2 * gap;
    const QPointF origin(area.left(), area.center().y() - grid / 2);
    painter->setPen(Qt::NoPen);
    painter->setBrush(cell);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            painter->drawRect(
                QRectF(origin.x() + c * (size + gap), origin.y() + r * (size + gap), size, size));
    QFont small = topologyScene()->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    small.setBold(true);
    painter->setFont(small);
    painter->setPen(pal.color(QPalette::Text));
    const QRectF label(origin.x() + grid + 4, area.top(), area.right() - origin.x() - grid - 4,
                       area.height());
    painter->drawText(label, Qt::AlignLeft | Qt::AlignVCenter,
                      QStringLiteral("×") + formatCount(domains));
}

} // namespace archipelago::views
