// Comparison table: design points as columns, metrics as rows (comparisontablerows.h). Cells
// that differ from the baseline column are tinted (green better, red worse, amber for neutral
// differences such as a parallelism degree) and carry the change ("+12.3%").
#pragma once

#include "designpoint.h"

#include <QTableWidget>

namespace archipelago::views {

class ComparisonTable : public QTableWidget
{
    Q_OBJECT

public:
    // Item data roles for tests and delegates.
    enum Role
    {
        DiffersRole = Qt::UserRole + 1, // bool: the cell differs from the baseline column
        RelativeDeltaRole,              // double: (value - baseline) / |baseline|, when defined
    };

    explicit ComparisonTable(QWidget* parent = nullptr);

    // Pinned points first, then the current one, as columns.
    void setDesignPoints(const QList<DesignPoint>& pinned, const DesignPoint& current);
    void setDesignPoints(const QList<DesignPoint>& points);
    // The column the others are compared with (0 by default); clamped to the columns.
    void setBaseline(int column);
    int baseline() const { return m_baseline; }
    bool isHighlighted(int row, int column) const;
    // Rows and columns as tab-separated text, for spreadsheets.
    QString toTsv() const;

signals:
    void baselineChanged(int column);

private:
    void rebuild();
    void fillCell(int row, int column);
    void showHeaderMenu(const QPoint& pos);
    void showCellMenu(const QPoint& pos);

    QList<DesignPoint> m_points;
    int m_baseline = 0;
};

} // namespace archipelago::views
