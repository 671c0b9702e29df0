// The design-point plots side by side (ARCHITECTURE.md section 5): iteration-time breakdown,
// pipeline bubble, network cost and time to train with failures, for the pinned design points
// and the current one.
#pragma once

#include "common/evaluateddesign.h"

#include <QWidget>

namespace archipelago::views {

class BreakdownPlot;
class BubblePlot;
class GoodputPlot;
class NetworkCostPlot;

class PlotsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit PlotsPanel(QWidget* parent = nullptr);

    // Pinned points first, then the current one, in every plot.
    void setDesignPoints(const QList<EvaluatedDesign>& pinned, const EvaluatedDesign& current);

    BreakdownPlot* breakdownPlot() const { return m_breakdown; }
    BubblePlot* bubblePlot() const { return m_bubble; }
    NetworkCostPlot* networkCostPlot() const { return m_network; }
    GoodputPlot* goodputPlot() const { return m_goodput; }

private:
    BreakdownPlot* m_breakdown = nullptr;
    BubblePlot* m_bubble = nullptr;
    NetworkCostPlot* m_network = nullptr;
    GoodputPlot* m_goodput = nullptr;
};

} // namespace archipelago::views
