#include "plots/timelineview.h"

#include "common/format.h"

#include "common/scenariotext.h"
#include "plots/plotstyle.h"
#include "plots/timelineplottable.h"

#include <QHash>
#include <QMenu>

#include <algorithm>

namespace archipelago::views {

namespace {
constexpr double kBlockHalfHeight = 0.36; // of a rank row (1.0)
constexpr double kSendHalfHeight = 0.10;  // sends sit in the gap between two rows

struct LayerStyle
{
    const char* name;
    QColor color;
};

// Forward and backward use the breakdown's colours (plotstyle), sends the PP-comm red.
const LayerStyle kLayerStyles[] = {
    {"Forward", QColor(0x4e, 0x79, 0xa7)},
    {"Backward", QColor(0x59, 0xa1, 0x4f)},
    {"Weight gradient", QColor(0xb6, 0x99, 0x2d)},
    {"Send (within a datacenter)", QColor(0x79, 0x70, 0x6e)},
    {"Send across DCI", QColor(0xe1, 0x57, 0x59)},
};

const char* kindName(core::BlockKind kind)
{
    switch (kind) {
    case core::BlockKind::Forward:
        return "forward";
    case core::BlockKind::Backward:
        return "backward";
    case core::BlockKind::WeightGrad:
        return "weight gradient";
    case core::BlockKind::Send:
        return "send";
    }
    return "";
}
} // namespace

TimelineView::TimelineView(QWidget* parent)
    : PlotWidget(QStringLiteral("Pipeline timeline"), QStringLiteral("Pipeline rank"), LayerCount,
                 parent)
{
    QCustomPlot* plot = customPlot();
    for (int i = 0; i < LayerCount; ++i) {
        auto* layer = new TimelinePlottable(plot->xAxis, plot->yAxis);
        layer->setName(QLatin1String(kLayerStyles[i].name));
        layer->setBrush(kLayerStyles[i].color);
        layer->setPen(QPen(kLayerStyles[i].color.darker(140), 0.8));
        m_layers[static_cast<std::size_t>(i)] = layer;
    }
    m_layers[DciSendLayer]->setOverlayBrush(QBrush(QColor(0x7a, 0x10, 0x10), Qt::BDiagPattern));
    plot->yAxis->setRangeReversed(true); // rank 0 on top, as in the schedule papers
    plot->yAxis->grid()->setVisible(false);
    plot->yAxis->setSubTicks(false);
    plot->xAxis->setTickLength(0, 4);
    plot->xAxis->setTickLabelPadding(4);
    plot->xAxis->grid()->setVisible(true);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &TimelineView::clampKeyRange);
    setDesignPoint({});
}

void TimelineView::setDesignPoint(const EvaluatedDesign& point)
{
    m_blocks = point.evaluation.timeline;
    // The bubble ratio of the evaluation (the same figure as the summary and the plots), not
    // one recomputed from the drawn blocks: the timeline is one representative pipeline.
    m_bubbleText = point.evaluation.ok && !m_blocks.empty()
                       ? formatBubbleRatio(point.evaluation.bubbleRatio)
                       : QString();
    rebuild(scheduleName(point.scenario.schedule.kind));
}

void TimelineView::rebuild(const QString& schedule)
{
    // The direction of a send is that of the compute block it follows on the same rank,
    // chunk and micro-batch: after a forward it carries activations to the next stage, after a
    // backward gradients to the previous one.
    QHash<quint64, core::BlockKind> lastCompute;
    std::vector<std::size_t> order(m_blocks.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
        return m_blocks[a].startS < m_blocks[b].startS;
    });
    m_forwardSend.assign(m_blocks.size(), false);
    int ranks = 0, chunks = 0, microBatches = 0;
    m_makespanS = 0.0;
    for (const std::size_t i : order) {
        const core::TimelineBlock& b = m_blocks[i];
        const quint64 key = (quint64(quint32(b.stage)) << 40) | (quint64(quint32(b.chunk)) << 24) |
                            quint64(quint32(b.microBatch));
        if (b.kind == core::BlockKind::Send)
            m_forwardSend[i] =
                lastCompute.value(key, core::BlockKind::Forward) == core::BlockKind::Forward;
        else
            lastCompute.insert(key, b.kind);
        ranks = std::max(ranks, b.stage + 1);
        chunks = std::max(chunks, b.chunk + 1);
        microBatches = std::max(microBatches, b.microBatch + 1);
        m_makespanS = std::max(m_makespanS, b.endS);
    }
    m_ranks = ranks;
    m_chunks = chunks;
    m_scale = m_makespanS >= 1.0 ? 1.0 : 1e3;
    m_unit = m_makespanS >= 1.0 ? QStringLiteral("s") : QStringLiteral("ms");

    std::array<QVector<TimelineRect>, LayerCount> rects;
    for (std::size_t i = 0; i < m_blocks.size(); ++i) {
        const core::TimelineBlock& b = m_blocks[i];
        TimelineRect r{b.startS * m_scale, b.endS * m_scale, 0.0, 0.0, static_cast<int>(i), -1};
        int layer = ForwardLayer;
        if (b.kind == core::BlockKind::Send) {
            const double centre = b.stage + (m_forwardSend[i] ? 0.5 : -0.5);
            r.low = centre - kSendHalfHeight;
            r.high = centre + kSendHalfHeight;
            layer = b.crossesDci ? DciSendLayer : SendLayer;
        } else {
            r.low = b.stage - kBlockHalfHeight;
            r.high = b.stage + kBlockHalfHeight;
            r.label = b.microBatch;
            layer = b.kind == core::BlockKind::Forward    ? ForwardLayer
                    : b.kind == core::BlockKind::Backward ? BackwardLayer
                                                          : WeightGradLayer;
        }
        rects[static_cast<std::size_t>(layer)].append(r);
    }

    QCustomPlot* plot = customPlot();
    plot->legend->clearItems();
    for (int i = 0; i < LayerCount; ++i) {
        TimelinePlottable* layer = m_layers[static_cast<std::size_t>(i)];
        layer->setRects(rects[static_cast<std::size_t>(i)]);
        if (layer->rectCount() > 0)
            layer->addToLegend();
    }

    QString title = QStringLiteral("Pipeline timeline — %1, p=%2").arg(schedule).arg(ranks);
    if (chunks > 1)
        title += QStringLiteral(", v=%1").arg(chunks);
    title += QStringLiteral(", m=%1").arg(microBatches);
    if (!m_bubbleText.isEmpty())
        title += QStringLiteral(" · %1 %2").arg(bubbleRatioName(), m_bubbleText);
    setTitle(m_blocks.empty() ? QStringLiteral("Pipeline timeline — no timeline") : title);
    plot->xAxis->setLabel(QStringLiteral("Time (%1)").arg(m_unit));

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int step = std::max(1, (ranks + 15) / 16); // at most ~16 rank labels
    for (int r = 0; r < ranks; r += step)
        ticker->addTick(r, QString::number(r));
    plot->yAxis->setTicker(ticker);
    plot->yAxis->setRange(-0.75, std::max(1, ranks) - 0.25);
    resetView();
}

