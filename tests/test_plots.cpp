// Plots and the timeline on synthetic Evaluations built in code (no cost model): what is drawn
// must be exactly the data given; exports, out-of-memory marks and labels that stay readable.
#include "plotfixtures.h"
#include "plots/plotbreakdown.h"
#include "plots/plotbubble.h"
#include "plots/plotgoodput.h"
#include "plots/plotnetworkcost.h"
#include "plots/plotspanel.h"
#include "plots/plotstyle.h"
#include "plots/timelineview.h"

#include <qcustomplot.h>

#include <QTemporaryDir>

#include <QTest>

#include <cmath>
#include <numbers>

using namespace archipelago;
using namespace archipelago::views;

using tests::makePoint;
using tests::makeTimeline;
using tests::near;
using tests::stackedValueAt;

namespace {

QList<EvaluatedDesign> threePoints()
{
    return {makePoint("dc-west", QColor(Qt::red), 1.0), makePoint("dc-east", QColor(Qt::blue), 1.5),
            makePoint("split", QColor(Qt::darkGreen), 0.8)};
}

int tickCount(QCustomPlot* plot)
{
    const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(plot->xAxis->ticker());
    return ticker ? static_cast<int>(ticker->ticks().size()) : -1;
}

QByteArray head(const QString& path, int n)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.read(n) : QByteArray();
}

} // namespace

class TestPlots : public QObject
{
    Q_OBJECT

private slots:
    void breakdownStacksSumToTotals();
    void breakdownHoverNamesPartAndUnit();
    void bubbleBarsEqualRatios();
    void bubbleRatioReadableBesideATallIdleBar();
    void networkBarsSumToCapex();
    void panelShowsEveryPointInEveryPlot();
    void exportWritesEachFormat_data();
    void exportWritesEachFormat();
    void exportRefusesUnknownSuffix();
    void timelineDrawsEveryBlock_data();
    void timelineDrawsEveryBlock();
    void timelineHoverDescribesBlock();
    void bubblePlotMarksIdealOnlyForClosedForms();
    void outOfMemoryMarkedInEveryPlot();
    void categoryLabelsNeverElidedToNothing();
    void valueLabelsInsideTheAxisRectWhenDrawnAtASize();
};

void TestPlots::breakdownStacksSumToTotals()
{
    BreakdownPlot plot;
    const QList<EvaluatedDesign> points = threePoints();
    plot.setDesignPoints(points.mid(0, 2), points[2]);
    QCOMPARE(tickCount(plot.customPlot()), 3);
    QCOMPARE(plot.categories(), (QStringList{"dc-west", "dc-east", "split"}));
    for (int i = 0; i < 3; ++i)
        QVERIFY(near(stackedValueAt(plot.customPlot(), i), points[i].evaluation.iterationTimeS));
    // Recompute, CP and EP are zero for every point: no bars and no legend entries for them.
    QCOMPARE(plot.customPlot()->plottableCount(), 8);
    int legendEntries = 0;
    for (int i = 0; i < plot.customPlot()->plottableCount(); ++i)
        legendEntries +=
            plot.customPlot()->legend->hasItemWithPlottable(plot.customPlot()->plottable(i));
    QCOMPARE(legendEntries, 8);
}

void TestPlots::breakdownHoverNamesPartAndUnit()
{
    BreakdownPlot plot;
    plot.resize(800, 500);
    plot.setDesignPoints({}, makePoint("dc-west", Qt::red, 1.0));
    plot.customPlot()->replot(QCustomPlot::rpImmediateRefresh);
    QCustomPlot* cp = plot.customPlot();
    // Forward is the bottom layer: 0.30 s.
    const QPoint forward(static_cast<int>(cp->xAxis->coordToPixel(0.0)),
                         static_cast<int>(cp->yAxis->coordToPixel(0.15)));
    QCOMPARE(plot.toolTipAt(forward).section('\n', 0, 0),
             QStringLiteral("dc-west: Forward 0.300 s (25 % of 1.19 s)"));
    QVERIFY(plot.toolTipAt(QPoint(1, 1)).isEmpty());
}

void TestPlots::bubbleBarsEqualRatios()
{
    BubblePlot plot;
    const QList<EvaluatedDesign> points = threePoints();
    plot.setDesignPoints(points.mid(0, 2), points[2]);
    QCOMPARE(tickCount(plot.customPlot()), 3);
    auto* bars = qobject_cast<QCPBars*>(plot.customPlot()->plottable(0));
    auto* idle = qobject_cast<QCPBars*>(plot.customPlot()->plottable(1));
    QVERIFY(bars && idle);
    QCOMPARE(bars->data()->size(), 3);
    for (int i = 0; i < 3; ++i) {
        QVERIFY(near(bars->data()->at(i)->value, 100.0 * points[i].evaluation.bubbleRatio));
        QVERIFY(near(idle->data()->at(i)->value, 100.0 * points[i].evaluation.idleOverCompute));
    }
}

