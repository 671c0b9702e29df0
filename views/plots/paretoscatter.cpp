#include "plots/paretoscatter.h"

#include "plots/plotstyle.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace archipelago::views {

namespace {

constexpr double kMillion = 1e6;
constexpr double kSecondsPerDay = 86400.0;
// Decimation grid: cells per axis over the data's range (about 2 px at the panel's size).
constexpr int kGridX = 320;
constexpr int kGridY = 200;
// Hover and click reach this far from a point, in pixels.
constexpr double kPickRadiusPx = 7.0;

const QColor kPointColor(0x4c, 0x72, 0xb0);
const QColor kOverBudgetColor(0x9a, 0x9a, 0x9a);
const QColor kFrontColor(0xd6, 0x27, 0x28);

struct AxesText
{
    QString title;
    QString x;
    QString y;
};

AxesText axesText(ScatterAxes axes)
{
    switch (axes) {
    case ScatterAxes::TimeVsCapex:
        return {QStringLiteral("Iteration time vs network capex"),
                QStringLiteral("Network capex (M USD)"), QStringLiteral("Iteration time (s)")};
    case ScatterAxes::TrainTimeVsCost:
        return {QStringLiteral("Time to train vs total cost"),
                QStringLiteral("Total cost: GPUs + network (M USD)"),
                QStringLiteral("Time to train (days)")};
    case ScatterAxes::TimeVsMemory:
        return {QStringLiteral("Iteration time vs memory peak"),
                QStringLiteral("Memory peak per GPU (GiB)"), QStringLiteral("Iteration time (s)")};
    }
    return {};
}

// The pair's x (M USD or GiB) and y (seconds or days) from a point's figures.
double axisX(ScatterAxes axes, double networkCapexUsd, double totalCostUsd, double memoryPeakGib)
{
    switch (axes) {
    case ScatterAxes::TimeVsCapex:
        return networkCapexUsd / kMillion;
    case ScatterAxes::TrainTimeVsCost:
        return totalCostUsd / kMillion;
    case ScatterAxes::TimeVsMemory:
        return memoryPeakGib;
    }
    return 0.0;
}

double axisY(ScatterAxes axes, double iterationTimeS, double timeToTrainS)
{
    return axes == ScatterAxes::TrainTimeVsCost ? timeToTrainS / kSecondsPerDay : iterationTimeS;
}

bool finite(double x, double y)
{
    return std::isfinite(x) && std::isfinite(y);
}

QCPGraph* addDots(QCustomPlot* plot, const QString& name, const QColor& color,
                  QCPScatterStyle::ScatterShape shape, double size)
{
    auto* g = plot->addGraph();
    g->setName(name);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(shape, color, color, size));
    g->setAdaptiveSampling(false);
    return g;
}

} // namespace

ParetoScatter::ParetoScatter(QWidget* parent)
    : PlotWidget(axesText(ScatterAxes::TimeVsCapex).title, axesText(ScatterAxes::TimeVsCapex).y, 4,
                 parent)
{
    QCustomPlot* plot = customPlot();
    // A scatter: numeric ticks and grid on both axes (the frame is made for bar charts).
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->xAxis->setTickLength(0, 4);
    plot->xAxis->setSubTicks(true);
    plot->xAxis->setTickLabelPadding(4);
    plot->xAxis->grid()->setVisible(true);
    plot->xAxis->ticker()->setTickCount(3);
    // Times span decades (a point out of its depth is 20x the front): a log axis keeps the
    // front readable beside them.
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    plot->yAxis->setSubTicks(false);
    connect(plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        if (event->button() != Qt::LeftButton)
            return;
        const std::int64_t index = indexAt(event->position().toPoint());
        if (index >= 0)
            emit pointClicked(static_cast<quint64>(index));
    });
    rebuild();
}

void ParetoScatter::setAxes(ScatterAxes axes)
{
    if (axes == m_axes)
        return;
    m_axes = axes;
    rebuild();
}

