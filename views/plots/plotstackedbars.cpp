#include "plots/plotstackedbars.h"

#include "plots/plotstyle.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace archipelago::views {

namespace {
constexpr double kBarWidth = 0.6;
constexpr double kHeadroom = 1.18; // room for the labels above the tallest stack
} // namespace

QList<double> StackedBarPlot::stackTotals() const
{
    QList<double> totals(m_names.size(), 0.0);
    for (const StackSeries& s : m_series) {
        for (qsizetype i = 0; i < totals.size() && i < s.values.size(); ++i)
            totals[i] += s.values[i];
    }
    return totals;
}

void StackedBarPlot::setStacks(const QList<EvaluatedDesign>& points,
                               const QList<StackSeries>& series, const QString& unit,
                               const QStringList& barLabels, const QStringList& notes)
{
    QCustomPlot* plot = customPlot();
    plot->clearPlottables();
    plot->clearItems();
    m_names.clear();
    m_series.clear();
    m_notes = notes;
    m_unit = unit;

    setDesignPointCategories(plot, points);
    m_names = designPointNames(points);
    m_outOfMemory.clear();
    for (const EvaluatedDesign& p : points)
        m_outOfMemory.append(isOutOfMemory(p));

    QVector<double> keys;
    for (qsizetype i = 0; i < points.size(); ++i)
        keys.append(static_cast<double>(i));

    QCPBars* below = nullptr;
    for (const StackSeries& s : series) {
        const bool drawn = std::any_of(s.values.begin(), s.values.end(),
                                       [](double v) { return std::isfinite(v) && v > 0.0; });
        if (!drawn)
            continue; // keeps the legend to the parts that matter for these points
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(s.name);
        bars->setWidth(kBarWidth);
        bars->setStackingGap(0);
        bars->setBrush(s.color);
        bars->setPen(QPen(s.color.darker(125), 0.8));
        QVector<double> values(keys.size(), 0.0);
        for (qsizetype i = 0; i < values.size() && i < s.values.size(); ++i)
            values[i] = std::isfinite(s.values[i]) ? std::max(0.0, s.values[i]) : 0.0;
        bars->setData(keys, values, true);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_series.append(s);
        m_series.last().values = values;
    }

    const QList<double> totals = stackTotals();
    const double top = totals.isEmpty() ? 0.0 : *std::max_element(totals.begin(), totals.end());
    for (qsizetype i = 0; i < totals.size() && i < barLabels.size(); ++i)
        addBarLabel(plot, static_cast<double>(i), totals[i], barLabels[i], 0.98);
    markOutOfMemory(plot, points, totals, kBarWidth);
    plot->yAxis->setRange(0.0, top > 0.0 ? top * kHeadroom : 1.0);
    requestReplot();
}

QString StackedBarPlot::toolTipAt(const QPoint& pixel) const
{
    const QCustomPlot* plot = customPlot();
    if (!plot->axisRect()->rect().contains(pixel))
        return {};
    const double key = plot->xAxis->pixelToCoord(pixel.x());
    const auto index = static_cast<qsizetype>(std::lround(key));
    if (index < 0 || index >= m_names.size() || std::abs(key - static_cast<double>(index)) > 0.5)
        return {};
    const double value = plot->yAxis->pixelToCoord(pixel.y());
    const double total = stackTotals()[index];
    QString note = index < m_notes.size() && !m_notes[index].isEmpty()
                       ? QStringLiteral("\n") + m_notes[index]
                       : QString();
    if (index < m_outOfMemory.size() && m_outOfMemory[index])
        note += QStringLiteral("\nOUT OF MEMORY: this design point does not fit in HBM");
    double base = 0.0;
    if (std::abs(key - static_cast<double>(index)) <= kBarWidth / 2) {
        for (const StackSeries& s : m_series) {
            const double v = s.values[index];
            if (v > 0.0 && value >= base && value < base + v) {
                const double share = total > 0.0 ? 100.0 * v / total : 0.0;
                return QStringLiteral("%1: %2 %3 %4 (%5 % of %6 %4)%7")
                    .arg(m_names[index], s.name, formatSignificant(v), m_unit,
                         formatSignificant(share, 2), formatSignificant(total), note);
            }
            base += v;
        }
    }
    return QStringLiteral("%1: total %2 %3%4")
        .arg(m_names[index], formatSignificant(total), m_unit, note);
}

} // namespace archipelago::views
