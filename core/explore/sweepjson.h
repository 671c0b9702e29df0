// A SweepResult as JSON (`sweep --json`, `sweep -o`): the counts, the base and its rank, the
// top points and the fronts; each point's figures are evaluationToJson's (io/evaluationjson.h)
// with its knobs and the breakdown's difference from the base beside them.
#pragma once

#include "explore/sweep.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace archipelago::core {

nlohmann::json designPointToJson(const DesignPoint& point);
// One line of a point's knobs for people: "tp 8 cp 1 pp 16 ... zero 1 distopt".
std::string describeSweepPoint(const SweepPoint& point);
// What `to` changes against `from`, one phrase per knob whose value differs, in the window's
// words and the order of the space's dimensions: {"TP 4", "PP 16", "v 8", "ZB-H1"}. Empty when
// the two run the same design. The degrees compare as the points run them (DP as placed, v as
// the schedule runs it, sequence parallelism only with TP > 1).
std::vector<std::string> sweepPointChanges(const SweepPoint& from, const SweepPoint& to);
nlohmann::json sweepResultToJson(const std::string& file, const SweepResult& result);

} // namespace archipelago::core
