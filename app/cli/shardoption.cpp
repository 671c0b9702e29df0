#include "shardoption.h"

#include <charconv>
#include <cstdlib>

namespace archipelago::cli {

namespace {

std::optional<long long> parseInteger(const std::string& text)
{
    long long v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || ptr != end)
        return std::nullopt;
    return v;
}

std::optional<int> parseCount(const std::string& text)
{
    const std::optional<long long> n = parseInteger(text);
    if (!n || *n < 1 || *n > kMaxShards)
        return std::nullopt;
    return static_cast<int>(*n);
}

// An integer variable of the environment: nullopt when unset, an error when not an integer.
std::optional<long long> integerVariable(const EnvironmentLookup& env, const char* name,
                                         std::string& error)
{
    const std::optional<std::string> value = env(name);
    if (!value)
        return std::nullopt;
    const std::optional<long long> n = parseInteger(*value);
    if (!n)
        error = std::string(name) + " is '" + *value + "', expected an integer";
    return n;
}

std::optional<ShardSpec> checked(long long index, long long count, const std::string& from,
                                 std::string& error)
{
    if (count < 1 || count > kMaxShards) {
        error = from + ": a shard count of " + std::to_string(count) + ", expected 1.." +
                std::to_string(kMaxShards);
        return std::nullopt;
    }
    if (index < 0 || index >= count) {
        error = from + ": shard index " + std::to_string(index) + ", expected 0.." +
                std::to_string(count - 1);
        return std::nullopt;
    }
    return ShardSpec{static_cast<int>(index), static_cast<int>(count)};
}

std::optional<ShardSpec> fromSlurm(long long id, const EnvironmentLookup& env,
                                   std::optional<int> givenCount, std::string& error)
{
    const std::optional<long long> count = integerVariable(env, "SLURM_ARRAY_TASK_COUNT", error);
    const std::optional<long long> min = integerVariable(env, "SLURM_ARRAY_TASK_MIN", error);
    const std::optional<long long> step = integerVariable(env, "SLURM_ARRAY_TASK_STEP", error);
    if (!error.empty())
        return std::nullopt;
    if (!count && !givenCount) {
        error = "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; "
                "give the count as --shard auto/N";
        return std::nullopt;
    }
    if (count && givenCount && *count != *givenCount) {
        error = "--shard auto/" + std::to_string(*givenCount) + ": the Slurm array has " +
                std::to_string(*count) + " tasks (SLURM_ARRAY_TASK_COUNT)";
        return std::nullopt;
    }
    if (step && *step < 1) {
        error = "--shard auto: SLURM_ARRAY_TASK_STEP is " + std::to_string(*step) +
                ", expected a positive integer";
        return std::nullopt;
    }
    // Task ids and the minimum are whatever the environment says: the difference is taken only
    // when it cannot overflow (a wrapped value would pass as a shard).
    long long index = 0;
    if (__builtin_sub_overflow(id, min.value_or(0), &index) || index < 0) {
        error = "--shard auto: SLURM_ARRAY_TASK_ID " + std::to_string(id) +
                " is below SLURM_ARRAY_TASK_MIN " + std::to_string(min.value_or(0)) +
                " or too far from it";
        return std::nullopt;
    }
    if (step && *step > 1) {
        if (index % *step != 0) {
            error = "--shard auto: SLURM_ARRAY_TASK_ID " + std::to_string(id) +
                    " is not on the array's step " + std::to_string(*step);
            return std::nullopt;
        }
        index /= *step;
    }
    return checked(index, count ? *count : *givenCount,
                   "--shard auto (SLURM_ARRAY_TASK_ID " + std::to_string(id) +
                       ", SLURM_ARRAY_TASK_MIN " + std::to_string(min.value_or(0)) +
                       "; use a contiguous --array range such as 0-15)",
                   error);
}

std::optional<ShardSpec> fromKubernetes(long long index, const EnvironmentLookup& env,
                                        std::optional<int> givenCount, std::string& error)
{
    const std::optional<std::string> countText = env("ARCHIPELAGO_SHARD_COUNT");
    std::optional<int> count = givenCount;
    if (countText) {
        const std::optional<int> n = parseCount(*countText);
        if (!n) {
            error = "ARCHIPELAGO_SHARD_COUNT is '" + *countText + "', expected an integer in 1.." +
                    std::to_string(kMaxShards);
            return std::nullopt;
        }
        if (count && *count != *n) {
            error = "--shard auto/" + std::to_string(*count) + " but ARCHIPELAGO_SHARD_COUNT is " +
                    std::to_string(*n);
            return std::nullopt;
        }
        count = n;
    }
    if (!count) {
        error = "--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but not the "
                "shard count: give it as --shard auto/N (N = the Job's completions) or in "
                "ARCHIPELAGO_SHARD_COUNT";
        return std::nullopt;
    }
    return checked(index, *count,
                   "--shard auto (JOB_COMPLETION_INDEX " + std::to_string(index) + ")", error);
}

} // namespace

EnvironmentLookup processEnvironment()
{
    return [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name);
        return v ? std::optional<std::string>(v) : std::nullopt;
    };
}

std::optional<ShardSpec> parseShardOption(const std::string& text, const EnvironmentLookup& env,
                                          std::string& error)
{
    error.clear();
    const std::size_t slash = text.find('/');
    const std::string first = text.substr(0, slash);
    std::optional<int> count;
    if (slash != std::string::npos) {
        count = parseCount(text.substr(slash + 1));
        if (!count) {
            error = "--shard expects I/N with 1 <= N <= " + std::to_string(kMaxShards) +
                    ", auto or auto/N, got '" + text + "'";
            return std::nullopt;
        }
    }
    if (first != "auto") {
        const std::optional<long long> index = parseInteger(first);
        if (!index || !count || *index < 0 || *index >= *count) {
            error = "--shard expects I/N with 0 <= I < N <= " + std::to_string(kMaxShards) +
                    ", auto or auto/N, got '" + text + "'";
            return std::nullopt;
        }
        return ShardSpec{static_cast<int>(*index), *count};
    }
    if (const std::optional<long long> id = integerVariable(env, "SLURM_ARRAY_TASK_ID", error))
        return fromSlurm(*id, env, count, error);
    if (!error.empty())
        return std::nullopt;
    if (const std::optional<long long> index = integerVariable(env, "JOB_COMPLETION_INDEX", error))
        return fromKubernetes(*index, env, count, error);
    if (error.empty())
        error = "--shard auto: neither a Slurm job array (SLURM_ARRAY_TASK_ID) nor a Kubernetes "
                "Indexed Job (JOB_COMPLETION_INDEX) in the environment; give the shard as "
                "--shard I/N";
    return std::nullopt;
}

} // namespace archipelago::cli