// 12 stages and 4 micro-batches: idle / compute near 300 %. The bubble ratio beside it keeps its
// scale; the idle bar is cut at the top of the axis, labelled with its value.
void TestPlots::bubbleRatioReadableBesideATallIdleBar()
{
    BubblePlot plot;
    QList<EvaluatedDesign> points = threePoints();
    points[2].evaluation.bubbleRatio = 0.75;
    points[2].evaluation.idleOverCompute = 3.03;
    plot.setDesignPoints(points.mid(0, 2), points[2]);
    const QCPRange range = plot.customPlot()->yAxis->range();
    QVERIFY2(range.upper <= 125.0 + 1e-9, qPrintable(QString::number(range.upper)));
    QVERIFY(75.0 > range.upper / 2); // the ratio takes more than half the height
    auto* idle = qobject_cast<QCPBars*>(plot.customPlot()->plottable(1));
    QVERIFY(idle);
    QVERIFY(idle->data()->at(2)->value < range.upper);
    QVERIFY(near(plot.idleOverComputePercents().at(2), 303.0)); // the value itself is kept
    bool labelled = false;
    for (int i = 0; i < plot.customPlot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot.customPlot()->item(i)))
            labelled = labelled || text->text() == QStringLiteral("303.0 % →");
    QVERIFY(labelled);
}

void TestPlots::networkBarsSumToCapex()
{
    NetworkCostPlot plot;
    const QList<EvaluatedDesign> points = threePoints();
    plot.setDesignPoints(points.mid(0, 2), points[2]);
    QCOMPARE(tickCount(plot.customPlot()), 3);
    QCOMPARE(plot.customPlot()->plottableCount(), 4); // switch, nic, optic, dci-optic
    QCOMPARE(plot.customPlot()->plottable(0)->name(), QStringLiteral("Switches"));
    QCOMPARE(plot.customPlot()->plottable(3)->name(), QStringLiteral("DCI optics"));
    for (int i = 0; i < 3; ++i)
        QVERIFY(
            near(stackedValueAt(plot.customPlot(), i), points[i].evaluation.networkCapexUsd / 1e6));
}

void TestPlots::panelShowsEveryPointInEveryPlot()
{
    PlotsPanel panel;
    const QList<EvaluatedDesign> points = threePoints();
    panel.setDesignPoints(points.mid(0, 2), points[2]);
    QCOMPARE(tickCount(panel.breakdownPlot()->customPlot()), 3);
    QCOMPARE(tickCount(panel.bubblePlot()->customPlot()), 3);
    QCOMPARE(tickCount(panel.networkCostPlot()->customPlot()), 3);
    QCOMPARE(tickCount(panel.goodputPlot()->customPlot()), 3);
    panel.setDesignPoints({}, points[0]);
    QCOMPARE(tickCount(panel.breakdownPlot()->customPlot()), 1);
}

void TestPlots::exportWritesEachFormat_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QByteArrayList>("magic");
    QTest::newRow("png") << "png" << QByteArrayList{"\x89PNG"};
    QTest::newRow("svg") << "svg" << QByteArrayList{"<svg", "<?xml"};
    QTest::newRow("pdf") << "PDF" << QByteArrayList{"%PDF"};
}

void TestPlots::exportWritesEachFormat()
{
    QFETCH(QString, suffix);
    QFETCH(QByteArrayList, magic);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QList<EvaluatedDesign> points = threePoints();
    BreakdownPlot breakdown;
    BubblePlot bubble;
    NetworkCostPlot network;
    TimelineView timeline;
    breakdown.setDesignPoints(points);
    bubble.setDesignPoints(points);
    network.setDesignPoints(points);
    EvaluatedDesign current = points[0];
    current.evaluation.timeline = makeTimeline(4, 8);
    timeline.setDesignPoint(current);
    const QList<PlotWidget*> plots{&breakdown, &bubble, &network, &timeline};
    for (PlotWidget* plot : plots) {
        const QString path =
            dir.filePath(QStringLiteral("plot%1.%2").arg(plots.indexOf(plot)).arg(suffix));
        QString error;
        QVERIFY2(plot->exportTo(path, {}, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 100);
        const QByteArray start = head(path, 256).trimmed();
        QVERIFY2(std::any_of(magic.begin(), magic.end(),
                             [&](const QByteArray& m) { return start.startsWith(m); }),
                 start.left(16).constData());
    }
    // A plot that was never shown still names its categories in a vector export.
    if (suffix == "svg") {
        QFile svg(dir.filePath("plot0.svg")); // the breakdown
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("dc-east"));
        QVERIFY(text.contains("Iteration time (s)"));
    }
}

