// The explorer's throughput: design points fully evaluated per second for
// a sweep of the built-in default preset (presets/llama3-405b-two-buildings.json) over its
// default space (docs/explore.md), on every core. The "points_per_s" counter is the figure
// the target (100,000 per second) is about; "considered_per_s" counts pruned ones too.
// benchSweepMtnlg530b: the 530B benchmark (docs/explore.md): Megatron-Turing NLG 530B on 5,128
// A100 (bench/data/mtnlg-530b-5128-a100.json) over TP, PP, DP, micro-batch, interleaving,
// recompute and optimizer sharding (bench/data/mtnlg-530b-space.json); a published Python
// analytical tool searches 8,112 such configurations in about 20 s.
// benchSweepFifteenDimensions/THREADS: the default preset over a 13.4-million-point space of 15
// dimensions (bench/data/llama3-405b-two-buildings-15d-space.json: TP, PP, DP, micro-batch, v,
// schedule, recompute, ZeRO, distributed optimizer, sequence parallel, boundary, stage split,
// transport, wavelengths, extra in flight) on one thread and on two: the enumeration, the
// pruning and the thread scaling at ten million points.
#include "evaluation/costmodel.h"
#include "explore/searchspace.h"
#include "explore/spacejson.h"
#include "explore/sweep.h"
#include "io/diagnosticsink.h"
#include "io/scenarioio.h"

#include <benchmark/benchmark.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <chrono>
#include <cstdint>
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

// The default preset with state.range(0) parallel DCI links between its two buildings (each a
// copy of the first, with its own id), swept over its default space: what grows with the
// number of links. A sweep's cost per point should not: checking each candidate's topology and
// comparing it with the worker's model once walked every link for every point.
void benchSweepManyDciLinks(benchmark::State& state)
{
    using namespace archipelago::core;
    const LoadResult load = loadScenarioFile(std::string(ARCHIPELAGO_SOURCE_DIR) +
                                             "/presets/llama3-405b-two-buildings.json");
    if (!load.ok() || load.scenario->topology.links.empty()) {
        state.SkipWithError("cannot load the default preset");
        return;
    }
    Scenario base = *load.scenario;
    const DciLink first = base.topology.links.front();
    base.topology.links.clear();
    for (std::int64_t i = 0; i < state.range(0); ++i) {
        DciLink link = first;
        link.id = static_cast<Id>(i);
        link.wavelengths = 1;
        base.topology.links.push_back(link);
    }
    const Catalog catalog = effectiveCatalog(base);
    const SearchSpace space = defaultSearchSpace(base);
    double evaluated = 0.0;
    for (auto _ : state) {
        const SweepResult r = runSweep(base, catalog, space);
        benchmark::DoNotOptimize(r.top);
        evaluated += static_cast<double>(r.counts.evaluated);
    }
    state.counters["evaluated"] = evaluated / static_cast<double>(state.iterations());
}

// A sweep of `scenario` over the space file `spaceFile` (paths from the source directory) with
// `threads` threads (0: TBB's default).
void benchSweepFile(benchmark::State& state, const std::string& scenario,
                    const std::string& spaceFile, int threads)
{
    using namespace archipelago::core;
    const std::string dir = std::string(ARCHIPELAGO_SOURCE_DIR) + "/";
    const LoadResult load = loadScenarioFile(dir + scenario);
    if (!load.ok()) {
        state.SkipWithError(("cannot load " + scenario).c_str());
        return;
    }
    const Scenario& base = *load.scenario;
    DiagnosticSink sink(spaceFile);
    const std::optional<SearchSpace> space = loadSearchSpace(dir + spaceFile, base, sink);
    if (!space) {
        state.SkipWithError(("cannot read " + spaceFile).c_str());
        return;
    }
    const Catalog catalog = effectiveCatalog(base);
    SweepOptions options;
    options.threads = threads;
    double evaluated = 0.0;
    double considered = 0.0;
    double seconds = 0.0;
    for (auto _ : state) {
        const SweepResult r = runSweep(base, catalog, *space, options);
        benchmark::DoNotOptimize(r.top);
        evaluated += static_cast<double>(r.counts.evaluated);
        considered += static_cast<double>(r.counts.considered);
        seconds += r.wallS;
    }
    const auto n = static_cast<double>(state.iterations());
    state.counters["points_per_s"] = evaluated / seconds;
    state.counters["considered_per_s"] = considered / seconds;
    state.counters["evaluated"] = evaluated / n;
    state.counters["considered"] = considered / n;
}

void benchSweepMtnlg530b(benchmark::State& state)
{
    benchSweepFile(state, "bench/data/mtnlg-530b-5128-a100.json",
                   "bench/data/mtnlg-530b-space.json", 0);
}

void benchSweepFifteenDimensions(benchmark::State& state)
{
    benchSweepFile(state, "presets/llama3-405b-two-buildings.json",
                   "bench/data/llama3-405b-two-buildings-15d-space.json",
                   static_cast<int>(state.range(0)));
}

// Points fully evaluated per second, without the search around them: every point of a preset's
// default space that fits (the ranked ones), each re-evaluated with the sweep's lean
// options on every core, one workspace per thread. A sweep prunes most points before this
// step, so its evaluated-per-second figure also carries the enumeration and placement work.
void benchEvaluateRankedPoints(benchmark::State& state, const char* preset)
{
    using namespace archipelago::core;
    const LoadResult load =
        loadScenarioFile(std::string(ARCHIPELAGO_SOURCE_DIR) + "/presets/" + preset);
    if (!load.ok()) {
        state.SkipWithError("cannot load the preset");
        return;
    }
    const Scenario& base = *load.scenario;
    const Catalog catalog = effectiveCatalog(base);
    SweepOptions all;
    all.top = 10000;
    const SweepResult r = runSweep(base, catalog, defaultSearchSpace(base), all);
    std::vector<Scenario> points;
    for (const SweepPoint& p : r.top)
        points.push_back(applyPoint(base, p.point, p.placement));
    EvaluateOptions lean;
    lean.timeline = false;
    lean.warnings = false;
    lean.billOfMaterials = false;
    lean.attribution = false;
    tbb::enumerable_thread_specific<EvaluationWorkspace> workspaces;
    double evaluated = 0.0;
    double seconds = 0.0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        tbb::parallel_for(std::size_t{0}, points.size(), [&](std::size_t i) {
            benchmark::DoNotOptimize(evaluate(points[i], catalog, lean, &workspaces.local()));
        });
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        evaluated += static_cast<double>(points.size());
    }
    state.counters["points_per_s"] = evaluated / seconds;
    state.counters["points"] = static_cast<double>(points.size());
}

} // namespace

// The default preset shares its DCI link between pipeline transfers (the simulator's worklist);
// the single-building one replays recorded op orders.
BENCHMARK_CAPTURE(benchEvaluateRankedPoints, twoBuildings, "llama3-405b-two-buildings.json")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(benchEvaluateRankedPoints, oneBuilding16k, "llama3-405b-16k-h100.json")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(benchSweepDefaultPreset)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(benchSweepManyDciLinks)
    ->Arg(2)
    ->Arg(1'000)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(benchSweepMtnlg530b)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(benchSweepFifteenDimensions)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

BENCHMARK_MAIN();
