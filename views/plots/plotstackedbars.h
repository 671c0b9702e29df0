// Stacked bars, one stack per design point: the shared part of the iteration-time breakdown and
// the network-cost plots (series, stacking order, labels above the stacks, hover lookup).
#pragma once

#include "common/evaluateddesign.h"
#include "plots/plotwidget.h"

#include <QColor>
#include <QList>
#include <QStringList>

namespace archipelago::views {

// One layer of the stacks: its value per design point, in the plot's unit.
struct StackSeries
{
    QString name;
    QColor color;
    QList<double> values;
};

class StackedBarPlot : public PlotWidget
{
    Q_OBJECT

public:
    using PlotWidget::PlotWidget;

    QString toolTipAt(const QPoint& pixel) const override;
    // Names on the x axis, one per design point, in drawing order.
    QStringList categories() const { return m_names; }
    // Sum of the drawn layers per design point.
    QList<double> stackTotals() const;

protected:
    // Rebuilds the plot: one QCPBars per series with a non-zero value (bottom first), design
    // points as categories, `barLabels` above the stacks and `notes` appended to the hover
    // text of each point (may be empty). `unit` follows every value in tooltips ("s").
    void setStacks(const QList<EvaluatedDesign>& points, const QList<StackSeries>& series,
                   const QString& unit, const QStringList& barLabels, const QStringList& notes);

private:
    QStringList m_names;
    QList<StackSeries> m_series;
    QStringList m_notes;
    QList<bool> m_outOfMemory;
    QString m_unit;
};

} // namespace archipelago::views
