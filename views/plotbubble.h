// Pipeline bubble per design point, two bars side by side in percent: the bubble ratio (idle
// over makespan, averaged over ranks) and Megatron's idle over compute ((p-1)/m for 1F1B).
#pragma once

#include "designpoint.h"
#include "plotwidget.h"

#include <QList>
#include <QStringList>

class QCPBarsGroup;

namespace archipelago::views {

class BubblePlot : public PlotWidget
{
    Q_OBJECT

public:
    explicit BubblePlot(QWidget* parent = nullptr);

    // Pinned points first, then the current one (see orderedDesignPoints).
    void setDesignPoints(const QList<DesignPoint>& pinned, const DesignPoint& current);
    void setDesignPoints(const QList<DesignPoint>& points);

    QString toolTipAt(const QPoint& pixel) const override;
    QStringList categories() const { return m_names; }
    QList<double> bubblePercents() const { return m_bubble; }
    QList<double> idleOverComputePercents() const { return m_idle; }

private:
    QStringList m_names;
    QStringList m_schedules; // "1F1B, p=16, m=128" per point
    QList<double> m_bubble;
    QList<double> m_idle;
    QCPBarsGroup* m_group = nullptr;
};

} // namespace archipelago::views
