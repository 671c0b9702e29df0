// The painted part of the layout view: datacenter columns, stage bands, DCI crossings. Drag a
// stage boundary to move layers between two stages; drag a band onto another column to move
// that stage of that shard to another datacenter. Intents only: the scenario shown changes when
// the app calls setScenario().
#pragma once

#include "layout/layoutviewgeometry.h"
#include "layout/layoutviewpainter.h"

#include "model/evaluation.h"
#include "model/scenario.h"

#include <QWidget>

#include <optional>
#include <vector>

namespace archipelago::views {

class LayoutViewCanvas : public QWidget
{
    Q_OBJECT

public:
    explicit LayoutViewCanvas(QWidget* parent = nullptr);

    void setScenario(const core::Scenario& scenario);
    void setEvaluation(const core::Evaluation* evaluation); // nullptr clears the overlay
    const core::Scenario& scenario() const { return m_scenario; }
    LayoutGeometry geometry() const;
    // The band labels of the last paint (for tests: some are always drawn).
    const QStringList& drawnLabels() const { return m_drawnLabels; }

    QSize sizeHint() const override { return {720, 480}; }
    QSize minimumSizeHint() const override { return {320, 240}; }

signals:
    void layersPerStageRequested(const std::vector<int>& layersPerStage);
    void stageDatacenterRequested(int shardIndex, int stage, core::Id datacenter);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;

private:
    enum class Drag
    {
        None,
        Boundary,
        Stage
    };

    LayoutViewPainter painter() const;
    void updateCursor(const QPointF& pos);

    core::Scenario m_scenario;
    std::optional<core::Evaluation> m_evaluation;
    std::vector<int> m_preview; // layers per stage while a boundary is dragged
    Drag m_drag = Drag::None;
    int m_dragBoundary = -1;
    int m_dragBand = -1; // index into geometry().bands at press
    QPointF m_pressPos;
    QPointF m_dragPos;
    int m_hoverBoundary = -1;
    QStringList m_drawnLabels;
};

} // namespace archipelago::views
