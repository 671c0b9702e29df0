// The Explore panel's top list: the best points of a sweep by one objective (the sweep keeps a
// top list per objective, core::SweepResult::topBy), each with its configuration and figures
// and its difference from the current design (Δ iteration time in %, Δ network capex, ...).
// Sortable by any column (numerically); selecting a row emits pointSelected with the point's
// position in the list given to setPoints.
#pragma once

#include "explore/sweep.h"
#include "model/evaluation.h"

#include <QTableWidget>

#include <optional>
#include <vector>

namespace archipelago::views {

class SweepTopTable : public QTableWidget
{
    Q_OBJECT

public:
    enum Column
    {
        Rank,
        IterationTime,
        IterationDelta,
        TimeToTrain,
        EffectiveTimeToTrain,
        TotalCost,
        RunCost,
        NetworkCapex,
        CapexDelta,
        MemoryPeak,
        Mfu,
        Configuration, // last: the figures stay in view, the long text takes what is left
        ColumnCount
    };

    explicit SweepTopTable(QWidget* parent = nullptr);

    // `points` in rank order; `current` (the current design's evaluation, when there is one)
    // is what the Δ columns compare with.
    void setPoints(const std::vector<core::SweepPoint>& points,
                   const std::optional<core::Evaluation>& current);
    // The list position of the selected row, or -1.
    int selectedPoint() const;
    // Selects the row of list position `index` (-1: none) without emitting pointSelected.
    void selectPoint(int index);

signals:
    void pointSelected(int index);

private:
    bool m_filling = false;
};

} // namespace archipelago::views
