// The report's drawings, made by the window's own views so the review board sees what the
// planner saw: the topology scene, the parallelism layout canvas, the three design-point plots
// and the sweep's Pareto fronts. Each is recorded once into a QPicture (vector) at its natural
// size and replayed scaled into the PDF page or the SVG, always with a light palette.
#pragma once

#include "report/reportmodel.h"

#include "common/evaluateddesign.h"

#include <nlohmann/json.hpp>

#include <QPalette>

namespace archipelago::report {

// The palette reports are drawn with, whatever the application's theme.
QPalette lightPalette();

ReportFigure topologyFigure(const core::Scenario& scenario);
ReportFigure layoutFigure(const core::Scenario& scenario, const core::Evaluation& evaluation);
// Iteration-time breakdown, bubble ratio and network cost, in that order, each drawn at
// `size` (CSS pixels): about 330 x 330 for three side by side.
std::vector<ReportFigure> plotFigures(const QList<views::EvaluatedDesign>& points, QSize size);

// One front of a sweep's JSON (explore/sweepjson.h "fronts"), x and y read from each point.
struct FrontAxes
{
    QString key;    // "iteration_time_vs_network_capex"
    QString title;  // "Iteration time vs network capex"
    QString xLabel; // "Network capex (M$)"
    QString yLabel;
    std::function<double(const nlohmann::json&)> x;
    std::function<double(const nlohmann::json&)> y;
};
const QList<FrontAxes>& frontAxes();
ReportFigure frontFigure(const FrontAxes& axes, const nlohmann::json& front,
                         const nlohmann::json& base);

} // namespace archipelago::report
