// Shared look of the plots: one colour per breakdown part, goodput part, BOM category and
// timeline block kind (the same quantity has the same colour in every plot and in exports),
// number formatting with fixed units, and the frame every plot uses (title, value axis label,
// legend below the bars, design points as categories on the x axis with a swatch of their
// colour).
#pragma once

#include "common/evaluateddesign.h"

#include <QColor>
#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>

class QCPItemText;
class QCustomPlot;
class QPalette;
class QPoint;

namespace archipelago::views {

// One part of core::Breakdown, in the order the stacked bars draw them (bottom first).
struct BreakdownPart
{
    QString name; // "DP comm"
    QColor color;
    double core::Breakdown::*seconds;
};
const QList<BreakdownPart>& breakdownParts();

// One part of the run's wall time (core::Goodput), in the order the stacked bars draw them
// (bottom first). The parts of the list sum to core::Goodput::effectiveTimeToTrainS: a new part
// of the wall time is one more entry here, and the goodput plot and the report follow.
struct GoodputPart
{
    QString name; // "Lost work"
    QColor color;
    double core::Goodput::*seconds;
};
const QList<GoodputPart>& goodputParts();

// BOM categories in drawing order: the known ones first, in the order of the fabric
// (switch, nic, optic, cable, dci-optic, amplifier, line-system), then the rest sorted.
QStringList orderedBomCategories(const QStringList& categories);
QColor bomCategoryColor(const QString& category);
QString bomCategoryLabel(const QString& category); // "dci-optic" -> "DCI optics"

// "0.412", "12.3", "1,234" (never exponent notation): `significant` digits, at least 0 decimals.
QString formatSignificant(double value, int significant = 3);

// Title row on top, value-axis label, legend in its own row below the axis rect (never over
// the bars), wrapped into `legendColumns` columns.
void setupPlotFrame(QCustomPlot* plot, const QString& title, const QString& valueAxisLabel,
                    int legendColumns);
// Full names of the points as the plots show them ("point 3" for an unnamed one).
QStringList designPointNames(const QList<EvaluatedDesign>& points);
// Design points as x categories 0..n-1: names as tick labels and a swatch of each point's
// colour under its bar. Call after QCustomPlot::clearItems() when rebuilding.
void setDesignPointCategories(QCustomPlot* plot, const QList<EvaluatedDesign>& points);
// Fits the category labels to the plot's current width (wrapped at '-', '_' or ' ', elided in
// the middle as a last resort) and hides bar labels wider than their bar. Connected to
// QCustomPlot::beforeReplot, so a resize re-decides; hover tooltips keep the full text.
void fitCategoryLabels(QCustomPlot* plot);
// The axis rect's height changed since fitCategoryLabels made room for the value labels (a
// replot that laid out new tick labels): fit again, or a label near the top is clipped.
bool categoryLabelsNeedRefit(const QCustomPlot* plot);
// For a drawing at `size` (an export, a report figure): the viewport set to it and the labels
// fitted until the layout they lead to settles.
void fitCategoryLabelsTo(QCustomPlot* plot, QSize size);
// Text above a bar at (key, value) in plot coordinates, e.g. "1.23 s"; hidden when wider than
// `keySpan` (in key units) at the current zoom.
QCPItemText* addBarLabel(QCustomPlot* plot, double key, double value, const QString& text,
                         double keySpan);
// A design point the model evaluated that does not fit in HBM: plotted, but never like a valid
// one (markOutOfMemory).
bool isOutOfMemory(const EvaluatedDesign& point);
// Marks each out-of-memory point of `points`: its bars from 0 to `tops[i]` (`barWidth` wide,
// in key units) washed out grey and hatched red, "OOM" on top of the plot area above them, and
// one legend entry "Out of memory". Call after the bars, so the overlay is drawn over them.
void markOutOfMemory(QCustomPlot* plot, const QList<EvaluatedDesign>& points,
                     const QList<double>& tops, double barWidth);
int outOfMemoryMarks(const QCustomPlot* plot); // for tests: the hatched overlays drawn
// The full name of the category under a tick label at `pixel` (below the axis rect); empty
// elsewhere. Tick labels may be wrapped, rotated or elided; their tooltip is never.
QString categoryToolTipAt(const QCustomPlot* plot, const QPoint& pixel);
// Background, axes, grid and text follow the widget palette (light and dark themes).
void applyPlotPalette(QCustomPlot* plot, const QPalette& palette);

} // namespace archipelago::views
