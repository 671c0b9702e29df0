// The --space file (docs/explore.md): a small JSON object whose keys each replace one dimension
// of the default space, plus the optional constraints. Its one reader and its one writer: the
// CLI's --space, the Explore panel's fields and the sweep saved in a scenario all go through
// them. Read with the one JSON reader, so that every error names the file and the JSON pointer.
#pragma once

#include "explore/searchspace.h"
#include "io/diagnosticsink.h"
#include "model/scenario.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace archipelago::core {

namespace spacekeys {
inline constexpr const char* kDciTransport = "dci_transport";
inline constexpr const char* kWavelengths = "wavelengths";
inline constexpr const char* kNcclChannels = "nccl_channels";
inline constexpr const char* kFabric = "fabric";
inline constexpr const char* kTp = "tp";
inline constexpr const char* kCp = "cp";
inline constexpr const char* kPp = "pp";
inline constexpr const char* kEp = "ep";
inline constexpr const char* kBoundary = "boundary";
inline constexpr const char* kStageSplit = "stage_split";
inline constexpr const char* kRankOrder = "rank_order";
inline constexpr const char* kDp = "dp";
inline constexpr const char* kSequenceParallel = "sequence_parallel";
inline constexpr const char* kVirtualStages = "virtual_stages";
inline constexpr const char* kMicroBatch = "micro_batch";
inline constexpr const char* kSchedule = "schedule";
inline constexpr const char* kExtraInFlight = "extra_in_flight_at_dci";
inline constexpr const char* kRecompute = "recompute";
inline constexpr const char* kZeroStage = "zero_stage";
inline constexpr const char* kDistributedOptimizer = "distributed_optimizer";
inline constexpr const char* kGradReduceDtype = "grad_reduce_dtype";
inline constexpr const char* kDatacenterSync = "datacenter_sync";
inline constexpr const char* kInnerSteps = "inner_steps";
inline constexpr const char* kCheckpointIntervalS = "checkpoint_interval_s";
inline constexpr const char* kCapexBudget = "network_capex_budget_usd";
inline constexpr const char* kPowerBudget = "network_power_budget_w";
inline constexpr const char* kDciCapacityMin = "dci_capacity_gbps_min";
inline constexpr const char* kMaxDciUtilisation = "max_dci_utilisation";
inline constexpr const char* kMaxGpusPerDatacenter = "max_gpus_per_datacenter";
inline constexpr const char* kGlobalBatch = "global_batch";
inline constexpr const char* kMin = "min";
inline constexpr const char* kMax = "max";
inline constexpr const char* kBase = "base"; // a value: each link or datacenter keeps its own
inline constexpr const char* kDaly = "daly"; // a checkpoint interval: Daly's optimum (0)
} // namespace spacekeys

// The space the JSON `value` describes, its absent keys taken from defaultSearchSpace(base);
// nullopt after reporting every problem to `sink`, each under `pointer` (where `value` is in its
// document: "/explore/space" for a saved sweep's).
std::optional<SearchSpace> readSearchSpace(const nlohmann::ordered_json& value,
                                           const Scenario& base, DiagnosticSink& sink,
                                           const std::string& pointer = "");
// The same for a document's `text`.
std::optional<SearchSpace> parseSearchSpace(std::string_view text, const Scenario& base,
                                            DiagnosticSink& sink);
// The same for a file (read through io/textfile.h).
std::optional<SearchSpace> loadSearchSpace(const std::string& path, const Scenario& base,
                                           DiagnosticSink& sink);

// The space as a --space document with every key set: readSearchSpace gives it back unchanged.
nlohmann::ordered_json searchSpaceToJson(const SearchSpace& space);

} // namespace archipelago::core
