// A ValidationReport as JSON (ARCHITECTURE.md section 6, `validate --json`), with the keys of
// publishedrunsjson.h.
#pragma once

#include "validation/publishedruns.h"

#include <nlohmann/json.hpp>

namespace archipelago::core {

// Keys come out sorted (nlohmann::json). A run the model could not evaluate carries
// "evaluated": false, its "reason" and a null "predicted_s" and "error".
nlohmann::json validationReportToJson(const ValidationReport& report);

} // namespace archipelago::core
