#include "plotstyle.h"

#include <qcustomplot.h>

#include <QLocale>
#include <QPalette>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace archipelago::views {

namespace {

// Tableau 10 based: compute in blue/green, communication in warm colours, idle in grey. The
// timeline uses the same forward/backward colours (plotstyle is the single source).
const QList<BreakdownPart> kParts = {
    {QStringLiteral("Forward"), QColor(0x4e, 0x79, 0xa7), &core::Breakdown::forwardS},
    {QStringLiteral("Backward"), QColor(0x59, 0xa1, 0x4f), &core::Breakdown::backwardS},
    {QStringLiteral("Recompute"), QColor(0x8c, 0xd1, 0x7d), &core::Breakdown::recomputeS},
    {QStringLiteral("TP comm"), QColor(0xf2, 0x8e, 0x2b), &core::Breakdown::tpCommS},
    {QStringLiteral("CP comm"), QColor(0xff, 0xbe, 0x7d), &core::Breakdown::cpCommS},
    {QStringLiteral("EP comm"), QColor(0xb0, 0x7a, 0xa1), &core::Breakdown::epCommS},
    {QStringLiteral("PP comm"), QColor(0xe1, 0x57, 0x59), &core::Breakdown::ppCommS},
    {QStringLiteral("DP comm"), QColor(0xd3, 0x72, 0x95), &core::Breakdown::dpCommS},
    {QStringLiteral("Optimizer"), QColor(0x76, 0xb7, 0xb2), &core::Breakdown::optimizerS},
    {QStringLiteral("Bubble"), QColor(0xba, 0xb0, 0xac), &core::Breakdown::bubbleS},
    {QStringLiteral("Interference"), QColor(0x9c, 0x75, 0x5f), &core::Breakdown::interferenceS},
};

struct Category
{
    const char* key;
    const char* label;
    QColor color;
};

const Category kCategories[] = {
    {"switch", "Switches", QColor(0x4e, 0x79, 0xa7)},
    {"nic", "NICs", QColor(0xf2, 0x8e, 0x2b)},
    {"optic", "Optics", QColor(0x59, 0xa1, 0x4f)},
    {"cable", "Cables", QColor(0xba, 0xb0, 0xac)},
    {"dci-optic", "DCI optics", QColor(0xe1, 0x57, 0x59)},
    {"amplifier", "Amplifiers", QColor(0xb0, 0x7a, 0xa1)},
    {"line-system", "Line systems", QColor(0x9c, 0x75, 0x5f)},
};

const QColor kOtherColors[] = {QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48),
                               QColor(0xff, 0x9d, 0xa7), QColor(0xd3, 0x72, 0x95)};

const Category* findCategory(const QString& key)
{
    for (const Category& c : kCategories) {
        if (key == QLatin1String(c.key))
            return &c;
    }
    return nullptr;
}

const char* const kCategoriesProperty = "archipelagoCategories";
const char* const kKeySpanProperty = "archipelagoKeySpan";

// Greedy wrap at separators into lines no wider than `width`; the middle of a line that still
// does not fit is elided.
QString fitLabel(const QString& name, const QFontMetricsF& metrics, double width)
{
    width = std::max(width, 40.0); // a too-narrow plot still names its categories
    if (metrics.horizontalAdvance(name) <= width)
        return name;
    static const QRegularExpression separators(QStringLiteral("(?<=[-_ ])"));
    QStringList lines;
    QString line;
    for (const QString& part : name.split(separators, Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && metrics.horizontalAdvance(line + part) > width) {
            lines.append(line);
            line.clear();
        }
        line += part;
    }
    lines.append(line);
    if (lines.size() > 3) {
        lines = lines.mid(0, 3);
        lines.last() += QChar(0x2026);
    }
    for (QString& l : lines)
        l = metrics.elidedText(l, Qt::ElideMiddle, width);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

const QList<BreakdownPart>& breakdownParts()
{
    return kParts;
}

QStringList designPointNames(const QList<DesignPoint>& points)
{
    QStringList names;
    for (qsizetype i = 0; i < points.size(); ++i)
        names.append(points[i].name.isEmpty() ? QStringLiteral("point %1").arg(i + 1)
                                              : points[i].name);
    return names;
}

QStringList orderedBomCategories(const QStringList& categories)
{
    QStringList known;
    for (const Category& c : kCategories) {
        if (categories.contains(QLatin1String(c.key)))
            known.append(QLatin1String(c.key));
    }
    QStringList others;
    for (const QString& c : categories) {
        if (!findCategory(c) && !others.contains(c))
            others.append(c);
    }
    std::sort(others.begin(), others.end());
    return known + others;
}

QColor bomCategoryColor(const QString& category)
{
    if (const Category* c = findCategory(category))
        return c->color;
    const auto index = qHash(category) % std::size(kOtherColors);
    return kOtherColors[index];
}

QString bomCategoryLabel(const QString& category)
{
    if (const Category* c = findCategory(category))
        return QLatin1String(c->label);
    return category.isEmpty() ? QStringLiteral("Other") : category;
}

QString formatSignificant(double value, int significant)
{
    if (!std::isfinite(value))
        return QStringLiteral("—");
    if (value == 0.0)
        return QStringLiteral("0");
    const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(value))));
    const int decimals = std::max(0, significant - 1 - magnitude);
    return QLocale(QLocale::English, QLocale::UnitedStates).toString(value, 'f', decimals);
}

