// Network cost by component: one stacked bar per design point with the capex of each bill-of-
// materials category (switches, NICs, optics, cables, DCI optics, amplifiers, line systems) in
// millions of USD; the network power is written above each bar.
#pragma once

#include "plots/plotstackedbars.h"

namespace archipelago::views {

class NetworkCostPlot : public StackedBarPlot
{
    Q_OBJECT

public:
    explicit NetworkCostPlot(QWidget* parent = nullptr);

    // Pinned points first, then the current one (see orderedDesignPoints).
    void setDesignPoints(const QList<EvaluatedDesign>& pinned, const EvaluatedDesign& current);
    void setDesignPoints(const QList<EvaluatedDesign>& points);
};

} // namespace archipelago::views
