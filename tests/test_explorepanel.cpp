// The Explore panel (app/gui/panels/explorepanel.h, docs/explore.md "The Explore panel"): a small
// space runs to completion with its results and counts shown; a bad value is refused in the
// user's words; a long run keeps the window responsive and Cancel returns promptly with the
// partial counts reported as such; a clicked point is previewed in the plots and the table
// without touching the document; Pin adds a pin (undo removes it); Apply makes the point the
// current design in one undo step (undo restores the exact scenario, redo re-applies); the
// sweep is saved with the document and shown again when the file is opened.
#include "common/format.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "document/sweeprunner.h"
#include "editing/editcontroller.h"
#include "explore/spacejson.h"
#include "io/scenarioio.h"
#include "panels/explorepanel.h"
#include "plots/paretoscatter.h"
#include "tables/sweeptoptable.h"
#include "window/exportdata.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <cmath>

using namespace archipelago;

namespace {

void waitForEvaluation(app::MainWindow& window)
{
    QTRY_VERIFY_WITH_TIMEOUT(!window.evaluator()->isBusy() && window.evaluator()->evaluation(),
                             20000);
}

// Every dimension at the scenario's value except those in `varied` (key -> values).
void setSpace(app::ExplorePanel* panel, const QList<QPair<QString, QString>>& varied)
{
    panel->resetSpace();
    const QStringList keys{"tp",
                           "cp",
                           "pp",
                           "ep",
                           "dp",
                           "micro_batch",
                           "virtual_stages",
                           "schedule",
                           "extra_in_flight_at_dci",
                           "recompute",
                           "sequence_parallel",
                           "zero_stage",
                           "distributed_optimizer",
                           "boundary",
                           "stage_split",
                           "rank_order",
                           "dci_transport",
                           "wavelengths",
                           "fabric",
                           "datacenter_sync",
                           "inner_steps",
                           "checkpoint_interval_s"};
    for (const QString& key : keys) {
        QCheckBox* check = panel->dimensionCheck(key);
        QVERIFY2(check, qPrintable(key));
        check->setChecked(false);
    }
    for (const auto& [key, values] : varied) {
        panel->dimensionCheck(key)->setChecked(true);
        panel->valuesEdit(key)->setText(values);
    }
}

} // namespace

