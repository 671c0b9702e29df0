#include "plots/plotexport.h"

#include "plots/plotstyle.h"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QScopeGuard>
#include <QSvgGenerator>

namespace archipelago::views {

namespace {

QSize exportSize(const QCustomPlot* plot, QSize size)
{
    if (size.isValid() && !size.isEmpty())
        return size;
    // A widget that was never shown still has Qt's default 640x480 or less: use a size that
    // gives readable labels instead.
    if (plot->testAttribute(Qt::WA_WState_Created) && plot->isVisible() && plot->width() > 100 &&
        plot->height() > 100)
        return plot->size();
    return QSize(800, 500);
}

bool saveSvg(QCustomPlot* plot, const QString& path, QSize size)
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(plot->objectName());
    generator.setDescription(QStringLiteral("Archipelago plot"));
    QCPPainter painter;
    if (!painter.begin(&generator))
        return false;
    plot->toPainter(&painter, size.width(), size.height());
    return painter.end() && QFileInfo(path).size() > 0;
}

} // namespace

bool exportPlot(QCustomPlot* plot, const QString& path, QSize size, QString* error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QSize s = exportSize(plot, size);
    // Fit the category labels to the export size, then back to the widget's.
    const QRect widgetViewport = plot->viewport();
    fitCategoryLabelsTo(plot, s);
    const auto restore = qScopeGuard([&] { fitCategoryLabelsTo(plot, widgetViewport.size()); });
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = plot->savePng(path, s.width(), s.height(), 2.0);
    } else if (suffix == QLatin1String("pdf")) {
        ok = plot->savePdf(path, s.width(), s.height(), QCP::epNoCosmetic,
                           QStringLiteral("Archipelago"), plot->objectName());
    } else if (suffix == QLatin1String("svg")) {
        ok = saveSvg(plot, path, s);
    } else {
        if (error)
            *error = QStringLiteral("%1: unknown format \"%2\" (expected .png, .svg or .pdf)")
                         .arg(path, suffix);
        return false;
    }
    if (!ok && error)
        *error = QStringLiteral("%1: could not write the file").arg(path);
    return ok;
}

void exportPlotInteractively(QCustomPlot* plot, QWidget* parent, const QString& suggestedName)
{
    const QString png = QStringLiteral("PNG image (*.png)");
    const QString svg = QStringLiteral("SVG vector image (*.svg)");
    const QString pdf = QStringLiteral("PDF document (*.pdf)");
    QString filter = png;
    QString path = QFileDialog::getSaveFileName(parent, QStringLiteral("Export plot"),
                                                suggestedName + QStringLiteral(".png"),
                                                QStringList{png, svg, pdf}.join(";;"), &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter == svg ? ".svg" : filter == pdf ? ".pdf" : ".png";
    QString error;
    if (!exportPlot(plot, path, {}, &error))
        QMessageBox::warning(parent, QStringLiteral("Export plot"), error);
}

} // namespace archipelago::views
