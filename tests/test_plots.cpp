// Plots, timeline and comparison table on synthetic Evaluations built in code (no cost model):
// what is drawn must be exactly the data given.
#include "common/format.h"
#include "plotfixtures.h"
#include "plots/plotbreakdown.h"
#include "plots/plotbubble.h"
#include "plots/plotgoodput.h"
#include "plots/plotnetworkcost.h"
#include "plots/plotspanel.h"
#include "plots/plotstyle.h"
#include "plots/timelineview.h"
#include "tables/comparisontable.h"
#include "tables/comparisontablerows.h"
#include "tables/evaluationsummary.h"

#include <qcustomplot.h>

#include <QSignalSpy>
#include <QTemporaryDir>

#include <QTest>

#include <cmath>
#include <limits>
#include <numbers>

using namespace archipelago;
using namespace archipelago::views;

using tests::near;
using tests::stackedValueAt;

namespace {

core::BomItem bomItem(const char* category, std::int64_t count, double price, double watts)
{
    core::BomItem item;
    item.item = std::string("synthetic-") + category;
    item.category = category;
    item.scope = "dc-west";
    item.count = count;
    item.unitPriceUsd = price;
    item.unitWatts = watts;
    return item;
}

core::Scenario makeScenario(int pp)
{
    core::Scenario s;
    s.name = "synthetic";
    core::Datacenter dc;
    dc.id = 1;
    dc.name = "dc-west";
    dc.pods.push_back(core::Pod{1, "pod", 1, 8, 8}); // 64 GPUs
    s.topology.datacenters.push_back(dc);
    s.workload.globalBatch = 256;
    s.parallelism.tp = 8;
    s.parallelism.pp = pp;
    return s;
}

EvaluatedDesign makePoint(const QString& name, QColor color, double scale, int pp = 2)
{
    EvaluatedDesign p{name, color, makeScenario(pp), {}};
    core::Evaluation& e = p.evaluation;
    e.ok = true;
    e.gpus = 64;
    e.breakdown = {0.30 * scale, 0.60 * scale, 0.0,  0.05 * scale, 0.0,         0.0,
                   0.02 * scale, 0.10 * scale, 0.03, 0.08 * scale, 0.01 * scale};
    const auto& b = e.breakdown;
    e.iterationTimeS = b.forwardS + b.backwardS + b.recomputeS + b.tpCommS + b.cpCommS + b.epCommS +
                       b.ppCommS + b.dpCommS + b.optimizerS + b.bubbleS + b.interferenceS +
                       b.variabilityS + b.overheadS;
    e.bubbleRatio = 0.05 * scale;
    e.idleOverCompute = 0.06 * scale;
    e.mfu = 0.41;
    e.tokensPerS = 1.0e6 / scale;
    e.memoryPeakGib = 61.0;
    e.bom = {bomItem("switch", 40, 30000.0 * scale, 1500.0), bomItem("nic", 64, 1500.0, 25.0),
             bomItem("optic", 256, 800.0, 15.0), bomItem("dci-optic", 16, 10000.0 * scale, 20.0)};
    for (const core::BomItem& item : e.bom) {
        e.networkCapexUsd += item.capexUsd();
        e.networkPowerW += item.powerW();
    }
    e.timeToTrainS = 40.0 * 86400.0 * scale;
    return p;
}

// A 1F1B-like (GPipe-timed) pipeline: p*m forward and backward blocks, a send after each block
// that has a next (forward) or previous (backward) rank; the middle boundary crosses a DCI link.
std::vector<core::TimelineBlock> makeTimeline(int p, int m, int v = 1)
{
    const double f = 0.002, b = 0.004, d = 0.0005;
    std::vector<core::TimelineBlock> blocks;
    const int stages = p * v;
    for (int c = 0; c < v; ++c) {
        for (int s = 0; s < p; ++s) {
            const int g = c * p + s; // global stage
            for (int i = 0; i < m; ++i) {
                const double fs = (g + i) * (f + d);
                blocks.push_back({s, c, i, core::BlockKind::Forward, fs, fs + f, false});
                if (g < stages - 1)
                    blocks.push_back(
                        {s, c, i, core::BlockKind::Send, fs + f, fs + f + d, g == p / 2 - 1});
                const double t0 = (stages - 1 + m) * (f + d);
                const double bs = t0 + ((stages - 1 - g) + i) * (b + d);
                blocks.push_back({s, c, i, core::BlockKind::Backward, bs, bs + b, false});
                if (g > 0)
                    blocks.push_back(
                        {s, c, i, core::BlockKind::Send, bs + b, bs + b + d, g == p / 2});
            }
        }
    }
    return blocks;
}

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
    void wholeNumbersNeverWrap();
    void runCostShowsWithItsParts();
    void breakdownStacksSumToTotals();
    void breakdownHoverNamesPartAndUnit();
    void bubbleBarsEqualRatios();
    void networkBarsSumToCapex();
    void panelShowsEveryPointInEveryPlot();
    void exportWritesEachFormat_data();
    void exportWritesEachFormat();
    void exportRefusesUnknownSuffix();
    void timelineDrawsEveryBlock_data();
    void timelineDrawsEveryBlock();
    void timelineHoverDescribesBlock();
    void comparisonHighlightsExactlyTheDifferences();
    void oneBubbleFigureInEveryView();
    void bubblePlotMarksIdealOnlyForClosedForms();
    void outOfMemoryMarkedInEveryPlot();
    void categoryLabelsNeverElidedToNothing();
    void valueLabelsInsideTheAxisRectWhenDrawnAtASize();
    void comparisonShowsBatchBoundaryDciAndTransport();
    void comparisonTransposesAndChangesBaseline();
    void smallGpuHoursKeepSignificantFigures_data();
    void smallGpuHoursKeepSignificantFigures();
    void timeToTrainShowsGpuHours();
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

void TestPlots::comparisonHighlightsExactlyTheDifferences()
{
    const EvaluatedDesign a = makePoint("a", Qt::red, 1.0, 2);
    EvaluatedDesign b = makePoint("b", Qt::blue, 1.0, 4); // PP 4: DP and m change too
    b.evaluation.iterationTimeS *= 1.2;
    b.evaluation.breakdown.forwardS *= 2.0;
    EvaluatedDesign c = a;
    c.name = "c";
    c.evaluation.mfu = 0.45;

    ComparisonTable table;
    table.setDesignPoints({a, b}, c);
    QCOMPARE(table.columnCount(), 3);
    QCOMPARE(table.rowCount(), static_cast<int>(comparisonRows().size()));
    const auto rowOf = [&](const QString& label) {
        for (int r = 0; r < table.rowCount(); ++r) {
            if (table.verticalHeaderItem(r)->text() == label)
                return r;
        }
        return -1;
    };
    const auto highlighted = [&](int column) {
        QStringList rows;
        for (int r = 0; r < table.rowCount(); ++r) {
            if (table.isHighlighted(r, column))
                rows.append(table.verticalHeaderItem(r)->text());
        }
        return rows;
    };
    // The current design point (the last column) is the baseline until one is chosen.
    QCOMPARE(table.baseline(), 2);
    QVERIFY(highlighted(2).isEmpty());
    QCOMPARE(highlighted(0), QStringList{"MFU (%)"});
    QVERIFY(table.horizontalHeaderItem(2)->text().startsWith(QStringLiteral("◆")));

    table.setBaseline(0);
    QVERIFY(highlighted(0).isEmpty());
    QCOMPARE(highlighted(1), (QStringList{"PP", "DP", "m", "Iteration time (s)", "Forward (s)"}));
    QCOMPARE(highlighted(2), QStringList{"MFU (%)"});
    QCOMPARE(table.item(rowOf("Iteration time (s)"), 1)->text(), QStringLiteral("1.428 +20%"));
    QCOMPARE(table.item(rowOf("MFU (%)"), 2)->data(ComparisonTable::RelativeDeltaRole).toDouble(),
             0.04 / 0.41);
    QVERIFY(table.item(rowOf("Iteration time (s)"), 1)->toolTip().contains(" s"));

    table.setBaseline(2);
    QCOMPARE(highlighted(0), QStringList{"MFU (%)"});
    QVERIFY(highlighted(2).isEmpty());
    QVERIFY(table.horizontalHeaderItem(2)->text().startsWith(QStringLiteral("◆")));
    QVERIFY(!table.horizontalHeaderItem(0)->text().startsWith(QStringLiteral("◆")));

    // A chosen baseline that goes away (its pin deleted) gives way to the current point.
    table.setBaseline(0);
    table.setDesignPoints({b}, c);
    QCOMPARE(table.baseline(), 1);
    QVERIFY(table.horizontalHeaderItem(1)->text().startsWith(QStringLiteral("◆")));
}

// One evaluation, one bubble figure, printed the same by the summary, the bubble
// plot, the comparison table and the timeline; the second figure is not called "(p-1)/m".
void TestPlots::oneBubbleFigureInEveryView()
{
    EvaluatedDesign p = makePoint("current", Qt::black, 1.0, 4);
    p.evaluation.bubbleRatio = 0.35217;     // idle / makespan, mean over stages
    p.evaluation.idleOverCompute = 0.332;   // simulated idle / compute
    p.evaluation.breakdown.bubbleS = 0.281; // the busiest rank's idle seconds: another figure
    p.evaluation.timeline = makeTimeline(4, 8);
    const QString expected = formatBubbleRatio(p.evaluation.bubbleRatio);
    QCOMPARE(expected, QStringLiteral("35.2 %"));

    EvaluationSummary summary;
    summary.setEvaluation(p.evaluation);
    QCOMPARE(summary.figure(bubbleRatioName()), expected);

    BubblePlot plot;
    plot.setDesignPoints({p});
    QCOMPARE(plot.bubbleLabels(), QStringList{expected});
    // The legend names the series as the other views do, and the second one truthfully.
    QStringList legend;
    for (int i = 0; i < plot.customPlot()->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.customPlot()->legend->item(i)))
            legend.append(item->plottable()->name());
    QVERIFY2(legend.first().startsWith(bubbleRatioName()), qPrintable(legend.join('|')));
    QVERIFY(legend.contains(idleOverComputeName()));
    for (const QString& name : legend)
        QVERIFY2(!name.contains(QStringLiteral("Megatron")) || name.startsWith("Ideal"),
                 qPrintable(name));