class TestExplorePanel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void dockAndShortcut()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        QDockWidget* dock = window.findChild<QDockWidget*>(QStringLiteral("ExploreDock"));
        QVERIFY(dock);
        QCOMPARE(dock, window.exploreDock());
        bool found = false;
        for (QAction* a : window.findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+4"))) {
                found = true;
                a->trigger();
            }
        QVERIFY(found);
        QVERIFY(!dock->isHidden());
    }

    void smallSpaceRunsToCompletion()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        // The default space to start with: TP varied, the search's own values.
        QVERIFY(panel->dimensionCheck("tp")->isChecked());
        QVERIFY(panel->space());
        setSpace(panel, {{"tp", "4, 8"}, {"micro_batch", "1, 2"}});
        const std::optional<core::SearchSpace> space = panel->space();
        QVERIFY(space);
        QCOMPARE(core::spacePoints(*space), std::uint64_t{4});
        const int commands = window.document()->undoStack()->count();
        QVERIFY(panel->runAndWait(20000));
        QVERIFY(panel->hasResult());
        QVERIFY(!panel->lastRunCancelled());
        const core::SweepCounts& c = panel->counts();
        QCOMPARE(c.spacePoints, std::uint64_t{4});
        QCOMPARE(c.considered, std::uint64_t{4});
        QCOMPARE(c.considered, c.prunedTotal() + c.evaluated);
        QCOMPARE(panel->samples().size(), static_cast<std::size_t>(c.evaluated));
        QVERIFY(c.feasible > 0);
        QVERIFY(panel->countsText().contains(QStringLiteral("Space 4 points")));
        QVERIFY(panel->scatter()->drawnSampleMarkers() > 0);
        QVERIFY(panel->scatter()->drawnFrontPoints() > 0);
        const auto& top = panel->topBy(core::SweepObjective::IterationTime);
        QCOMPARE(static_cast<std::size_t>(panel->topTable()->rowCount()), top.size());
        QVERIFY(!top.empty());
        // Recorded in the document, one undo step, nothing else changed.
        QCOMPARE(window.document()->undoStack()->count(), commands + 1);
        QVERIFY(!window.document()->sweep().section.empty());
        QVERIFY(window.document()->isModified());
        QCOMPARE(window.document()->undoStack()->undoText(),
                 QStringLiteral("Record Explore Sweep"));
        // Undone, the sweep is no longer saved but stays on screen; redone, saved again.
        const std::string section = window.document()->sweep().section;
        window.document()->undoStack()->undo();
        QVERIFY(window.document()->sweep().section.empty());
        QVERIFY(panel->hasResult());
        QCOMPARE(panel->samples().size(), static_cast<std::size_t>(c.evaluated));
        window.document()->undoStack()->redo();
        QCOMPARE(window.document()->sweep().section, section);
        QCOMPARE(panel->samples().size(), static_cast<std::size_t>(c.evaluated));

        // A bad value: refused, in the user's words.
        panel->valuesEdit("tp")->setText(QStringLiteral("4, x"));
        QVERIFY(!panel->run());
        QVERIFY2(panel->message().contains(QStringLiteral("TP, value 2")),
                 qPrintable(panel->message()));
        panel->valuesEdit("tp")->setText(QStringLiteral("4, , 8"));
        QVERIFY(!panel->run());
        QVERIFY2(panel->message().contains(QStringLiteral("value 2 is empty")),
                 qPrintable(panel->message()));
    }

    // The run's knobs are rows of the editor: unchecked they keep the scenario's ("base"),
    // checked they read numbers with decimals and names, and a bad value is named in the
    // user's words.
    void runKnobsAreEditable()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        for (const char* key : {"datacenter_sync", "inner_steps", "checkpoint_interval_s"}) {
            QVERIFY2(panel->dimensionCheck(key), key);
            QVERIFY2(!panel->dimensionCheck(key)->isChecked(), key);
            QCOMPARE(panel->valuesEdit(key)->text(), QStringLiteral("base"));
        }
        setSpace(panel, {{"datacenter_sync", "synchronous, diloco"},
                         {"inner_steps", "30, 300"},
                         {"checkpoint_interval_s", "daly, 1800.5"}});
        const std::optional<core::SearchSpace> space = panel->space();
        QVERIFY(space);
        QCOMPARE(space->datacenterSync,
                 (std::vector<std::optional<core::DatacenterSync>>{
                     core::DatacenterSync::Synchronous, core::DatacenterSync::DiLoCo}));
        QCOMPARE(space->innerSteps, (std::vector<std::optional<int>>{30, 300}));
        QCOMPARE(space->checkpointIntervalS, (std::vector<std::optional<double>>{0.0, 1800.5}));
        // Shown back as typed.
        panel->setSpace(*space);
        QCOMPARE(panel->valuesEdit("checkpoint_interval_s")->text(),
                 QStringLiteral("daly, 1800.5"));
        QVERIFY(panel->dimensionCheck("inner_steps")->isChecked());
        panel->valuesEdit("checkpoint_interval_s")->setText(QStringLiteral("600, -1"));
        QVERIFY(!panel->run());
        QVERIFY2(panel->message().contains(QStringLiteral("Checkpoint interval, value 2")),
                 qPrintable(panel->message()));
        panel->valuesEdit("checkpoint_interval_s")->setText(QStringLiteral("600"));
        panel->valuesEdit("datacenter_sync")->setText(QStringLiteral("diloco, async"));
        QVERIFY(!panel->run());
        QVERIFY2(panel->message().contains(QStringLiteral("Datacenter sync, value 2")),
                 qPrintable(panel->message()));
    }

    // The sweep's worker, without the panel: one sweep at a time, one finished() per start
    // with what was searched, and a runner destroyed mid-sweep stops its worker first.
    void runnerOwnsOneSweep()
    {
        const core::LoadResult loaded =
            core::loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/gpt3-175b-1024-a100.json");
        QVERIFY(loaded.ok());
        const core::Scenario base = *loaded.scenario;
        core::DiagnosticSink sink("space");
        const std::optional<core::SearchSpace> space =
            core::parseSearchSpace(R"({"tp": [4, 8], "micro_batch": [1, 2]})", base, sink);
        QVERIFY(space);

        app::SweepRunner runner;
        QSignalSpy finished(&runner, &app::SweepRunner::finished);
        QSignalSpy progress(&runner, &app::SweepRunner::progress);
        QVERIFY(!runner.isRunning());
        QVERIFY(runner.start(base, *space, 5));
        QVERIFY(runner.isRunning());
        QVERIFY(!runner.start(base, *space, 5));
        QTRY_VERIFY_WITH_TIMEOUT(!runner.isRunning(), 60000);
        QCOMPARE(finished.count(), 1);
        const auto outcome =
            finished.at(0).at(0).value<std::shared_ptr<app::SweepRunner::Outcome>>();
        QVERIFY(outcome);
        QVERIFY2(outcome->result.ok, outcome->result.error.c_str());
        QVERIFY(!outcome->result.cancelled);
        QVERIFY(outcome->base == base);
        QCOMPARE(outcome->space.tp, (std::vector<int>{4, 8}));
        QCOMPARE(outcome->samples.size(),
                 static_cast<std::size_t>(outcome->result.counts.evaluated));
        QVERIFY(outcome->result.counts.evaluated > 0);
        QVERIFY(runner.elapsedS() > 0.0);

        auto doomed = std::make_unique<app::SweepRunner>();
        QVERIFY(doomed->start(base, *space, 5));
        doomed.reset(); // waits for its worker; nothing is reported to a runner that is gone
        QCoreApplication::processEvents();
    }

    void cancelReturnsPromptly()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        // About 27 million points: seconds of work at ten million points per second (the
        // sweep considers most in a few nanoseconds each; three million ended in 0.3 s).
        setSpace(panel, {{"tp", "1, 2, 4, 8"},
                         {"dp", "max, 32, 64"},
                         {"dci_transport", "rdma-otn, lossy-ip, roce-pfc"},
                         {"pp", "4, 8, 16, 32"},
                         {"micro_batch", "1, 2, 4, 8"},
                         {"virtual_stages", "1, 2, 3, 4"},
                         {"schedule", "1f1b, interleaved-1f1b, zb-h1, gpipe"},
                         {"recompute", "none, selective, full"},
                         {"zero_stage", "0, 1, 2"},
                         {"sequence_parallel", "on, off"},
                         {"distributed_optimizer", "on, off"},
                         {"extra_in_flight_at_dci", "0, 1, 2"},
                         {"boundary", "base, pp, dp"},
                         {"stage_split", "0, 1, -1"},
                         {"wavelengths", "base, 32, 128"}});
        QVERIFY2(panel->space(), qPrintable(panel->message()));
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&ticks] { ++ticks; });
        timer.start(10);
        QVERIFY(panel->run());
        QVERIFY(panel->isRunning());
        QVERIFY(!panel->run()); // one sweep at a time
        // The window keeps handling events while the sweep runs.
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 300 && panel->isRunning())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        QVERIFY(ticks >= 5);
        panel->cancel();
        clock.restart();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 5000);
        QVERIFY(clock.elapsed() < 3000);
        QVERIFY(panel->hasResult());
        QVERIFY(panel->lastRunCancelled());
        QVERIFY(panel->counts().considered < panel->counts().spacePoints);
        QVERIFY(panel->countsText().contains(QStringLiteral("Cancelled after")));
        QCOMPARE(panel->samples().size(), static_cast<std::size_t>(panel->counts().evaluated));
        QVERIFY(!panel->message().contains(QStringLiteral("could not")));
        // Cancel at once: stopped at the next batch (the worker may have started a few), and
        // the counts say how far it got.
        QVERIFY(panel->run());
        panel->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 5000);
        QVERIFY(panel->lastRunCancelled());
        const core::SweepCounts& c = panel->counts();
        QVERIFY(c.considered < c.spacePoints);
        QVERIFY(panel->countsText().contains(
            QStringLiteral("Cancelled after %1 of")
                .arg(views::formatCount(static_cast<std::int64_t>(c.considered)))));
    }

    // A document opened while a sweep runs: the sweep is cancelled and never shown or recorded
    // in the new document.
    // Hover names a front point's configuration; a click on it previews it.
    void hoverAndClickOnTheScatter()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        window.resize(1600, 1000);
        window.show();
        window.showExplore();
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        setSpace(panel, {{"tp", "4, 8"}, {"micro_batch", "1, 2"}, {"recompute", "none, full"}});
        QVERIFY(panel->runAndWait(20000));
        QCoreApplication::processEvents();
        views::ParetoScatter* scatter = panel->scatter();
        scatter->customPlot()->replot();
        const auto& top = panel->topBy(core::SweepObjective::IterationTime);
        QVERIFY(!top.empty());
        // The fastest point is on the iteration time vs capex front.
        const core::SweepPoint& best = top.front();
        QCustomPlot* plot = scatter->customPlot();
        const QPoint pixel(
            static_cast<int>(std::lround(plot->xAxis->coordToPixel(best.networkCapexUsd / 1e6))),
            static_cast<int>(
                std::lround(plot->yAxis->coordToPixel(best.evaluation.iterationTimeS))));
        QCOMPARE(scatter->indexAt(pixel), static_cast<std::int64_t>(best.point.index));
        const QString tip = scatter->toolTipAt(pixel);
        QVERIFY2(tip.contains(QStringLiteral("Point #%1").arg(best.point.index)), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("tp %1").arg(best.point.tp)), qPrintable(tip));
        QCOMPARE(scatter->indexAt(QPoint(1, 1)), std::int64_t{-1});
        QTest::mouseClick(plot, Qt::LeftButton, {}, pixel);
        QVERIFY(window.previewPoint());
        const QString previewName = window.previewPoint()->name;
        QVERIFY2(previewName.startsWith(QStringLiteral("Preview: TP%1 ").arg(best.point.tp)),
                 qPrintable(previewName));
        QVERIFY2(previewName.contains(QStringLiteral(" mb%1").arg(best.point.microBatch)),
                 qPrintable(previewName));
        // The other pairs of objectives redraw with their own fronts.
        for (views::ScatterAxes axes :
             {views::ScatterAxes::TrainTimeVsCost, views::ScatterAxes::TimeVsMemory}) {
            scatter->setAxes(axes);
            QVERIFY(scatter->drawnFrontPoints() > 0);
            QVERIFY(scatter->drawnSampleMarkers() > 0);
        }
    }

    void newDocumentWhileRunning()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        setSpace(panel, {{"tp", "1, 2, 4, 8"},
                         {"pp", "4, 8, 16, 32"},
                         {"micro_batch", "1, 2, 4, 8"},
                         {"virtual_stages", "1, 2, 3, 4"},
                         {"recompute", "none, selective, full"},
                         {"zero_stage", "0, 1, 2"},
                         {"boundary", "base, pp, dp"},
                         {"wavelengths", "base, 32, 128"}});
        QVERIFY(panel->run());
        QVERIFY(window.newEmptyDocument());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 5000);
        QVERIFY(!panel->hasResult());
        QVERIFY(window.document()->sweep().section.empty());
        QCOMPARE(window.document()->undoStack()->count(), 0);
        // The space is the new document's default.
        const std::optional<core::SearchSpace> space = panel->space();
        QVERIFY(space);
        QCOMPARE(core::spacePoints(*space),
                 core::spacePoints(core::defaultSearchSpace(window.document()->scenario())));
    }

    void previewPinAndApply()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        setSpace(panel, {{"tp", "4, 8"}, {"micro_batch", "1, 2"}, {"recompute", "none, full"}});
        QVERIFY(panel->runAndWait(20000));
        const core::Scenario before = window.document()->scenario();
        // A point whose scenario differs from the current design.
        std::optional<core::SweepPoint> other;
        for (const core::SweepPoint& p : panel->topBy(core::SweepObjective::IterationTime))
            if (p.point.tp != before.parallelism.tp ||
                p.point.microBatch != before.parallelism.microBatch ||
                p.point.recompute != before.parallelism.recompute)
                other = p;
        QVERIFY(other);

        // Preview: in the plots and the table, the document untouched.
        QVERIFY(panel->previewPoint(other->point.index));
        QVERIFY(window.previewPoint());
        QVERIFY(window.previewPoint()->evaluation.ok);
        QCOMPARE(window.previewPoint()->scenario.parallelism.tp, other->point.tp);
        QCOMPARE(window.previewPoint()->evaluation.iterationTimeS,
                 other->evaluation.iterationTimeS);
        QVERIFY(window.document()->scenario() == before);
        QCOMPARE(window.pinnedPoints().size(), 0);
        panel->clearPreview();
        QVERIFY(!window.previewPoint());
        // Selecting a row previews it too.
        panel->topTable()->selectRow(0);
        QVERIFY(window.previewPoint());

        // Pin: one more pin, undo removes it.
        QVERIFY(panel->previewPoint(other->point.index));
        QUndoStack* stack = window.document()->undoStack();
        QVERIFY(panel->pinPreview());
        QCOMPARE(window.document()->pins().size(), std::size_t{1});
        QCOMPARE(window.document()->pins().front().scenario.parallelism.tp, other->point.tp);
        stack->undo();
        QCOMPARE(window.document()->pins().size(), std::size_t{0});
        QVERIFY(window.document()->scenario() == before);

        // Apply: one step, named; undo restores exactly, redo re-applies.
        const int count = stack->count();
        QVERIFY(panel->applyPreview());
        QCOMPARE(stack->count(), count); // the undone pin was replaced by the apply
        const core::Scenario after = window.document()->scenario();
        QVERIFY(!(after == before));
        QCOMPARE(after.parallelism.tp, other->point.tp);
        QCOMPARE(after.parallelism.microBatch, other->point.microBatch);
        QCOMPARE(after.parallelism.recompute, other->point.recompute);
        QCOMPARE(stack->undoText(),
                 QStringLiteral("Apply Explore Point #%1").arg(other->point.index));
        QVERIFY(!window.previewPoint());
        stack->undo();
        QVERIFY(window.document()->scenario() == before);
        stack->redo();
        QVERIFY(window.document()->scenario() == after);
        waitForEvaluation(window);
        QCOMPARE(window.evaluator()->evaluation()->iterationTimeS,
                 other->evaluation.iterationTimeS);
    }

    // The whole path as a user takes it with the mouse: from the default scenario, Ctrl+4,
    // Run on the default space, the front drawn, the two best rows pinned with the Pin button,
    // the best applied with Apply — no JSON, one undo step back to the start.
    void userRunsPinsTwoAndApplies()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        window.resize(1600, 1000);
        window.show();
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        const core::Scenario start = window.document()->scenario();
        for (QAction* a : window.findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QStringLiteral("Ctrl+4")))
                a->trigger();
        app::ExplorePanel* panel = window.explorePanel();
        QVERIFY(panel->isVisible());
        auto button = [panel](const QString& text) -> QPushButton* {
            for (QPushButton* b : panel->findChildren<QPushButton*>())
                if (b->text() == text)
                    return b;
            return nullptr;
        };
        QPushButton* run = button(QStringLiteral("Run"));
        QVERIFY(run);
        QTest::mouseClick(run, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning() && panel->hasResult(), 60000);
        QVERIFY(!panel->lastRunCancelled());
        QVERIFY(panel->counts().feasible >= 2);
        QVERIFY(!panel->lastResult()->timeVsCapex.empty());
        QCOMPARE(panel->samples().size(), static_cast<std::size_t>(panel->counts().evaluated));
        const std::vector<core::SweepPoint> best =
            panel->topBy(core::SweepObjective::IterationTime);
        QVERIFY(best.size() >= 2);

        QPushButton* pin = button(QStringLiteral("Pin"));
        QPushButton* apply = button(QStringLiteral("Apply"));
        QVERIFY(pin && apply);
        for (int row = 0; row < 2; ++row) {
            panel->topTable()->selectRow(row);
            QVERIFY(window.previewPoint());
            QTest::mouseClick(pin, Qt::LeftButton);
        }
        QCOMPARE(window.document()->pins().size(), std::size_t{2});
        for (std::size_t i = 0; i < 2; ++i) {
            const core::PinnedScenario& pinned = window.document()->pins()[i];
            QCOMPARE(pinned.scenario.parallelism.tp, best[i].point.tp);
            // Named by its configuration, so that the plots and the comparison tell pins apart.
            const std::string prefix = "TP" + std::to_string(best[i].point.tp) + " ";
            QVERIFY2(pinned.name.starts_with(prefix), pinned.name.c_str());
            QVERIFY2(pinned.name.find("mb" + std::to_string(best[i].point.microBatch)) !=
                         std::string::npos,
                     pinned.name.c_str());
        }
        QVERIFY(window.document()->pins()[0].name != window.document()->pins()[1].name);
        QTRY_COMPARE(window.pinnedPoints().size(), 2);

        panel->topTable()->selectRow(0);
        QTest::mouseClick(apply, Qt::LeftButton);
        // ARCHIPELAGO_SCREENSHOTS=DIR: the window after the apply, to look at.
        if (const QString dir = qEnvironmentVariable("ARCHIPELAGO_SCREENSHOTS"); !dir.isEmpty()) {
            waitForEvaluation(window);
            QTest::qWait(200);
            window.grab().save(dir + QStringLiteral("/explore-pinned-applied.png"));
        }
        QCOMPARE(window.document()->undoStack()->undoText(),
                 QStringLiteral("Apply Explore Point #%1").arg(best[0].point.index));
        waitForEvaluation(window);
        QCOMPARE(window.evaluator()->evaluation()->iterationTimeS,
                 best[0].evaluation.iterationTimeS);
        // Undo the apply: the design is the one we started from (the pins and the recorded
        // sweep stay until undone in their turn).
        window.document()->undoStack()->undo();
        QVERIFY(window.document()->scenario() == start);
    }

    // The saved sweep belongs to the document: pinning the current design (Ctrl+P) does not copy
    // it into the pin, and restoring a pin keeps it (it used to wipe it).
    void pinsNeverCarryTheSavedSweep()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        setSpace(panel, {{"tp", "4, 8"}, {"micro_batch", "1, 2"}});
        QVERIFY(panel->runAndWait(20000));
        const std::string saved = window.document()->sweep().section;
        QVERIFY(!saved.empty());
        // File > Export Data offers the sweep shown in the panel.
        QVERIFY(panel->lastResult());
        QVERIFY(app::exportInputOf(window, panel->lastResult()).has(app::ExportSource::Sweep));

        window.pinCurrent();
        QCOMPARE(window.document()->pins().size(), std::size_t{1});
        QCOMPARE(window.document()->sweep().section, saved);

        core::Scenario edited = window.document()->scenario();
        edited.parallelism.microBatch = 2;
        QVERIFY(window.edits()->apply(edited, QStringLiteral("Set Micro-batch to 2"), true));
        QVERIFY(window.edits()->restorePin(0));
        QCOMPARE(window.document()->scenario().parallelism.microBatch,
                 window.document()->pins().front().scenario.parallelism.microBatch);
        QCOMPARE(window.document()->sweep().section, saved);
    }

    // A point with another topology variant: Apply sets the DCI links' wavelengths too, in the
    // same one undo step.
    void applyTopologyVariant()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        setSpace(panel, {{"wavelengths", "base, 32"}, {"micro_batch", "1, 2"}});
        QVERIFY(panel->runAndWait(20000));
        const core::Scenario before = window.document()->scenario();
        QVERIFY(!before.topology.links.empty());
        QVERIFY(before.topology.links.front().wavelengths != 32);
        std::optional<core::SweepPoint> narrow;
        for (const core::SweepPoint& p : panel->topBy(core::SweepObjective::IterationTime))
            if (p.point.wavelengths.all == 32 && !narrow)
                narrow = p;
        QVERIFY(narrow);
        QVERIFY(panel->previewPoint(narrow->point.index));
        QCOMPARE(window.previewPoint()->scenario.topology.links.front().wavelengths, 32);
        QUndoStack* stack = window.document()->undoStack();
        const int count = stack->count();
        QVERIFY(panel->applyPreview());
        QCOMPARE(stack->count(), count + 1);
        for (const core::DciLink& link : window.document()->scenario().topology.links)
            QCOMPARE(link.wavelengths, 32);
        stack->undo();
        QVERIFY(window.document()->scenario() == before);
    }

    void savedSweepIsShownWhenOpened()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("swept.json"));
        core::SweepCounts counts;
        std::size_t topSize = 0;
        std::string section;
        {
            app::MainWindow window(std::make_unique<app::SilentPrompts>());
            QVERIFY(window.newDocument());
            waitForEvaluation(window);
            app::ExplorePanel* panel = window.explorePanel();
            setSpace(panel, {{"tp", "2, 4, 8"}, {"micro_batch", "1, 2"}});
            QVERIFY(panel->runAndWait(20000));
            counts = panel->counts();
            topSize = panel->topBy(core::SweepObjective::TotalCost).size();
            section = window.document()->sweep().section;
            QVERIFY(window.document()->save(path));
        }
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.openFile(path));
        QCOMPARE(window.document()->sweep().section, section);
        app::ExplorePanel* panel = window.explorePanel();
        QVERIFY(panel->hasResult());
        QCOMPARE(panel->counts().evaluated, counts.evaluated);
        QCOMPARE(panel->counts().pruned, counts.pruned);
        QCOMPARE(panel->topBy(core::SweepObjective::TotalCost).size(), topSize);
        QVERIFY(panel->samples().empty());
        QVERIFY(panel->scatter()->drawnFrontPoints() > 0);
        QVERIFY(panel->countsText().contains(QStringLiteral("Saved sweep")));
        // The editor shows the saved space.
        QCOMPARE(panel->valuesEdit("tp")->text(), QStringLiteral("2, 4, 8"));
        QVERIFY(panel->dimensionCheck("tp")->isChecked());
        QVERIFY(!panel->dimensionCheck("pp")->isChecked());
        // A saved point can be previewed and applied from the reopened file.
        const auto& top = panel->topBy(core::SweepObjective::IterationTime);
        QVERIFY(!top.empty());
        QVERIFY(panel->previewPoint(top.front().point.index));
        QCOMPARE(window.previewPoint()->evaluation.iterationTimeS,
                 top.front().evaluation.iterationTimeS);
        // A section that cannot be read: the file opens, the panel says why.
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray text = file.readAll();
        file.close();
        text.replace("\"tp\": [\n        2,", "\"tp\": [\n        \"two\",");
        const QString broken = dir.filePath(QStringLiteral("broken.json"));
        QFile out(broken);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        app::MainWindow other(std::make_unique<app::SilentPrompts>());
        QVERIFY(other.openFile(broken));
        QVERIFY(!other.explorePanel()->hasResult());
        QVERIFY2(other.explorePanel()->message().contains(QStringLiteral("/explore/space/tp/0")),
                 qPrintable(other.explorePanel()->message()));
        // It is kept as it was: saving writes it back, nothing the user wrote is dropped.
        QVERIFY(!other.document()->sweep().sweep);
        QVERIFY(other.document()->serialized().find("\"two\"") != std::string::npos);
    }

    // The default space follows the design while the user has not edited it (it stayed on the
    // empty document's PP "1, 2" while the design grew to PP 12); an edited space is kept, and
    // Reset takes the design as it is now and follows it again.
    void defaultSpaceFollowsTheDocument()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        auto defaultPp = [&window] {
            const std::vector<int> pp = core::defaultSearchSpace(window.document()->scenario()).pp;
            QStringList values;
            for (int v : pp)
                values << QString::number(v);
            return values.join(QStringLiteral(", "));
        };
        QCOMPARE(panel->valuesEdit("pp")->text(), defaultPp());
        const QString before = panel->valuesEdit("pp")->text();
        core::Scenario edited = window.document()->scenario();
        edited.parallelism.pp /= 2;
        QVERIFY(window.edits()->apply(edited, QStringLiteral("Set PP"), true));
        QCOMPARE(window.document()->scenario().parallelism.pp, edited.parallelism.pp);
        QVERIFY(panel->valuesEdit("pp")->text() != before);
        QCOMPARE(panel->valuesEdit("pp")->text(), defaultPp());
        // Undone, it follows back.
        window.document()->undoStack()->undo();
        QCOMPARE(panel->valuesEdit("pp")->text(), before);

        // The user's own space stays through an edit of the design.
        setSpace(panel, {{"pp", "2, 4"}, {"micro_batch", "1, 2"}});
        window.document()->undoStack()->redo();
        QCOMPARE(panel->valuesEdit("pp")->text(), QStringLiteral("2, 4"));
        // Reset: the default for the design as it is now, which follows it again.
        panel->resetSpace();
        QCOMPARE(panel->valuesEdit("pp")->text(), defaultPp());
        window.document()->undoStack()->undo();
        QCOMPARE(panel->valuesEdit("pp")->text(), before);
    }

    // Two sweeps recorded one after the other: undo shows the first again, redo the second (the
    // panel kept the first's results on a redo when it tracked the sections as text).
    void undoRedoBetweenTwoRecordedSweeps()
    {
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        QVERIFY(window.newDocument());
        waitForEvaluation(window);
        app::ExplorePanel* panel = window.explorePanel();
        setSpace(panel, {{"tp", "4, 8"}, {"micro_batch", "1, 2"}});
        QVERIFY(panel->runAndWait(20000));
        const core::SweepCounts first = panel->counts();
        const std::string firstSection = window.document()->sweep().section;
        setSpace(panel, {{"tp", "2, 4, 8"}, {"micro_batch", "1, 2"}});
        QVERIFY(panel->runAndWait(20000));
        const core::SweepCounts second = panel->counts();
        QVERIFY(first.considered != second.considered);
        const std::string secondSection = window.document()->sweep().section;
        QUndoStack* stack = window.document()->undoStack();
        stack->undo();
        QCOMPARE(window.document()->sweep().section, firstSection);
        QCOMPARE(panel->counts().considered, first.considered);
        QCOMPARE(panel->valuesEdit("tp")->text(), QStringLiteral("4, 8"));
        stack->redo();
        QCOMPARE(window.document()->sweep().section, secondSection);
        QCOMPARE(panel->counts().considered, second.considered);
        QCOMPARE(panel->valuesEdit("tp")->text(), QStringLiteral("2, 4, 8"));
        // Undone once more: nothing is saved, and the results on screen (the first's) stay.
        stack->undo();
        stack->undo();
        QVERIFY(window.document()->sweep().empty());
        QCOMPARE(panel->counts().considered, first.considered);
    }
};

QTEST_MAIN(TestExplorePanel)
#include "test_explorepanel.moc"
