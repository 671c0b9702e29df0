// The goodput plot: the run's wall time per design point (core::Goodput), on an evaluated preset
// and on synthetic Goodputs built in code; and the plots panel that shows it fourth.
#include "evaluation/costmodel.h"
#include "plotfixtures.h"
#include "plots/plotbreakdown.h"
#include "plots/plotbubble.h"
#include "plots/plotgoodput.h"
#include "plots/plotnetworkcost.h"
#include "plots/plotspanel.h"
#include "plots/plotstyle.h"
#include "presetfixture.h"

#include <qcustomplot.h>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace archipelago;
using namespace archipelago::views;

using tests::near;
using tests::stackedValueAt;

namespace {

// An evaluated point with an iteration time and no goodput (the plot's "no time to train").
EvaluatedDesign syntheticPoint(const QString& name, QColor color)
{
    EvaluatedDesign p{name, color, {}, {}};
    p.evaluation.ok = true;
    p.evaluation.gpus = 64;
    p.evaluation.iterationTimeS = 1.2;
    return p;
}

} // namespace

class TestPlotGoodput : public QObject
{
    Q_OBJECT

private slots:
    void goodputStacksSumToWallTime();
    void goodputLabelsAndNotes();
    void panelHasFourPlotsAndRoomForTheBreakdown();
    void convergenceLayerForDiLoCo();
};

// The wall time of an evaluated preset, split as core::Goodput splits it.
void TestPlotGoodput::goodputStacksSumToWallTime()
{
    EvaluatedDesign current{
        "16k", QColor(Qt::red), tests::loadPreset("llama3-405b-16k-h100.json"), {}};
    current.evaluation = core::evaluate(current.scenario);
    const core::Goodput& g = current.evaluation.goodput;
    QVERIFY(current.evaluation.ok);
    QVERIFY(g.restartTotalS > 0.0 && g.lostWorkS > 0.0 && g.checkpointS > 0.0);
    EvaluatedDesign pinned = syntheticPoint("synthetic", QColor(Qt::blue)); // no goodput
    GoodputPlot plot;
    plot.setDesignPoints({pinned}, current);
    QCOMPARE(plot.categories(), (QStringList{"synthetic", "16k"}));
    QCOMPARE(plot.title(), QStringLiteral("Time to train with failures"));
    QCOMPARE(plot.customPlot()->yAxis->label(), QStringLiteral("Wall time (days)"));
    QCOMPARE(plot.stackTotals()[0], 0.0);
    QVERIFY(near(plot.stackTotals()[1], g.effectiveTimeToTrainS / 86400.0));
    QVERIFY(near(stackedValueAt(plot.customPlot(), 1), g.effectiveTimeToTrainS / 86400.0));
    QStringList layers;
    for (int i = 0; i < plot.customPlot()->plottableCount(); ++i)
        layers.append(plot.customPlot()->plottable(i)->name());
    // The 16k job's spines: one failing leaves the job running slower until it is replaced.
    QVERIFY(g.degradedS > 0.0);
    QCOMPARE(layers,
             (QStringList{"Useful work", "Degraded", "Checkpoints", "Restarts", "Lost work"}));
    // Synchronous training has no convergence cost: that layer is not drawn.
    QCOMPARE(goodputParts().size(), layers.size() + 1);
    // The bottom layer is the failure-free time to train.
    auto* useful = qobject_cast<QCPBars*>(plot.customPlot()->plottable(0));
    QVERIFY(useful &&
            near(useful->data()->at(1)->value, current.evaluation.timeToTrainS / 86400.0));
}

// DiLoCo across the preset's three regions: the extra steps it needs are a layer of their own.
void TestPlotGoodput::convergenceLayerForDiLoCo()
{
    EvaluatedDesign p{
        "diloco", QColor(Qt::red), tests::loadPreset("scale-across-100k-3-regions.json"), {}};
    p.scenario.parallelism.datacenterSync.scheme = core::DatacenterSync::DiLoCo;
    p.evaluation = core::evaluate(p.scenario);
    const core::Goodput& g = p.evaluation.goodput;
    QVERIFY(p.evaluation.ok && g.convergenceS > 0.0);
    GoodputPlot plot;
    plot.setDesignPoints({p});
    QStringList layers;
    for (int i = 0; i < plot.customPlot()->plottableCount(); ++i)
        layers.append(plot.customPlot()->plottable(i)->name());
    QCOMPARE(layers, (QStringList{"Useful work", "Convergence", "Degraded", "Checkpoints",
                                  "Restarts", "Lost work"}));
    QVERIFY(near(plot.stackTotals()[0], g.effectiveTimeToTrainS / 86400.0));
    auto* convergence = qobject_cast<QCPBars*>(plot.customPlot()->plottable(1));
    QVERIFY(convergence && near(convergence->data()->at(0)->value, g.convergenceS / 86400.0));
}

