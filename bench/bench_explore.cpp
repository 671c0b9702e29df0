// The explorer's throughput: design points fully evaluated per second for
// a sweep of the built-in default preset (presets/llama3-405b-two-buildings.json) over its
// default space (docs/explore.md), on every core. The "points_per_s" counter is the figure
// the target (100,000 per second) is about; "considered_per_s" counts pruned ones too.
#include "evaluation/costmodel.h"
#include "explore/searchspace.h"
#include "explore/sweep.h"
#include "io/scenarioio.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

namespace {

void benchSweepDefaultPreset(benchmark::State& state)
{
    using namespace archipelago::core;
    const LoadResult load = loadScenarioFile(std::string(ARCHIPELAGO_SOURCE_DIR) +
                                             "/presets/llama3-405b-two-buildings.json");
    if (!load.ok()) {
        state.SkipWithError("cannot load the default preset");
        return;
    }
    const Scenario& base = *load.scenario;
    const Catalog catalog = effectiveCatalog(base);
    const SearchSpace space = defaultSearchSpace(base);
    double evaluated = 0.0;
    double considered = 0.0;
    double seconds = 0.0;
    for (auto _ : state) {
        const SweepResult r = runSweep(base, catalog, space);
        benchmark::DoNotOptimize(r.top);
        evaluated += static_cast<double>(r.counts.evaluated);
        considered += static_cast<double>(r.counts.considered);
        seconds += r.wallS;
    }
    state.counters["points_per_s"] = evaluated / seconds;
    state.counters["considered_per_s"] = considered / seconds;
    state.counters["evaluated"] = evaluated / static_cast<double>(state.iterations());
}

} // namespace

BENCHMARK(benchSweepDefaultPreset)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