void ParetoScatter::setSweep(std::vector<core::SweepSample> samples,
                             std::vector<core::SweepPoint> timeVsCapex,
                             std::vector<core::SweepPoint> trainTimeVsCost,
                             std::vector<core::SweepPoint> timeVsMemory)
{
    m_samples = std::move(samples);
    m_fronts[0] = std::move(timeVsCapex);
    m_fronts[1] = std::move(trainTimeVsCost);
    m_fronts[2] = std::move(timeVsMemory);
    rebuild();
}

void ParetoScatter::clearSweep()
{
    setSweep({}, {}, {}, {});
}

void ParetoScatter::setMarkers(const QList<ScatterMarker>& markers)
{
    m_markers = markers;
    rebuild();
}

void ParetoScatter::setDescriber(std::function<QString(std::uint64_t)> describer)
{
    m_describer = std::move(describer);
}

const std::vector<core::SweepPoint>& ParetoScatter::front() const
{
    return m_fronts[static_cast<int>(m_axes)];
}

double ParetoScatter::xOf(const core::SweepSample& s) const
{
    return axisX(m_axes, s.networkCapexUsd, s.totalCostUsd, s.memoryPeakGib);
}

double ParetoScatter::yOf(const core::SweepSample& s) const
{
    return axisY(m_axes, s.iterationTimeS, s.timeToTrainS);
}

double ParetoScatter::xOf(const core::SweepPoint& p) const
{
    return axisX(m_axes, p.networkCapexUsd, p.totalCostUsd, p.evaluation.memoryPeakGib);
}

double ParetoScatter::yOf(const core::SweepPoint& p) const
{
    return axisY(m_axes, p.evaluation.iterationTimeS, p.evaluation.timeToTrainS);
}

