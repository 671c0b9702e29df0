#include "tables/sweeptoptable.h"

#include "common/format.h"
#include "explore/sweepjson.h"

#include <QHeaderView>

#include <cmath>

namespace archipelago::views {

namespace {

constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kIndexRole = Qt::UserRole + 2;

// Sorts by the number in kSortRole (NaN last), not by the text.
class NumberItem : public QTableWidgetItem
{
public:
    NumberItem(const QString& text, double value)
        : QTableWidgetItem(text)
    {
        setData(kSortRole, value);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        const double a = data(kSortRole).toDouble();
        const double b = other.data(kSortRole).toDouble();
        if (std::isnan(a) || std::isnan(b))
            return !std::isnan(a) && std::isnan(b);
        return a < b;
    }
};

QString signedPercent(double fraction)
{
    if (!std::isfinite(fraction))
        return QStringLiteral("—");
    return (fraction > 0 ? QStringLiteral("+") : QString()) + formatPercent(fraction);
}

QString signedUsd(double usd)
{
    if (!std::isfinite(usd))
        return QStringLiteral("—");
    if (usd == 0.0)
        return QStringLiteral("±0");
    return (usd > 0 ? QStringLiteral("+") : QStringLiteral("−")) + formatUsd(std::abs(usd));
}

} // namespace

SweepTopTable::SweepTopTable(QWidget* parent)
    : QTableWidget(parent)
{
    setColumnCount(ColumnCount);
    setHorizontalHeaderLabels({tr("#"), tr("Iteration"), tr("Δ iter."), tr("Time to train"),
                               tr("With failures"), tr("Total cost"), tr("Run cost"),
                               tr("Network capex"), tr("Δ capex"), tr("Memory"), tr("MFU"),
                               tr("Configuration")});
    const QStringList tips{tr("Rank in this objective's list"),
                           tr("Iteration time"),
                           tr("Iteration time relative to the current design"),
                           tr("Time to train the workload's tokens"),
                           tr("Time to train once interruptions, checkpoints and restarts are "
                              "counted (docs/goodput.md)"),
                           tr("GPUs used at catalog price plus the network capex"),
                           tr("What the run with failures costs: the cluster's cost per hour "
                              "(hardware over its service life, colocation, energy) times the "
                              "time to train with failures (docs/goodput.md)"),
                           tr("Network capex of the point's topology variant"),
                           tr("Network capex minus the current design's"),
                           tr("Memory peak per GPU"),
                           tr("Model FLOPs utilisation"),
                           tr("The point's knobs (placement and topology knobs when not the "
                              "scenario's own)")};
    for (int c = 0; c < ColumnCount; ++c)
        horizontalHeaderItem(c)->setToolTip(tips[c]);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->setVisible(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(Configuration, QHeaderView::Interactive);
    horizontalHeader()->setStretchLastSection(true);
    setSortingEnabled(true);
    sortByColumn(Rank, Qt::AscendingOrder);
    connect(this, &QTableWidget::itemSelectionChanged, this, [this] {
        if (!m_filling && selectedPoint() >= 0)
            emit pointSelected(selectedPoint());
    });
}

void SweepTopTable::setPoints(const std::vector<core::SweepPoint>& points,
                              const std::optional<core::Evaluation>& current)
{
    m_filling = true;
    setSortingEnabled(false);
    clearContents();
    setRowCount(static_cast<int>(points.size()));
    const double nan = std::nan("");
    const bool hasCurrent = current && current->ok && current->iterationTimeS > 0.0;
    for (int row = 0; row < rowCount(); ++row) {
        const core::SweepPoint& p = points[static_cast<std::size_t>(row)];
        const core::Evaluation& e = p.evaluation;
        const double iterDelta =
            hasCurrent ? e.iterationTimeS / current->iterationTimeS - 1.0 : nan;
        const double capexDelta = hasCurrent ? p.networkCapexUsd - current->networkCapexUsd : nan;
        auto* rank = new NumberItem(QString::number(row + 1), row + 1);
        rank->setData(kIndexRole, row);
        setItem(row, Rank, rank);
        const QString description = QString::fromStdString(core::describeSweepPoint(p));
        auto* config = new QTableWidgetItem(description);
        config->setToolTip(tr("Point #%1: %2").arg(p.point.index).arg(description));
        setItem(row, Configuration, config);
        setItem(row, IterationTime,
                new NumberItem(formatSeconds(e.iterationTimeS), e.iterationTimeS));
        setItem(row, IterationDelta, new NumberItem(signedPercent(iterDelta), iterDelta));
        setItem(row, TimeToTrain, new NumberItem(formatTimeSpan(e.timeToTrainS), e.timeToTrainS));
        const double effectiveS = e.goodput.effectiveTimeToTrainS;
        setItem(row, EffectiveTimeToTrain,
                new NumberItem(std::isfinite(effectiveS) ? formatTimeSpan(effectiveS)
                                                         : QStringLiteral("—"),
                               effectiveS));
        setItem(row, TotalCost, new NumberItem(formatUsd(p.totalCostUsd), p.totalCostUsd));
        const double runUsd = e.runCost.effectiveRunCostUsd;
        setItem(row, RunCost,
                new NumberItem(std::isfinite(runUsd) && runUsd > 0.0 ? formatUsd(runUsd)
                                                                     : QStringLiteral("—"),
                               runUsd));
        setItem(row, NetworkCapex, new NumberItem(formatUsd(p.networkCapexUsd), p.networkCapexUsd));
        setItem(row, CapexDelta, new NumberItem(signedUsd(capexDelta), capexDelta));
        setItem(row, MemoryPeak, new NumberItem(formatGib(e.memoryPeakGib), e.memoryPeakGib));
        setItem(row, Mfu, new NumberItem(formatPercent(e.mfu), e.mfu));
        // Faster than the current design in green, slower in red.
        if (std::isfinite(iterDelta) && iterDelta != 0.0)
            item(row, IterationDelta)
                ->setForeground(iterDelta < 0 ? QColor(0x2c, 0xa0, 0x2c)
                                              : QColor(0xd6, 0x27, 0x28));
    }
    setSortingEnabled(true);
    sortByColumn(horizontalHeader()->sortIndicatorSection(),
                 horizontalHeader()->sortIndicatorOrder());
    m_filling = false;
}

int SweepTopTable::selectedPoint() const
{
    const QList<QTableWidgetItem*> items = selectedItems();
    for (QTableWidgetItem* i : items)
        if (i->column() == Rank)
            return i->data(kIndexRole).toInt();
    return -1;
}

void SweepTopTable::selectPoint(int index)
{
    m_filling = true;
    clearSelection();
    for (int row = 0; row < rowCount(); ++row)
        if (item(row, Rank) && item(row, Rank)->data(kIndexRole).toInt() == index)
            selectRow(row);
    m_filling = false;
}

} // namespace archipelago::views
