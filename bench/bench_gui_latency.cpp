// Edit-to-published-Evaluation latency on the largest preset: target a median
// of at most 30 ms. One iteration pushes an undo command (activation recompute toggled between
// full and selective: always valid, always cost-affecting) and spins the event loop until the
// Evaluator, with debounce 0, has published the evaluation of the edited scenario.
//   edit_to_evaluation/document  Document + Evaluator only: the model's path
//   edit_to_evaluation/window    the offscreen MainWindow: views refreshed, plots redrawn too
// The median per edit is reported as the counter "median_ms".
#include "commands/valuecommands.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "document/presetlibrary.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QUndoStack>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace {

using namespace archipelago;

const QString kLargest =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/scale-across-100k-3-regions.json");

// Pushes one edit and waits for its evaluation; returns the latency in milliseconds.
double editAndWait(app::Document* document, app::Evaluator* evaluator)
{
    core::Parallelism p = document->scenario().parallelism;
    p.recompute =
        p.recompute == core::Recompute::Full ? core::Recompute::Selective : core::Recompute::Full;
    const std::uint64_t before = evaluator->generation();
    QElapsedTimer timer;
    timer.start();
    document->undoStack()->push(new app::SetParallelism(document, p));
    // The request raised the generation; wait until its result is out.
    while (evaluator->generation() == before || evaluator->isBusy())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void report(benchmark::State& state, std::vector<double> latencies)
{
    if (latencies.empty())
        return;
    std::sort(latencies.begin(), latencies.end());
    state.counters["median_ms"] = latencies[latencies.size() / 2];
    state.counters["max_ms"] = latencies.back();
}

void benchDocument(benchmark::State& state)
{
    app::Document document;
    if (!document.load(kLargest).empty()) {
        state.SkipWithError("cannot load the largest preset");
        return;
    }
    app::Evaluator evaluator;
    evaluator.setDelay(0);
    QObject::connect(&document, &app::Document::changed, &evaluator,
                     [&](const app::ChangeEvent& e) {
                         if (e.affectsCost())
                             evaluator.request(document.scenario());
                     });
    std::vector<double> latencies;
    for (auto _ : state)
        latencies.push_back(editAndWait(&document, &evaluator));
    report(state, std::move(latencies));
}

void benchWindow(benchmark::State& state)
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    window.evaluator()->setDelay(0);
    if (!window.openFile(kLargest)) {
        state.SkipWithError("cannot load the largest preset");
        return;
    }
    window.resize(1600, 1000);
    window.show();
    while (!window.evaluator()->evaluation() || window.evaluator()->isBusy())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    std::vector<double> latencies;
    for (auto _ : state) {
        latencies.push_back(editAndWait(window.document(), window.evaluator()));
        QCoreApplication::processEvents(); // queued replots, as the user would see them
    }
    report(state, std::move(latencies));
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication application(argc, argv);
    app::PresetLibrary::initResources();
    benchmark::RegisterBenchmark("edit_to_evaluation/document", benchDocument)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(200);
    benchmark::RegisterBenchmark("edit_to_evaluation/window", benchWindow)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(100);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
