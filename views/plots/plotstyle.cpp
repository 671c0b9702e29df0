#include "plots/plotstyle.h"

#include <qcustomplot.h>

#include <QLocale>
#include <QPalette>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <numbers>

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
    {QStringLiteral("Pipeline idle"), QColor(0xba, 0xb0, 0xac), &core::Breakdown::bubbleS},
    {QStringLiteral("Interference"), QColor(0x9c, 0x75, 0x5f), &core::Breakdown::interferenceS},
    {QStringLiteral("Variability"), QColor(0xed, 0xc9, 0x48), &core::Breakdown::variabilityS},
    {QStringLiteral("Per-iteration overhead"), QColor(0xff, 0x9d, 0xa7),
     &core::Breakdown::overheadS},
};

// Useful work in the compute blue, the extra steps of loosely coupled training in purple;
// what failures cost in warm colours, lost work in the red of waste. Free for a later part:
// yellow (0xed, 0xc9, 0x48).
const QList<GoodputPart> kGoodputParts = {
    {QStringLiteral("Useful work"), QColor(0x4e, 0x79, 0xa7), &core::Goodput::usefulS},
    {QStringLiteral("Convergence"), QColor(0xb0, 0x7a, 0xa1), &core::Goodput::convergenceS},
    {QStringLiteral("Degraded"), QColor(0xed, 0xc9, 0x48), &core::Goodput::degradedS},
    {QStringLiteral("Checkpoints"), QColor(0x76, 0xb7, 0xb2), &core::Goodput::checkpointS},
    {QStringLiteral("Restarts"), QColor(0xf2, 0x8e, 0x2b), &core::Goodput::restartTotalS},
    {QStringLiteral("Lost work"), QColor(0xe1, 0x57, 0x59), &core::Goodput::lostWorkS},
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
const char* const kBarValueProperty = "archipelagoBarValue";
const char* const kOomProperty = "archipelagoOutOfMemory";
const char* const kBaseTopProperty = "archipelagoBaseTop";
const char* const kLegendColumnsProperty = "archipelagoLegendColumns";
const char* const kExtendedTopProperty = "archipelagoExtendedTop";
const char* const kFittedAxisHeightProperty = "archipelagoFittedAxisHeight";
const char* const kBaseMarginsProperty = "archipelagoBaseMargins"; // the axis rect's own
// Red that reads on light and dark backgrounds (the status bar's out-of-memory colour).
const QColor kOomColor(0xe5, 0x39, 0x35);
// Wrapped labels take at most this many lines; past it they are rotated instead.
constexpr int kMaxLabelLines = 2;
constexpr double kRotatedLabelWidth = 150.0; // px, before eliding a rotated label

// Greedy wrap at separators into at most kMaxLabelLines lines no wider than `width`; empty
// when the name does not fit that way (the caller then rotates the labels).
QString wrapLabel(const QString& name, const QFontMetricsF& metrics, double width)
{
    if (metrics.horizontalAdvance(name) <= width)
        return name;
    static const QRegularExpression separators(QStringLiteral("(?<=[-_ ,])"));
    QStringList lines;
    QString line;
    for (const QString& part : name.split(separators, Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && metrics.horizontalAdvance(line + part) > width) {
            lines.append(line.trimmed());
            line.clear();
        }
        line += part;
    }
    lines.append(line.trimmed());
    if (lines.size() > kMaxLabelLines)
        return {};
    for (const QString& l : lines)
        if (metrics.horizontalAdvance(l) > width)
            return {};
    return lines.join(QLatin1Char('\n'));
}

} // namespace

const QList<BreakdownPart>& breakdownParts()
{
    return kParts;
}

const QList<GoodputPart>& goodputParts()
{
    return kGoodputParts;
}

QStringList designPointNames(const QList<EvaluatedDesign>& points)
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
    plot->setProperty(kLegendColumnsProperty, legendColumns);
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

