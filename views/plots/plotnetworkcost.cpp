#include "plots/plotnetworkcost.h"

#include "common/format.h"

#include "plots/plotstyle.h"

#include <QMap>

namespace archipelago::views {

namespace {
constexpr double kMillion = 1e6;

double bomPowerW(const core::Evaluation& e)
{
    double watts = 0.0;
    for (const core::BomItem& item : e.bom)
        watts += item.powerW();
    return watts;
}
} // namespace

NetworkCostPlot::NetworkCostPlot(QWidget* parent)
    : StackedBarPlot(QStringLiteral("Network cost"), QStringLiteral("Capex (M USD)"), 3, parent)
{
    setDesignPoints({});
}

void NetworkCostPlot::setDesignPoints(const QList<EvaluatedDesign>& pinned,
                                      const EvaluatedDesign& current)
{
    setDesignPoints(orderedDesignPoints(pinned, current));
}

void NetworkCostPlot::setDesignPoints(const QList<EvaluatedDesign>& points)
{
    QStringList present;
    QList<QMap<QString, double>> capexByCategory; // per point, USD
    for (const EvaluatedDesign& p : points) {
        QMap<QString, double> capex;
        for (const core::BomItem& item : p.evaluation.bom) {
            const QString category = QString::fromStdString(item.category);
            capex[category] += item.capexUsd();
            if (!present.contains(category))
                present.append(category);
        }
        capexByCategory.append(capex);
    }

    QList<StackSeries> series;
    for (const QString& category : orderedBomCategories(present)) {
        StackSeries s{bomCategoryLabel(category), bomCategoryColor(category), {}};
        for (const QMap<QString, double>& capex : capexByCategory)
            s.values.append(capex.value(category) / kMillion);
        series.append(s);
    }

    QStringList labels;
    QStringList notes;
    for (const EvaluatedDesign& p : points) {
        const core::Evaluation& e = p.evaluation;
        const double watts = e.networkPowerW > 0.0 ? e.networkPowerW : bomPowerW(e);
        double capex = 0.0;
        for (const core::BomItem& item : e.bom)
            capex += item.capexUsd();
        // In the unit that reads (a small design's "$59.8 k", not "0.0598 M USD").
        labels.append(QStringLiteral("%1\n%2").arg(formatUsd(capex), formatPower(watts)));
        QString note =
            QStringLiteral("network power %1 MW").arg(formatSignificant(watts / kMillion));
        if (e.gpus > 0)
            note += QStringLiteral(", %1 USD per GPU")
                        .arg(formatSignificant(capex / static_cast<double>(e.gpus), 4));
        notes.append(note);
    }
    setStacks(points, series, QStringLiteral("M USD"), labels, notes);
}

} // namespace archipelago::views
