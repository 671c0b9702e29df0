// Edit latency in the window. One iteration pushes an undo command (activation recompute
// toggled between full and selective: always valid, always cost-affecting) and spins the event
// loop until the Evaluator, with debounce 0, has published the evaluation of the edited
// scenario.
//   edit_to_evaluation/document  the largest preset, Document + Evaluator only: the model's path
//   edit_to_evaluation/window    the largest preset in the offscreen MainWindow, the clock
//                                stopped at the publication (target: median at most 30 ms)
//   edit_to_redraw/PRESET        every preset in the offscreen MainWindow at 1600 x 1000: the
//                                clock stops at the last paint the edit caused, found by running
//                                the event loop until it has been idle for 100 ms after the
//                                publication (what the user sees; target: median at most 16 ms).
//                                Each edit is a design not seen before (the tokens to train
//                                change by one in a million with the recompute toggle), so no
//                                cache of a view holds it, as after a user's edit; the live
//                                front is off (below)
//   edit_to_live_front/PRESET    every preset in the offscreen MainWindow: the clock stops when
//                                the live front has published its finding for the edit (the
//                                default space swept; target: median at most 150 ms on the
//                                default preset)
// The median per edit is reported as the counter "median_ms".
#include "commands/valuecommands.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "document/livefront.h"
#include "document/presetlibrary.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEvent>
#include <QFileInfo>
#include <QUndoStack>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace archipelago;

const QString kLargest =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/scale-across-100k-3-regions.json");

// The parallelism with the recompute policy switched: an edit that changes the cost.
core::Parallelism otherRecompute(const app::Document* document)
{
    core::Parallelism p = document->scenario().parallelism;
    p.recompute =
        p.recompute == core::Recompute::Full ? core::Recompute::Selective : core::Recompute::Full;
    return p;
}

// Until the evaluator's result after generation `before` is out.
void waitForEvaluation(const app::Evaluator* evaluator, std::uint64_t before)
{
    while (evaluator->generation() == before || evaluator->isBusy())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
}

// Pushes one edit and waits for its evaluation; returns the latency in milliseconds.
double editAndWait(app::Document* document, app::Evaluator* evaluator)
{
    const core::Parallelism p = otherRecompute(document);
    const std::uint64_t before = evaluator->generation();
    QElapsedTimer timer;
    timer.start();
    document->undoStack()->push(new app::SetParallelism(document, p));
    waitForEvaluation(evaluator, before); // the request raised the generation
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

// The window on `preset`, shown at 1600 x 1000 with its first evaluation out; false (and the
// benchmark skipped) when the preset does not open.
bool openWindow(benchmark::State& state, app::MainWindow& window, const QString& preset,
                bool liveFront = false)
{
    window.evaluator()->setDelay(0);
    // The live front's finding paints the status bar once its sweep is done: measured by
    // edit_to_live_front, not counted in the window's own redraw.
    window.liveFront()->setEnabled(liveFront);
    if (!window.openFile(preset)) {
        state.SkipWithError("cannot load the preset");
        return false;
    }
    window.resize(1600, 1000);
    window.show();
    while (!window.evaluator()->evaluation() || window.evaluator()->isBusy())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    return true;
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
    if (!openWindow(state, window, kLargest))
        return;
    std::vector<double> latencies;
    for (auto _ : state) {
        latencies.push_back(editAndWait(window.document(), window.evaluator()));
        QCoreApplication::processEvents(); // queued replots, as the user would see them
    }
    report(state, std::move(latencies));
}

// Records the time of every paint of any widget, on the clock of the edit being measured.
class PaintClock : public QObject
{
public:
    explicit PaintClock(const QElapsedTimer& timer)
        : m_timer(timer)
    {}
    qint64 lastPaintNs = -1;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Paint && m_timer.isValid())
            lastPaintNs = m_timer.nsecsElapsed();
        return QObject::eventFilter(watched, event);
    }

private:
    const QElapsedTimer& m_timer;
};

// The edit, then the event loop run until it has done nothing for `quietMs` after the
// evaluation was published; the latency is the last paint's time (the publication's when the
// edit painted nothing).
double editAndRedraw(app::MainWindow& window, QElapsedTimer& timer, PaintClock& clock)
{
    app::Document* document = window.document();
    app::Evaluator* evaluator = window.evaluator();
    const core::Parallelism p = otherRecompute(document);
    core::Workload w = document->scenario().workload;
    w.trainTokens *= 1.000001;
    const std::uint64_t before = evaluator->generation();
    clock.lastPaintNs = -1;
    timer.start();
    {
        // One evaluation: the document batches the two changes into one change event.
        app::Document::ChangeBatch batch(document);
        document->undoStack()->push(new app::SetParallelism(document, p));
        document->undoStack()->push(new app::SetWorkload(document, w));
    }
    waitForEvaluation(evaluator, before);
    const qint64 publishedNs = timer.nsecsElapsed();
    constexpr qint64 quietNs = 100'000'000;
    qint64 lastActivityNs = publishedNs;
    while (timer.nsecsElapsed() - std::max(lastActivityNs, clock.lastPaintNs) < quietNs) {
        const qint64 paintBefore = clock.lastPaintNs;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        if (clock.lastPaintNs != paintBefore)
            lastActivityNs = timer.nsecsElapsed();
    }
    return static_cast<double>(std::max(publishedNs, clock.lastPaintNs)) / 1e6;
}

void benchRedraw(benchmark::State& state, const QString& preset)
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    if (!openWindow(state, window, preset))
        return;
    QElapsedTimer timer;
    PaintClock clock(timer);
    qApp->installEventFilter(&clock);
    std::vector<double> latencies;
    for (auto _ : state)
        latencies.push_back(editAndRedraw(window, timer, clock));
    qApp->removeEventFilter(&clock);
    report(state, std::move(latencies));
}

// The edit, then the event loop run until the live front's finding for it is out.
double editAndFind(app::MainWindow& window)
{
    app::Document* document = window.document();
    app::LiveFront* front = window.liveFront();
    const core::Parallelism p = otherRecompute(document);
    QElapsedTimer timer;
    timer.start();
    document->undoStack()->push(new app::SetParallelism(document, p));
    while (!front->finding() || front->finding()->revision != front->revision())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void benchLiveFront(benchmark::State& state, const QString& preset)
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    if (!openWindow(state, window, preset, true))
        return;
    while (window.liveFront()->isPending())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    std::vector<double> latencies;
    for (auto _ : state)
        latencies.push_back(editAndFind(window));
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
    const QDir presets(QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets"));
    for (const QString& name : presets.entryList({QStringLiteral("*.json")}, QDir::Files)) {
        const QString path = presets.filePath(name);
        const std::string preset = QFileInfo(name).completeBaseName().toStdString();
        const auto add = [&](const std::string& kind,
                             void (*run)(benchmark::State&, const QString&), int iterations) {
            benchmark::RegisterBenchmark((kind + "/" + preset).c_str(),
                                         [run, path](benchmark::State& state) { run(state, path); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime()
                ->Iterations(iterations);
        };
        add("edit_to_redraw", benchRedraw, 30);
        add("edit_to_live_front", benchLiveFront, 20);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
