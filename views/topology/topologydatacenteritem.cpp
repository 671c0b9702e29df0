#include "topology/topologydatacenteritem.h"

#include "common/colors.h"
#include "common/format.h"
#include "common/scenariotext.h"
#include "topology/topologyscene.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPalette>
#include <QStyleOptionGraphicsItem>

namespace archipelago::views {

namespace {

constexpr qreal kRadius = 10.0;

// "0–3" for consecutive stages, "0, 2, 5" otherwise (shortened past a few entries).
QString stageList(const std::vector<int>& stages)
{
    if (stages.empty())
        return {};
    const bool consecutive = stages.back() - stages.front() + 1 == static_cast<int>(stages.size());
    if (consecutive)
        return stages.size() == 1 ? QString::number(stages.front())
                                  : QStringLiteral("%1–%2").arg(stages.front()).arg(stages.back());
    QStringList parts;
    for (std::size_t i = 0; i < stages.size() && i < 4; ++i)
        parts << QString::number(stages[i]);
    if (stages.size() > 4)
        parts << QStringLiteral("…");
    return parts.join(QStringLiteral(", "));
}

} // namespace

TopologyDatacenterItem::TopologyDatacenterItem(core::Id id)
    : m_id(id)
{
    // Moves are driven by the view (so that a drag started on a pod moves its datacenter and
    // every step is reported); the item only needs to tell the scene where it went.
    setFlags(ItemIsSelectable | ItemSendsGeometryChanges);
    setAcceptHoverEvents(true);
    setZValue(0.0);
}

TopologyScene* TopologyDatacenterItem::topologyScene() const
{
    return static_cast<TopologyScene*>(scene());
}

qreal TopologyDatacenterItem::placementHeight() const
{
    const TopologyScene* s = topologyScene();
    return s && s->placementInfo(m_id) ? kPlacementHeight : 0.0;
}

void TopologyDatacenterItem::syncFromData()
{
    const TopologyScene* s = topologyScene();
    const core::Datacenter* dc = s ? s->datacenter(m_id) : nullptr;
    const auto rows = dc ? std::max<qsizetype>(1, static_cast<qsizetype>(dc->pods.size())) : 1;
    const QSizeF size(kWidth, kHeaderHeight + placementHeight() +
                                  static_cast<qreal>(rows) * kPodRowHeight + kPadding);
    if (size != m_size) {
        prepareGeometryChange();
        m_size = size;
    }
    setToolTip(dc ? QStringLiteral("%1\n%2, %3\n%4")
                        .arg(QString::fromStdString(dc->name),
                             QString::fromStdString(dc->accelerator),
                             formatGpus(core::gpusInDatacenter(*dc)), fabricShort(dc->fabric))
                  : QString());
    update();
}

QPointF TopologyDatacenterItem::podPosition(int row) const
{
    return {kPadding, kHeaderHeight + placementHeight() + row * kPodRowHeight};
}

QRectF TopologyDatacenterItem::boundingRect() const
{
    return QRectF(QPointF(0, 0), m_size).adjusted(-2, -2, 2, 2);
}

QPainterPath TopologyDatacenterItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(QRectF(QPointF(0, 0), m_size), kRadius, kRadius);
    return path;
}

void TopologyDatacenterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                                   QWidget* /*widget*/)
{
    const TopologyScene* s = topologyScene();
    const core::Datacenter* dc = s ? s->datacenter(m_id) : nullptr;
    if (!dc)
        return;
    const QPalette pal = s->palette();
    const bool selected = option->state & QStyle::State_Selected;
    const bool hovered = option->state & QStyle::State_MouseOver;
    const QRectF box(QPointF(0, 0), m_size);

    painter->setRenderHint(QPainter::Antialiasing);
    QColor border = mixColors(pal.color(QPalette::Base), pal.color(QPalette::Text), 0.35);
    if (hovered)
        border = mixColors(border, pal.color(QPalette::Highlight), 0.5);
    painter->setPen(QPen(selected ? pal.color(QPalette::Highlight) : border, selected ? 2.5 : 1.2));
    painter->setBrush(pal.color(QPalette::Base));
    painter->drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), kRadius, kRadius);

    // Header: name, then "accelerator · GPUs", then the fabric.
    const QRectF text = box.adjusted(12, 7, -12, 0);
    QFont titleFont = s->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    const QFontMetricsF titleMetrics(titleFont);
    painter->setFont(titleFont);
    painter->setPen(pal.color(QPalette::Text));
    painter->drawText(
        QRectF(text.left(), text.top(), text.width(), titleMetrics.height()),
        Qt::AlignLeft | Qt::AlignVCenter,
        titleMetrics.elidedText(QString::fromStdString(dc->name), Qt::ElideRight, text.width()));

    QFont body = s->font();
    const QFontMetricsF bodyMetrics(body);
    painter->setFont(body);
    qreal y = text.top() + titleMetrics.height() + 2;
    const QString hardware = QStringLiteral("%1 · %2").arg(
        dc->accelerator.empty() ? QStringLiteral("no accelerator")
                                : QString::fromStdString(dc->accelerator),
        formatGpus(core::gpusInDatacenter(*dc)));
    painter->drawText(QRectF(text.left(), y, text.width(), bodyMetrics.height()),
                      Qt::AlignLeft | Qt::AlignVCenter,
                      bodyMetrics.elidedText(hardware, Qt::ElideRight, text.width()));
    y += bodyMetrics.height();
    painter->setPen(pal.color(QPalette::PlaceholderText));
    painter->drawText(
        QRectF(text.left(), y, text.width(), bodyMetrics.height()),
        Qt::AlignLeft | Qt::AlignVCenter,
        bodyMetrics.elidedText(fabricShort(dc->fabric), Qt::ElideRight, text.width()));

    if (placementHeight() > 0)
        paintPlacement(painter, QRectF(12, kHeaderHeight, m_size.width() - 24, kPlacementHeight));

    if (dc->pods.empty()) {
        painter->setPen(pal.color(QPalette::PlaceholderText));
        painter->drawText(
            QRectF(podPosition(0), QSizeF(m_size.width() - 2 * kPadding, kPodRowHeight - 6)),
            Qt::AlignCenter, QStringLiteral("no pods — add one from the toolbar"));
    }
}

void TopologyDatacenterItem::paintPlacement(QPainter* painter, const QRectF& strip) const
{
    const TopologyScene* s = topologyScene();
    const DatacenterPlacementInfo* info = s->placementInfo(m_id);
    const core::Datacenter* dc = s->datacenter(m_id);
    const QPalette pal = s->palette();
    QFont small = s->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    const QFontMetricsF metrics(small);
    painter->setFont(small);

    if (info->stages.empty()) {
        painter->setPen(pal.color(QPalette::PlaceholderText));
        painter->drawText(strip, Qt::AlignLeft | Qt::AlignVCenter,
                          QStringLiteral("idle: no pipeline stage placed here"));
        return;
    }
    // One chip per stage (capped), then "stages 0–3 · 8,192 of 16,384 GPUs used".
    qreal x = strip.left();
    const qreal chip = 8.0;
    const std::size_t shown = std::min<std::size_t>(info->stages.size(), 16);
    painter->setPen(Qt::NoPen);
    for (std::size_t i = 0; i < shown; ++i) {
        painter->setBrush(stageColor(info->stages[i]));
        painter->drawRoundedRect(QRectF(x, strip.center().y() - chip / 2, chip, chip), 2, 2);
        x += chip + 1.5;
    }
    const std::int64_t capacity = core::gpusInDatacenter(*dc);
    const QString label =
        QStringLiteral("%1 %2 · %3 of %4 used")
            .arg(info->stages.size() == 1 ? QStringLiteral("stage") : QStringLiteral("stages"),
                 stageList(info->stages), formatCount(info->placedGpus), formatCount(capacity));
    const bool over = info->placedGpus > capacity;
    painter->setPen(over ? QColor(0xe1, 0x57, 0x59) : pal.color(QPalette::Text));
    const QRectF textRect(x + 4, strip.top(), strip.right() - x - 4, strip.height());
    painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                      metrics.elidedText(label, Qt::ElideRight, textRect.width()));
}

QVariant TopologyDatacenterItem::itemChange(GraphicsItemChange change, const QVariant& value)
{
    if (change == ItemPositionHasChanged) {
        if (TopologyScene* s = topologyScene())
            s->datacenterMoved(m_id);
    }
    return QGraphicsItem::itemChange(change, value);
}

} // namespace archipelago::views