void ParetoScatter::rebuild()
{
    QCustomPlot* plot = customPlot();
    plot->clearPlottables();
    plot->clearItems();
    m_dots.clear();
    m_drawnSamples = 0;
    m_frontGraph = nullptr;
    const AxesText text = axesText(m_axes);
    setTitle(text.title);
    plot->xAxis->setLabel(text.x);
    plot->yAxis->setLabel(text.y);

    // The data's range: samples, front and markers.
    double x0 = std::numeric_limits<double>::infinity();
    double x1 = -x0;
    double y0 = x0;
    double y1 = -x0;
    const auto extend = [&](double x, double y) {
        if (!finite(x, y))
            return;
        x0 = std::min(x0, x);
        x1 = std::max(x1, x);
        y0 = std::min(y0, y);
        y1 = std::max(y1, y);
    };
    for (const core::SweepSample& s : m_samples)
        extend(xOf(s), yOf(s));
    for (const core::SweepPoint& p : front())
        extend(xOf(p), yOf(p));
    const auto markerX = [this](const ScatterMarker& m) {
        return axisX(m_axes, m.networkCapexUsd, m.totalCostUsd, m.memoryPeakGib);
    };
    const auto markerY = [this](const ScatterMarker& m) {
        return axisY(m_axes, m.iterationTimeS, m.timeToTrainS);
    };
    for (const ScatterMarker& m : m_markers)
        extend(markerX(m), markerY(m));

    if (x0 <= x1) {
        // Decimation: one marker per occupied cell, shaded by how many points share it.
        const double dx = x1 > x0 ? (x1 - x0) / kGridX : 1.0;
        const double dy = y1 > y0 ? (y1 - y0) / kGridY : 1.0;
        struct Cell
        {
            double x = 0.0;
            double y = 0.0;
            int count = 0;
            bool feasible = false;
        };
        std::unordered_map<std::uint64_t, Cell> cells;
        cells.reserve(std::min<std::size_t>(m_samples.size(), 65536));
        for (const core::SweepSample& s : m_samples) {
            const double x = xOf(s);
            const double y = yOf(s);
            if (!finite(x, y))
                continue;
            const bool feasible = s.kind == core::SweepSample::Kind::Feasible;
            const auto cx = static_cast<std::uint64_t>(std::floor((x - x0) / dx));
            const auto cy = static_cast<std::uint64_t>(std::floor((y - y0) / dy));
            // Feasible and over-budget points in separate cells: each keeps its own shade.
            Cell& c = cells[(cx * (kGridY + 1) + cy) * 2 + (feasible ? 1 : 0)];
            if (c.count == 0) {
                c.x = x;
                c.y = y;
                c.feasible = feasible;
            }
            ++c.count;
            m_dots.push_back({x, y, s.index, false});
        }
        QVector<double> keys[4];
        QVector<double> values[4];
        for (const auto& [key, c] : cells) {
            // 0: over budget; 1..3: feasible, 1 point, 2..9, 10 or more.
            const int tier = !c.feasible ? 0 : c.count >= 10 ? 3 : c.count >= 2 ? 2 : 1;
            keys[tier].append(c.x);
            values[tier].append(c.y);
        }
        QColor light = kPointColor;
        light.setAlpha(90);
        QColor mid = kPointColor;
        mid.setAlpha(170);
        const struct
        {
            QString name;
            QColor color;
        } tiers[4] = {{QStringLiteral("Over budget"), kOverBudgetColor},
                      {QStringLiteral("Evaluated points"), light},
                      {QString(), mid},
                      {QString(), kPointColor.darker(130)}};
        for (int t = 0; t < 4; ++t) {
            if (keys[t].isEmpty())
                continue;
            QCPGraph* g = addDots(plot, tiers[t].name, tiers[t].color, QCPScatterStyle::ssDisc,
                                  t == 0 ? 3.0 : 4.0);
            g->setData(keys[t], values[t]);
            if (tiers[t].name.isEmpty())
                g->removeFromLegend();
            m_drawnSamples += static_cast<int>(keys[t].size());
        }

        // The front: a staircase through its points in x order (what it dominates lies above
        // and to the right).
        std::vector<const core::SweepPoint*> sorted;
        for (const core::SweepPoint& p : front())
            if (finite(xOf(p), yOf(p)))
                sorted.push_back(&p);
        std::sort(sorted.begin(), sorted.end(),
                  [this](const core::SweepPoint* a, const core::SweepPoint* b) {
                      return xOf(*a) < xOf(*b) || (xOf(*a) == xOf(*b) && yOf(*a) < yOf(*b));
                  });
        if (!sorted.empty()) {
            QVector<double> fx;
            QVector<double> fy;
            std::vector<Dot> frontDots;
            for (const core::SweepPoint* p : sorted) {
                fx.append(xOf(*p));
                fy.append(yOf(*p));
                frontDots.push_back({xOf(*p), yOf(*p), p->point.index, true});
            }
            // Ahead of the samples, last in x first (as one insertion, not one per point).
            m_dots.insert(m_dots.begin(), frontDots.rbegin(), frontDots.rend());
            m_frontGraph = plot->addGraph();
            m_frontGraph->setName(QStringLiteral("Pareto front"));
            m_frontGraph->setLineStyle(QCPGraph::lsStepLeft);
            m_frontGraph->setPen(QPen(kFrontColor, 2.0));
            m_frontGraph->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssCircle, kFrontColor, Qt::white, 6));
            m_frontGraph->setData(fx, fy, true);
        }

        // The design points on top.
        for (const ScatterMarker& m : m_markers) {
            const double x = markerX(m);
            const double y = markerY(m);
            if (!finite(x, y))
                continue;
            QCPGraph* g = plot->addGraph();
            g->setName(m.name);
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(m.preview ? QCPScatterStyle(QCPScatterStyle::ssCrossCircle,
                                                           QPen(m.color, 2.5), Qt::NoBrush, 14)
                                         : QCPScatterStyle(QCPScatterStyle::ssDiamond,
                                                           QPen(Qt::black, 1.0), m.color, 12));
            g->setData({x}, {y});
        }
        const double padX = x1 > x0 ? 0.06 * (x1 - x0) : std::max(0.05 * std::abs(x0), 0.5);
        // Costs and memory are never negative: the axis starts at 0 at the lowest.
        plot->xAxis->setRange(x0 >= 0.0 ? std::max(0.0, x0 - padX) : x0 - padX, x1 + padX);
        // Log axis: a margin by factor, and never down to 0.
        const double low = y0 > 0.0 ? y0 / 1.15 : 1e-3;
        const double high = std::max(y1 * 1.15, low * 2.0);
        plot->yAxis->setRange(low, high);
        // Ticks at 1, 2 and 5 times the powers of ten in range (and 1.5, 3, 7 when the
        // range spans less than a decade, so there are always a few).
        const bool narrow = high / low < 10.0;
        QMap<double, QString> ticks;
        for (int d = static_cast<int>(std::floor(std::log10(low)));
             d <= static_cast<int>(std::ceil(std::log10(high))); ++d)
            for (double m : {1.0, 1.5, 2.0, 3.0, 5.0, 7.0}) {
                if (!narrow && (m == 1.5 || m == 3.0 || m == 7.0))
                    continue;
                const double v = m * std::pow(10.0, d);
                if (v >= low && v <= high)
                    ticks.insert(v, QString::number(v, 'g', 3));
            }
        qSharedPointerDynamicCast<QCPAxisTickerText>(plot->yAxis->ticker())->setTicks(ticks);
    } else {
        plot->xAxis->setRange(0.0, 1.0);
        plot->yAxis->setRange(0.1, 10.0);
    }
    plot->legend->setVisible(plot->legend->itemCount() > 0);
    applyPlotPalette(plot, palette());
    requestReplot();
}

