#include "tables/comparisontable.h"

#include "common/textwrap.h"
#include "plots/plotstyle.h"
#include "tables/comparisontablerows.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QMenu>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace archipelago::views {

namespace {

// Translucent tints read on light and dark palettes alike.
const QColor kBetterTint(46, 160, 67, 70);
const QColor kWorseTint(218, 54, 51, 70);
const QColor kNeutralTint(210, 153, 34, 70);

// Compact columns: a point's name is elided past this width (its tooltip has all of it), and
// no column grows past kMaxColumnWidth however long a cell is.
constexpr int kMaxNameWidth = 90;
constexpr int kMaxColumnWidth = 130;

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

QString pointName(const EvaluatedDesign& p, int index)
{
    return p.name.isEmpty() ? QStringLiteral("point %1").arg(index + 1) : p.name;
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
    setTextElideMode(Qt::ElideMiddle);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setMinimumSectionSize(36);
    for (QHeaderView* header : {horizontalHeader(), verticalHeader()}) {
        header->setContextMenuPolicy(Qt::CustomContextMenu);
        header->setSectionsClickable(true);
    }
    connect(horizontalHeader(), &QWidget::customContextMenuRequested, this,
            [this](const QPoint& pos) { showHeaderMenu(pos, Qt::Horizontal); });
    connect(verticalHeader(), &QWidget::customContextMenuRequested, this,
            [this](const QPoint& pos) { showHeaderMenu(pos, Qt::Vertical); });
    // Double-click a point's header: compare the others with it.
    connect(horizontalHeader(), &QHeaderView::sectionDoubleClicked, this, [this](int section) {
        if (const int p = pointAtHeader(Qt::Horizontal, section); p >= 0)
            setBaseline(p);
    });
    connect(verticalHeader(), &QHeaderView::sectionDoubleClicked, this, [this](int section) {
        if (const int p = pointAtHeader(Qt::Vertical, section); p >= 0)
            setBaseline(p);
    });
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, &ComparisonTable::showCellMenu);
    rebuild();
}

void ComparisonTable::setDesignPoints(const QList<EvaluatedDesign>& pinned,
                                      const EvaluatedDesign& current)
{
    setPoints(orderedDesignPoints(pinned, current), static_cast<int>(pinned.size()));
}

void ComparisonTable::setDesignPoints(const QList<EvaluatedDesign>& points)
{
    setPoints(points, 0);
}

void ComparisonTable::setPoints(const QList<EvaluatedDesign>& points, int defaultBaseline)
{
    // The baseline follows its point when pins are added or removed before it.
    const QString baselineName =
        m_baselineChosen && m_baseline < m_points.size() ? m_points[m_baseline].name : QString();
    m_points = points;
    if (!m_baselineChosen)
        m_baseline = defaultBaseline;
    if (!baselineName.isEmpty()) {
        const auto same =
            std::find_if(m_points.begin(), m_points.end(),
                         [&](const EvaluatedDesign& p) { return p.name == baselineName; });
        // A chosen baseline that went away (its pin deleted) gives way to the default.
        m_baselineChosen = same != m_points.end();
        m_baseline = m_baselineChosen ? static_cast<int>(same - m_points.begin()) : defaultBaseline;
    }
    m_baseline = std::clamp(m_baseline, 0, std::max(0, static_cast<int>(m_points.size()) - 1));
    rebuild();
}

void ComparisonTable::setBaseline(int point)
{
    const int clamped = std::clamp(point, 0, std::max(0, static_cast<int>(m_points.size()) - 1));
    m_baselineChosen = true;
    if (clamped == m_baseline)
        return;
    m_baseline = clamped;
    rebuild();
    emit baselineChanged(m_baseline);
}

void ComparisonTable::setTransposed(bool transposed)
{
    if (transposed == m_transposed)
        return;
    m_transposed = transposed;
    rebuild();
    emit transposedChanged(m_transposed);
}

QTableWidgetItem* ComparisonTable::cell(int metric, int point) const
{
    return m_transposed ? item(point, metric) : item(metric, point);
}

int ComparisonTable::metricIndex(const QString& label) const
{
    const QList<ComparisonRow>& rows = comparisonRows();
    for (int r = 0; r < rows.size(); ++r)
        if (rows[r].label == label)
            return r;
    return -1;
}

