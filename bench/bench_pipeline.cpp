// Speed of the pipeline simulator (core/pipelinesimulator.h): the explorer runs it for every
// design point, the GUI on every edit.
#include "pipeline/pipelinesimulator.h"

#include <benchmark/benchmark.h>

using namespace archipelago::core;

namespace {

PipelineSpec makeSpec(ScheduleKind kind, int p, int v, int m, bool timeline)
{
    PipelineSpec s;
    s.schedule = kind;
    s.stages = p;
    s.virtualStages = v;
    s.microBatches = m;
    const auto n = static_cast<std::size_t>(p * v);
    s.forwardS.assign(n, 1e-3 / v);
    s.backwardS.assign(n, 2e-3 / v);
    s.sendS.assign(n - 1, 5e-5);
    s.sendCrossesDci.assign(n - 1, false);
    s.sendCrossesDci[n / 2 - 1] = true;
    s.sendS[n / 2 - 1] = 2e-3; // one slow DCI boundary
    s.recordTimeline = timeline;
    return s;
}

void runSpec(benchmark::State& state, const PipelineSpec& spec)
{
    for (auto _ : state) {
        PipelineResult r = simulatePipeline(spec);
        benchmark::DoNotOptimize(r.makespanS);
        benchmark::DoNotOptimize(r.timeline.data());
    }
    state.SetItemsProcessed(state.iterations() * 2 * spec.stages * spec.virtualStages *
                            spec.microBatches);
}

void BM_OneFOneB_p16_m128(benchmark::State& state)
{
    runSpec(state, makeSpec(ScheduleKind::OneFOneB, 16, 1, 128, state.range(0) != 0));
}

void BM_Interleaved_p16_v4_m128(benchmark::State& state)
{
    runSpec(state, makeSpec(ScheduleKind::Interleaved1F1B, 16, 4, 128, state.range(0) != 0));
}

void BM_ZeroBubbleH1_p16_m128(benchmark::State& state)
{
    runSpec(state, makeSpec(ScheduleKind::ZeroBubbleH1, 16, 1, 128, state.range(0) != 0));
}

} // namespace

BENCHMARK(BM_OneFOneB_p16_m128)->ArgName("timeline")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Interleaved_p16_v4_m128)
    ->ArgName("timeline")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ZeroBubbleH1_p16_m128)
    ->ArgName("timeline")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
