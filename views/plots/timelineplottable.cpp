#include "plots/timelineplottable.h"

#include <algorithm>
#include <limits>

namespace archipelago::views {

namespace {
constexpr double kOutlineMinPx = 5.0; // thinner blocks are drawn without an outline
} // namespace

TimelinePlottable::TimelinePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis)
    : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setAntialiasedFill(false);
    setAntialiased(false);
}

void TimelinePlottable::setRects(QVector<TimelineRect> rects)
{
    m_rects = std::move(rects);
}

QRectF TimelinePlottable::pixelRect(const TimelineRect& r) const
{
    const QCPAxis* k = keyAxis();
    const QCPAxis* v = valueAxis();
    QRectF rect = QRectF(QPointF(k->coordToPixel(r.start), v->coordToPixel(r.high)),
                         QPointF(k->coordToPixel(r.end), v->coordToPixel(r.low)))
                      .normalized();
    if (rect.width() < 1.0) // a block never disappears when zoomed out
        rect.setWidth(1.0);
    return rect;
}

qsizetype TimelinePlottable::rectAt(const QPointF& pixel) const
{
    if (!keyAxis() || !valueAxis())
        return -1;
    for (qsizetype i = 0; i < m_rects.size(); ++i) {
        if (pixelRect(m_rects[i]).adjusted(-0.5, -0.5, 0.5, 0.5).contains(pixel))
            return i;
    }
    return -1;
}

double TimelinePlottable::selectTest(const QPointF& pos, bool onlySelectable,
                                     QVariant* details) const
{
    if (onlySelectable && !selectable())
        return -1.0;
    const qsizetype i = rectAt(pos);
    if (details && i >= 0)
        details->setValue(i);
    return i >= 0 ? 0.0 : -1.0;
}

QCPRange TimelinePlottable::getKeyRange(bool& foundRange, QCP::SignDomain /*inSignDomain*/) const
{
    foundRange = !m_rects.isEmpty();
    QCPRange range(std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest());
    for (const TimelineRect& r : m_rects) {
        range.lower = std::min(range.lower, r.start);
        range.upper = std::max(range.upper, r.end);
    }
    return foundRange ? range : QCPRange();
}

QCPRange TimelinePlottable::getValueRange(bool& foundRange, QCP::SignDomain /*inSignDomain*/,
                                          const QCPRange& /*inKeyRange*/) const
{
    foundRange = !m_rects.isEmpty();
    QCPRange range(std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest());
    for (const TimelineRect& r : m_rects) {
        range.lower = std::min(range.lower, r.low);
        range.upper = std::max(range.upper, r.high);
    }
    return foundRange ? range : QCPRange();
}

void TimelinePlottable::draw(QCPPainter* painter)
{
    if (!keyAxis() || !valueAxis() || m_rects.isEmpty())
        return;
    const QCPRange visible = keyAxis()->range();
    QVector<QRectF> outlined;
    QVector<QRectF> thin;
    QVector<std::pair<QRectF, int>> labels; // only blocks wide enough for a number
    const double minLabelWidth =
        QFontMetricsF(labelFont()).horizontalAdvance(QStringLiteral("0")) + 4.0;
    for (qsizetype i = 0; i < m_rects.size(); ++i) {
        const TimelineRect& r = m_rects[i];
        if (r.end < visible.lower || r.start > visible.upper)
            continue;
        const QRectF rect = pixelRect(r);
        (rect.width() >= kOutlineMinPx ? outlined : thin).append(rect);
        if (r.label >= 0 && rect.width() >= minLabelWidth)
            labels.append({rect, r.label});
    }
    applyDefaultAntialiasingHint(painter);
    for (const QBrush& brush : {mBrush, m_overlay}) {
        if (brush.style() == Qt::NoBrush)
            continue;
        painter->setBrush(brush);
        painter->setPen(Qt::NoPen);
        painter->drawRects(thin);
        painter->setPen(brush == mBrush ? mPen : QPen(Qt::NoPen));
        painter->drawRects(outlined);
    }
    drawLabels(painter, labels);
}

QFont TimelinePlottable::labelFont() const
{
    QFont font = parentPlot()->font();
    font.setPointSizeF(std::max(6.0, font.pointSizeF() - 2.0));
    return font;
}

void TimelinePlottable::drawLabels(QCPPainter* painter,
                                   const QVector<std::pair<QRectF, int>>& labels) const
{
    const QFont font = labelFont();
    const QFontMetricsF metrics(font);
    painter->setFont(font);
    // Dark text on light fills, light text on dark fills.
    painter->setPen(mBrush.color().lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white));
    for (const auto& [rect, number] : labels) {
        const QString text = QString::number(number);
        if (rect.width() >= metrics.horizontalAdvance(text) + 4.0 &&
            rect.height() >= metrics.height())
            painter->drawText(rect, Qt::AlignCenter, text);
    }
}

void TimelinePlottable::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const
{
    applyDefaultAntialiasingHint(painter);
    painter->setPen(mPen);
    painter->setBrush(mBrush);
    painter->drawRect(rect);
    if (m_overlay.style() != Qt::NoBrush) {
        painter->setBrush(m_overlay);
        painter->drawRect(rect);
    }
}

} // namespace archipelago::views