std::int64_t ParetoScatter::indexAt(const QPoint& pixel) const
{
    const QCustomPlot* plot = customPlot();
    if (!plot->axisRect()->rect().contains(pixel))
        return -1;
    double best = kPickRadiusPx * kPickRadiusPx;
    std::int64_t found = -1;
    for (const Dot& d : m_dots) {
        const double px = plot->xAxis->coordToPixel(d.x) - pixel.x();
        const double py = plot->yAxis->coordToPixel(d.y) - pixel.y();
        const double d2 = px * px + py * py;
        // The front wins a tie: it comes first and only a strictly nearer point replaces it.
        if (d2 < best) {
            best = d2;
            found = static_cast<std::int64_t>(d.index);
        }
    }
    return found;
}

QString ParetoScatter::toolTipAt(const QPoint& pixel) const
{
    const std::int64_t index = indexAt(pixel);
    if (index < 0)
        return {};
    const auto i = static_cast<std::uint64_t>(index);
    QString text;
    for (const core::SweepPoint& p : front())
        if (p.point.index == i)
            text = QStringLiteral("On the Pareto front\n");
    const QString description = m_describer ? m_describer(i) : QString();
    text += QStringLiteral("Point #%1").arg(i);
    if (!description.isEmpty())
        text += QStringLiteral(": ") + description;
    for (const Dot& d : m_dots)
        if (d.index == i) {
            const AxesText axes = axesText(m_axes);
            text += QStringLiteral("\n%1: %2\n%3: %4")
                        .arg(axes.y, formatSignificant(d.y, 4), axes.x, formatSignificant(d.x, 4));
            break;
        }
    return text + QStringLiteral("\nClick to preview it");
}

int ParetoScatter::drawnSampleMarkers() const
{
    return m_drawnSamples;
}

int ParetoScatter::drawnFrontPoints() const
{
    return m_frontGraph ? m_frontGraph->dataCount() : 0;
}

} // namespace archipelago::views