void TestPlotGoodput::goodputLabelsAndNotes()
{
    EvaluatedDesign p = syntheticPoint("dc-west", QColor(Qt::red));
    core::Goodput& g = p.evaluation.goodput;
    g.interruptionsPerDay = 7.76;
    g.mtbfS = 86400.0 / g.interruptionsPerDay;
    g.checkpointIntervalS = 972.0;
    g.restartS = 672.0;
    g.usefulS = 70.0 * 86400.0;
    g.checkpointS = 0.5 * 86400.0;
    g.restartTotalS = 3.5 * 86400.0;
    g.lostWorkS = 0.6 * 86400.0;
    g.effectiveTimeToTrainS = g.usefulS + g.checkpointS + g.restartTotalS + g.lostWorkS;
    g.ettr = g.usefulS / g.effectiveTimeToTrainS;
    EvaluatedDesign failed = syntheticPoint("failed", QColor(Qt::blue));
    failed.evaluation.ok = false;
    failed.evaluation.goodput = g;
    EvaluatedDesign unbounded = syntheticPoint("unbounded", QColor(Qt::green));
    unbounded.evaluation.goodput.effectiveTimeToTrainS = std::numeric_limits<double>::infinity();
    unbounded.evaluation.goodput.usefulS = g.usefulS;

    GoodputPlot plot;
    plot.resize(800, 500);
    plot.setDesignPoints({failed, unbounded}, p);
    QCustomPlot* cp = plot.customPlot();
    cp->replot(QCustomPlot::rpImmediateRefresh);
    QStringList labels;
    for (int i = 0; i < cp->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(cp->item(i)))
            labels.append(text->text());
    QVERIFY2(labels.contains(QStringLiteral("74.6 d\nETTR 93.8 %")), qPrintable(labels.join('|')));
    QCOMPARE(labels.count(QStringLiteral("not evaluated")), 1);
    QCOMPARE(labels.count(QStringLiteral("never ends")), 1);
    // Only the evaluated point has a bar; its wall time is the sum of the four parts.
    const QList<double> totals = plot.stackTotals();
    QCOMPARE(totals.size(), 3);
    QVERIFY(totals[0] == 0.0 && totals[1] == 0.0 && near(totals[2], 74.6));
    // Hover: the part, its share, and the failure figures behind it.
    const QPoint restarts(static_cast<int>(cp->xAxis->coordToPixel(2.0)),
                          static_cast<int>(cp->yAxis->coordToPixel(72.0)));
    const QString tip = plot.toolTipAt(restarts);
    QVERIFY2(tip.startsWith(QStringLiteral("dc-west: Restarts 3.50 d (4.7 % of 74.6 d)")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("7.76 interruptions a day, MTBF 3.09 h")),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("checkpoint every 16.2 min, restart 11.2 min")),
             qPrintable(tip));
    const QPoint over(static_cast<int>(cp->xAxis->coordToPixel(0.0)),
                      static_cast<int>(cp->yAxis->coordToPixel(10.0)));
    QVERIFY2(plot.toolTipAt(over).contains(QStringLiteral("could not evaluate")),
             qPrintable(plot.toolTipAt(over)));
}

void TestPlotGoodput::panelHasFourPlotsAndRoomForTheBreakdown()
{
    PlotsPanel panel;
    panel.setDesignPoints({}, syntheticPoint("current", QColor(Qt::red)));
    // Four plots, in this order.
    const QList<PlotWidget*> plots = panel.findChildren<PlotWidget*>();
    QCOMPARE(plots.size(), 4);
    QCOMPARE(panel.goodputPlot()->title(), QStringLiteral("Time to train with failures"));
    // As wide as the panel is in the smallest window: the breakdown has room for two legend
    // columns of its longest part names (one would squash its bars under thirteen rows).
    panel.resize(1120, 360);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCustomPlot* breakdown = panel.breakdownPlot()->customPlot();
    const QFontMetricsF metrics(breakdown->legend->font());
    double widest = 0.0;
    for (const BreakdownPart& part : breakdownParts())
        widest = std::max(widest, metrics.horizontalAdvance(part.name));
    const double twoColumns = 2.0 * (widest + 36.0) + 12.0; // icon, padding, spacing, margins
    QVERIFY2(breakdown->width() >= twoColumns,
             qPrintable(QStringLiteral("%1 < %2").arg(breakdown->width()).arg(twoColumns)));
    for (const PlotWidget* plot : panel.findChildren<PlotWidget*>())
        QVERIFY2(plot->width() >= 220, qPrintable(plot->title()));
}

QTEST_MAIN(TestPlotGoodput)
#include "test_plotgoodput.moc"
