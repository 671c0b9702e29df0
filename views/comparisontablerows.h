// The metrics the comparison table shows, one row each: how to read the value from a design
// point, how to print it, its unit, and which direction is better (for the highlight colour).
#pragma once

#include "designpoint.h"

#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace archipelago::views {

enum class Better
{
    Neutral,
    Lower,
    Higher
};

struct ComparisonRow
{
    QString label; // "Iteration time (s)"
    QString unit;  // "s", for tooltips; empty for counts and names
    Better better = Better::Neutral;
    bool relativeDelta = true; // print "+12.3%" against the baseline (false: names, yes/no)
    // nullopt when the point has no such value (e.g. not evaluated).
    std::function<std::optional<double>(const DesignPoint&)> value;
    std::function<QString(double)> format;
};

const QList<ComparisonRow>& comparisonRows();

} // namespace archipelago::views
