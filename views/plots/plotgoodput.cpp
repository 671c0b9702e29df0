#include "plots/plotgoodput.h"

#include "plots/plotstyle.h"

#include <cmath>

namespace archipelago::views {

namespace {
constexpr double kDayS = 86400.0;
constexpr double kHourS = 3600.0;
constexpr double kMinuteS = 60.0;

// Why a point has no bar, or empty when it has one.
QString missingReason(const core::Evaluation& e)
{
    if (!e.ok)
        return QStringLiteral("the model could not evaluate this point");
    const double wallS = e.goodput.effectiveTimeToTrainS;
    if (std::isinf(wallS))
        return QStringLiteral("interruptions come faster than a checkpoint and a restart: the "
                              "expected wall time is unbounded");
    if (!(wallS > 0.0))
        return QStringLiteral("no time to train: the workload sets no training tokens");
    return {};
}

// "every 16.2 min", "never" for an unbounded interval (no interruption counted).
QString minutesOrNever(double seconds)
{
    return std::isfinite(seconds) ? formatSignificant(seconds / kMinuteS) + QStringLiteral(" min")
                                  : QStringLiteral("never");
}

QString note(const core::Goodput& g)
{
    if (!(g.interruptionsPerDay > 0.0))
        return QStringLiteral("no interruption counted (the catalog has no failure rates)");
    return QStringLiteral("%1 interruptions a day, MTBF %2 h\n(servers %3, fabric %4, DCI %5, "
                          "buildings %6)\ncheckpoint every %7, restart %8 min")
        .arg(formatSignificant(g.interruptionsPerDay), formatSignificant(g.mtbfS / kHourS),
             formatSignificant(g.serverInterruptionsPerDay),
             formatSignificant(g.fabricInterruptionsPerDay),
             formatSignificant(g.dciInterruptionsPerDay),
             formatSignificant(g.buildingInterruptionsPerDay),
             minutesOrNever(g.checkpointIntervalS), formatSignificant(g.restartS / kMinuteS));
}
} // namespace

GoodputPlot::GoodputPlot(QWidget* parent)
    : StackedBarPlot(QStringLiteral("Time to train with failures"),
                     QStringLiteral("Wall time (days)"), 2, parent)
{
    setDesignPoints({});
}

void GoodputPlot::setDesignPoints(const QList<EvaluatedDesign>& pinned,
                                  const EvaluatedDesign& current)
{
    setDesignPoints(orderedDesignPoints(pinned, current));
}

void GoodputPlot::setDesignPoints(const QList<EvaluatedDesign>& points)
{
    QList<StackSeries> series;
    for (const GoodputPart& part : goodputParts()) {
        StackSeries s{part.name, part.color, {}};
        for (const EvaluatedDesign& p : points) {
            const bool drawn = missingReason(p.evaluation).isEmpty();
            s.values.append(drawn ? p.evaluation.goodput.*part.seconds / kDayS : 0.0);
        }
        series.append(s);
    }

    QStringList labels;
    QStringList notes;
    for (const EvaluatedDesign& p : points) {
        const QString missing = missingReason(p.evaluation);
        if (!missing.isEmpty()) {
            labels.append(p.evaluation.ok && std::isinf(p.evaluation.goodput.effectiveTimeToTrainS)
                              ? QStringLiteral("never ends")
                              : QStringLiteral("not evaluated"));
            notes.append(missing);
            continue;
        }
        const core::Goodput& g = p.evaluation.goodput;
        labels.append(QStringLiteral("%1 d\nETTR %2 %")
                          .arg(formatSignificant(g.effectiveTimeToTrainS / kDayS),
                               formatSignificant(100.0 * g.ettr)));
        notes.append(note(g));
    }
    setStacks(points, series, QStringLiteral("d"), labels, notes);
}

} // namespace archipelago::views
