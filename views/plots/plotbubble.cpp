#include "plots/plotbubble.h"

#include "common/format.h"
#include "common/scenariotext.h"
#include "model/scheduletraits.h"
#include "plots/plotstyle.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace archipelago::views {

namespace {
constexpr double kBarWidth = 0.6;
const QColor kBubbleColor(0x79, 0x70, 0x6e);
const QColor kIdleColor(0xba, 0xb0, 0xac);

QString scheduleSummary(const core::Scenario& s)
{
    QString text =
        QStringLiteral("%1, p=%2").arg(scheduleName(s.schedule.kind)).arg(s.parallelism.pp);
    if (s.parallelism.virtualStages > 1)
        text += QStringLiteral(", v=%1").arg(s.parallelism.virtualStages);
    const std::int64_t m = core::dataParallel(s) > 0 ? core::microBatchesPerIteration(s) : 0;
    if (m > 0)
        text += QStringLiteral(", m=%1").arg(m);
    return text;
}

// A short dash as scatter shape: the ideal value as a tick across the idle / compute bar.
QCPScatterStyle idealMarker(const QColor& color)
{
    QPainterPath dash;
    dash.moveTo(-1.0, 0.0);
    dash.lineTo(1.0, 0.0);
    QCPScatterStyle style(dash, QPen(color, 2.5), Qt::NoBrush, 16);
    return style;
}
} // namespace

std::optional<double> idealIdleOverCompute(const core::Scenario& s)
{
    const core::ScheduleTraits& traits = core::scheduleTraits(s.schedule.kind);
    if (traits.splitsWeightGrad || s.schedule.kind == core::ScheduleKind::DualPipe)
        return std::nullopt;
    if (s.parallelism.pp < 1 || core::dataParallel(s) <= 0)
        return std::nullopt;
    const std::int64_t m = core::microBatchesPerIteration(s);
    if (m <= 0)
        return std::nullopt;
    const int v = traits.interleaved ? std::max(1, s.parallelism.virtualStages) : 1;
    return static_cast<double>(s.parallelism.pp - 1) /
           (static_cast<double>(v) * static_cast<double>(m));
}

BubblePlot::BubblePlot(QWidget* parent)
    : PlotWidget(QStringLiteral("Pipeline bubble"), QStringLiteral("Percent (%)"), 1, parent)
{
    setDesignPoints({});
}

void BubblePlot::setDesignPoints(const QList<EvaluatedDesign>& pinned,
                                 const EvaluatedDesign& current)
{
    setDesignPoints(orderedDesignPoints(pinned, current));
}