void setDesignPointCategories(QCustomPlot* plot, const QList<EvaluatedDesign>& points)
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

// Fewer legend columns in a narrow plot, so that no entry is cut at the right edge.
void fitLegendColumns(QCustomPlot* plot)
{
    const int preferred = plot->property(kLegendColumnsProperty).toInt();
    if (preferred <= 1 || plot->legend->itemCount() == 0)
        return;
    const QFontMetricsF metrics(plot->legend->font());
    double widest = 0.0;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
            widest = std::max(widest, metrics.horizontalAdvance(item->plottable()->name()));
    const double entry = widest + 14.0 + 10.0 + 12.0; // icon, padding, column spacing
    const int fit = static_cast<int>((plot->viewport().width() - 12.0) / entry);
    const int columns = std::clamp(fit, 1, preferred);
    if (plot->legend->wrap() != columns) {
        plot->legend->setWrap(columns);
        plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

void fitCategoryLabels(QCustomPlot* plot)
{
    fitLegendColumns(plot);
    const QStringList names = plot->property(kCategoriesProperty).toStringList();
    const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(plot->xAxis->ticker());
    if (!ticker || names.isEmpty())
        return;
    // The viewport is current during a resize (the axis rect is laid out after this runs): the
    // axis rect is the viewport minus the value axis and margins, about 80 px.
    const double pixelsPerKey =
        std::max(1.0, plot->viewport().width() - 80.0) / plot->xAxis->range().size();
    const QFontMetricsF metrics(plot->xAxis->tickLabelFont());
    const double width = std::max(30.0, 0.95 * pixelsPerKey - 6.0);
    // Every label wrapped on at most two lines, or all of them rotated: one layout per axis
    // reads better than a mix. A rotated label is elided only past kRotatedLabelWidth, in the
    // middle (names that share a prefix differ at the end: "TP8 PP16 … v2 mb1"); the full name
    // is in the tick label's tooltip (categoryToolTipAt).
    QVector<QString> labels;
    bool rotate = false;
    for (const QString& name : names) {
        const QString wrapped = wrapLabel(name, metrics, width);
        rotate = rotate || wrapped.isEmpty();
        labels.append(wrapped);
    }
    if (rotate)
        for (qsizetype i = 0; i < names.size(); ++i)
            labels[i] = metrics.elidedText(names[i], Qt::ElideMiddle, kRotatedLabelWidth);
    QVector<double> keys;
    for (qsizetype i = 0; i < names.size(); ++i)
        keys.append(static_cast<double>(i));
    if (ticker->ticks().values() != QList<QString>(labels.begin(), labels.end()))
        ticker->setTicks(keys, labels);
    const double rotation = rotate ? -35.0 : 0.0;
    if (plot->xAxis->tickLabelRotation() != rotation)
        plot->xAxis->setTickLabelRotation(rotation);
    // QCustomPlot does not draw a tick label that would cross the widget's edge. A rotated
    // label runs down and to the left of its tick, so the first one needs room left of the
    // axis rect: its horizontal extent less its tick's offset into the rect.
    QCPAxisRect* rect = plot->axisRect();
    const QVariant base = rect->property(kBaseMarginsProperty);
    if (!base.isValid())
        rect->setProperty(kBaseMarginsProperty, QVariant::fromValue(rect->minimumMargins()));
    QMargins margins = rect->property(kBaseMarginsProperty).value<QMargins>();
    if (rotate) {
        const double radians = -rotation * std::numbers::pi / 180.0;
        const double extent = metrics.horizontalAdvance(labels.front()) * std::cos(radians) +
                              metrics.height() * std::sin(radians);
        const double tickOffset = (0.0 - plot->xAxis->range().lower) * pixelsPerKey;
        margins.setLeft(
            std::max(margins.left(), static_cast<int>(std::ceil(extent - tickOffset + 4.0))));
    }
    if (rect->minimumMargins() != margins)
        rect->setMinimumMargins(margins);

    // Value labels: horizontal when they fit over their bar, else turned upright (reading
    // upwards from the bar's top) with the value axis extended to hold them. Never hidden.
    // The extension is recomputed from the range the plot set (kBaseTopProperty) on every
    // replot, so a resize can shrink it again.
    QCPRange range = plot->yAxis->range();
    const QVariant extended = plot->property(kExtendedTopProperty);
    if (extended.isValid() && range.upper == extended.toDouble())
        range.upper = plot->property(kBaseTopProperty).toDouble();
    plot->setProperty(kBaseTopProperty, range.upper);
    // Before the first layout the axis rect has no size: estimate it from the viewport (title,
    // tick labels and legend take about 120 px).
    const int laidOut = plot->axisRect()->height();
    plot->setProperty(kFittedAxisHeightProperty, laidOut);
    const double axisHeight =
        std::max(60.0, laidOut > 10 ? laidOut : plot->viewport().height() - 120.0);
    double neededTop = range.upper;
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* label = qobject_cast<QCPItemText*>(plot->item(i));
        const QVariant span = label ? label->property(kKeySpanProperty) : QVariant();
        if (!span.isValid())
            continue;
        const QFontMetricsF labelMetrics(label->font());
        double widest = 0.0;
        const QStringList lines = label->text().split(QLatin1Char('\n'));
        for (const QString& line : lines)
            widest = std::max(widest, labelMetrics.horizontalAdvance(line));
        const bool upright = widest > span.toDouble() * pixelsPerKey;
        label->setRotation(upright ? -90.0 : 0.0);
        label->setPositionAlignment(upright ? Qt::AlignLeft | Qt::AlignVCenter
                                            : Qt::AlignBottom | Qt::AlignHCenter);
        label->setPadding(upright ? QMargins(3, 0, 0, 0) : QMargins(0, 0, 0, 2));
        const double height = upright
                                  ? widest + 6.0
                                  : static_cast<double>(lines.size()) * labelMetrics.height() + 4.0;
        const double value = label->property(kBarValueProperty).toDouble();
        // value + the label's height in plot units, plus room for the "OOM" marks on top: the
        // label takes `height` px of an axis whose top px are the remaining fraction.
        const double fraction = std::min(0.7, (height + 18.0) / axisHeight);
        if (range.size() > 0.0)
            neededTop = std::max(neededTop, range.lower + (value - range.lower) / (1.0 - fraction));
    }
    plot->setProperty(kExtendedTopProperty, neededTop);
    if (neededTop != plot->yAxis->range().upper)
        plot->yAxis->setRangeUpper(neededTop);
}

bool categoryLabelsNeedRefit(const QCustomPlot* plot)
{
    const QVariant fitted = plot->property(kFittedAxisHeightProperty);
    return fitted.isValid() && std::abs(fitted.toInt() - plot->axisRect()->height()) > 1;
}

void fitCategoryLabelsTo(QCustomPlot* plot, QSize size)
{
    plot->setViewport(QRect(QPoint(0, 0), size));
    // What QCustomPlot::updateLayout does before it draws; three passes at most (the second
    // normally settles it).
    for (int pass = 0; pass < 3; ++pass) {
        fitCategoryLabels(plot);
        for (const auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                                 QCPLayoutElement::upLayout})
            plot->plotLayout()->update(phase);
        if (!categoryLabelsNeedRefit(plot))
            break;
    }
}

