// `archipelago-cli merge` (explore/sweepmerge.h): merging the shards' fronts, in the worst case
// for a front, where no point dominates another. benchMergeFronts/N: three shards holding N
// front points in all (each point on each of the three fronts, the same minimal points a
// forged set of shards would hold), merged in memory (reading the files is not timed).
#include "explore/sweep.h"
#include "explore/sweepkeys.h"
#include "explore/sweepmerge.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

using json = nlohmann::json;

std::vector<archipelago::core::SweepShardJson> antiDiagonalShards(std::uint64_t points)
{
    using namespace archipelago::core;
    constexpr int kShards = 3;
    constexpr std::uint64_t kTop = 10;
    std::vector<SweepShardJson> shards;
    for (int i = 0; i < kShards; ++i) {
        json list = json::array();
        for (std::uint64_t index = static_cast<std::uint64_t>(i); index < points;
             index += kShards) {
            const double t = static_cast<double>(index);
            const double y = static_cast<double>(points - index);
            list.push_back({{"index", index},
                            {"evaluation",
                             {{"iteration_time_s", t},
                              {"time_to_train_s", t},
                              {"memory_peak_gib", y},
                              {"goodput", {{"effective_time_to_train_s", t}}},
                              {"run_cost", {{"effective_run_cost_usd", t}}}}},
                            {"network_capex_usd", y},
                            {"total_cost_usd", y}});
        }
        const std::uint64_t n = list.size();
        json top = json::array();
        for (std::uint64_t k = 0; k < kTop && k < n; ++k)
            top.push_back(list[k]);
        json byObjective = json::object();
        for (std::size_t k = 0; k < kSweepObjectives; ++k)
            byObjective[toString(static_cast<SweepObjective>(k))] = top;
        // Through text, as read from a file: its counts unsigned.
        const json shard = {
            {"cancelled", false},
            {"shard", {{"index", i}, {"count", kShards}}},
            {"inputs", {{"scenario_fnv1a64", "0"}, {"space_fnv1a64", "0"}, {"top", kTop}}},
            {"counts",
             {{"space_points", points},
              {"considered", n},
              {"pruned", 0},
              {"pruned_by_reason", json::object()},
              {"evaluated", n},
              {"failed", 0},
              {"out_of_memory", 0},
              {"over_budget", 0},
              {"feasible", n}}},
            {"faster_than_base", 0},
            {"base_rank", 1},
            {"base", {{"index", 0}}},
            {"top", top},
            {"top_by_objective", byObjective},
            {"fronts",
             {{sweepkeys::kTimeVsCapex, list},
              {sweepkeys::kTimeVsMemory, list},
              {sweepkeys::kTrainTimeVsCost, list}}}};
        shards.push_back({"shard" + std::to_string(i) + ".json", json::parse(shard.dump())});
    }
    return shards;
}

void benchMergeFronts(benchmark::State& state)
{
    const auto points = static_cast<std::uint64_t>(state.range(0));
    const auto shards = antiDiagonalShards(points);
    for (auto _ : state) {
        const archipelago::core::SweepMergeResult r = archipelago::core::mergeSweepShards(shards);
        if (!r.merged) {
            state.SkipWithError(r.errors.empty() ? "no merge" : r.errors.front().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(r.merged->size());
    }
    state.counters["front_points"] = static_cast<double>(points);
}

} // namespace

BENCHMARK(benchMergeFronts)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

BENCHMARK_MAIN();