void BubblePlot::setDesignPoints(const QList<EvaluatedDesign>& points)
{
    QCustomPlot* plot = customPlot();
    plot->clearPlottables();
    plot->clearItems();
    m_names.clear();
    m_schedules.clear();
    m_bubble.clear();
    m_idle.clear();
    m_ideal.clear();
    m_outOfMemory.clear();
    m_bubbleLabels.clear();

    setDesignPointCategories(plot, points);
    m_names = designPointNames(points);

    QVector<double> keys;
    for (qsizetype i = 0; i < points.size(); ++i) {
        const core::Evaluation& e = points[i].evaluation;
        keys.append(static_cast<double>(i));
        m_bubble.append(e.ok ? 100.0 * e.bubbleRatio : 0.0);
        m_idle.append(e.ok ? 100.0 * e.idleOverCompute : 0.0);
        const std::optional<double> ideal = idealIdleOverCompute(points[i].scenario);
        m_ideal.append(ideal ? std::optional<double>(100.0 * *ideal) : std::nullopt);
        m_outOfMemory.append(isOutOfMemory(points[i]));
        m_schedules.append(scheduleSummary(points[i].scenario));
    }

    // Two bars side by side per point: the bubble ratio (the figure every view shows) and the
    // simulated idle over compute, the form papers quote their bubble in.
    if (!m_group) {
        m_group = new QCPBarsGroup(plot);
        m_group->setSpacingType(QCPBarsGroup::stAbsolute);
        m_group->setSpacing(2);
    }
    // The scale is the bubble ratio's (at most 100 %) and idle / compute up to 100 %: idle /
    // compute grows without bound as micro-batches get few (p - 1 over m), and a 300 % bar
    // would flatten the ratio beside it. Taller bars are cut at the top of the axis and
    // labelled with their value and an arrow up.
    double top = 0.0;
    for (qsizetype i = 0; i < points.size(); ++i)
        top = std::max({top, m_bubble[i], std::min(m_idle[i], 100.0),
                        std::min(m_ideal[i].value_or(0.0), 100.0)});
    const double axisTop = top > 0.0 ? top * 1.25 : 10.0;
    const double barTop = axisTop / 1.12; // room for the label above a cut bar
    const auto addSeries = [&](const QString& name, const QColor& color,
                               const QList<double>& values, double offset) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(name);
        bars->setWidth(kBarWidth / 2);
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(125), 0.8));
        QVector<double> shown;
        for (double v : values)
            shown.append(std::min(v, barTop));
        bars->setData(keys, shown, true);
        bars->setBarsGroup(m_group);
        QStringList texts;
        for (qsizetype i = 0; i < points.size(); ++i) {
            // The bubble ratio through formatBubbleRatio, as in the summary and the table.
            const QString text = !points[i].evaluation.ok ? QStringLiteral("n/a")
                                 : offset < 0.0
                                     ? formatBubbleRatio(points[i].evaluation.bubbleRatio)
                                     : formatPercent(points[i].evaluation.idleOverCompute, 1);
            texts.append(text);
            if (values[i] <= barTop) {
                addBarLabel(plot, static_cast<double>(i) + offset, shown[i], text, 0.48);
                continue;
            }
            // A cut bar: its value written up the bar, inside it, so that it takes no height
            // above the axis.
            auto* label = new QCPItemText(plot);
            label->position->setType(QCPItemPosition::ptPlotCoords);
            label->position->setCoords(static_cast<double>(i) + offset, shown[i]);
            label->setRotation(-90.0);
            label->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
            label->setPadding(QMargins(0, 0, 4, 0));
            label->setText(text + QStringLiteral(" →")); // drawn upright: an arrow up
            QFont font = plot->font();
            font.setPointSizeF(font.pointSizeF() - 1.0);
            label->setFont(font);
            label->setColor(QColor(0x20, 0x20, 0x20)); // on the light bar, in either theme
            label->setSelectable(false);
            label->setLayer(QStringLiteral("axes"));
        }
        return texts;
    };
    m_bubbleLabels = addSeries(bubbleRatioName() + QStringLiteral(" (idle ÷ makespan)"),
                               kBubbleColor, m_bubble, -kBarWidth / 4);
    addSeries(idleOverComputeName(), kIdleColor, m_idle, kBarWidth / 4);

    // The ideal as a reference tick on the idle / compute bar, never as a bar of its own.
    QVector<double> idealKeys, idealValues;
    for (qsizetype i = 0; i < points.size(); ++i)
        if (m_ideal[i] && points[i].evaluation.ok && *m_ideal[i] <= barTop) {
            idealKeys.append(static_cast<double>(i) + kBarWidth / 4);
            idealValues.append(*m_ideal[i]);
        }
    if (!idealKeys.isEmpty()) {
        auto* ideal = new QCPGraph(plot->xAxis, plot->yAxis);
        ideal->setName(QStringLiteral("Ideal (p−1)/m or (p−1)/(v·m)"));
        ideal->setLineStyle(QCPGraph::lsNone);
        ideal->setScatterStyle(idealMarker(QColor(0x1f, 0x77, 0xb4)));
        ideal->setData(idealKeys, idealValues, true);
        ideal->setSelectable(QCP::stNone);
    }

    QList<double> tops;
    for (qsizetype i = 0; i < points.size(); ++i)
        tops.append(std::min(std::max(m_bubble[i], m_idle[i]), barTop));
    markOutOfMemory(plot, points, tops, kBarWidth);
    plot->yAxis->setRange(0.0, axisTop);
    requestReplot();
}

QString BubblePlot::toolTipAt(const QPoint& pixel) const
{
    const QCustomPlot* plot = customPlot();
    if (!plot->axisRect()->rect().contains(pixel))
        return {};
    const double key = plot->xAxis->pixelToCoord(pixel.x());
    const auto i = static_cast<qsizetype>(std::lround(key));
    if (i < 0 || i >= m_names.size() || std::abs(key - static_cast<double>(i)) > 0.5)
        return {};
    QString text =
        QStringLiteral("%1 (%2)\n%3: %4\n%5: %6")
            .arg(m_names[i], m_schedules[i], bubbleRatioName(), m_bubbleLabels.value(i),
                 idleOverComputeName(), formatSignificant(m_idle[i]) + QStringLiteral(" %"));
    if (m_ideal[i])
        text += QStringLiteral("\nideal (p−1)/m: %1 %").arg(formatSignificant(*m_ideal[i]));
    if (m_outOfMemory.value(i))
        text += QStringLiteral("\nOUT OF MEMORY: this design point does not fit in HBM");
    text += QStringLiteral("\n\n") + bubbleRatioToolTip() + QStringLiteral("\n") +
            idleOverComputeToolTip();
    return text;
}

} // namespace archipelago::views
