// The live front (app/gui/document/livefront.h, docs/explore.md "The live front"): after an
// edit the default space is swept in the background and the status bar and the Explore panel
// say whether a faster design exists, by how much and what it changes; the finding always
// answers the latest edit (an edit during a sweep cancels it); one click previews the design
// without touching the document, Apply makes it current and the next finding says so; View >
// Live Front turns it off (kept in the settings); it waits while the Explore panel's own sweep
// runs; a design that does not fit is answered with one that does.
#include "commands/valuecommands.h"
#include "document/document.h"
#include "document/evaluator.h"
#include "document/livefront.h"
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "panels/explorepanel.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QAction>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QUndoStack>

#include <cmath>
#include <memory>

using namespace archipelago;

namespace {

constexpr int kTimeoutMs = 120'000;

// The window on the default scenario, with its first finding out.
std::unique_ptr<app::MainWindow> openDefault()
{
    auto window = std::make_unique<app::MainWindow>(std::make_unique<app::SilentPrompts>());
    window->evaluator()->setDelay(0);
    if (!window->newDocument())
        qFatal("the default scenario does not open");
    return window;
}

// Until the finding for the document as it is now is out.
bool waitForFinding(app::MainWindow& window)
{
    app::LiveFront* front = window.liveFront();
    QElapsedTimer clock;
    clock.start();
    while (!front->finding() && clock.elapsed() < kTimeoutMs)
        QTest::qWait(10);
    return front->finding() && front->finding()->revision == front->revision();
}

// The default scenario made worse: no interleaving and full recompute (the search finds the
// preset's own v 4 and no recompute again).
core::Parallelism worse(const app::Document* document)
{
    core::Parallelism p = document->scenario().parallelism;
    p.virtualStages = 1;
    p.recompute = core::Recompute::Full;
    return p;
}

bool contains(const std::vector<std::string>& changes, const std::string& phrase)
{
    return std::find(changes.begin(), changes.end(), phrase) != changes.end();
}

} // namespace

