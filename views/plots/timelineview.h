// Pipeline timeline: ranks x time from core::Evaluation::timeline, forward, backward and
// weight-gradient blocks per micro-batch, and the sends between ranks (red and hatched where
// they cross a DCI link). Zoom and pan along time with the wheel and drag.
#pragma once

#include "common/evaluateddesign.h"
#include "plots/plotwidget.h"

#include <array>
#include <vector>

namespace archipelago::views {

class TimelinePlottable;

class TimelineView : public PlotWidget
{
    Q_OBJECT

public:
    explicit TimelineView(QWidget* parent = nullptr);

    // Shows the timeline of one design point (normally the current one).
    void setDesignPoint(const EvaluatedDesign& point);

    QString toolTipAt(const QPoint& pixel) const override;
    // Blocks drawn of a kind (Send counts both intra-DC and cross-DCI sends).
    qsizetype drawnBlocks(core::BlockKind kind) const;
    qsizetype drawnDciSends() const;
    double makespanS() const { return m_makespanS; }
    // The bubble ratio shown in the title ("35.2 %"); empty without a timeline.
    QString bubbleRatioText() const { return m_bubbleText; }
    // Time unit of the x axis: "ms" or "s".
    QString timeUnit() const { return m_unit; }
    // Shows the whole makespan again.
    void resetView();

protected:
    void addContextMenuActions(QMenu* menu) override;

private:
    enum Layer
    {
        ForwardLayer,
        BackwardLayer,
        WeightGradLayer,
        SendLayer,
        DciSendLayer,
        LayerCount
    };

    void rebuild(const QString& schedule);
    void clampKeyRange();
    QString describe(const core::TimelineBlock& block, bool forwardSend) const;

    std::vector<core::TimelineBlock> m_blocks;
    std::vector<bool> m_forwardSend; // per block: a Send that carries activations forward
    std::array<TimelinePlottable*, LayerCount> m_layers{};
    double m_makespanS = 0.0;
    double m_scale = 1e3; // seconds -> axis unit
    QString m_unit = QStringLiteral("ms");
    QString m_bubbleText;
    int m_ranks = 0;
    int m_chunks = 0;
};

} // namespace archipelago::views