void TestPlots::exportRefusesUnknownSuffix()
{
    QTemporaryDir dir;
    BubblePlot plot;
    QString error;
    QVERIFY(!plot.exportTo(dir.filePath("plot.bmpx"), {}, &error));
    QVERIFY(error.contains("bmpx"));
}

void TestPlots::timelineDrawsEveryBlock_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("v");
    QTest::newRow("p4 m8") << 4 << 8 << 1;
    QTest::newRow("p16 m128 v4 (8k blocks)") << 16 << 128 << 4;
}

void TestPlots::timelineDrawsEveryBlock()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(int, v);
    EvaluatedDesign point = makePoint("dc-west", Qt::red, 1.0, p);
    point.evaluation.timeline = makeTimeline(p, m, v);
    double makespan = 0.0;
    for (const core::TimelineBlock& b : point.evaluation.timeline)
        makespan = std::max(makespan, b.endS);

    TimelineView view;
    view.resize(1200, 500);
    view.setDesignPoint(point);
    QCOMPARE(view.drawnBlocks(core::BlockKind::Forward), qsizetype(p * v * m));
    QCOMPARE(view.drawnBlocks(core::BlockKind::Backward), qsizetype(p * v * m));
    QCOMPARE(view.drawnBlocks(core::BlockKind::WeightGrad), qsizetype(0));
    QCOMPARE(view.drawnBlocks(core::BlockKind::Send), qsizetype(2 * (p * v - 1) * m));
    QCOMPARE(view.drawnDciSends(), qsizetype(2 * m));
    QCOMPARE(view.makespanS(), makespan);
    const double scale = view.timeUnit() == "ms" ? 1e3 : 1.0;
    const QCPRange range = view.customPlot()->xAxis->range();
    QVERIFY(range.lower <= 0.0);
    QVERIFY(range.upper >= makespan * scale);
    QVERIFY(view.title().contains(QStringLiteral("p=%1").arg(p)));
    QVERIFY(view.title().contains(QStringLiteral("m=%1").arg(m)));
    // One plottable per kind, never one item per block.
    QCOMPARE(view.customPlot()->itemCount(), 0);
    QVERIFY(view.customPlot()->plottableCount() <= 5);
    // Drawing all blocks must work (speed is measured in bench/, not here).
    QVERIFY(!view.customPlot()->toPixmap(1200, 500).isNull());
}

void TestPlots::timelineHoverDescribesBlock()
{
    EvaluatedDesign point = makePoint("dc-west", Qt::red, 1.0, 4);
    point.evaluation.timeline = makeTimeline(4, 8);
    TimelineView view;
    view.resize(1200, 500);
    view.setDesignPoint(point);
    QCustomPlot* cp = view.customPlot();
    cp->replot(QCustomPlot::rpImmediateRefresh);
    // Rank 0, micro-batch 0 forward runs 0-2 ms.
    const QPoint pixel(static_cast<int>(cp->xAxis->coordToPixel(1.0)),
                       static_cast<int>(cp->yAxis->coordToPixel(0.0)));
    QCOMPARE(view.toolTipAt(pixel),
             QStringLiteral("rank 0, micro-batch 0, forward, 2.000 ms (0 – 2.000 ms)"));
    // The forward send 1 -> 2 of micro-batch 0 crosses the DCI (2.5-3 ms + 2.5 ms offset).
    const QPoint send(static_cast<int>(cp->xAxis->coordToPixel(2 * 2.5 + 2.25)),
                      static_cast<int>(cp->yAxis->coordToPixel(1.5)));
    QVERIFY2(
        view.toolTipAt(send).startsWith("rank 1 → 2, micro-batch 0, send activations across DCI"),
        qPrintable(view.toolTipAt(send)));
}

