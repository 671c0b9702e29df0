// evaluate() on every preset: target median <= 50 us for the 16,384-GPU preset on one core.
// Scenarios are loaded once, outside the timed loop. The "allocs" counter is the number of heap
// allocations of one evaluate(), counted by the replaced global operator new below.
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <string>

namespace {
std::atomic<long long> gAllocations{0};
} // namespace

// Counting allocator: every operator new form funnels through these two.
void* operator new(std::size_t size)
{
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}

namespace {

void benchEvaluate(benchmark::State& state, archipelago::core::Scenario scenario)
{
    long long allocations = 0;
    for (auto _ : state) {
        const long long before = gAllocations.load(std::memory_order_relaxed);
        archipelago::core::Evaluation ev = archipelago::core::evaluate(scenario);
        benchmark::DoNotOptimize(ev);
        allocations = gAllocations.load(std::memory_order_relaxed) - before;
    }
    state.counters["allocs"] = static_cast<double>(allocations);
}

// What the explorer runs: one workspace per thread (the topology's routes, fabrics and bill of
// materials built once), no timeline, no warning text, no attribution re-simulation.
void benchEvaluateLean(benchmark::State& state, archipelago::core::Scenario scenario)
{
    using namespace archipelago::core;
    const Catalog catalog = effectiveCatalog(scenario);
    EvaluateOptions options;
    options.timeline = false;
    options.warnings = false;
    options.attribution = false;
    EvaluationWorkspace workspace;
    long long allocations = 0;
    for (auto _ : state) {
        const long long before = gAllocations.load(std::memory_order_relaxed);
        Evaluation ev = evaluate(scenario, catalog, options, &workspace);
        benchmark::DoNotOptimize(ev);
        allocations = gAllocations.load(std::memory_order_relaxed) - before;
    }
    state.counters["allocs"] = static_cast<double>(allocations);
}

} // namespace

int main(int argc, char** argv)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(ARCHIPELAGO_SOURCE_DIR) / "presets";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().extension() != ".json")
            continue;
        const archipelago::core::LoadResult load =
            archipelago::core::loadScenarioFile(entry.path().string());
        if (!load.ok())
            continue;
        benchmark::RegisterBenchmark(("evaluate/" + entry.path().stem().string()).c_str(),
                                     benchEvaluate, *load.scenario)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("evaluate_lean/" + entry.path().stem().string()).c_str(),
                                     benchEvaluateLean, *load.scenario)
            ->Unit(benchmark::kMicrosecond);
    }
    // The cost against the micro-batch count: the default preset (a pipeline across the DCI
    // link, whose shared link the simulator queues) and the single-building one, with the
    // global batch scaled so that m = 16 (the presets' own) to 4,096.
    for (const char* name : {"llama3-405b-two-buildings", "llama3-405b-16k-h100"}) {
        const archipelago::core::LoadResult load =
            archipelago::core::loadScenarioFile((dir / (std::string(name) + ".json")).string());
        if (!load.ok())
            continue;
        const std::int64_t m0 = archipelago::core::microBatchesPerIteration(*load.scenario);
        for (const std::int64_t m : {16, 256, 1024, 4096}) {
            archipelago::core::Scenario s = *load.scenario;
            s.workload.globalBatch = static_cast<int>(s.workload.globalBatch * m / m0);
            benchmark::RegisterBenchmark(
                ("evaluate_lean_m/" + std::string(name) + "/" + std::to_string(m)).c_str(),
                benchEvaluateLean, s)
                ->Unit(benchmark::kMicrosecond);
        }
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
