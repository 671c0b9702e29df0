// Export of a plot to PNG, SVG or PDF, chosen by the file suffix. Used by every plot's
// "Export…" context menu and by the report renderer (offscreen, no display needed).
#pragma once

#include <QSize>
#include <QString>

class QCustomPlot;
class QWidget;

namespace archipelago::views {

// Writes `plot` to `path` (.png, .svg or .pdf, case-insensitive) at `size` in device-independent
// pixels (the widget's size when empty; 800x500 when the widget has never been laid out).
// PNG is rendered at twice that resolution for high-DPI displays and print. Returns false and
// sets `error` (when given) on an unknown suffix or a write failure.
bool exportPlot(QCustomPlot* plot, const QString& path, QSize size = {}, QString* error = nullptr);

// File dialog (PNG, SVG, PDF) named after `suggestedName`, then exportPlot; reports failures
// in a message box. For the context menus.
void exportPlotInteractively(QCustomPlot* plot, QWidget* parent, const QString& suggestedName);

} // namespace archipelago::views