class TestLiveFront : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(app::kLiveFrontSetting);
    }

    void findsTheFasterDesignAfterAnEdit()
    {
        auto window = openDefault();
        QVERIFY(waitForFinding(*window));
        app::LiveFront* front = window->liveFront();
        // The preset is the fastest of its own default space.
        QCOMPARE(front->finding()->kind, app::LiveFront::Finding::Kind::Best);
        QVERIFY(window->liveFrontStatus()->text().contains(QStringLiteral("No faster design")));

        app::Document* document = window->document();
        document->undoStack()->push(new app::SetParallelism(document, worse(document)));
        QVERIFY(!front->finding()); // out of date at once
        QVERIFY(window->liveFrontStatus()->text().contains(QStringLiteral("searching")));
        QVERIFY(waitForFinding(*window));
        const app::LiveFront::Finding& f = *front->finding();
        QCOMPARE(f.kind, app::LiveFront::Finding::Kind::Faster);
        QVERIFY(f.base == document->scenario());
        QVERIFY(f.best);
        // The gain is what the two designs' times to train say, and the current one's figure
        // is the document's own design evaluated as the search evaluates its points.
        const double now = f.current.evaluation.timeToTrainS;
        QVERIFY(std::abs(f.gain - (1.0 - f.best->evaluation.timeToTrainS / now)) < 1e-12);
        QVERIFY2(f.gain > 0.3, qPrintable(QString::number(f.gain)));
        core::EvaluateOptions lean;
        lean.timeline = false;
        lean.warnings = false;
        lean.attribution = false;
        const core::Evaluation mine = core::evaluate(
            document->scenario(), core::effectiveCatalog(document->scenario()), lean);
        QVERIFY(std::abs(mine.timeToTrainS / now - 1.0) < 1e-12);
        QVERIFY2(contains(f.changes, "v 4"), qPrintable(app::LiveFront::text(f)));
        QVERIFY2(contains(f.changes, "recompute none"), qPrintable(app::LiveFront::text(f)));
        // Said in the status bar, with a link to preview it, and in the Explore panel.
        const QString status = window->liveFrontStatus()->text();
        QVERIFY2(status.contains(QStringLiteral("faster exists: ")), qPrintable(status));
        QVERIFY(status.contains(QStringLiteral("href=\"preview\"")));
        QVERIFY(!window->liveFrontStatus()->isHidden());
        QVERIFY2(window->explorePanel()->liveText().contains(app::LiveFront::text(f)),
                 qPrintable(window->explorePanel()->liveText()));
    }

    void previewThenApply()
    {
        auto window = openDefault();
        app::Document* document = window->document();
        QVERIFY(waitForFinding(*window));
        document->undoStack()->push(new app::SetParallelism(document, worse(document)));
        QVERIFY(waitForFinding(*window));
        const double gain = window->liveFront()->finding()->gain;
        const core::Scenario before = document->scenario();
        const int commands = document->undoStack()->count();
        // The status bar's link: the design previewed beside the current one, the document
        // untouched.
        emit window->liveFrontStatus()->linkActivated(QStringLiteral("preview"));
        QVERIFY(window->previewPoint());
        QVERIFY(window->explorePanel()->preview());
        QVERIFY(window->explorePanel()->preview()->scenario == window->previewPoint()->scenario);
        QVERIFY(document->scenario() == before);
        QCOMPARE(document->undoStack()->count(), commands);
        QVERIFY(window->previewPoint()->evaluation.ok);
        QVERIFY(window->previewPoint()->scenario.parallelism.virtualStages > 1);
        // Applied, it is the current design (one undo step) and the next finding is smaller.
        QVERIFY(window->explorePanel()->applyPreview());
        QCOMPARE(document->undoStack()->count(), commands + 1);
        QVERIFY(waitForFinding(*window));
        QVERIFY(window->liveFront()->finding()->gain < gain);
        QVERIFY(window->liveFront()->finding()->base == document->scenario());
    }

    void anEditDuringASweepCancelsIt()
    {
        auto window = openDefault();
        app::Document* document = window->document();
        app::LiveFront* front = window->liveFront();
        QVERIFY(waitForFinding(*window));
        QSignalSpy found(front, &app::LiveFront::found);
        document->undoStack()->push(new app::SetParallelism(document, worse(document)));
        QTRY_VERIFY_WITH_TIMEOUT(front->isSearching(), kTimeoutMs);
        // The second edit lands while the first one's sweep runs.
        core::Parallelism p = document->scenario().parallelism;
        p.virtualStages = 2;
        document->undoStack()->push(new app::SetParallelism(document, p));
        QVERIFY(waitForFinding(*window));
        QTRY_VERIFY_WITH_TIMEOUT(!front->isSearching(), kTimeoutMs);
        // One finding, the second edit's: the first sweep's result was dropped.
        QCOMPARE(found.count(), 1);
        QVERIFY(front->finding()->base == document->scenario());
        QCOMPARE(front->finding()->base.parallelism.virtualStages, 2);
    }

    void offClearsAndIsRemembered()
    {
        {
            auto window = openDefault();
            QVERIFY(waitForFinding(*window));
            QAction* action = window->findChild<QAction*>(QStringLiteral("LiveFrontAction"));
            QVERIFY(action);
            QVERIFY(action->isChecked());
            action->setChecked(false);
            app::LiveFront* front = window->liveFront();
            QVERIFY(!front->isEnabled());
            QVERIFY(!front->finding());
            QVERIFY(window->liveFrontStatus()->isHidden());
            QVERIFY(window->explorePanel()->liveText().isEmpty());
            // Edits no longer sweep.
            QSignalSpy found(front, &app::LiveFront::found);
            app::Document* document = window->document();
            document->undoStack()->push(new app::SetParallelism(document, worse(document)));
            QTRY_VERIFY(!window->evaluator()->isBusy());
            QTest::qWait(300);
            QCOMPARE(found.count(), 0);
            QVERIFY(!front->isSearching());
        }
        {
            // The next window starts with it off; switched on, it searches the design at once.
            auto window = openDefault();
            QAction* action = window->findChild<QAction*>(QStringLiteral("LiveFrontAction"));
            QVERIFY(!action->isChecked());
            QVERIFY(!window->liveFront()->isEnabled());
            action->setChecked(true);
            QVERIFY(waitForFinding(*window));
        }
        QSettings().remove(app::kLiveFrontSetting);
    }

    void waitsForTheExplorePanelsSweep()
    {
        auto window = openDefault();
        QVERIFY(waitForFinding(*window));
        app::ExplorePanel* panel = window->explorePanel();
        app::Document* document = window->document();
        QVERIFY(panel->run());
        QVERIFY(window->liveFront()->isSuspended());
        document->undoStack()->push(new app::SetParallelism(document, worse(document)));
        QTRY_VERIFY(!window->evaluator()->isBusy());
        QVERIFY(!window->liveFront()->isSearching());
        QVERIFY(!window->liveFront()->finding());
        // When the panel's sweep is over, the edit made meanwhile is swept.
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), kTimeoutMs);
        QVERIFY(!window->liveFront()->isSuspended());
        QVERIFY(waitForFinding(*window));
        QCOMPARE(window->liveFront()->finding()->kind, app::LiveFront::Finding::Kind::Faster);
    }

    void aDesignThatDoesNotFitIsAnsweredWithOneThatDoes()
    {
        auto window = openDefault();
        QVERIFY(waitForFinding(*window));
        app::Document* document = window->document();
        core::Parallelism p = document->scenario().parallelism;
        p.zeroStage = 0; // unsharded optimizer states: 129 GiB per GPU of 80
        p.distributedOptimizer = false;
        document->undoStack()->push(new app::SetParallelism(document, p));
        QVERIFY(waitForFinding(*window));
        const app::LiveFront::Finding& f = *window->liveFront()->finding();
        QVERIFY(!f.currentFeasible);
        QVERIFY(!window->evaluator()->evaluation()->fitsInMemory);
        QCOMPARE(f.kind, app::LiveFront::Finding::Kind::Feasible);
        QVERIFY(f.best && f.best->evaluation.fitsInMemory);
        QVERIFY(!f.changes.empty());
        QVERIFY2(
            app::LiveFront::text(f).startsWith(QStringLiteral("The current design does not fit")),
            qPrintable(app::LiveFront::text(f)));
        QVERIFY(f.canPreview());
    }
};

QTEST_MAIN(TestLiveFront)
#include "test_livefront.moc"
