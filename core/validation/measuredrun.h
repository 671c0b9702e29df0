// A run measured on the user's cluster, as an entry of a runs file (the format of
// ../shared/validation, version 2) for `archipelago-cli calibrate`: the scenario the job ran
// (its workload, parallelism and building) and the iteration time its log gave
// (validation/runlog.h). Besides the format's fields, which describe the run to any reader, the
// entry holds the whole scenario under "scenario", which this program evaluates as it is
// (validation/publishedruns.h), so that what the format cannot say (experts, FP8, overlap
// switches, the fabric's switches) is measured as the job ran it (docs/calibration.md).
#pragma once

#include "io/jsondocument.h"
#include "launch/launchplan.h"
#include "model/catalog.h"
#include "model/scenario.h"
#include "validation/runlog.h"
#include "validation/stackfeatures.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

struct MeasuredRunInput
{
    std::string id;
    std::string source; // where the measurement comes from (the log file)
    Framework framework = Framework::MegatronLm;
    YearMonth softwareDate; // when the job ran
    double iterationS = 0.0;
    std::string notes;
};

// The run's JSON, or nullopt with `error` (a job on two accelerators; degrees that do not
// multiply to the GPUs placed). A job across buildings is described by its largest building in
// the format's fields, and whole in the embedded scenario.
std::optional<Json> measuredRunJson(const Scenario& scenario, const Catalog& catalog,
                                    const MeasuredRunInput& input, std::string& error);

// `existing` (a runs file's text; empty for a new file) with `run` appended to its runs, every
// other byte of meaning kept; nullopt with `error` when the text is not a runs file or already
// holds a run of the same id.
std::optional<std::string> withRunAppended(std::string_view existing, const std::string& file,
                                           const Json& run, std::string& error);

// Megatron-LM's argument dump against the scenario: one line per setting that differs ("the log
// ran tensor_model_parallel_size 4, the scenario has tp 8"); empty when all agree or the log
// printed none.
std::vector<std::string> argumentMismatches(const std::map<std::string, std::string>& arguments,
                                            const Scenario& scenario);

} // namespace archipelago::core
