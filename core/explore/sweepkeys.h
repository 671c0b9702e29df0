// The keys of the sweep JSON (sweepjson: `sweep --json`, merged by sweepmerge, tabled by sweepcsv)
// and of the saved sweep (sweepsave), each spelled once. A point's knobs are the space's keys
// (spacekeys, explore/spacejson.h) and its figures the evaluation's (evalkeys).
#pragma once

namespace archipelago::core::sweepkeys {

// The sweep
inline constexpr const char* kFile = "file";
inline constexpr const char* kInputs = "inputs";
inline constexpr const char* kSpace = "space"; // the saved sweep's search space
inline constexpr const char* kCancelled = "cancelled";
inline constexpr const char* kCounts = "counts";
inline constexpr const char* kBase = "base";
inline constexpr const char* kBaseFeasible = "base_feasible";
inline constexpr const char* kBaseRank = "base_rank";
inline constexpr const char* kFasterThanBase = "faster_than_base";
inline constexpr const char* kShard = "shard";
inline constexpr const char* kTop = "top";
inline constexpr const char* kTopByObjective = "top_by_objective";
inline constexpr const char* kFronts = "fronts";

// shard
inline constexpr const char* kIndex = "index"; // also a point's index in the space
inline constexpr const char* kCount = "count";

// counts, in SweepCounts' order
inline constexpr const char* kSpacePoints = "space_points";
inline constexpr const char* kConsidered = "considered";
inline constexpr const char* kPruned = "pruned";
inline constexpr const char* kPrunedByReason = "pruned_by_reason";
inline constexpr const char* kEvaluated = "evaluated";
inline constexpr const char* kFailed = "failed";
inline constexpr const char* kOutOfMemory = "out_of_memory";
inline constexpr const char* kOverBudget = "over_budget";
inline constexpr const char* kFeasible = "feasible";

// fronts
inline constexpr const char* kTimeVsCapex = "iteration_time_vs_network_capex";
inline constexpr const char* kTimeVsMemory = "iteration_time_vs_memory_peak";
inline constexpr const char* kTrainTimeVsCost = "time_to_train_vs_total_cost";

// a point, beside its knobs and kIndex
inline constexpr const char* kDescription = "description";
inline constexpr const char* kEvaluation = "evaluation";
inline constexpr const char* kDataParallel = "data_parallel";
inline constexpr const char* kTotalCostUsd = "total_cost_usd";
inline constexpr const char* kIterationTimeVsBase = "iteration_time_vs_base";
inline constexpr const char* kBreakdownMinusBase = "breakdown_minus_base";

} // namespace archipelago::core::sweepkeys
