// The Explore panel's scatter of every point a sweep evaluated (core::SweepSample) on one of
// the sweep's three pairs of objectives, with that pair's Pareto front drawn as a staircase on
// top, and markers for the current design, the pins and a previewed point. Tens of thousands of
// samples stay fluid: they are decimated to one marker per cell of a fine grid over the data
// (about two pixels at the plot's usual size), in three shades by how many points share the
// cell. Hover names the point under the cursor (its description, from the describer); a click
// on a point emits pointClicked with its odometer index.
#pragma once

#include "explore/sweep.h"
#include "plots/plotwidget.h"

#include <QColor>
#include <QList>
#include <QString>

#include <cstdint>
#include <functional>
#include <vector>

class QCPGraph;

namespace archipelago::views {

// The three pairs the sweep keeps a front for (core::SweepResult): x a cost, y a time.
enum class ScatterAxes
{
    TimeVsCapex,     // iteration time over network capex
    TrainTimeVsCost, // time to train over total cost (GPUs and network)
    TimeVsMemory     // iteration time over memory peak
};

// A design point marked on the scatter: its figures in the sweep's units.
struct ScatterMarker
{
    QString name;
    QColor color;
    double iterationTimeS = 0.0;
    double timeToTrainS = 0.0;
    double memoryPeakGib = 0.0;
    double networkCapexUsd = 0.0;
    double totalCostUsd = 0.0;
    bool preview = false; // drawn as a ring around a cross
};

class ParetoScatter : public PlotWidget
{
    Q_OBJECT

public:
    explicit ParetoScatter(QWidget* parent = nullptr);

    void setAxes(ScatterAxes axes);
    ScatterAxes axes() const { return m_axes; }
    // Every evaluated point (may be empty: a saved sweep keeps only its fronts) and the three
    // fronts; a sample's kind decides its shade (over-budget points in grey).
    void setSweep(std::vector<core::SweepSample> samples, std::vector<core::SweepPoint> timeVsCapex,
                  std::vector<core::SweepPoint> trainTimeVsCost,
                  std::vector<core::SweepPoint> timeVsMemory);
    void clearSweep();
    void setMarkers(const QList<ScatterMarker>& markers);
    // Text for a point by odometer index (its configuration); empty: "point #index".
    void setDescriber(std::function<QString(std::uint64_t)> describer);

    QString toolTipAt(const QPoint& pixel) const override;
    // The odometer index of the point nearest `pixel` within a few pixels, or -1.
    std::int64_t indexAt(const QPoint& pixel) const;
    // For tests: markers drawn for the decimated points, and the front's points.
    int drawnSampleMarkers() const;
    int drawnFrontPoints() const;

signals:
    void pointClicked(quint64 index);

private:
    struct Dot
    {
        double x;
        double y;
        std::uint64_t index;
        bool front;
    };
    void rebuild();
    double xOf(const core::SweepSample& s) const;
    double yOf(const core::SweepSample& s) const;
    double xOf(const core::SweepPoint& p) const;
    double yOf(const core::SweepPoint& p) const;
    const std::vector<core::SweepPoint>& front() const;

    ScatterAxes m_axes = ScatterAxes::TimeVsCapex;
    std::vector<core::SweepSample> m_samples;
    std::vector<core::SweepPoint> m_fronts[3];
    QList<ScatterMarker> m_markers;
    std::function<QString(std::uint64_t)> m_describer;
    std::vector<Dot> m_dots; // what hover and click search: the front, then the samples
    int m_drawnSamples = 0;
    QCPGraph* m_frontGraph = nullptr;
};

} // namespace archipelago::views
