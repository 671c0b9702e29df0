// `--shard I/N` and `--shard auto[/N]` of `archipelago-cli sweep` (README, "Sharding a sweep"):
// this run considers the points whose odometer index is I modulo N. `auto` takes I and N from
// the batch system's environment:
//   * Slurm job arrays: I = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN (divided by
//     SLURM_ARRAY_TASK_STEP when the range has a step), N = SLURM_ARRAY_TASK_COUNT;
//   * Kubernetes Indexed Jobs: I = JOB_COMPLETION_INDEX, N from `auto/N` or from
//     ARCHIPELAGO_SHARD_COUNT (Kubernetes does not export the completion count).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace archipelago::cli {

inline constexpr int kMaxShards = 100000;

struct ShardSpec
{
    int index = 0;
    int count = 1;
};

// An environment variable's value, or nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;
EnvironmentLookup processEnvironment();

// The shard `text` names, or nullopt with the reason in `error` (a usage error).
std::optional<ShardSpec> parseShardOption(const std::string& text, const EnvironmentLookup& env,
                                          std::string& error);

} // namespace archipelago::cli
