// A sweep's JSON (`archipelago-cli sweep --json`, explore/sweepjson.h) read for the report:
// every field the sweep section reads is checked first, so a wrong file is an error naming the
// file and the JSON pointer, never a crash or a silently empty section.
#pragma once

#include "report/reportinput.h"

#include "explore/sweeprecord.h"
#include "io/diagnosticsink.h"

#include <optional>
#include <string>
#include <vector>

namespace archipelago::report {

// Reads and checks `path`; nullopt with `errors` filled when it is not a usable sweep output.
std::optional<ReportSweep> readReportSweep(const std::string& path,
                                           std::vector<core::Diagnostic>& errors);
// The sweep saved with the document (`record`, explore/sweeprecord.h) in the form the sweep
// section reads, its base being `scenario` as evaluated in `evaluation`. Nullopt when the
// document holds none, or with `errors` (the record's: pointers under /explore) when it cannot
// be read.
std::optional<ReportSweep> savedReportSweep(const core::SweepRecord& record,
                                            const core::Scenario& scenario,
                                            const core::Evaluation& evaluation,
                                            std::vector<core::Diagnostic>& errors);
// The checks alone (for a sweep held in memory).
std::vector<core::Diagnostic> checkSweepJson(const nlohmann::json& json, const std::string& file);

} // namespace archipelago::report