void TestPlots::bubblePlotMarksIdealOnlyForClosedForms()
{
    EvaluatedDesign oneF = makePoint("1f1b", Qt::red, 1.0, 4); // 64 GPUs, TP 8, PP 4: DP 2, m 128
    oneF.scenario.schedule.kind = core::ScheduleKind::OneFOneB;
    EvaluatedDesign zb = oneF;
    zb.name = "zb";
    zb.scenario.schedule.kind = core::ScheduleKind::ZeroBubbleH1;
    EvaluatedDesign interleaved = oneF;
    interleaved.name = "interleaved";
    interleaved.scenario.schedule.kind = core::ScheduleKind::Interleaved1F1B;
    interleaved.scenario.parallelism.virtualStages = 2;
    const std::int64_t m = core::microBatchesPerIteration(oneF.scenario);
    QVERIFY(m > 0);
    QVERIFY(near(*idealIdleOverCompute(oneF.scenario), 3.0 / static_cast<double>(m)));
    QVERIFY(
        near(*idealIdleOverCompute(interleaved.scenario), 3.0 / (2.0 * static_cast<double>(m))));
    QVERIFY(!idealIdleOverCompute(zb.scenario));

    BubblePlot plot;
    plot.setDesignPoints({oneF, zb, interleaved});
    QCPGraph* ideal = nullptr;
    for (int i = 0; i < plot.customPlot()->plottableCount(); ++i)
        if (auto* g = qobject_cast<QCPGraph*>(plot.customPlot()->plottable(i)))
            ideal = g;
    QVERIFY(ideal);
    QVERIFY(ideal->name().startsWith(QStringLiteral("Ideal")));
    QCOMPARE(ideal->data()->size(), 2); // none for the zero-bubble schedule
}

// A design point that does not fit in memory is never drawn like a valid one.
void TestPlots::outOfMemoryMarkedInEveryPlot()
{
    QList<EvaluatedDesign> points = threePoints();
    points[1].evaluation.fitsInMemory = false;
    points[1].evaluation.memoryPeakGib = 95.0;
    PlotsPanel panel;
    panel.resize(1200, 400);
    panel.setDesignPoints(points.mid(0, 2), points[2]);
    const QList<PlotWidget*> plots{panel.breakdownPlot(), panel.bubblePlot(),
                                   panel.networkCostPlot()};
    for (PlotWidget* plot : plots) {
        QCustomPlot* custom = plot->customPlot();
        QCOMPARE(outOfMemoryMarks(custom), 1);
        bool oomLabel = false;
        for (int i = 0; i < custom->itemCount(); ++i)
            if (auto* text = qobject_cast<QCPItemText*>(custom->item(i)))
                oomLabel = oomLabel || text->text() == QStringLiteral("OOM");
        QVERIFY2(oomLabel, qPrintable(plot->title()));
        bool legend = false;
        for (int i = 0; i < custom->legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(custom->legend->item(i)))
                legend = legend || item->plottable()->name().startsWith("Out of memory");
        QVERIFY2(legend, qPrintable(plot->title()));
    }
    // The palette changes colours but keeps the marks red.
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
    panel.breakdownPlot()->setPalette(dark);
    QCOMPARE(panel.breakdownPlot()->customPlot()->xAxis->tickLabelColor(), QColor(220, 220, 220));
    for (int i = 0; i < panel.breakdownPlot()->customPlot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(panel.breakdownPlot()->customPlot()->item(i));
            text && text->text() == QStringLiteral("OOM"))
            QVERIFY(text->color() != QColor(220, 220, 220));
    // No OOM point, no marks and no legend entry.
    BreakdownPlot clean;
    clean.setDesignPoints(threePoints());
    QCOMPARE(outOfMemoryMarks(clean.customPlot()), 0);
}

