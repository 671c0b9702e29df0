// Iteration-time breakdown: one stacked bar per design point with the parts of core::Breakdown
// (compute, exposed communication per dimension, optimizer, bubble, interference), in seconds.
#pragma once

#include "plots/plotstackedbars.h"

namespace archipelago::views {

class BreakdownPlot : public StackedBarPlot
{
    Q_OBJECT

public:
    explicit BreakdownPlot(QWidget* parent = nullptr);

    // Pinned points first, then the current one (see orderedDesignPoints).
    void setDesignPoints(const QList<EvaluatedDesign>& pinned, const EvaluatedDesign& current);
    void setDesignPoints(const QList<EvaluatedDesign>& points);
};

} // namespace archipelago::views