void TimelineView::resetView()
{
    const double end = m_makespanS > 0.0 ? m_makespanS * m_scale : 1.0;
    customPlot()->xAxis->setRange(0.0, end * 1.01);
    requestReplot();
}

void TimelineView::clampKeyRange()
{
    // Keep the view on the makespan: never pan into negative time or far past the end.
    QCPAxis* axis = customPlot()->xAxis;
    const double end = (m_makespanS > 0.0 ? m_makespanS * m_scale : 1.0) * 1.01;
    QCPRange range = axis->range();
    const double size = std::min(range.size(), end);
    if (range.lower < 0.0)
        range = QCPRange(0.0, size);
    if (range.upper > end)
        range = QCPRange(end - size, end);
    if (range != axis->range())
        axis->setRange(range);
}

void TimelineView::addContextMenuActions(QMenu* menu)
{
    menu->addAction(QStringLiteral("Reset zoom"), this, &TimelineView::resetView);
}

qsizetype TimelineView::drawnBlocks(core::BlockKind kind) const
{
    switch (kind) {
    case core::BlockKind::Forward:
        return m_layers[ForwardLayer]->rectCount();
    case core::BlockKind::Backward:
        return m_layers[BackwardLayer]->rectCount();
    case core::BlockKind::WeightGrad:
        return m_layers[WeightGradLayer]->rectCount();
    case core::BlockKind::Send:
        return m_layers[SendLayer]->rectCount() + m_layers[DciSendLayer]->rectCount();
    }
    return 0;
}

qsizetype TimelineView::drawnDciSends() const
{
    return m_layers[DciSendLayer]->rectCount();
}

QString TimelineView::describe(const core::TimelineBlock& b, bool forwardSend) const
{
    const auto time = [this](double s) { return formatSignificant(s * m_scale, 4); };
    QString rank = QStringLiteral("rank %1").arg(b.stage);
    if (b.kind == core::BlockKind::Send) {
        const int to = forwardSend ? (b.stage + 1) % m_ranks : (b.stage + m_ranks - 1) % m_ranks;
        rank = QStringLiteral("rank %1 → %2").arg(b.stage).arg(to);
    }
    if (m_chunks > 1)
        rank += QStringLiteral(", chunk %1").arg(b.chunk);
    QString what = QLatin1String(kindName(b.kind));
    if (b.kind == core::BlockKind::Send)
        what = QStringLiteral("send %1%2")
                   .arg(forwardSend ? QStringLiteral("activations") : QStringLiteral("gradients"),
                        b.crossesDci ? QStringLiteral(" across DCI") : QString());
    return QStringLiteral("%1, micro-batch %2, %3, %4 %5 (%6 – %7 %5)")
        .arg(rank)
        .arg(b.microBatch)
        .arg(what, time(b.endS - b.startS), m_unit, time(b.startS), time(b.endS));
}

QString TimelineView::toolTipAt(const QPoint& pixel) const
{
    if (!customPlot()->axisRect()->rect().contains(pixel))
        return {};
    // Sends are on top of the compute rows' gaps: look them up first.
    for (int i = LayerCount - 1; i >= 0; --i) {
        const TimelinePlottable* layer = m_layers[static_cast<std::size_t>(i)];
        const qsizetype hit = layer->rectAt(pixel);
        if (hit >= 0) {
            const auto block = static_cast<std::size_t>(layer->rects()[hit].block);
            return describe(m_blocks[block], m_forwardSend[block]);
        }
    }
    return {};
}

} // namespace archipelago::views
