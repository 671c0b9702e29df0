#include "comparisontable.h"

#include "comparisontablerows.h"
#include "plotstyle.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QMenu>
#include <QPainter>

#include <cmath>

namespace archipelago::views {

namespace {

// Translucent tints read on light and dark palettes alike.
const QColor kBetterTint(46, 160, 67, 70);
const QColor kWorseTint(218, 54, 51, 70);
const QColor kNeutralTint(210, 153, 34, 70);

QIcon swatch(const QColor& color)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setPen(color.darker(140));
    painter.setBrush(color.isValid() ? color : QColor(Qt::gray));
    painter.drawRect(0, 0, 11, 11);
    return QIcon(pixmap);
}

QString pointName(const DesignPoint& p, int column)
{
    return p.name.isEmpty() ? QStringLiteral("point %1").arg(column + 1) : p.name;
}

QString withUnit(const QString& text, const QString& unit)
{
    return unit.isEmpty() || text == QStringLiteral("—") ? text : text + QLatin1Char(' ') + unit;
}

} // namespace

ComparisonTable::ComparisonTable(QWidget* parent)
    : QTableWidget(parent)
{
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::ContiguousSelection);
    setWordWrap(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    horizontalHeader()->setToolTip(QStringLiteral("Right-click a column to use it as baseline"));
    connect(horizontalHeader(), &QWidget::customContextMenuRequested, this,
            &ComparisonTable::showHeaderMenu);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, &ComparisonTable::showCellMenu);
    rebuild();
}

void ComparisonTable::setDesignPoints(const QList<DesignPoint>& pinned, const DesignPoint& current)
{
    setDesignPoints(orderedDesignPoints(pinned, current));
}

void ComparisonTable::setDesignPoints(const QList<DesignPoint>& points)
{
    m_points = points;
    m_baseline = std::clamp(m_baseline, 0, std::max(0, static_cast<int>(m_points.size()) - 1));
    rebuild();
}

void ComparisonTable::setBaseline(int column)
{
    const int clamped = std::clamp(column, 0, std::max(0, static_cast<int>(m_points.size()) - 1));
    if (clamped == m_baseline)
        return;
    m_baseline = clamped;
    rebuild();
    emit baselineChanged(m_baseline);
}

bool ComparisonTable::isHighlighted(int row, int column) const
{
    const QTableWidgetItem* cell = item(row, column);
    return cell && cell->data(DiffersRole).toBool();
}

void ComparisonTable::rebuild()
{
    const QList<ComparisonRow>& rows = comparisonRows();
    clear();
    setRowCount(static_cast<int>(rows.size()));
    setColumnCount(static_cast<int>(m_points.size()));
    for (int r = 0; r < rowCount(); ++r) {
        auto* header = new QTableWidgetItem(rows[r].label);
        setVerticalHeaderItem(r, header);
    }
    for (int c = 0; c < columnCount(); ++c) {
        const DesignPoint& p = m_points[c];
        QString name = pointName(p, c);
        if (c == m_baseline && columnCount() > 1)
            name += QStringLiteral(" (baseline)");
        auto* header = new QTableWidgetItem(swatch(p.color), name);
        header->setToolTip(QString::fromStdString(p.scenario.description));
        setHorizontalHeaderItem(c, header);
        for (int r = 0; r < rowCount(); ++r)
            fillCell(r, c);
    }
    resizeColumnsToContents();
}

void ComparisonTable::fillCell(int row, int column)
{
    const ComparisonRow& def = comparisonRows()[row];
    const DesignPoint& point = m_points[column];
    const DesignPoint& base = m_points[m_baseline];
    const std::optional<double> value = def.value(point);
    const std::optional<double> baseValue = def.value(base);
    const QString text = value ? def.format(*value) : QStringLiteral("—");
    const QString baseText = baseValue ? def.format(*baseValue) : QStringLiteral("—");

    auto* cell = new QTableWidgetItem(text);
    cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    QString tip = QStringLiteral("%1 · %2: %3")
                      .arg(pointName(point, column), def.label, withUnit(text, def.unit));
    // Differences are what the reader sees: two values that print the same are not flagged.
    const bool differs = column != m_baseline && text != baseText;
    cell->setData(DiffersRole, differs);
    if (differs) {
        QString delta;
        QColor tint = kNeutralTint;
        if (value && baseValue) {
            const double change = *value - *baseValue;
            if (def.better != Better::Neutral)
                tint = (change < 0) == (def.better == Better::Lower) ? kBetterTint : kWorseTint;
            if (def.relativeDelta && *baseValue != 0.0) {
                const double relative = change / std::abs(*baseValue);
                cell->setData(RelativeDeltaRole, relative);
                delta = QStringLiteral("%1%2%").arg(relative >= 0 ? "+" : "",
                                                    formatSignificant(100.0 * relative, 3));
            } else if (def.relativeDelta) {
                delta = QStringLiteral("%1%2").arg(change >= 0 ? "+" : "", def.format(change));
            }
        }
        cell->setBackground(tint);
        if (!delta.isEmpty())
            cell->setText(QStringLiteral("%1 (%2)").arg(text, delta));
        tip += QStringLiteral("\nbaseline %1: %2%3")
                   .arg(pointName(base, m_baseline), withUnit(baseText, def.unit),
                        delta.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(delta));
    }
    cell->setToolTip(tip);
    setItem(row, column, cell);
}

QString ComparisonTable::toTsv() const
{
    QStringList lines;
    QStringList header{QStringLiteral("metric")};
    for (int c = 0; c < columnCount(); ++c)
        header.append(pointName(m_points[c], c));
    lines.append(header.join(QLatin1Char('\t')));
    const QList<ComparisonRow>& rows = comparisonRows();
    for (int r = 0; r < rowCount(); ++r) {
        QStringList line{rows[r].label};
        for (int c = 0; c < columnCount(); ++c) {
            const std::optional<double> v = rows[r].value(m_points[c]);
            line.append(v ? rows[r].format(*v) : QString());
        }
        lines.append(line.join(QLatin1Char('\t')));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void ComparisonTable::showHeaderMenu(const QPoint& pos)
{
    const int column = horizontalHeader()->logicalIndexAt(pos);
    if (column < 0)
        return;
    QMenu menu(this);
    QAction* use = menu.addAction(QStringLiteral("Use as baseline"), this,
                                  [this, column] { setBaseline(column); });
    use->setEnabled(column != m_baseline);
    menu.exec(horizontalHeader()->mapToGlobal(pos));
}

void ComparisonTable::showCellMenu(const QPoint& pos)
{
    QMenu menu(this);
    menu.addAction(QStringLiteral("Copy table"), this,
                   [this] { QApplication::clipboard()->setText(toTsv()); });
    menu.exec(viewport()->mapToGlobal(pos));
}

} // namespace archipelago::views
