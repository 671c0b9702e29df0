#include "plotbubble.h"

#include "plotstyle.h"
#include "scenariotext.h"

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
    const std::int64_t m = core::microBatchesPerIteration(s);
    if (m > 0)
        text += QStringLiteral(", m=%1").arg(m);
    return text;
}
} // namespace

BubblePlot::BubblePlot(QWidget* parent)
    : PlotWidget(QStringLiteral("Pipeline bubble"), QStringLiteral("Bubble ratio (%)"), 1, parent)
{
    setDesignPoints({});
}

void BubblePlot::setDesignPoints(const QList<DesignPoint>& pinned, const DesignPoint& current)
{
    setDesignPoints(orderedDesignPoints(pinned, current));
}

void BubblePlot::setDesignPoints(const QList<DesignPoint>& points)
{
    QCustomPlot* plot = customPlot();
    plot->clearPlottables();
    plot->clearItems();
    m_names.clear();
    m_schedules.clear();
    m_bubble.clear();
    m_idle.clear();

    setDesignPointCategories(plot, points);
    m_names = designPointNames(points);

    QVector<double> keys;
    for (qsizetype i = 0; i < points.size(); ++i) {
        const core::Evaluation& e = points[i].evaluation;
        keys.append(static_cast<double>(i));
        m_bubble.append(e.ok ? 100.0 * e.bubbleRatio : 0.0);
        m_idle.append(e.ok ? 100.0 * e.idleOverCompute : 0.0);
        m_schedules.append(scheduleSummary(points[i].scenario));
    }

    // Two bars side by side per point: the ratio the breakdown's bubble part comes from and
    // the idle-over-compute figure papers quote ((p-1)/m for 1F1B, Narayanan et al. 2021).
    if (!m_group) {
        m_group = new QCPBarsGroup(plot);
        m_group->setSpacingType(QCPBarsGroup::stAbsolute);
        m_group->setSpacing(2);
    }
    const auto addSeries = [&](const QString& name, const QColor& color,
                               const QList<double>& values, double offset) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(name);
        bars->setWidth(kBarWidth / 2);
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(125), 0.8));
        bars->setData(keys, QVector<double>(values.begin(), values.end()), true);
        bars->setBarsGroup(m_group);
        for (qsizetype i = 0; i < points.size(); ++i) {
            const QString text = points[i].evaluation.ok
                                     ? formatSignificant(values[i], 3) + QStringLiteral(" %")
                                     : QStringLiteral("n/a");
            addBarLabel(plot, static_cast<double>(i) + offset, values[i], text, 0.5);
        }
    };
    addSeries(QStringLiteral("Bubble ratio (idle / makespan)"), kBubbleColor, m_bubble,
              -kBarWidth / 4);
    addSeries(QStringLiteral("Idle / compute (Megatron (p−1)/m)"), kIdleColor, m_idle,
              kBarWidth / 4);

    double top = 0.0;
    for (qsizetype i = 0; i < points.size(); ++i)
        top = std::max({top, m_bubble[i], m_idle[i]});
    plot->yAxis->setRange(0.0, top > 0.0 ? top * 1.2 : 10.0);
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
    return QStringLiteral("%1: bubble ratio %2 % (idle / makespan)\nidle / compute %3 %\n%4")
        .arg(m_names[i], formatSignificant(m_bubble[i]), formatSignificant(m_idle[i]),
             m_schedules[i]);
}

} // namespace archipelago::views
