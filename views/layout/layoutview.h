// The parallelism layout view (ARCHITECTURE.md section 5): how TP × CP × PP × DP (× EP) land on
// scale-up domains and datacenters for one scenario, one column per datacenter, pipeline stages
// as coloured bands (views/common/colors.h), DCI crossings between consecutive stages in
// different datacenters, and optional timing from an Evaluation.
//
// Intents (the app turns each into an undo command and calls setScenario() with the result):
//   layersPerStageRequested(split)     a stage boundary was dragged; split sums to the layers,
//                                      every entry >= 1 (Placement::layersPerStage)
//   stageDatacenterRequested(shard, stage, dc)
//                                      a stage band was dropped on another datacenter; `shard`
//                                      indexes core::effectiveShards(scenario) (0 is the implicit
//                                      shard when the placement has none)
//   placementRequested(placement)      "which dimension crosses each datacenter boundary" was
//                                      chosen (common/crossingchoices.h: every boundary, by
//                                      region, or per boundary): core::pipelinesPerGroup
#pragma once

#include "common/crossingchoices.h"
#include "layout/layoutviewgeometry.h"

#include "model/evaluation.h"
#include "model/scenario.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QToolButton;

namespace archipelago::views {

class LayoutViewCanvas;

class LayoutView : public QWidget
{
    Q_OBJECT

public:
    explicit LayoutView(QWidget* parent = nullptr);

    void setScenario(const core::Scenario& scenario);
    void setEvaluation(const core::Evaluation& evaluation);
    void clearEvaluation();
    const core::Scenario& scenario() const;

    // For tests: the painted area and where it draws what (in its coordinates).
    QWidget* canvas() const;
    LayoutGeometry layoutGeometry() const;
    QComboBox* crossingCombo() const { return m_crossing; }

signals:
    void layersPerStageRequested(const std::vector<int>& layersPerStage);
    void stageDatacenterRequested(int shardIndex, int stage, core::Id datacenter);
    void placementRequested(const core::Placement& placement);

private:
    void onCrossingActivated(int index);
    void updateHeader();

    LayoutViewCanvas* m_canvas;
    QComboBox* m_crossing;
    std::vector<CrossingChoice> m_choices; // what m_crossing lists
    QToolButton* m_evenSplit;
    QLabel* m_summary;
};

} // namespace archipelago::views
