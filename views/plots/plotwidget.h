// Base of every plot widget: owns one QCustomPlot with the shared frame (title, value-axis
// label, legend below), shows a tooltip with values and units on hover, and offers
// "Export…" (PNG, SVG, PDF) in its context menu. Subclasses rebuild the plottables from core
// data and answer toolTipAt().
#pragma once

#include <QSize>
#include <QString>
#include <QWidget>

class QCustomPlot;
class QMenu;
class QMouseEvent;
class QShowEvent;

namespace archipelago::views {

class PlotWidget : public QWidget
{
    Q_OBJECT

public:
    PlotWidget(const QString& title, const QString& valueAxisLabel, int legendColumns,
               QWidget* parent = nullptr);
    ~PlotWidget() override;

    QCustomPlot* customPlot() const { return m_plot; }
    QString title() const { return m_title; }
    // The tooltip for a point in plot-widget pixels ("dc-west: DP comm 0.412 s"); empty when
    // nothing is under it.
    virtual QString toolTipAt(const QPoint& pixel) const = 0;
    // Export to .png, .svg or .pdf (see exportPlot).
    bool exportTo(const QString& path, QSize size = {}, QString* error = nullptr) const;

protected:
    void setTitle(const QString& title);
    // Redraw on the next event-loop turn (STYLE.md: rpQueuedReplot coalesces bursts); a plot
    // nobody sees (a tab behind another, a hidden dock) redraws when it is shown instead.
    void requestReplot();
    // Extra context-menu entries before "Export…".
    virtual void addContextMenuActions(QMenu* menu);
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void onMouseMove(QMouseEvent* event);
    void showContextMenu(const QPoint& pos);

    QCustomPlot* m_plot = nullptr;
    QString m_title;
    int m_refits = 0;               // replots in a row made because the axis rect's height moved
    bool m_replotWhenShown = false; // a replot was asked for while hidden
};

} // namespace archipelago::views
