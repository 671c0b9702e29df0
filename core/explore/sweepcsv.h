// A sweep's result as CSV (`sweep --csv`, File > Export Data…): one row per point of each top
// list (one per objective) and each Pareto front, and one for the base, with a `list` column
// naming where the row comes from ("base", "top_iteration_time", ...,
// "front_iteration_time_vs_network_capex") and a `rank` column (1 = first of its list; the
// base's rank among the ranked points). Every cell comes from sweepResultToJson's object
// (explore/sweepjson.h), so the CSV holds the same values as `sweep --json`, to the last digit.
#pragma once

#include "explore/sweep.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace archipelago::core {

// list, rank, the point's knobs and figures, then the evaluation's (io/evaluationcsv.h).
const std::vector<std::string>& sweepCsvColumns();
// `sweep` is a sweepResultToJson object (or a merged one: `merge` writes the same keys); a key
// it lacks gives empty cells, never an exception.
std::string sweepJsonToCsv(const nlohmann::json& sweep);
std::string sweepResultToCsv(const std::string& file, const SweepResult& result);

} // namespace archipelago::core
