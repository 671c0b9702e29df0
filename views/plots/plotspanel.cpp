#include "plots/plotspanel.h"

#include "plots/plotbreakdown.h"
#include "plots/plotbubble.h"
#include "plots/plotgoodput.h"
#include "plots/plotnetworkcost.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QSplitter>

namespace archipelago::views {

PlotsPanel::PlotsPanel(QWidget* parent)
    : QWidget(parent)
    , m_breakdown(new BreakdownPlot)
    , m_bubble(new BubblePlot)
    , m_network(new NetworkCostPlot)
    , m_goodput(new GoodputPlot)
{
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_breakdown);
    splitter->addWidget(m_bubble);
    splitter->addWidget(m_network);
    splitter->addWidget(m_goodput);
    // The breakdown has the most series and the widest legend: it needs about 370 px for two
    // legend columns, or its thirteen entries stack in one and squash the bars. The bubble and
    // goodput plots have short legends and few bars, so they may be narrower than the default
    // minimum; in the smallest window (about 1,100 px for this panel) the breakdown then keeps
    // its two columns.
    m_bubble->customPlot()->setMinimumWidth(220);
    m_goodput->customPlot()->setMinimumWidth(220);
    splitter->setStretchFactor(0, 5);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    splitter->setStretchFactor(3, 3);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
}

void PlotsPanel::setDesignPoints(const QList<EvaluatedDesign>& pinned,
                                 const EvaluatedDesign& current)
{
    const QList<EvaluatedDesign> points = orderedDesignPoints(pinned, current);
    m_breakdown->setDesignPoints(points);
    m_bubble->setDesignPoints(points);
    m_network->setDesignPoints(points);
    m_goodput->setDesignPoints(points);
}

} // namespace archipelago::views
