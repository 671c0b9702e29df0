// A QCustomPlot plottable that draws thousands of rectangles in one pass: the blocks of one kind
// in the pipeline timeline (p=16, v=4, m=128 is ~8k blocks; one QCPItem per block would not
// scale). Rectangles outside the visible key range are skipped; micro-batch numbers are drawn
// only where a block is wide enough to hold them.
#pragma once

#include <qcustomplot.h>

#include <QVector>

#include <utility>

namespace archipelago::views {

struct TimelineRect
{
    double start = 0.0; // key axis (time, in the view's unit)
    double end = 0.0;
    double low = 0.0; // value axis (rank coordinates)
    double high = 0.0;
    int block = -1; // index into the view's block list
    int label = -1; // number drawn inside when wide enough; -1 = none
};

class TimelinePlottable : public QCPAbstractPlottable
{
    Q_OBJECT

public:
    TimelinePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);

    void setRects(QVector<TimelineRect> rects);
    const QVector<TimelineRect>& rects() const { return m_rects; }
    qsizetype rectCount() const { return m_rects.size(); }
    // A second brush drawn over the fill (e.g. a hatch pattern); Qt::NoBrush for none.
    void setOverlayBrush(const QBrush& brush) { m_overlay = brush; }
    // Index into rects() of the rectangle under `pixel`, or -1.
    qsizetype rectAt(const QPointF& pixel) const;

    double selectTest(const QPointF& pos, bool onlySelectable,
                      QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange,
                         QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    QRectF pixelRect(const TimelineRect& r) const;
    QFont labelFont() const;
    void drawLabels(QCPPainter* painter, const QVector<std::pair<QRectF, int>>& labels) const;

    QVector<TimelineRect> m_rects;
    QBrush m_overlay = Qt::NoBrush;
};

} // namespace archipelago::views
