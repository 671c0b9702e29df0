// A SweepResult as JSON (`sweep --json`, `sweep -o`): the counts, the base and its rank, the
// top points and the fronts; each point's figures are evaluationToJson's (io/evaluationjson.h)
// with its knobs and the breakdown's difference from the base beside them.
#pragma once

#include "explore/sweep.h"

#include <nlohmann/json.hpp>

namespace archipelago::core {

nlohmann::json designPointToJson(const DesignPoint& point);
// One line of a point's knobs for people: "tp 8 cp 1 pp 16 ... zero 1 distopt".
std::string describeSweepPoint(const SweepPoint& point);
nlohmann::json sweepResultToJson(const std::string& file, const SweepResult& result);

} // namespace archipelago::core