    ComparisonTable table;
    table.setDesignPoints({p});
    const int row = table.metricIndex(bubbleRatioName());
    QVERIFY(row >= 0);
    QCOMPARE(table.cell(row, 0)->text(), expected);

    TimelineView timeline;
    timeline.setDesignPoint(p);
    QCOMPARE(timeline.bubbleRatioText(), expected);
    QVERIFY(timeline.title().contains(bubbleRatioName() + QStringLiteral(" ") + expected));

    // The breakdown's idle seconds are named apart from the ratio everywhere.
    for (const BreakdownPart& part : breakdownParts())
        QVERIFY2(!part.name.contains(QStringLiteral("ubble")), qPrintable(part.name));
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

// Two points that differ only in the batch, the dimension across the boundary or
// the DCI link are told apart by the table.
void TestPlots::comparisonShowsBatchBoundaryDciAndTransport()
{
    const auto twoDcs = [](std::vector<core::Id> stages) {
        EvaluatedDesign p = makePoint("two", Qt::red, 1.0, 2);
        core::Scenario& s = p.scenario;
        core::Datacenter east = s.topology.datacenters.front();
        east.id = 2;
        east.name = "dc-east";
        s.topology.datacenters.push_back(east);
        core::DciLink link;
        link.id = 7;
        link.a = 1;
        link.b = 2;
        link.distanceKm = 40.0;
        s.topology.links.push_back(link);
        s.placement.shards.push_back(core::PlacementShard(2, stages));
        p.evaluation.traffic.push_back({core::LinkClass::Dci, 7, 1e9, 0.1, 0.25});
        return p;
    };
    const EvaluatedDesign pp = twoDcs({1, 2});
    EvaluatedDesign dp = pp;
    dp.name = "dp";
    // The same DP (2) in two shards, one per datacenter: DP crosses the boundary instead.
    dp.scenario.placement.shards = {core::PlacementShard(1, {1, 1}),
                                    core::PlacementShard(1, {2, 2})};
    EvaluatedDesign lossy = pp;
    lossy.name = "lossy";
    lossy.scenario.topology.links.front().transport = core::DciTransport::LossyIp;
    EvaluatedDesign batch = pp;
    batch.name = "batch";
    batch.scenario.workload.globalBatch = 252;
    EvaluatedDesign far = pp;
    far.name = "far";
    far.scenario.topology.links.front().distanceKm = 400.0;
    far.scenario.topology.links.front().wavelengths = 32;
    far.evaluation.traffic.front().utilisation = 0.5;

    QCOMPARE(boundaryCrossings(pp.scenario), QStringList{"dc-west ↔ dc-east: PP"});
    QCOMPARE(boundaryCrossings(dp.scenario), QStringList{"dc-west ↔ dc-east: DP"});
    QVERIFY(boundaryCrossings(makeScenario(2)).isEmpty());

    ComparisonTable table;
    table.setDesignPoints({pp, dp, lossy, batch}, far);
    table.setBaseline(0); // each pin differs from pp in one respect
    const auto differing = [&](int point) {
        QStringList rows;
        for (int m = 0; m < static_cast<int>(comparisonRows().size()); ++m)
            if (table.cell(m, point)->data(ComparisonTable::DiffersRole).toBool())
                rows.append(comparisonRows()[m].label);
        return rows;
    };
    QCOMPARE(differing(1), QStringList{"Across DCs"});
    QCOMPARE(differing(2), QStringList{"Transport"});
    QCOMPARE(differing(3), (QStringList{"Global batch", "m"}));
    QCOMPARE(differing(4), (QStringList{"DCI capacity", "DCI distance", "DCI util. (%)"}));
    QCOMPARE(table.cell(table.metricIndex("Across DCs"), 0)->text(), QStringLiteral("PP"));
    QCOMPARE(table.cell(table.metricIndex("Transport"), 2)->text(), QStringLiteral("lossy IP"));
    QCOMPARE(table.cell(table.metricIndex("Global batch"), 3)->text(), QStringLiteral("252 -1.6%"));
    QCOMPARE(table.cell(table.metricIndex("DCI capacity"), 0)->text(), QStringLiteral("6.40 Tb/s"));
    QCOMPARE(table.cell(table.metricIndex("DCI distance"), 4)->text(), QStringLiteral("400 km"));
    QVERIFY(table.cell(table.metricIndex("DCI util. (%)"), 0)->text().startsWith("25.0"));
    QVERIFY(
        table.cell(table.metricIndex("Across DCs"), 0)->toolTip().contains("dc-west ↔ dc-east"));
    QVERIFY(table.toTsv().contains(QStringLiteral("Transport\tRDMA/OTN\tRDMA/OTN\tlossy IP")));
}

// Pins as rows or as columns, any point as the baseline, compact columns.
void TestPlots::comparisonTransposesAndChangesBaseline()
{
    QList<EvaluatedDesign> points;
    for (int i = 0; i < 6; ++i)
        points.append(
            makePoint(QStringLiteral("a long pin name number %1 with PP across DCI").arg(i),
                      QColor::fromHsv(i * 50, 200, 200), 1.0 + 0.1 * i));
    ComparisonTable table;
    table.resize(900, 500);
    table.setDesignPoints(points);
    const int metrics = static_cast<int>(comparisonRows().size());
    QCOMPARE(table.rowCount(), metrics);
    QCOMPARE(table.columnCount(), 6);
    // Compact: six columns of long names fit in a 900 px wide table.
    int width = table.verticalHeader()->sizeHint().width();
    for (int c = 0; c < table.columnCount(); ++c)
        width += table.columnWidth(c);
    QStringList widths{QString::number(table.verticalHeader()->sizeHint().width())};
    for (int c = 0; c < table.columnCount(); ++c)
        widths.append(QString::number(table.columnWidth(c)));
    QVERIFY2(width <= 900, qPrintable(widths.join(QLatin1Char(' '))));
    QVERIFY(table.horizontalHeaderItem(1)->toolTip().contains(points[1].name));

    const int iteration = table.metricIndex("Iteration time (s)");
    QVERIFY(table.cell(iteration, 2)->data(ComparisonTable::DiffersRole).toBool());
    const double t0 = points[0].evaluation.iterationTimeS;
    const double t2 = points[2].evaluation.iterationTimeS;
    QVERIFY(near(table.cell(iteration, 2)->data(ComparisonTable::RelativeDeltaRole).toDouble(),
                 t2 / t0 - 1.0));

    QSignalSpy transposed(&table, &ComparisonTable::transposedChanged);
    table.setTransposed(true);
    QCOMPARE(transposed.count(), 1);
    QCOMPARE(table.rowCount(), 6);
    QCOMPARE(table.columnCount(), metrics);
    QCOMPARE(table.item(2, iteration), table.cell(iteration, 2));
    QCOMPARE(table.horizontalHeaderItem(iteration)->text(), QStringLiteral("Iteration time (s)"));
    QVERIFY(table.verticalHeaderItem(0)->text().startsWith(QStringLiteral("◆")));
    QVERIFY(table.isHighlighted(2, iteration));

    QSignalSpy baseline(&table, &ComparisonTable::baselineChanged);
    table.setBaseline(2);
    QCOMPARE(baseline.count(), 1);
    QVERIFY(table.verticalHeaderItem(2)->text().startsWith(QStringLiteral("◆")));
    QVERIFY(!table.isHighlighted(2, iteration));
    QVERIFY(near(table.cell(iteration, 0)->data(ComparisonTable::RelativeDeltaRole).toDouble(),
                 t0 / t2 - 1.0));
    // The baseline follows its point when a pin before it goes away.
    table.setDesignPoints(points.mid(1));
    QCOMPARE(table.baseline(), 1);
    QVERIFY(table.verticalHeaderItem(1)->toolTip().contains(points[2].name));
    table.setTransposed(false);
    QCOMPARE(table.rowCount(), metrics);
    QVERIFY(table.horizontalHeaderItem(1)->text().startsWith(QStringLiteral("◆")));
}

void TestPlots::smallGpuHoursKeepSignificantFigures_data()
{
    QTest::addColumn<double>("hours");
    QTest::addColumn<QString>("text");
    QTest::newRow("tiny") << 0.0011612 << "0.00116";
    QTest::newRow("small") << 0.4648 << "0.465";
    QTest::newRow("units") << 4.648 << "4.65";
    QTest::newRow("hundreds") << 464.8 << "465";
    QTest::newRow("thousands") << 41272.3 << "41,272";
    QTest::newRow("zero") << 0.0 << "0";
    QTest::newRow("nan") << std::nan("") << "—";
}

void TestPlots::smallGpuHoursKeepSignificantFigures()
{
    QFETCH(double, hours);
    QFETCH(QString, text);
    QCOMPARE(formatGpuHours(hours), text);
}

// Small GPU-hours keep their figure: "Time to train 418 s (0 GPU-hours)" used to lose it.
void TestPlots::timeToTrainShowsGpuHours()
{
    EvaluatedDesign p = makePoint("small", Qt::red, 1.0);
    p.evaluation.timeToTrainS = 418.0;
    p.evaluation.gpus = 4;
    p.evaluation.gpuHoursToTrain = 418.0 * 4 / 3600.0;
    p.evaluation.goodput.effectiveTimeToTrainS = 3.5 * 86400.0;
    p.evaluation.goodput.ettr = 0.925;
    EvaluationSummary summary;
    summary.setEvaluation(p.evaluation);
    QCOMPARE(summary.figure("Time to train"), QStringLiteral("418 s (0.464 GPU-hours)"));
    QCOMPARE(formatTimeSpan(3.5 * 86400.0), QStringLiteral("3.50 days"));
    // The table prints the span the same way, not "0.0 days".
    ComparisonTable table;
    table.setDesignPoints({p});
    QCOMPARE(table.cell(table.metricIndex("Time to train"), 0)->text(), QStringLiteral("418 s"));
    // And with failures counted, beside it.
    QCOMPARE(table.cell(table.metricIndex("With failures"), 0)->text(),
             QStringLiteral("3.50 days"));
    QCOMPARE(table.cell(table.metricIndex("ETTR (%)"), 0)->text(), QStringLiteral("92.5"));
}

// A result beyond the int64 range or not finite shows as a dash, never as a wrapped integer
// ("-9,223,372,036,854,775,808 GPU-hours").
void TestPlots::wholeNumbersNeverWrap()
{
    QCOMPARE(views::formatWholeNumber(41272315.4), views::formatCount(41272315));
    QVERIFY(!views::formatWholeNumber(std::numeric_limits<double>::infinity()).contains('9'));
    QVERIFY(!views::formatWholeNumber(std::nan("")).contains('9'));
    QVERIFY(!views::formatWholeNumber(1e300).contains('-'));
    QVERIFY(!views::formatWholeNumber(-1e300).contains('9'));
}

// The run's cost in the Evaluation dock (with its parts per hour in the tooltip) and in the
// comparison table; a dash when the catalog does not price the run.
void TestPlots::runCostShowsWithItsParts()
{
    EvaluatedDesign p;
    p.name = QStringLiteral("A");
    p.evaluation.ok = true;
    p.evaluation.iterationTimeS = 1.0;
    p.evaluation.timeToTrainS = 2.0 * 86400.0;
    p.evaluation.goodput.effectiveTimeToTrainS = 2.5 * 86400.0;
    p.evaluation.gpus = 1000;
    core::RunCost& c = p.evaluation.runCost;
    c.priced = true;
    c.capexUsd = 40e6;
    c.itPowerW = 1.4e6;
    c.ownershipUsdPerHour = 800.0;
    c.facilityUsdPerHour = 350.0;
    c.energyUsdPerHour = 100.0;
    c.usdPerHour = 1250.0;
    c.usdPerGpuHour = 1.25;
    c.runCostUsd = 1250.0 * 48.0;
    c.effectiveRunCostUsd = 1250.0 * 60.0;
    EvaluationSummary summary;
    summary.setEvaluation(p.evaluation);
    QCOMPARE(summary.figure("Run cost"),
             QStringLiteral("%1 (%2 per GPU-hour)").arg(formatUsd(75e3), formatUsd(1.25)));
    const QString tip = summary.figureToolTip("Run cost");
    for (const QString& part : {formatUsd(1250.0), formatUsd(800.0), formatUsd(40e6),
                                formatUsd(350.0), formatUsd(100.0), formatPower(1.4e6)})
        QVERIFY2(tip.contains(part), qPrintable(part + " not in: " + tip));
    ComparisonTable table;
    table.setDesignPoints({p});
    QCOMPARE(table.cell(table.metricIndex("Run cost (M USD)"), 0)->text(),
             QStringLiteral("0.0750"));
    c.priced = false;
    summary.setEvaluation(p.evaluation);
    QCOMPARE(summary.figure("Run cost"), QStringLiteral("—"));
}

QTEST_MAIN(TestPlots)
#include "test_plots.moc"
