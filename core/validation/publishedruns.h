// Published training runs (../shared/validation/README.md, format
// "archipelago-published-runs" versions 1 and 2): reading, conversion to a Scenario, and the
// predicted-vs-measured comparison that `archipelago-cli validate` and the validation test
// share. Version 2 names every run's training stack and its release month
// (`training.software`, `training.software_date`), which bound the unpublished knobs
// (validation/stackfeatures.h).
#pragma once

#include "io/scenarioio.h"
#include "model/catalog.h"
#include "model/scenario.h"
#include "validation/stackfeatures.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

inline constexpr const char* kPublishedRunsFormat = "archipelago-published-runs";
// The version this reader writes about and the oldest it still reads.
inline constexpr int kPublishedRunsVersion = 2;
inline constexpr int kOldestPublishedRunsVersion = 1;
// Each run is evaluated several times (micro-batch and interleaving choices): a bound on the
// work one file can ask for. Published tables hold tens of runs.
inline constexpr int kMaxPublishedRuns = 10'000;

struct PublishedRun
{
    std::string id;
    std::string source;
    std::string notes;
    Workload model;                // shape and global batch (train tokens default)
    std::optional<int> microBatch; // null: not published
    int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
    std::optional<int> virtualStages;
    std::optional<bool> sequenceParallel;
    Recompute recompute = Recompute::None; // null = none
    // The training stack (optional in version 1, required in 2) and its optimizations beyond
    // the stack's defaults (runvalidation.cpp maps both onto the scenario's switches).
    std::optional<std::string> software;
    // Version 2: the release of the stack the run used; nullopt in version 1 (then the
    // unpublished knobs are not restricted by date).
    std::optional<YearMonth> softwareDate;
    std::vector<std::string> optimizations;
    // System.
    std::string accelerator;
    double peakDenseTflops = 0.0;
    double hbmGib = 0.0;
    int gpus = 0;
    int gpusPerNode = 8;
    double scaleUpGBpsPerDirection = 0.0;
    double scaleOutGbpsPerGpu = 0.0;
    FabricKind fabricKind = FabricKind::Clos;
    int fabricTiers = 3;
    double oversubscription = 1.0;    // leaf-level, when no pod is given
    int podGpus = 0;                  // 0: one pod
    double podOversubscription = 1.0; // above the pod
    double measuredIterationS = 0.0;
    // A measured run's own scenario (key "scenario", validation/measuredrun.h): evaluated as it
    // is, in place of the conversion of the fields above.
    std::optional<Scenario> scenario;
};

struct PublishedRunsLoad
{
    std::vector<PublishedRun> runs;
    std::vector<Diagnostic> errors;   // each names the file and the JSON pointer
    std::vector<Diagnostic> warnings; // unknown keys
    bool ok() const { return errors.empty(); }
};

PublishedRunsLoad parsePublishedRuns(std::string_view text, const std::string& fileName);
PublishedRunsLoad loadPublishedRuns(const std::string& path);

// A run as a scenario, with the choices made where the paper published nothing.
struct RunScenario
{
    Scenario scenario;
    std::vector<std::string> assumptions;
    std::int64_t searchCells = 0; // the pipeline cells the unpublished knobs' search simulated
};
// `catalog` is the base catalog whose entry of the same accelerator name the run's system
// figures are merged over (efficiency parameters come from it). `maxSearchCells` bounds the
// search of the unpublished knobs (kMaxKnobSearchCells, validation/unpublishedknobs.h).
RunScenario scenarioForRun(const PublishedRun& run, const Catalog& catalog,
                           std::int64_t maxSearchCells);
RunScenario scenarioForRun(const PublishedRun& run, const Catalog& catalog);

struct RunComparison
{
    std::string id;
    double measuredS = 0.0;
    double predictedS = 0.0;
    double error = 0.0; // predicted / measured - 1
    bool ok = true;     // false: the model could not evaluate the run, see `reason`
    std::string reason;
    std::vector<std::string> assumptions;
    std::vector<std::string> warnings;
};

struct ValidationReport
{
    std::vector<RunComparison> runs;
    // Over the runs that could be evaluated: a run the model cannot evaluate has no error to
    // average, it is a failure of its own.
    double meanAbsError = 0.0;
    double maxAbsError = 0.0;
    int evaluated = 0;
    bool ok() const { return evaluated == static_cast<int>(runs.size()); }
};

ValidationReport validateRuns(const std::vector<PublishedRun>& runs, const Catalog& catalog);

} // namespace archipelago::core