void setupPlotFrame(QCustomPlot* plot, const QString& title, const QString& valueAxisLabel,
                    int legendColumns)
{
    QFont titleFont = plot->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() + 1.0);
    auto* layout = plot->plotLayout();
    layout->insertRow(0);
    auto* titleElement = new QCPTextElement(plot, title, titleFont);
    titleElement->setObjectName(QStringLiteral("title"));
    layout->addElement(0, 0, titleElement);

    // The legend gets its own row below the axis rect so it never covers a bar.
    auto* legendRow = new QCPLayoutGrid;
    layout->addElement(2, 0, legendRow);
    legendRow->setMargins(QMargins(6, 0, 6, 4));
    plot->axisRect()->insetLayout()->take(plot->legend);
    legendRow->addElement(0, 0, plot->legend);
    layout->setRowStretchFactor(2, 0.001);
    plot->legend->setVisible(true);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->legend->setWrap(legendColumns);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setIconSize(14, 10);
    plot->legend->setRowSpacing(0);
    plot->legend->setColumnSpacing(10);
    QFont legendFont = plot->font();
    legendFont.setPointSizeF(legendFont.pointSizeF() - 1.0);
    plot->legend->setFont(legendFont);

    plot->yAxis->setLabel(valueAxisLabel);
    plot->yAxis->grid()->setSubGridVisible(false);
    plot->xAxis->grid()->setVisible(false);
    plot->xAxis->setTickLength(0, 0);
    plot->xAxis->setSubTicks(false);
    plot->xAxis->setTickLabelPadding(10);
}

void setDesignPointCategories(QCustomPlot* plot, const QList<DesignPoint>& points)
{
    const QStringList names = designPointNames(points);
    plot->setProperty(kCategoriesProperty, names);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < points.size(); ++i) {
        ticker->addTick(i, names[i]);

        // A swatch of the point's colour just below the axis, under its bar.
        auto* swatch = new QCPItemRect(plot);
        swatch->setClipToAxisRect(false);
        swatch->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
        swatch->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        swatch->topLeft->setCoords(i - 0.3, 1.0);
        swatch->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
        swatch->bottomRight->setTypeY(QCPItemPosition::ptAbsolute);
        swatch->bottomRight->setParentAnchorY(swatch->topLeft);
        swatch->bottomRight->setCoords(i + 0.3, 6.0);
        swatch->setPen(Qt::NoPen);
        swatch->setBrush(points[i].color.isValid() ? points[i].color : QColor(Qt::gray));
        swatch->setSelectable(false);
    }
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setRange(-0.6, static_cast<double>(points.size()) - 0.4);
    fitCategoryLabels(plot);
}

void fitCategoryLabels(QCustomPlot* plot)
{
    const QStringList names = plot->property(kCategoriesProperty).toStringList();
    const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(plot->xAxis->ticker());
    if (!ticker || names.isEmpty())
        return;
    // The viewport is current during a resize (the axis rect is laid out after this runs): the
    // axis rect is the viewport minus the value axis and margins, about 80 px.
    const double pixelsPerKey =
        std::max(1.0, plot->viewport().width() - 80.0) / plot->xAxis->range().size();
    const QFontMetricsF metrics(plot->xAxis->tickLabelFont());
    QVector<double> keys;
    QVector<QString> labels;
    for (qsizetype i = 0; i < names.size(); ++i) {
        keys.append(static_cast<double>(i));
        labels.append(fitLabel(names[i], metrics, 0.95 * pixelsPerKey - 6.0));
    }
    if (ticker->ticks().values() != QList<QString>(labels.begin(), labels.end()))
        ticker->setTicks(keys, labels);

    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* label = qobject_cast<QCPItemText*>(plot->item(i));
        const QVariant span = label ? label->property(kKeySpanProperty) : QVariant();
        if (!span.isValid())
            continue;
        const QFontMetricsF labelMetrics(label->font());
        double widest = 0.0;
        for (const QString& line : label->text().split(QLatin1Char('\n')))
            widest = std::max(widest, labelMetrics.horizontalAdvance(line));
        label->setVisible(widest <= span.toDouble() * pixelsPerKey);
    }
}

QCPItemText* addBarLabel(QCustomPlot* plot, double key, double value, const QString& text,
                         double keySpan)
{
    auto* label = new QCPItemText(plot);
    label->position->setType(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(key, value);
    label->setPositionAlignment(Qt::AlignBottom | Qt::AlignHCenter);
    label->setPadding(QMargins(0, 0, 0, 2));
    label->setText(text);
    QFont font = plot->font();
    font.setPointSizeF(font.pointSizeF() - 1.0);
    label->setFont(font);
    label->setColor(plot->xAxis->tickLabelColor());
    label->setSelectable(false);
    label->setProperty(kKeySpanProperty, keySpan);
    return label;
}

void applyPlotPalette(QCustomPlot* plot, const QPalette& palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    QColor grid = text;
    grid.setAlpha(50);
    plot->setBackground(palette.color(QPalette::Base));
    for (QCPAxis* axis : plot->axisRect()->axes()) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    plot->legend->setBrush(palette.color(QPalette::Base));
    plot->legend->setTextColor(text);
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
        if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
            title->setTextColor(text);
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        if (auto* label = qobject_cast<QCPItemText*>(plot->item(i)))
            label->setColor(text);
    }
}

} // namespace archipelago::views
