// Comparing design points in the window: an edit that would change the workload's global
// batch asks first and undoes as one step; the window's views all show the one bubble ratio. With
// ARCHIPELAGO_SCREENSHOTS=<folder>, also saves the window with five pins at 1600x1000 and 1920x1080
// for a look.
#include "common/format.h"
#include "document/evaluator.h"
#include "editing/editcontroller.h"
#include "model/placementpresets.h"
#include "plots/plotbubble.h"
#include "plots/plotspanel.h"
#include "plots/plotstyle.h"
#include "plots/timelineview.h"
#include "tables/comparisontable.h"
#include "tables/comparisontablerows.h"
#include "tables/evaluationsummary.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include "evaluation/costmodel.h"

#include <QDir>
#include <QLabel>
#include <QStatusBar>
#include <QTest>
#include <QUndoStack>

using namespace archipelago;

namespace {

const QString kOneBuilding =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-16k-h100.json");
const QString kTwoBuildings =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");

bool settled(app::MainWindow& window)
{
    return window.evaluator()->evaluation() && !window.evaluator()->isBusy() &&
           window.currentPoint().scenario == window.document()->scenario();
}

// The first pod of the first datacenter with one pod fewer: DP drops from 128 to 104 and
// the global batch of 2,048 no longer divides (the user's "pod count 4 -> 3").
QList<core::Datacenter> onePodFewer(const core::Scenario& s)
{
    core::Datacenter dc = s.topology.datacenters.front();
    dc.pods.front().count -= 1;
    return {dc};
}

} // namespace

class TestDesignCompare : public QObject
{
    Q_OBJECT

private slots:
    void podEditAsksBeforeChangingTheBatch();
    void podEditWithBatchChangeUndoesAsOneStep();
    void windowShowsOneBubbleFigure();
    void fivePinsScreenshots();
};

void TestDesignCompare::podEditAsksBeforeChangingTheBatch()
{
    auto prompts = std::make_unique<app::SilentPrompts>();
    app::SilentPrompts* silent = prompts.get();
    silent->batchAnswer = app::BatchAnswer::Cancel; // the user keeps the job
    app::MainWindow window(std::move(prompts));
    QVERIFY(window.openPreset(kOneBuilding));
    app::Document* doc = window.document();
    const core::Scenario before = doc->scenario();
    QCOMPARE(before.workload.globalBatch, 2048);
    const int undoSteps = doc->undoStack()->count();

    QVERIFY(!window.edits()->setDatacenters(onePodFewer(before)));
    QCOMPARE(silent->batchQuestions.size(), 1);
    const QString question = silent->batchQuestions.first();
    QVERIFY2(question.contains(QStringLiteral("2,048")), qPrintable(question));
    QVERIFY2(question.contains(QStringLiteral("DP 104")), qPrintable(question));
    // Nothing changed: not the batch, not the pods, no undo step.
    QVERIFY(doc->scenario() == before);
    QCOMPARE(doc->undoStack()->count(), undoSteps);
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("2,048")),
             qPrintable(window.statusBar()->currentMessage()));
}

void TestDesignCompare::podEditWithBatchChangeUndoesAsOneStep()
{
    auto prompts = std::make_unique<app::SilentPrompts>();
    app::SilentPrompts* silent = prompts.get();
    silent->batchAnswer = app::BatchAnswer::ChangeBatch;
    app::MainWindow window(std::move(prompts));
    QVERIFY(window.openPreset(kOneBuilding));
    app::Document* doc = window.document();
    const core::Scenario before = doc->scenario();
    QUndoStack* stack = doc->undoStack();
    const int undoSteps = stack->count();

    QVERIFY(window.edits()->setDatacenters(onePodFewer(before)));
    QCOMPARE(silent->batchQuestions.size(), 1);
    const core::Scenario after = doc->scenario();
    QCOMPARE(after.topology.datacenters.front().pods.front().count,
             before.topology.datacenters.front().pods.front().count - 1);
    QVERIFY(after.workload.globalBatch != 2048);
    QCOMPARE(after.workload.globalBatch % core::dataParallel(after), std::int64_t{0});
    QCOMPARE(stack->count(), undoSteps + 1);
    const QString undoText = stack->text(stack->count() - 1);
    QVERIFY2(undoText.contains(
                 QStringLiteral("Global Batch 2,048 → %1")
                     .arg(QLocale(QLocale::English)
                              .toString(static_cast<qlonglong>(after.workload.globalBatch)))),
             qPrintable(undoText));

    stack->undo();
    QVERIFY(doc->scenario() == before);
    QCOMPARE(doc->scenario().workload.globalBatch, 2048);
    stack->redo();
    QVERIFY(doc->scenario() == after);
}