// Long pin names are wrapped or rotated, never cut to "PP cr…s DCI", and the
// full name is one hover away; value labels stay visible.
void TestPlots::categoryLabelsNeverElidedToNothing()
{
    QList<EvaluatedDesign> points;
    const char* names[] = {"PP crosses DCI", "DP crosses DCI", "PP crosses DCI, 3 pods",
                           "rail-only fabric, lossy IP transport", "Current"};
    for (int i = 0; i < 5; ++i)
        points.append(makePoint(QString::fromLatin1(names[i]), QColor::fromHsv(i * 60, 200, 200),
                                1.0 + 0.1 * i));
    BubblePlot plot;
    plot.resize(420, 320);
    plot.show();
    plot.setDesignPoints(points);
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.customPlot()->replot();
    const auto ticker =
        qSharedPointerDynamicCast<QCPAxisTickerText>(plot.customPlot()->xAxis->ticker());
    QVERIFY(ticker);
    const QList<QString> labels = ticker->ticks().values();
    QCOMPARE(labels.size(), 5);
    for (int i : {0, 1, 2, 4}) // every name but the longest is shown whole
        QCOMPARE(QString(labels[i]).replace('\n', ' ').simplified(), QString::fromLatin1(names[i]));
    // Every value label is visible (upright when it does not fit across its bar).
    int labelsShown = 0;
    for (int i = 0; i < plot.customPlot()->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot.customPlot()->item(i)))
            labelsShown += text->visible() && text->text().endsWith('%') ? 1 : 0;
    QCOMPARE(labelsShown, 10);
    // The full name under a tick label.
    const QRect rect = plot.customPlot()->axisRect()->rect();
    const int x = static_cast<int>(plot.customPlot()->xAxis->coordToPixel(3.0));
    const QString tip = categoryToolTipAt(plot.customPlot(), QPoint(x, rect.bottom() + 8));
    QCOMPARE(tip, QString::fromLatin1(names[3]));

    // QCustomPlot skips a tick label that would cross the widget's left edge: the first of
    // several long (rotated) names, such as an Explore pin's, must have room to its left.
    plot.setDesignPoints({makePoint("TP 8 PP 16 DP 128 v2 mb1", Qt::red, 1.0),
                          makePoint("TP 8 PP 16 DP 128 v7 mb1 DP across RoCE/PFC", Qt::blue, 1.1),
                          makePoint("Current", Qt::green, 1.2)});
    plot.customPlot()->replot(QCustomPlot::rpImmediateRefresh);
    plot.customPlot()->replot(QCustomPlot::rpImmediateRefresh); // margins settle after a layout
    QCPAxis* axis = plot.customPlot()->xAxis;
    QVERIFY(axis->tickLabelRotation() != 0.0);
    const auto newTicker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
    QVERIFY(newTicker);
    const QString first = newTicker->ticks().first();
    const QFontMetricsF metrics(axis->tickLabelFont());
    const double radians = -axis->tickLabelRotation() * std::numbers::pi / 180.0;
    const double extent =
        metrics.horizontalAdvance(first) * std::cos(radians) + metrics.height() * std::sin(radians);
    QVERIFY2(axis->coordToPixel(0.0) - extent >= 0.0,
             qPrintable(QStringLiteral("\"%1\" needs %2 px left of its tick at %3")
                            .arg(first)
                            .arg(extent)
                            .arg(axis->coordToPixel(0.0))));
}

// A report figure or an export is drawn at a size of its own, in one pass: the value labels must
// fit under the top of the axis rect as laid out with the (rotated) tick labels of that size.
void TestPlots::valueLabelsInsideTheAxisRectWhenDrawnAtASize()
{
    QList<EvaluatedDesign> points;
    for (int i = 0; i < 3; ++i) {
        EvaluatedDesign p =
            makePoint(QStringLiteral("TP8 PP16 DP128 v%1 mb1 DP-across RoCE/PFC").arg(i),
                      QColor::fromHsv(i * 90, 200, 200), 1.0 + 0.1 * i);
        p.evaluation.bubbleRatio = 0.3 + 0.02 * i;
        p.evaluation.idleOverCompute = 0.33 + 0.08 * i; // the tallest bar is the last one's
        points.append(p);
    }
    BubblePlot plot;
    plot.setDesignPoints(points);
    QCustomPlot* cp = plot.customPlot();
    fitCategoryLabelsTo(cp, QSize(330, 330)); // the report's size
    QVERIFY(!categoryLabelsNeedRefit(cp));
    QVERIFY(cp->xAxis->tickLabelRotation() != 0.0);
    const QRect rect = cp->axisRect()->rect();
    int checked = 0;
    for (int i = 0; i < cp->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(cp->item(i));
        if (!text || !text->visible() || !text->text().endsWith('%'))
            continue;
        const QFontMetricsF metrics(text->font());
        // Upright labels read upwards from their anchor; level ones sit on it.
        const double top = text->rotation() != 0.0
                               ? text->position->pixelPosition().y() -
                                     metrics.horizontalAdvance(text->text()) - 3.0
                               : text->position->pixelPosition().y() - metrics.height() - 2.0;
        QVERIFY2(top >= rect.top() - 0.5,
                 qPrintable(QStringLiteral("%1: top %2 above the axis rect's %3")
                                .arg(text->text())
                                .arg(top)
                                .arg(rect.top())));
        ++checked;
    }
    QVERIFY(checked >= 3);
}

QTEST_MAIN(TestPlots)
#include "test_plots.moc"
