#include "plots/plotbreakdown.h"

#include "plots/plotstyle.h"

#include <cmath>

namespace archipelago::views {

BreakdownPlot::BreakdownPlot(QWidget* parent)
    : StackedBarPlot(QStringLiteral("Iteration time breakdown"),
                     QStringLiteral("Iteration time (s)"), 3, parent)
{
    setDesignPoints({});
}

void BreakdownPlot::setDesignPoints(const QList<EvaluatedDesign>& pinned,
                                    const EvaluatedDesign& current)
{
    setDesignPoints(orderedDesignPoints(pinned, current));
}

void BreakdownPlot::setDesignPoints(const QList<EvaluatedDesign>& points)
{
    QList<StackSeries> series;
    for (const BreakdownPart& part : breakdownParts()) {
        StackSeries s{part.name, part.color, {}};
        for (const EvaluatedDesign& p : points)
            s.values.append(p.evaluation.ok ? p.evaluation.breakdown.*part.seconds : 0.0);
        series.append(s);
    }

    QStringList labels;
    QStringList notes;
    for (const EvaluatedDesign& p : points) {
        const core::Evaluation& e = p.evaluation;
        if (!e.ok) {
            labels.append(QStringLiteral("not evaluated"));
            notes.append(QStringLiteral("the model could not evaluate this point"));
            continue;
        }
        labels.append(formatSignificant(e.iterationTimeS) + QStringLiteral(" s"));
        double sum = 0.0;
        for (const BreakdownPart& part : breakdownParts())
            sum += e.breakdown.*part.seconds;
        QString note =
            QStringLiteral("iteration time %1 s, MFU %2 %")
                .arg(formatSignificant(e.iterationTimeS), formatSignificant(100.0 * e.mfu));
        // The parts are per rank on the critical path; say so when they do not add up.
        if (e.iterationTimeS > 0.0 && std::abs(sum - e.iterationTimeS) > 0.01 * e.iterationTimeS)
            note += QStringLiteral("\nparts sum to %1 s").arg(formatSignificant(sum));
        notes.append(note);
    }
    setStacks(points, series, QStringLiteral("s"), labels, notes);
}

} // namespace archipelago::views
