// The metrics the comparison table shows, one row each: how to read the value from a design
// point, how to print it, its unit, and which direction is better (for the highlight colour).
// A row either reads a number (value + format) or a text (text), such as which dimension
// crosses the datacenter boundaries; both are compared as printed.
#pragma once

#include "common/evaluateddesign.h"

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
    QString label; // "Iteration time (s)": short, the table's header
    QString unit;  // "s", for tooltips; empty for counts and names
    Better better = Better::Neutral;
    bool relativeDelta = true; // print "+12.3%" against the baseline (false: names, yes/no)
    // nullopt when the point has no such value (e.g. not evaluated).
    std::function<std::optional<double>(const EvaluatedDesign&)> value;
    std::function<QString(double)> format;
    // What the row means, for the header's tooltip ("Pipeline idle time ÷ makespan ...").
    QString description = {};
    // A text row (value and format unset): the printed text, nullopt when absent.
    std::function<std::optional<QString>(const EvaluatedDesign&)> text = {};
    // More detail for a cell's tooltip (per DCI link, per boundary); may be unset.
    std::function<QString(const EvaluatedDesign&)> detail = {};

    // The cell text ("—" when absent) and whether the row has a number to compare.
    QString textFor(const EvaluatedDesign& point) const;
    std::optional<double> numberFor(const EvaluatedDesign& point) const;
};

const QList<ComparisonRow>& comparisonRows();

// Which parallel dimension crosses each datacenter boundary of the point's placement, one entry
// per pair of datacenters ("dc-a ↔ dc-b: PP"); empty when the job stays in one datacenter.
QStringList boundaryCrossings(const core::Scenario& scenario);

} // namespace archipelago::views
