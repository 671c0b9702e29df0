// The Evaluation as CSV (`evaluate --csv`, File > Export Data…), one row per evaluation, and the
// comparison of pinned design points as CSV and JSON, one row (object) per point: its name, its
// knobs and its evaluation. Every cell comes from evaluationToJson's object (io/evaluationjson.h)
// so the CSV holds the same values as `--json`, to the last digit (io/csv.h); column names carry
// the unit (iteration_time_s, network_capex_usd, memory_peak_gib).
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace archipelago::core {

// The columns of an evaluation, after a row's own (file, name, list): evaluationToJson's
// figures, its "memory" object as memory_*, its "breakdown" object by name (forward_s, ...) and
// its warnings joined by "; ". The BOM and the per-link traffic are lists: the JSON has them.
const std::vector<std::string>& evaluationCsvColumns();
// Those columns' cells for `evaluation`, an evaluationToJson object ("" where it lacks a key).
std::vector<std::string> evaluationCsvCells(const nlohmann::json& evaluation);

// A header ("file" then evaluationCsvColumns) and one row per evaluationToJson object of
// `evaluations` (an object, or an array of them as `evaluate --json` prints for several files).
std::string evaluationsToCsv(const nlohmann::json& evaluations);
std::string evaluationToCsv(const std::string& file, const Evaluation& evaluation);

// A scenario's parallelism and schedule knobs, named as the sweep names them
// (explore/sweepjson.h designPointToJson): tp, cp, pp, ep, dp, virtual_stages, ...
nlohmann::json scenarioKnobsToJson(const Scenario& scenario);
const std::vector<std::string>& scenarioKnobColumns();

// One point of the comparison: a pin, or the current design point.
struct ComparedPoint
{
    std::string name;
    std::string color;                      // "#rrggbb" or ""
    const Scenario* scenario = nullptr;     // not null
    const Evaluation* evaluation = nullptr; // nullptr while it is being computed
};

// [{"name", "color", "knobs": {...}, "evaluation": {...} or null}, ...]
nlohmann::json comparisonToJson(const std::vector<ComparedPoint>& points);
// name, color, the knobs, then evaluationCsvColumns; one row per point.
std::string comparisonToCsv(const std::vector<ComparedPoint>& points);

} // namespace archipelago::core
