// Time to train with failures: one stacked bar per design point with the parts of the run's wall
// time (core::Goodput: useful work, checkpoints, restarts, lost work; goodputParts()) in days,
// the wall time and the effective training time ratio written above each bar.
#pragma once

#include "plots/plotstackedbars.h"

namespace archipelago::views {

class GoodputPlot : public StackedBarPlot
{
    Q_OBJECT

public:
    explicit GoodputPlot(QWidget* parent = nullptr);

    // Pinned points first, then the current one (see orderedDesignPoints).
    void setDesignPoints(const QList<EvaluatedDesign>& pinned, const EvaluatedDesign& current);
    void setDesignPoints(const QList<EvaluatedDesign>& points);
};

} // namespace archipelago::views