// The summary, the status bar, the bubble plot, the comparison table and the
// timeline show the same figure for one evaluation.
void TestDesignCompare::windowShowsOneBubbleFigure()
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    window.evaluator()->setDelay(0);
    window.resize(1600, 1000);
    window.show();
    QVERIFY(window.openPreset(
        QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/deepseek-v3-moe-2048-h800.json")));
    QTRY_VERIFY_WITH_TIMEOUT(settled(window), 60000);
    const core::Evaluation& e = window.currentPoint().evaluation;
    QVERIFY(e.ok);
    const QString expected = views::formatBubbleRatio(e.bubbleRatio);

    QCOMPARE(window.evaluationSummary()->figure(views::bubbleRatioName()), expected);
    bool statusShown = false;
    for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
        if (label->text() == views::bubbleRatioName() + QStringLiteral(" ") + expected)
            statusShown = label->toolTip() == views::bubbleRatioToolTip();
    QVERIFY(statusShown);
    QTRY_COMPARE_WITH_TIMEOUT(window.plotsPanel()->bubblePlot()->bubbleLabels().size(), 1, 10000);
    QCOMPARE(window.plotsPanel()->bubblePlot()->bubbleLabels().constLast(), expected);
    views::ComparisonTable* table = window.comparisonTable();
    QCOMPARE(table->cell(table->metricIndex(views::bubbleRatioName()), 0)->text(), expected);
    QCOMPARE(window.timelineView()->bubbleRatioText(), expected);
}

void TestDesignCompare::fivePinsScreenshots()
{
    const QString folder = qEnvironmentVariable("ARCHIPELAGO_SCREENSHOTS");
    if (folder.isEmpty())
        QSKIP("set ARCHIPELAGO_SCREENSHOTS=<folder> to save the screenshots");
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    window.evaluator()->setDelay(0);
    window.resize(1600, 1000);
    window.show();
    QVERIFY(window.openPreset(kTwoBuildings));
    app::Document* doc = window.document();
    app::EditController* edits = window.edits();
    QTRY_VERIFY_WITH_TIMEOUT(settled(window), 60000);
    edits->pin(doc->scenario(), QStringLiteral("PP crosses DCI"));
    QVERIFY(edits->setPlacement(core::dpAcrossDatacenters(doc->scenario())));
    edits->pin(doc->scenario(), QStringLiteral("DP crosses DCI"));
    QList<core::DciLink> links(doc->scenario().topology.links.begin(),
                               doc->scenario().topology.links.end());
    for (core::DciLink& link : links)
        link.transport = core::DciTransport::LossyIp;
    QVERIFY(edits->setLinks(links));
    edits->pin(doc->scenario(), QStringLiteral("DP crosses DCI, lossy IP"));
    core::Parallelism p = doc->scenario().parallelism;
    p.microBatch = 8;
    p.recompute = core::Recompute::None;
    QVERIFY(edits->setParallelism(p));
    edits->pin(doc->scenario(), QStringLiteral("micro-batch 8 (OOM?)"));
    QVERIFY(edits->setDatacenters(onePodFewer(doc->scenario())));
    edits->pin(doc->scenario(), QStringLiteral("one pod fewer, batch changed"));
    QTRY_VERIFY_WITH_TIMEOUT(window.pinnedPoints().size() == 5 && settled(window), 120000);
    for (const QSize size : {QSize(1600, 1000), QSize(1920, 1080), QSize(1280, 800)}) {
        window.resize(size);
        QTest::qWait(300);
        const QString path = QDir(folder).filePath(
            QStringLiteral("pins-%1x%2.png").arg(size.width()).arg(size.height()));
        QVERIFY(window.grab().save(path));
        const QString plots = QDir(folder).filePath(
            QStringLiteral("plots-%1x%2.png").arg(size.width()).arg(size.height()));
        QVERIFY(window.plotsPanel()->grab().save(plots));
        const QString table = QDir(folder).filePath(
            QStringLiteral("table-%1x%2.png").arg(size.width()).arg(size.height()));
        QVERIFY(window.comparisonTable()->grab().save(table));
    }
    window.comparisonTable()->setTransposed(true);
    window.comparisonTable()->resize(1400, 400);
    QVERIFY(window.comparisonTable()->grab().save(QDir(folder).filePath("table-transposed.png")));
}

QTEST_MAIN(TestDesignCompare)
#include "test_designcompare.moc"