bool ComparisonTable::isHighlighted(int row, int column) const
{
    const QTableWidgetItem* c = item(row, column);
    return c && c->data(DiffersRole).toBool();
}

int ComparisonTable::pointAtHeader(Qt::Orientation orientation, int section) const
{
    const bool pointsHere = (orientation == Qt::Horizontal) != m_transposed;
    return pointsHere && section >= 0 && section < m_points.size() ? section : -1;
}

QTableWidgetItem* ComparisonTable::pointHeader(int point) const
{
    const EvaluatedDesign& p = m_points[point];
    const QString full = pointName(p, point);
    const bool isBaseline = point == m_baseline && m_points.size() > 1;
    // Pins as columns: two short lines keep the columns narrow; as rows, one line (the rows
    // are one line high and the header column may be wider).
    QString shown =
        m_transposed
            ? fontMetrics().elidedText(full, Qt::ElideMiddle, 2 * kMaxNameWidth)
            : twoLines(full, fontMetrics(), kMaxNameWidth, Qt::ElideMiddle).join(QLatin1Char('\n'));
    if (isBaseline)
        shown = QStringLiteral("◆ ") + shown; // ◆ marks the baseline (tooltip and legend say so)
    auto* header = new QTableWidgetItem(swatch(p.color), shown);
    QString tip = full;
    if (!p.scenario.description.empty())
        tip += QLatin1Char('\n') + QString::fromStdString(p.scenario.description);
    tip += isBaseline ? QStringLiteral("\n◆ Baseline: the other points are compared with this one.")
                      : QStringLiteral("\nDouble-click (or right-click) to compare the others "
                                       "with this point.");
    header->setToolTip(tip);
    if (isBaseline) {
        QFont bold = font();
        bold.setBold(true);
        header->setFont(bold);
    }
    return header;
}

QTableWidgetItem* ComparisonTable::metricHeader(int metric) const
{
    const ComparisonRow& def = comparisonRows()[metric];
    auto* header = new QTableWidgetItem(def.label);
    header->setToolTip(
        def.description.isEmpty() ? def.label : def.label + QStringLiteral(": ") + def.description);
    return header;
}

void ComparisonTable::rebuild()
{
    const int metrics = static_cast<int>(comparisonRows().size());
    const int points = static_cast<int>(m_points.size());
    clear();
    setRowCount(m_transposed ? points : metrics);
    setColumnCount(m_transposed ? metrics : points);
    for (int m = 0; m < metrics; ++m) {
        if (m_transposed)
            setHorizontalHeaderItem(m, metricHeader(m));
        else
            setVerticalHeaderItem(m, metricHeader(m));
    }
    for (int p = 0; p < points; ++p) {
        if (m_transposed)
            setVerticalHeaderItem(p, pointHeader(p));
        else
            setHorizontalHeaderItem(p, pointHeader(p));
        for (int m = 0; m < metrics; ++m) {
            if (m_transposed)
                setItem(p, m, makeCell(m, p));
            else
                setItem(m, p, makeCell(m, p));
        }
    }
    horizontalHeader()->setToolTip(
        m_transposed ? QString()
                     : QStringLiteral("Double-click a point to use it as baseline; right-click "
                                      "for the layout"));
    // Two-line point names (pins as columns) need a header two lines high.
    bool twoLineNames = false;
    for (int c = 0; c < columnCount(); ++c)
        if (const QTableWidgetItem* h = horizontalHeaderItem(c); h && h->text().contains('\n'))
            twoLineNames = true;
    horizontalHeader()->setMinimumHeight(twoLineNames ? 2 * fontMetrics().height() + 10
                                                      : fontMetrics().height() + 8);
    resizeColumnsToContents();
    // With one or two points there is room for every text; past that, columns stay compact.
    for (int c = 0; c < columnCount() && pointCount() > 2; ++c)
        if (columnWidth(c) > kMaxColumnWidth)
            setColumnWidth(c, kMaxColumnWidth);
}

