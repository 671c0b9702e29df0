// An Evaluation as JSON (ARCHITECTURE.md section 6, `evaluate --json`): one writer shared by the
// CLI, the reports and the explorer, with every key spelled once below.
#pragma once

#include "model/evaluation.h"

#include <nlohmann/json.hpp>

#include <string>

namespace archipelago::core {

namespace evalkeys {
inline constexpr const char* kFile = "file";
inline constexpr const char* kOk = "ok";
inline constexpr const char* kIterationTimeS = "iteration_time_s";
inline constexpr const char* kBubbleRatio = "bubble_ratio";
inline constexpr const char* kIdleOverCompute = "idle_over_compute";
inline constexpr const char* kMfu = "mfu";
inline constexpr const char* kHfu = "hfu";
inline constexpr const char* kTokensPerS = "tokens_per_s";
inline constexpr const char* kModelFlops = "model_flops_per_iteration";
inline constexpr const char* kHardwareFlops = "hardware_flops_per_iteration";
inline constexpr const char* kMemoryPeakGib = "memory_peak_gib";
inline constexpr const char* kFitsInMemory = "fits_in_memory";
inline constexpr const char* kHbmGib = "hbm_gib";
inline constexpr const char* kMemory = "memory";
inline constexpr const char* kNetworkCapexUsd = "network_capex_usd";
inline constexpr const char* kNetworkPowerW = "network_power_w";
inline constexpr const char* kBreakdown = "breakdown";
inline constexpr const char* kBom = "bom";
inline constexpr const char* kTraffic = "traffic";
inline constexpr const char* kTimeToTrainS = "time_to_train_s";
inline constexpr const char* kGpuHours = "gpu_hours";
inline constexpr const char* kGpus = "gpus";
inline constexpr const char* kGoodput = "goodput";
inline constexpr const char* kDatacenterSyncResult = "datacenter_sync";
inline constexpr const char* kRunCost = "run_cost";
inline constexpr const char* kWarnings = "warnings";
inline constexpr const char* kAssumptions = "assumptions";
inline constexpr const char* kCalibration = "calibration";

// goodput
inline constexpr const char* kInterruptionsPerDay = "interruptions_per_day";
inline constexpr const char* kMtbfS = "mtbf_s";
inline constexpr const char* kCheckpointBytes = "checkpoint_bytes";
inline constexpr const char* kCheckpointBlockingS = "checkpoint_blocking_s";
inline constexpr const char* kCheckpointWriteS = "checkpoint_write_s";
inline constexpr const char* kCheckpointIntervalS = "checkpoint_interval_s";
inline constexpr const char* kRestartS = "restart_s";
inline constexpr const char* kEttr = "ettr";
inline constexpr const char* kEffectiveTimeToTrainS = "effective_time_to_train_s";
inline constexpr const char* kEffectiveGpuHours = "effective_gpu_hours";
inline constexpr const char* kUsefulS = "useful_s";
inline constexpr const char* kCheckpointsS = "checkpoints_s";
inline constexpr const char* kRestartsS = "restarts_s";
inline constexpr const char* kLostWorkS = "lost_work_s";
inline constexpr const char* kConvergenceS = "convergence_s";
inline constexpr const char* kStalledShare = "stalled_share";
inline constexpr const char* kDegradedS = "degraded_s";
inline constexpr const char* kReplicaBytes = "replica_bytes";
inline constexpr const char* kReplicaS = "replica_s";
inline constexpr const char* kInterruptionsByDomain = "interruptions_per_day_by_domain";
inline constexpr const char* kServers = "servers";
inline constexpr const char* kFabric = "fabric";
inline constexpr const char* kDci = "dci";
inline constexpr const char* kBuildings = "buildings";
inline constexpr const char* kDegradationsPerDay = "degradations_per_day";
inline constexpr const char* kAbsorbedPerDay = "absorbed_per_day";

// run_cost
inline constexpr const char* kPriced = "priced";
inline constexpr const char* kRented = "rented";
// kCapexUsd ("capex_usd", as a bill-of-materials item's)
inline constexpr const char* kItPowerW = "it_power_w";
inline constexpr const char* kOwnershipUsdPerHour = "ownership_usd_per_hour";
inline constexpr const char* kFacilityUsdPerHour = "facility_usd_per_hour";
inline constexpr const char* kEnergyUsdPerHour = "energy_usd_per_hour";
inline constexpr const char* kUsdPerHour = "usd_per_hour";
inline constexpr const char* kUsdPerGpuHour = "usd_per_gpu_hour";
inline constexpr const char* kRunCostUsd = "run_cost_usd";
inline constexpr const char* kEffectiveRunCostUsd = "effective_run_cost_usd";

// datacenter_sync
inline constexpr const char* kSyncScheme = "scheme";
inline constexpr const char* kSyncReplicas = "replicas";
inline constexpr const char* kSyncInnerSteps = "inner_steps";
inline constexpr const char* kSyncFragments = "fragments";
inline constexpr const char* kOuterBytesPerGpu = "outer_bytes_per_gpu";
inline constexpr const char* kOuterStepS = "outer_step_s";
inline constexpr const char* kOuterExposedS = "outer_exposed_s";
inline constexpr const char* kLossRatio = "loss_ratio";
inline constexpr const char* kComputeMultiplier = "compute_multiplier";

// memory
inline constexpr const char* kWeightsGib = "weights_gib";
inline constexpr const char* kGradientsGib = "gradients_gib";
inline constexpr const char* kOptimizerGib = "optimizer_gib";
inline constexpr const char* kActivationsGib = "activations_gib";
inline constexpr const char* kOtherGib = "other_gib";
inline constexpr const char* kInFlightMicroBatches = "in_flight_micro_batches";
inline constexpr const char* kWorstStage = "worst_stage";

// breakdown
inline constexpr const char* kForwardS = "forward_s";
inline constexpr const char* kBackwardS = "backward_s";
inline constexpr const char* kRecomputeS = "recompute_s";
inline constexpr const char* kTpCommS = "tp_comm_s";
inline constexpr const char* kCpCommS = "cp_comm_s";
inline constexpr const char* kEpCommS = "ep_comm_s";
inline constexpr const char* kPpCommS = "pp_comm_s";
inline constexpr const char* kDpCommS = "dp_comm_s";
inline constexpr const char* kOptimizerS = "optimizer_s";
inline constexpr const char* kBubbleS = "bubble_s";
inline constexpr const char* kInterferenceS = "interference_s";
inline constexpr const char* kVariabilityS = "variability_s";
inline constexpr const char* kOverheadS = "overhead_s";

// bom
inline constexpr const char* kItem = "item";
inline constexpr const char* kCategory = "category";
inline constexpr const char* kScope = "scope";
inline constexpr const char* kCount = "count";
inline constexpr const char* kUnitPriceUsd = "unit_price_usd";
inline constexpr const char* kUnitWatts = "unit_watts";
inline constexpr const char* kCapexUsd = "capex_usd";
inline constexpr const char* kPowerW = "power_w";

// traffic
inline constexpr const char* kLinkClass = "link_class";
inline constexpr const char* kBytesPerIteration = "bytes_per_iteration";
inline constexpr const char* kBusyS = "busy_s";
inline constexpr const char* kUtilisation = "utilisation";
inline constexpr const char* kBytesAToB = "bytes_a_to_b"; // DCI links: per direction
inline constexpr const char* kBytesBToA = "bytes_b_to_a";
inline constexpr const char* kBusyAToBS = "busy_a_to_b_s";
inline constexpr const char* kBusyBToAS = "busy_b_to_a_s";
inline constexpr const char* kDciLink = "dci_link";
} // namespace evalkeys

// The evaluation of the scenario read from `file`. Keys come out sorted (nlohmann::json), so
// the text is stable for diffs and golden files. Dump it with
// nlohmann::json::error_handler_t::replace: `file` is whatever bytes the user's path held.
nlohmann::json evaluationToJson(const std::string& file, const Evaluation& evaluation);

} // namespace archipelago::core
