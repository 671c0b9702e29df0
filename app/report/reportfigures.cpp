// The report's drawings (reportfigures.h): views rendered offscreen into QPictures.
#include "report/reportfigures.h"

#include "layout/layoutviewcanvas.h"
#include "plots/plotbreakdown.h"
#include "plots/plotbubble.h"
#include "plots/plotgoodput.h"
#include "plots/plotnetworkcost.h"
#include "plots/plotstyle.h"
#include "topology/topologyscene.h"

#include "explore/sweepkeys.h"
#include "io/evaluationjson.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QPainter>
#include <QPicture>
#include <QStyle>
#include <QStyleFactory>

#include <memory>

namespace archipelago::report {

namespace {

// A QPicture replayed into `target`, scaled to fit it with the aspect ratio kept, centred.
ReportFigure pictureFigure(const QString& caption, QSizeF size, std::shared_ptr<QPicture> picture)
{
    ReportFigure f;
    f.caption = caption;
    f.size = size;
    f.paint = [picture, size](QPainter& p, const QRectF& target) {
        if (size.isEmpty() || target.isEmpty())
            return;
        const double s = std::min(target.width() / size.width(), target.height() / size.height());
        p.save();
        p.translate(target.x() + (target.width() - s * size.width()) / 2.0,
                    target.y() + (target.height() - s * size.height()) / 2.0);
        p.scale(s, s);
        p.setClipRect(QRectF(QPointF(0, 0), size));
        p.drawPicture(0, 0, *picture);
        p.restore();
    };
    return f;
}

// A QPicture at 96 dpi, the logical resolution the widgets are laid out for (the PDF writer and
// the SVG generator use the same), so text keeps its size relative to the drawing.
std::shared_ptr<QPicture> newPicture()
{
    return std::make_shared<QPicture>();
}

std::shared_ptr<QPicture> recordPlot(QCustomPlot* plot, QSize size)
{
    views::fitCategoryLabelsTo(plot, size);
    auto picture = newPicture();
    QCPPainter painter;
    if (painter.begin(picture.get())) {
        plot->toPainter(&painter, size.width(), size.height());
        painter.end();
    }
    return picture;
}

} // namespace

QPalette lightPalette()
{
    // Fusion's standard palette is light on every platform; the app's dark theme is never used
    // for a document that is printed.
    static const QPalette palette = [] {
        std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
        QPalette p = fusion ? fusion->standardPalette() : QPalette(Qt::white);
        p.setColor(QPalette::Window, Qt::white);
        p.setColor(QPalette::Base, Qt::white);
        return p;
    }();
    return palette;
}

ReportFigure topologyFigure(const core::Scenario& scenario)
{
    views::TopologyScene scene;
    scene.setPalette(lightPalette());
    scene.setTopology(scenario.topology, &scenario);
    scene.clearSelection();
    QRectF source = scene.itemsBoundingRect();
    if (source.isEmpty())
        source = QRectF(0, 0, 400, 200);
    source.adjust(-16, -16, 16, 16);
    auto picture = newPicture();
    {
        QPainter p(picture.get());
        p.setRenderHint(QPainter::Antialiasing);
        scene.render(&p, QRectF(QPointF(0, 0), source.size()), source, Qt::KeepAspectRatio);
    }
    return pictureFigure(QStringLiteral("Topology: datacenters, pods and DCI links"), source.size(),
                         picture);
}

ReportFigure layoutFigure(const core::Scenario& scenario, const core::Evaluation& evaluation)
{
    views::LayoutViewCanvas canvas;
    canvas.setAttribute(Qt::WA_DontShowOnScreen);
    canvas.setPalette(lightPalette());
    canvas.setAutoFillBackground(true);
    canvas.setScenario(scenario);
    canvas.setEvaluation(evaluation.ok ? &evaluation : nullptr);
    // Wide enough for the stage labels of a 16-stage pipeline in two datacenters; taller for
    // deeper pipelines so the bands keep their labels.
    const int pp = std::max(1, scenario.parallelism.pp);
    const QSize size(960, std::clamp(140 + 26 * pp, 420, 1100));
    canvas.resize(size);
    auto picture = newPicture();
    {
        QPainter p(picture.get());
        p.setRenderHint(QPainter::Antialiasing);
        canvas.render(&p, QPoint(), QRegion(), QWidget::DrawWindowBackground);
    }
    return pictureFigure(QStringLiteral("Parallelism layout: pipeline stages per datacenter"),
                         QSizeF(size), picture);
}

std::vector<ReportFigure> plotFigures(const QList<views::EvaluatedDesign>& points, QSize size)
{
    std::vector<ReportFigure> figures;
    auto add = [&]<typename Plot>() {
        Plot plot;
        plot.setPalette(lightPalette());
        plot.setDesignPoints(points);
        figures.push_back(pictureFigure(QString(), QSizeF(size), // the plot has its title
                                        recordPlot(plot.customPlot(), size)));
    };
    add.operator()<views::BreakdownPlot>();
    add.operator()<views::BubblePlot>();
    add.operator()<views::NetworkCostPlot>();
    add.operator()<views::GoodputPlot>();
    return figures;
}

namespace {

double number(const nlohmann::json& j, const char* a, const char* b = nullptr)
{
    const nlohmann::json* v = &j;
    for (const char* key : {a, b}) {
        if (!key)
            break;
        if (!v->is_object() || !v->contains(key))
            return 0.0;
        v = &(*v)[key];
    }
    return v->is_number() ? v->get<double>() : 0.0;
}

} // namespace

const QList<FrontAxes>& frontAxes()
{
    // The fronts of explore/sweep.h (frontaxis), first objective on y, second on x.
    using namespace core::sweepkeys;
    using core::evalkeys::kIterationTimeS;
    using core::evalkeys::kMemoryPeakGib;
    using core::evalkeys::kNetworkCapexUsd;
    using core::evalkeys::kTimeToTrainS;
    static const QList<FrontAxes> axes{
        {QString::fromLatin1(kTimeVsCapex), QStringLiteral("Iteration time vs network capex"),
         QStringLiteral("Network capex (M$)"), QStringLiteral("Iteration time (s)"),
         [](const nlohmann::json& p) { return number(p, kNetworkCapexUsd) / 1e6; },
         [](const nlohmann::json& p) { return number(p, kEvaluation, kIterationTimeS); }},
        {QString::fromLatin1(kTimeVsMemory), QStringLiteral("Iteration time vs memory peak"),
         QStringLiteral("Memory peak (GiB)"), QStringLiteral("Iteration time (s)"),
         [](const nlohmann::json& p) { return number(p, kEvaluation, kMemoryPeakGib); },
         [](const nlohmann::json& p) { return number(p, kEvaluation, kIterationTimeS); }},
        {QString::fromLatin1(kTrainTimeVsCost), QStringLiteral("Time to train vs total cost"),
         QStringLiteral("Total cost (M$)"), QStringLiteral("Time to train (days)"),
         [](const nlohmann::json& p) { return number(p, kTotalCostUsd) / 1e6; },
         [](const nlohmann::json& p) { return number(p, kEvaluation, kTimeToTrainS) / 86400.0; }},
    };
    return axes;
}

ReportFigure frontFigure(const FrontAxes& axes, const nlohmann::json& front,
                         const nlohmann::json& base)
{
    const QSize size(330, 330);
    QCustomPlot plot;
    plot.setPalette(lightPalette());
    views::setupPlotFrame(&plot, axes.title, axes.yLabel, 1);
    views::applyPlotPalette(&plot, lightPalette());
    plot.xAxis->setLabel(axes.xLabel);
    // setupPlotFrame styles a category axis; this x axis is a value axis.
    plot.xAxis->grid()->setVisible(true);
    plot.xAxis->setTickLength(0, 4);
    plot.xAxis->setTickLabelPadding(4);

    QVector<double> xs, ys;
    if (front.is_array())
        for (const nlohmann::json& p : front) {
            xs.append(axes.x(p));
            ys.append(axes.y(p));
        }
    QCPGraph* line = plot.addGraph();
    line->setName(QStringLiteral("Pareto front (%1 points)").arg(xs.size()));
    line->setLineStyle(QCPGraph::lsStepLeft);
    line->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 1.5));
    line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0x1f, 0x77, 0xb4),
                                          QColor(0x1f, 0x77, 0xb4), 7));
    line->setData(xs, ys); // sorted by x here: the front comes sorted by its first objective (y)
    if (base.is_object()) {
        QCPGraph* b = plot.addGraph();
        b->setName(QStringLiteral("Base scenario"));
        b->setLineStyle(QCPGraph::lsNone);
        b->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond,
                                           QPen(QColor(0xd6, 0x27, 0x28), 2.0), Qt::NoBrush, 11));
        b->setData(QVector<double>{axes.x(base)}, QVector<double>{axes.y(base)});
    }
    plot.rescaleAxes();
    // Room around the points so that none sits on the frame.
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
        const QCPRange r = axis->range();
        const double pad =
            r.size() > 0 ? r.size() * 0.08 : std::max(1e-9, std::abs(r.center()) * 0.05);
        axis->setRange(r.lower - pad, r.upper + pad);
    }
    plot.legend->setVisible(true);
    return pictureFigure(QString(), QSizeF(size), recordPlot(&plot, size)); // titled in the plot
}

} // namespace archipelago::report
