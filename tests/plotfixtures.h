// Helpers shared by the plot tests: what a stacked bar plot draws for one design point.
#pragma once

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace archipelago::tests {

// Sum of all QCPBars values at `key`: what the stacked bars show for one design point.
inline double stackedValueAt(QCustomPlot* plot, double key)
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

// Equal to a relative 1e-9 (absolute below 1).
inline bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

} // namespace archipelago::tests