QTableWidgetItem* ComparisonTable::makeCell(int metric, int point) const
{
    const ComparisonRow& def = comparisonRows()[metric];
    const EvaluatedDesign& p = m_points[point];
    const EvaluatedDesign& base = m_points[m_baseline];
    const QString text = def.textFor(p);
    const QString baseText = def.textFor(base);
    const std::optional<double> value = def.numberFor(p);
    const std::optional<double> baseValue = def.numberFor(base);

    auto* c = new QTableWidgetItem(text);
    c->setTextAlignment((def.text ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    QString tip =
        QStringLiteral("%1 · %2: %3").arg(pointName(p, point), def.label, withUnit(text, def.unit));
    if (def.detail) {
        const QString detail = def.detail(p);
        if (!detail.isEmpty())
            tip += QLatin1Char('\n') + detail;
    }
    // Differences are what the reader sees: two values that print the same are not flagged.
    const bool differs = point != m_baseline && text != baseText;
    c->setData(DiffersRole, differs);
    if (differs) {
        QString delta;
        QColor tint = kNeutralTint;
        if (value && baseValue) {
            const double change = *value - *baseValue;
            if (def.better != Better::Neutral)
                tint = (change < 0) == (def.better == Better::Lower) ? kBetterTint : kWorseTint;
            if (def.relativeDelta && *baseValue != 0.0) {
                const double relative = change / std::abs(*baseValue);
                c->setData(RelativeDeltaRole, relative);
                delta = QStringLiteral("%1%2%").arg(relative >= 0 ? "+" : "",
                                                    formatSignificant(100.0 * relative, 2));
            } else if (def.relativeDelta) {
                delta = QStringLiteral("%1%2").arg(change >= 0 ? "+" : "", def.format(change));
            }
        }
        c->setBackground(tint);
        if (!delta.isEmpty())
            c->setText(QStringLiteral("%1 %2").arg(text, delta));
        tip += QStringLiteral("\nbaseline %1: %2%3")
                   .arg(pointName(base, m_baseline), withUnit(baseText, def.unit),
                        delta.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(delta));
    }
    c->setToolTip(tip);
    return c;
}

QString ComparisonTable::toTsv() const
{
    QStringList lines;
    QStringList header{QStringLiteral("metric")};
    for (int p = 0; p < m_points.size(); ++p)
        header.append(pointName(m_points[p], p));
    lines.append(header.join(QLatin1Char('\t')));
    for (const ComparisonRow& row : comparisonRows()) {
        QStringList line{row.label};
        for (const EvaluatedDesign& p : m_points) {
            const QString text = row.textFor(p);
            line.append(text == QStringLiteral("—") ? QString() : text);
        }
        lines.append(line.join(QLatin1Char('\t')));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void ComparisonTable::addLayoutActions(QMenu* menu)
{
    QAction* transpose = menu->addAction(QStringLiteral("Pins as rows"), this,
                                         [this](bool on) { setTransposed(on); });
    transpose->setCheckable(true);
    transpose->setChecked(m_transposed);
    QMenu* baseline = menu->addMenu(QStringLiteral("Baseline"));
    for (int p = 0; p < m_points.size(); ++p) {
        QAction* a = baseline->addAction(swatch(m_points[p].color), pointName(m_points[p], p), this,
                                         [this, p] { setBaseline(p); });
        a->setCheckable(true);
        a->setChecked(p == m_baseline);
    }
    baseline->setEnabled(m_points.size() > 1);
}

void ComparisonTable::showHeaderMenu(const QPoint& pos, Qt::Orientation orientation)
{
    QHeaderView* header = orientation == Qt::Horizontal ? horizontalHeader() : verticalHeader();
    const int point = pointAtHeader(orientation, header->logicalIndexAt(pos));
    QMenu menu(this);
    if (point >= 0) {
        QAction* use = menu.addAction(QStringLiteral("Use as baseline"), this,
                                      [this, point] { setBaseline(point); });
        use->setEnabled(point != m_baseline);
        menu.addSeparator();
    }
    addLayoutActions(&menu);
    menu.exec(header->mapToGlobal(pos));
}

void ComparisonTable::showCellMenu(const QPoint& pos)
{
    QMenu menu(this);
    menu.addAction(QStringLiteral("Copy table"), this,
                   [this] { QApplication::clipboard()->setText(toTsv()); });
    menu.addSeparator();
    addLayoutActions(&menu);
    menu.exec(viewport()->mapToGlobal(pos));
}

} // namespace archipelago::views
