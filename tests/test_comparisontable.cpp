// The comparison table and the Evaluation dock's figures on synthetic Evaluations built in code
// (no cost model): the differences highlighted, one bubble figure in every view, and the
// numbers (GPU-hours, spans, whole numbers, the run's cost) printed with their figures.
#include "common/format.h"
#include "plotfixtures.h"
#include "plots/plotbubble.h"
#include "plots/plotstyle.h"
#include "plots/timelineview.h"
#include "tables/comparisontable.h"
#include "tables/comparisontablerows.h"
#include "tables/evaluationsummary.h"

#include "evaluation/costmodel.h"
#include "evaluation/linksizing.h"
#include "io/scenarioio.h"

#include <qcustomplot.h>

#include <QSignalSpy>

#include <QTest>

#include <cmath>
#include <limits>

using namespace archipelago;
using namespace archipelago::views;

using tests::makePoint;
using tests::makeScenario;
using tests::makeTimeline;
using tests::near;

class TestComparisonTable : public QObject
{
    Q_OBJECT

private slots:
    void wholeNumbersNeverWrap();
    void runCostShowsWithItsParts();
    void comparisonHighlightsExactlyTheDifferences();
    void oneBubbleFigureInEveryView();
    void comparisonShowsBatchBoundaryDciAndTransport();
    void comparisonTransposesAndChangesBaseline();
    void smallGpuHoursKeepSignificantFigures_data();
    void smallGpuHoursKeepSignificantFigures();
    void timeToTrainShowsGpuHours();
    void memorySaysTightWithTheHeadroomWarning();
    void dciNeededIsTheLinkSizing();
};

void TestComparisonTable::comparisonHighlightsExactlyTheDifferences()
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
void TestComparisonTable::oneBubbleFigureInEveryView()
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

// Two points that differ only in the batch, the dimension across the boundary or
// the DCI link are told apart by the table.
void TestComparisonTable::comparisonShowsBatchBoundaryDciAndTransport()
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
void TestComparisonTable::comparisonTransposesAndChangesBaseline()
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

void TestComparisonTable::smallGpuHoursKeepSignificantFigures_data()
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

void TestComparisonTable::smallGpuHoursKeepSignificantFigures()
{
    QFETCH(double, hours);
    QFETCH(QString, text);
    QCOMPARE(formatGpuHours(hours), text);
}

// Small GPU-hours keep their figure: "Time to train 418 s (0 GPU-hours)" used to lose it.
void TestComparisonTable::timeToTrainShowsGpuHours()
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
    // The interruptions a day, and those of the DCI apart (a protected route has none).
    p.evaluation.goodput.interruptionsPerDay = 7.75;
    p.evaluation.goodput.dciInterruptionsPerDay = 0.0075;
    table.setDesignPoints({p});
    QCOMPARE(table.cell(table.metricIndex("Interruptions (/day)"), 0)->text(),
             QStringLiteral("7.75"));
    QCOMPARE(table.cell(table.metricIndex("DCI interruptions (/day)"), 0)->text(),
             QStringLiteral("0.0075"));
}

// "What DCI capacity do we need?" answered per design point: the link sizing of
// evaluation/linksizing.h, with the iteration times behind it in the tooltip.
void TestComparisonTable::dciNeededIsTheLinkSizing()
{
    core::LoadResult loaded =
        core::loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    QVERIFY(loaded.ok());
    EvaluatedDesign p;
    p.name = QStringLiteral("Current");
    p.scenario = *loaded.scenario;
    p.evaluation = core::evaluate(p.scenario);
    const core::LinkSizing need = core::wavelengthsNeeded(
        p.scenario, core::effectiveCatalog(p.scenario), p.scenario.topology.links.front().id);
    QVERIFY(need.ok && need.gbps > 0.0);
    ComparisonTable table;
    table.setDesignPoints({}, p);
    const int row = table.metricIndex(QStringLiteral("DCI needed"));
    QVERIFY(row >= 0);
    QCOMPARE(table.cell(row, 0)->text(), formatGbps(need.gbps));
    QVERIFY2(table.cell(row, 0)->toolTip().contains(QStringLiteral("on an unlimited link")),
             qPrintable(table.cell(row, 0)->toolTip()));
    // Not evaluated: nothing to size.
    p.evaluation.ok = false;
    table.setDesignPoints({}, p);
    QCOMPARE(table.cell(row, 0)->text(), QStringLiteral("—"));
}

// Fits, tight (the memory-headroom warning) or out of memory, in the words and colour of each.
void TestComparisonTable::memorySaysTightWithTheHeadroomWarning()
{
    EvaluatedDesign p = makePoint("tight", Qt::red, 1.0);
    p.evaluation.fitsInMemory = true;
    p.evaluation.memoryPeakGib = 79.57;
    p.evaluation.hbmGib = 79.6;
    EvaluationSummary summary;
    summary.setEvaluation(p.evaluation);
    QVERIFY2(summary.figure("Memory peak").contains(QStringLiteral("79.6 GiB — fits")),
             qPrintable(summary.figure("Memory peak")));
    QCOMPARE(memoryFit(p.evaluation), MemoryFit::Fits);
    p.evaluation.warnings.push_back(core::Warning{core::WarningCode::MemoryHeadroom});
    summary.setEvaluation(p.evaluation);
    QVERIFY2(summary.figure("Memory peak").contains(QStringLiteral("79.6 GiB — tight")) &&
                 summary.figure("Memory peak").contains(QStringLiteral("#b26a00")),
             qPrintable(summary.figure("Memory peak")));
    QCOMPARE(memoryFit(p.evaluation), MemoryFit::Tight);
    p.evaluation.fitsInMemory = false;
    QCOMPARE(memoryFit(p.evaluation), MemoryFit::OutOfMemory);
}

// A result beyond the int64 range or not finite shows as a dash, never as a wrapped integer
// ("-9,223,372,036,854,775,808 GPU-hours").
void TestComparisonTable::wholeNumbersNeverWrap()
{
    QCOMPARE(views::formatWholeNumber(41272315.4), views::formatCount(41272315));
    QVERIFY(!views::formatWholeNumber(std::numeric_limits<double>::infinity()).contains('9'));
    QVERIFY(!views::formatWholeNumber(std::nan("")).contains('9'));
    QVERIFY(!views::formatWholeNumber(1e300).contains('-'));
    QVERIFY(!views::formatWholeNumber(-1e300).contains('9'));
}

// The run's cost in the Evaluation dock (with its parts per hour in the tooltip) and in the
// comparison table; a dash when the catalog does not price the run.
void TestComparisonTable::runCostShowsWithItsParts()
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

QTEST_MAIN(TestComparisonTable)
#include "test_comparisontable.moc"
