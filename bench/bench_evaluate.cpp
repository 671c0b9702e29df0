// evaluate() on every preset (issue 3 item 8): target median <= 50 us for the 16,384-GPU
// preset on one core. Scenarios are loaded once, outside the timed loop. The "/timeline"
// variant is what the GUI runs (the pipeline timeline recorded); evaluate() always records it.
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

namespace {

void benchEvaluate(benchmark::State& state, archipelago::core::Scenario scenario)
{
    for (auto _ : state) {
        archipelago::core::Evaluation ev = archipelago::core::evaluate(scenario);
        benchmark::DoNotOptimize(ev);
    }
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
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