QString categoryToolTipAt(const QCustomPlot* plot, const QPoint& pixel)
{
    const QStringList names = plot->property(kCategoriesProperty).toStringList();
    const QRect rect = plot->axisRect()->rect();
    if (names.isEmpty() || pixel.y() <= rect.bottom() || pixel.x() < rect.left() - 40 ||
        pixel.x() > rect.right() + 40)
        return {};
    const double key = plot->xAxis->pixelToCoord(pixel.x());
    // Rotated labels run down and to the left of their tick: the nearest tick to the right.
    const double shifted =
        plot->xAxis->tickLabelRotation() != 0.0
            ? plot->xAxis->pixelToCoord(pixel.x() + 0.8 * (pixel.y() - rect.bottom()))
            : key;
    const auto i = static_cast<qsizetype>(std::lround(shifted));
    if (i < 0 || i >= names.size())
        return {};
    return names[i];
}

bool isOutOfMemory(const EvaluatedDesign& point)
{
    return point.evaluation.ok && !point.evaluation.fitsInMemory;
}

void markOutOfMemory(QCustomPlot* plot, const QList<EvaluatedDesign>& points,
                     const QList<double>& tops, double barWidth)
{
    bool any = false;
    for (qsizetype i = 0; i < points.size() && i < tops.size(); ++i) {
        if (!isOutOfMemory(points[i]))
            continue;
        any = true;
        const double key = static_cast<double>(i);
        // Washed out (the plot background at 60 %) and hatched: the bars stay readable
        // underneath, but nobody takes the point for a valid one.
        for (int layer = 0; layer < 2; ++layer) {
            auto* rect = new QCPItemRect(plot);
            rect->topLeft->setCoords(key - barWidth / 2, std::max(tops[i], 0.0));
            rect->bottomRight->setCoords(key + barWidth / 2, 0.0);
            rect->setSelectable(false);
            rect->setProperty(kOomProperty, layer);
            if (layer == 0) {
                QColor wash = plot->palette().color(QPalette::Base);
                wash.setAlpha(150);
                rect->setPen(Qt::NoPen);
                rect->setBrush(wash);
            } else {
                rect->setPen(QPen(kOomColor, 1.5, Qt::DashLine));
                rect->setBrush(QBrush(kOomColor, Qt::BDiagPattern));
            }
        }
        auto* label = new QCPItemText(plot);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(key, 0.0);
        label->setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
        label->setText(QStringLiteral("OOM"));
        QFont font = plot->font();
        font.setBold(true);
        label->setFont(font);
        label->setColor(kOomColor);
        label->setSelectable(false);
        label->setProperty(kOomProperty, 2);
        label->setLayer(QStringLiteral("axes"));
    }
    if (any) {
        // A legend entry only: an empty bar series with the overlay's look.
        auto* legendOnly = new QCPBars(plot->xAxis, plot->yAxis);
        legendOnly->setName(QStringLiteral("Out of memory"));
        legendOnly->setPen(QPen(kOomColor, 1.5, Qt::DashLine));
        legendOnly->setBrush(QBrush(kOomColor, Qt::BDiagPattern));
        legendOnly->setSelectable(QCP::stNone);
        legendOnly->setProperty(kOomProperty, 3);
    }
}

int outOfMemoryMarks(const QCustomPlot* plot)
{
    int marks = 0;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (qobject_cast<QCPItemRect*>(plot->item(i)) &&
            plot->item(i)->property(kOomProperty).toInt() == 1)
            ++marks;
    return marks;
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
    label->setProperty(kBarValueProperty, value);
    label->setLayer(QStringLiteral("axes")); // above the bars and any out-of-memory overlay
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
    QColor wash = palette.color(QPalette::Base);
    wash.setAlpha(150);
    for (int i = 0; i < plot->itemCount(); ++i) {
        QCPAbstractItem* item = plot->item(i);
        const QVariant oom = item->property(kOomProperty);
        if (auto* label = qobject_cast<QCPItemText*>(item); label && !oom.isValid())
            label->setColor(text);
        else if (auto* rect = qobject_cast<QCPItemRect*>(item);
                 rect && oom.isValid() && oom.toInt() == 0)
            rect->setBrush(wash); // the swatches of the design points keep their colours
    }
}

} // namespace archipelago::views
