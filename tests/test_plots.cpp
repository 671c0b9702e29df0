// Plots, timeline and comparison table on synthetic Evaluations built in code (no cost model):
// what is drawn must be exactly the data given.
#include "comparisontable.h"
#include "format.h"
#include "comparisontablerows.h"
#include "plotbreakdown.h"
#include "plotbubble.h"
#include "plotnetworkcost.h"
#include "plotspanel.h"
#include "plotstyle.h"
#include "timelineview.h"

#include <qcustomplot.h>

#include <QTemporaryDir>

#include <cmath>
#include <limits>
#include <QTest>

#include <cmath>

using namespace archipelago;
using namespace archipelago::views;

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

DesignPoint makePoint(const QString& name, QColor color, double scale, int pp = 2)
{
    DesignPoint p{name, color, makeScenario(pp), {}};
    core::Evaluation& e = p.evaluation;
    e.ok = true;
    e.gpus = 64;
    e.breakdown = {0.30 * scale, 0.60 * scale, 0.0,  0.05 * scale, 0.0,         0.0,
                   0.02 * scale, 0.10 * scale, 0.03, 0.08 * scale, 0.01 * scale};
    const auto& b = e.breakdown;
    e.iterationTimeS = b.forwardS + b.backwardS + b.recomputeS + b.tpCommS + b.cpCommS + b.epCommS +
                       b.ppCommS + b.dpCommS + b.optimizerS + b.bubbleS + b.interferenceS;
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

QList<DesignPoint> threePoints()
{
    return {makePoint("dc-west", QColor(Qt::red), 1.0), makePoint("dc-east", QColor(Qt::blue), 1.5),
            makePoint("split", QColor(Qt::darkGreen), 0.8)};
}

// Sum of all QCPBars values at `key`: what the stacked bars show for one design point.
double stackedValueAt(QCustomPlot* plot, double key)
{
    double sum = 0.0;
    for (int i = 0; i < plot->plottableCount(); ++i) {
        if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i))) {
            const auto it = bars->data()->findBegin(key, false);
            if (it != bars->data()->constEnd() && qFuzzyCompare(it->key, key))
                sum += it->value;
        }
    }
    return sum;
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

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

} // namespace

class TestPlots : public QObject
{
    Q_OBJECT

private slots:
    void wholeNumbersNeverWrap();
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
};

void TestPlots::breakdownStacksSumToTotals()
{
    BreakdownPlot plot;
    const QList<DesignPoint> points = threePoints();
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
    const QList<DesignPoint> points = threePoints();
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
    const QList<DesignPoint> points = threePoints();
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
    const QList<DesignPoint> points = threePoints();
    panel.setDesignPoints(points.mid(0, 2), points[2]);
    QCOMPARE(tickCount(panel.breakdownPlot()->customPlot()), 3);
    QCOMPARE(tickCount(panel.bubblePlot()->customPlot()), 3);
    QCOMPARE(tickCount(panel.networkCostPlot()->customPlot()), 3);
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
    const QList<DesignPoint> points = threePoints();
    BreakdownPlot breakdown;
    BubblePlot bubble;
    NetworkCostPlot network;
    TimelineView timeline;
    breakdown.setDesignPoints(points);
    bubble.setDesignPoints(points);
    network.setDesignPoints(points);
    DesignPoint current = points[0];
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
    DesignPoint point = makePoint("dc-west", Qt::red, 1.0, p);
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
    DesignPoint point = makePoint("dc-west", Qt::red, 1.0, 4);
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
    const DesignPoint a = makePoint("a", Qt::red, 1.0, 2);
    DesignPoint b = makePoint("b", Qt::blue, 1.0, 4); // PP 4: DP and m change too
    b.evaluation.iterationTimeS *= 1.2;
    b.evaluation.breakdown.forwardS *= 2.0;
    DesignPoint c = a;
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
    QVERIFY(highlighted(0).isEmpty());
    QCOMPARE(highlighted(1), (QStringList{"PP", "DP", "Micro-batches per iteration",
                                          "Iteration time (s)", "Forward (s)"}));
    QCOMPARE(highlighted(2), QStringList{"MFU (%)"});
    QCOMPARE(table.item(rowOf("Iteration time (s)"), 1)->text(), QStringLiteral("1.428 (+20.0%)"));
    QCOMPARE(table.item(rowOf("MFU (%)"), 2)->data(ComparisonTable::RelativeDeltaRole).toDouble(),
             0.04 / 0.41);
    QVERIFY(table.item(rowOf("Iteration time (s)"), 1)->toolTip().contains(" s"));

    table.setBaseline(2);
    QCOMPARE(highlighted(0), QStringList{"MFU (%)"});
    QVERIFY(highlighted(2).isEmpty());
    QVERIFY(table.horizontalHeaderItem(2)->text().endsWith("(baseline)"));
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

QTEST_MAIN(TestPlots)
#include "test_plots.moc"
