// Comparison table: design points against metrics (comparisontablerows.h), pins as columns
// and metrics as rows by default, or transposed (pins as rows). Cells that differ from the
// baseline point are tinted (green better, red worse, amber for neutral differences such as a
// parallelism degree) and carry the change ("+12%"); the baseline is any point, named in its
// header. Columns are compact: short headers, elided names, full text in tooltips.
#pragma once

#include "common/evaluateddesign.h"

#include <QTableWidget>

namespace archipelago::views {

class ComparisonTable : public QTableWidget
{
    Q_OBJECT

public:
    // Item data roles for tests and delegates.
    enum Role
    {
        DiffersRole = Qt::UserRole + 1, // bool: the cell differs from the baseline point
        RelativeDeltaRole,              // double: (value - baseline) / |baseline|, when defined
    };

    explicit ComparisonTable(QWidget* parent = nullptr);

    // Pinned points first, then the current one, which is the baseline until one is chosen
    // (the report compares with the current design too).
    void setDesignPoints(const QList<EvaluatedDesign>& pinned, const EvaluatedDesign& current);
    // The baseline is the first point until one is chosen.
    void setDesignPoints(const QList<EvaluatedDesign>& points);
    int pointCount() const { return static_cast<int>(m_points.size()); }
    // The point the others are compared with; clamped to the points. Once chosen here, it
    // follows its point (by name) when pins are added or removed.
    void setBaseline(int point);
    int baseline() const { return m_baseline; }
    // false: pins as columns, metrics as rows (default); true: pins as rows.
    void setTransposed(bool transposed);
    bool isTransposed() const { return m_transposed; }
    // The cell of metric `metric` (index into comparisonRows()) for point `point`.
    QTableWidgetItem* cell(int metric, int point) const;
    int metricIndex(const QString& label) const; // -1 when no row has that label
    // The table cell (row, column) differs from the baseline.
    bool isHighlighted(int row, int column) const;
    // Metrics as rows and points as columns, tab-separated, for spreadsheets (either layout).
    QString toTsv() const;

signals:
    void baselineChanged(int point);
    void transposedChanged(bool transposed);

private:
    void setPoints(const QList<EvaluatedDesign>& points, int defaultBaseline);
    void rebuild();
    QTableWidgetItem* makeCell(int metric, int point) const;
    QTableWidgetItem* pointHeader(int point) const;
    QTableWidgetItem* metricHeader(int metric) const;
    void showHeaderMenu(const QPoint& pos, Qt::Orientation orientation);
    void showCellMenu(const QPoint& pos);
    void addLayoutActions(QMenu* menu);
    int pointAtHeader(Qt::Orientation orientation, int section) const;

    QList<EvaluatedDesign> m_points;
    int m_baseline = 0;
    bool m_baselineChosen = false; // by setBaseline: then it follows its point by name
    bool m_transposed = false;
};

} // namespace archipelago::views
