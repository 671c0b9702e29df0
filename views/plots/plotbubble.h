// Pipeline bubble per design point, in percent: the bubble ratio (idle over makespan, averaged
// over stages: the one figure every view calls "Bubble ratio") and, beside it, the simulated
// idle over compute, with Megatron's ideal (p-1)/m or (p-1)/(v m) marked where the schedule
// has that closed form (Narayanan et al. 2021, sections 2.2.1 and 2.2.2).
#pragma once

#include "common/evaluateddesign.h"
#include "plots/plotwidget.h"

#include <QList>
#include <QStringList>

#include <optional>

class QCPBarsGroup;

namespace archipelago::views {

// Megatron's ideal idle / compute of a pipeline: (p-1)/m for GPipe and 1F1B, (p-1)/(v m)
// interleaved; nullopt for the zero-bubble and DualPipe schedules, which have none of that
// form, and for a scenario without a pipeline or micro-batches.
std::optional<double> idealIdleOverCompute(const core::Scenario& scenario);

class BubblePlot : public PlotWidget
{
    Q_OBJECT

public:
    explicit BubblePlot(QWidget* parent = nullptr);

    // Pinned points first, then the current one (see orderedDesignPoints).
    void setDesignPoints(const QList<EvaluatedDesign>& pinned, const EvaluatedDesign& current);
    void setDesignPoints(const QList<EvaluatedDesign>& points);

    QString toolTipAt(const QPoint& pixel) const override;
    QStringList categories() const { return m_names; }
    QList<double> bubblePercents() const { return m_bubble; }
    QList<double> idleOverComputePercents() const { return m_idle; }
    // The text drawn above each bubble-ratio bar ("35.2 %", "n/a").
    QStringList bubbleLabels() const { return m_bubbleLabels; }

private:
    QStringList m_names;
    QStringList m_schedules; // "1F1B, p=16, m=128" per point
    QList<double> m_bubble;
    QList<double> m_idle;
    QList<std::optional<double>> m_ideal; // percent
    QList<bool> m_outOfMemory;
    QStringList m_bubbleLabels;
    QCPBarsGroup* m_group = nullptr;
};

} // namespace archipelago::views
