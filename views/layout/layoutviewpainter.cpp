#include "layout/layoutviewpainter.h"

#include "common/colors.h"
#include "common/format.h"
#include "model/dcilink.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace archipelago::views {

namespace {

QColor muted(const QPalette& pal, double t)
{
    return mixColors(pal.color(QPalette::Base), pal.color(QPalette::Text), t);
}

void drawArrowHead(QPainter& p, const QPointF& tip, const QPointF& from, qreal size)
{
    const QLineF line(from, tip);
    if (line.length() <= 0)
        return;
    const QPointF u = (tip - from) / line.length();
    const QPointF n(-u.y(), u.x());
    QPainterPath head(tip);
    head.lineTo(tip - u * size + n * size * 0.5);
    head.lineTo(tip - u * size - n * size * 0.5);
    head.closeSubpath();
    p.drawPath(head);
}

} // namespace

LayoutViewPainter::LayoutViewPainter(const core::Scenario& scenario,
                                     const core::Evaluation* evaluation, const QPalette& palette,
                                     const QFont& font)
    : m_scenario(scenario)
    , m_evaluation(evaluation)
    , m_palette(palette)
    , m_font(font)
{}

QString LayoutViewPainter::bandLabel(const LayoutBand& band) const
{
    const core::Parallelism& par = m_scenario.parallelism;
    const QString layers =
        band.firstLayer == band.lastLayer
            ? QStringLiteral("layer %1").arg(band.firstLayer)
            : QStringLiteral("layers %1–%2").arg(band.firstLayer).arg(band.lastLayer);
    QString dims = QStringLiteral("%1 TP").arg(par.tp);
    if (par.cp > 1)
        dims += QStringLiteral(" × %1 CP").arg(par.cp);
    dims += QStringLiteral(" × %1 DP").arg(formatCount(band.dpReplicas));
    if (par.ep > 1)
        dims += QStringLiteral(" (EP %1)").arg(par.ep);
    return QStringLiteral("stage %1 · %2 · %3 = %4")
        .arg(QString::number(band.stage), layers, dims, formatGpus(band.gpus));
}

QStringList
LayoutViewPainter::bandLines(const LayoutBand& band, int maxLines,
                             const std::function<bool(const QString&, bool)>& fits) const
{
    // Most detail that fits: the full label and the detail on two lines; or the head, the
    // parallel dimensions and the detail on three; on one line, shorter and shorter forms.
    const QString full = bandLabel(band);
    const QString head = full.section(QStringLiteral(" · "), 0, 1);
    const QString dims = full.section(QStringLiteral(" · "), 2);
    const QString detail = bandDetail(band);
    if (maxLines >= 2 && fits(full, true))
        return {full, detail};
    if (maxLines >= 3)
        return {head, dims, detail};
    if (maxLines == 2)
        return {head, dims};
    const QString gpus = formatGpus(band.gpus);
    const QString stage = QStringLiteral("stage %1").arg(band.stage);
    for (const QString& candidate : {full, head + QStringLiteral(" · ") + gpus,
                                     stage + QStringLiteral(" · ") + gpus, head, stage})
        if (fits(candidate, true))
            return {candidate};
    return {QString::number(band.stage)};
}

QString LayoutViewPainter::bandDetail(const LayoutBand& band) const
{
    // How the band lands on scale-up domains, then the evaluation overlay when there is one.
    QString detail;
    if (const core::Datacenter* dc = core::findDatacenter(m_scenario.topology, band.datacenter)) {
        const int domain = std::max(1, core::scaleUpDomainGpus(*dc));
        detail = QStringLiteral("%1 × %2-GPU domains")
                     .arg(formatCount((band.gpus + domain - 1) / domain), QString::number(domain));
        if (m_scenario.parallelism.tp > domain)
            detail += QStringLiteral(" · TP spans %1 domains")
                          .arg((m_scenario.parallelism.tp + domain - 1) / domain);
    }
    if (m_evaluation && m_evaluation->ok && !m_evaluation->timeline.empty()) {
        double busy = 0.0;
        double makespan = 0.0;
        for (const core::TimelineBlock& block : m_evaluation->timeline) {
            makespan = std::max(makespan, block.endS);
            if (block.stage == band.stage && block.kind != core::BlockKind::Send)
                busy += block.endS - block.startS;
        }
        if (makespan > 0)
            detail += QStringLiteral(" · busy %1 (%2 %)")
                          .arg(formatSeconds(busy))
                          .arg(std::lround(100.0 * busy / makespan));
    }
    return detail;
}

void LayoutViewPainter::paintAxis(QPainter& p, const LayoutGeometry& g) const
{
    const QPalette pal = palette();
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    // A dotted line at every stage boundary; its layer number only where it keeps a line's
    // height from the last one drawn and from the total (always shown), like an axis.
    const qreal spacing = QFontMetricsF(small).height();
    const double bottom = g.layerY(g.totalLayers);
    double lastText = -1e9;
    const auto tick = [&](int layer, bool always) {
        const double y = g.layerY(layer);
        if (always || (y - lastText >= spacing && bottom - y >= spacing)) {
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(QRectF(g.area.left(), y - 8, LayoutGeometry::kGutter - 6, 16),
                       Qt::AlignRight | Qt::AlignVCenter, QString::number(layer));
            lastText = y;
        }
        p.setPen(QPen(muted(pal, 0.12), 1.0, Qt::DotLine));
        p.drawLine(QPointF(g.axis.left(), y), QPointF(g.axis.right(), y));
    };
    tick(0, true);
    for (int stage = 1; stage < std::ssize(g.layersPerStage); ++stage)
        tick(g.firstLayerOf(stage), false);
    tick(g.totalLayers, true);
    p.save();
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.translate(g.area.left() + 8, g.axis.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-60, -8, 120, 16), Qt::AlignCenter, tr("layer"));
    p.restore();
}

void LayoutViewPainter::paintColumn(QPainter& p, const LayoutGeometry& /*g*/,
                                    const LayoutColumn& column) const
{
    const QPalette pal = palette();
    const core::Datacenter* dc = core::findDatacenter(m_scenario.topology, column.datacenter);
    p.setPen(QPen(muted(pal, 0.22), 1.0));
    p.setBrush(muted(pal, 0.03));
    p.drawRoundedRect(column.rect, 8, 8);
    if (!dc)
        return;
    const QRectF text = column.header.adjusted(10, 6, -10, -4);
    QFont bold = font();
    bold.setBold(true);
    const QFontMetricsF boldMetrics(bold);
    const QFontMetricsF metrics(font());
    const qreal line = metrics.height();
    p.setFont(bold);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(
        QRectF(text.left(), text.top(), text.width(), line), Qt::AlignLeft,
        boldMetrics.elidedText(QString::fromStdString(dc->name), Qt::ElideRight, text.width()));
    p.setFont(font());
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(
        QRectF(text.left(), text.top() + line, text.width(), line), Qt::AlignLeft,
        metrics.elidedText(QStringLiteral("%1 · %2").arg(QString::fromStdString(dc->accelerator),
                                                         formatGpus(column.capacity)),
                           Qt::ElideRight, text.width()));
    QString use;
    QColor useColour = pal.color(QPalette::Text);
    if (column.placed == 0) {
        use = tr("idle: no stage placed");
        useColour = pal.color(QPalette::PlaceholderText);
    } else if (column.placed > column.capacity) {
        use = tr("placed %1, over capacity by %2")
                  .arg(formatCount(column.placed), formatCount(column.placed - column.capacity));
        useColour = QColor(0xe1, 0x57, 0x59);
    } else {
        const double share = static_cast<double>(column.placed) /
                             static_cast<double>(std::max<std::int64_t>(1, column.capacity));
        // 99.9 % must not read as full: one decimal unless exactly full.
        use = tr("placed %1 of %2 (%3 %)")
                  .arg(formatCount(column.placed), formatCount(column.capacity),
                       column.placed == column.capacity
                           ? QStringLiteral("100")
                           : QString::number(std::floor(share * 1000.0) / 10.0, 'f', 1));
    }
    p.setPen(useColour);
    p.drawText(QRectF(text.left(), text.top() + 2 * line, text.width(), line), Qt::AlignLeft,
               metrics.elidedText(use, Qt::ElideRight, text.width()));
}

QString LayoutViewPainter::paintBand(QPainter& p, const LayoutBand& band, bool ghost) const
{
    const QPalette pal = palette();
    const QColor colour = stageColor(band.stage);
    p.setPen(QPen(colour, ghost ? 2.0 : 1.0));
    p.setBrush(ghost ? colour.lighter(110) : stageFill(band.stage, pal));
    p.drawRoundedRect(band.rect, 4, 4);
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawRoundedRect(QRectF(band.rect.left(), band.rect.top(), 4, band.rect.height()), 2, 2);

    const QRectF text = band.rect.adjusted(9, 1, -4, -1);
    QFont bold = font();
    bold.setBold(true);
    const QFontMetricsF metrics(font());
    const QFontMetricsF boldMetrics(bold);
    const auto maxLines = static_cast<int>(text.height() / metrics.height());
    if (maxLines < 1 || text.width() < 12)
        return {}; // too thin: paintThinLabels() labels it, or some of its neighbours
    const QStringList lines = bandLines(band, maxLines, [&](const QString& line, bool first) {
        return (first ? boldMetrics : metrics).horizontalAdvance(line) <= text.width();
    });
    // Centred while the band is short; from the top once there is room to spare.
    const qreal block = static_cast<qreal>(lines.size()) * metrics.height();
    const qreal top = text.top() + std::min(3.0, (text.height() - block) / 2);
    p.setPen(pal.color(QPalette::Text));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        p.setFont(i == 0 ? bold : font());
        const QFontMetricsF& m = i == 0 ? boldMetrics : metrics;
        p.drawText(QRectF(text.left(), top + static_cast<qreal>(i) * metrics.height(), text.width(),
                          metrics.height()),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   m.elidedText(lines[i], Qt::ElideRight, text.width()));
    }
    return lines.value(0);
}

QStringList LayoutViewPainter::paintBands(QPainter& p, const LayoutGeometry& g, int skip) const
{
    QStringList drawn;
    std::vector<std::size_t> thin;
    for (std::size_t i = 0; i < g.bands.size(); ++i) {
        if (static_cast<int>(i) == skip)
            continue;
        const QString label = paintBand(p, g.bands[i], false);
        if (label.isEmpty())
            thin.push_back(i);
        else
            drawn << label;
    }
    drawn << paintThinLabels(p, g, thin);
    return drawn;
}

QStringList LayoutViewPainter::paintThinLabels(QPainter& p, const LayoutGeometry& g,
                                               const std::vector<std::size_t>& thin) const
{
    // Bands too thin for a line of text are labelled like an axis: per lane (one column, one
    // shard) the first and the last stage and every k-th between, k the smallest power of two
    // that keeps the labels a line apart; each label is centred on its band, over its
    // neighbours, on a small plate. The tooltip has every band's full text.
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    small.setBold(true);
    const QFontMetricsF metrics(small);
    const qreal lineHeight = metrics.height() + 2;
    std::map<std::pair<int, int>, std::vector<const LayoutBand*>> lanes;
    for (const std::size_t i : thin)
        lanes[{g.bands[i].column, g.bands[i].shard}].push_back(&g.bands[i]);

    QStringList drawn;
    const QPalette pal = palette();
    p.setFont(small);
    for (auto& entry : lanes) {
        std::vector<const LayoutBand*>& bands = entry.second;
        std::sort(bands.begin(), bands.end(),
                  [](const LayoutBand* a, const LayoutBand* b) { return a->stage < b->stage; });
        // The interval from the mean band height; the spacing check below skips a label that
        // an uneven split still crowds.
        qreal total = 0;
        for (const LayoutBand* band : bands)
            total += band->rect.height();
        const qreal mean = std::max(0.5, total / static_cast<qreal>(bands.size()));
        int every = 1;
        while (every * mean < lineHeight && every < (1 << 20))
            every *= 2;
        std::vector<const LayoutBand*> chosen;
        for (std::size_t i = 0; i < bands.size(); ++i) {
            const LayoutBand* band = bands[i];
            const bool last = i + 1 == bands.size();
            if (i != 0 && !last && band->stage % every != 0)
                continue;
            // The last stage displaces a crowding neighbour (never the first).
            while (!chosen.empty() &&
                   band->rect.center().y() - chosen.back()->rect.center().y() < lineHeight) {
                if (!last || chosen.size() == 1)
                    break;
                chosen.pop_back();
            }
            if (chosen.empty() ||
                band->rect.center().y() - chosen.back()->rect.center().y() >= lineHeight)
                chosen.push_back(band);
        }
        for (const LayoutBand* band : chosen) {
            const qreal room = band->rect.width() - 6;
            QString text = QStringLiteral("stage %1").arg(band->stage);
            if (metrics.horizontalAdvance(text) > room)
                text = QString::number(band->stage);
            const qreal width = metrics.horizontalAdvance(text) + 6;
            const QRectF plate(band->rect.left() + 5, band->rect.center().y() - lineHeight / 2,
                               width, lineHeight);
            QColor fill = pal.color(QPalette::Base);
            fill.setAlphaF(0.85f);
            p.setPen(QPen(stageColor(band->stage), 1.0));
            p.setBrush(fill);
            p.drawRoundedRect(plate, 3, 3);
            p.setPen(pal.color(QPalette::Text));
            p.drawText(plate, Qt::AlignCenter, text);
            drawn << text;
        }
    }
    return drawn;
}

void LayoutViewPainter::paintCrossing(QPainter& p, const LayoutGeometry& g,
                                      const LayoutCrossing& crossing, bool withLabel,
                                      std::vector<QRectF>& taken) const
{
    const QPalette pal = palette();
    const core::DciLink* link = core::findLink(m_scenario.topology, crossing.link);
    const QColor colour =
        link ? linkCapacityColor(core::dciCapacityGbps(*link)) : QColor(0xe1, 0x57, 0x59);
    QPen pen(colour, 2.2, link ? Qt::SolidLine : Qt::DashLine, Qt::RoundCap);
    p.setPen(pen);
    const bool rightwards = crossing.end.x() > crossing.start.x();
    const QPointF outset((rightwards ? 1 : -1) * 6, 0);
    const QPointF a = crossing.start - outset;
    const QPointF b = crossing.end + outset;
    p.drawLine(a, b);
    p.setBrush(colour);
    p.setPen(Qt::NoPen);
    drawArrowHead(p, b, a, 9); // activations forward
    drawArrowHead(p, a, b, 9); // gradients back
    if (!withLabel)
        return;

    QString label =
        link ? QStringLiteral("DCI %1 · %2")
                   .arg(formatGbps(core::dciCapacityGbps(*link)), formatKm(link->distanceKm))
             : tr("no direct DCI link");
    if (link && m_evaluation) {
        for (const core::LinkTraffic& traffic : m_evaluation->traffic)
            if (traffic.linkClass == core::LinkClass::Dci && traffic.dciLinkId == link->id)
                label += QStringLiteral(" · %1 % busy").arg(std::lround(100 * traffic.utilisation));
    }
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    const QFontMetricsF metrics(small);
    const QSizeF size(metrics.horizontalAdvance(label) + 10, metrics.height() + 4);

    // Beside the arrow where nothing is drawn: above the line in the destination column (its
    // earlier stages are elsewhere), else below the line in the source column, else over the
    // middle of the arrow.
    const qreal y = crossing.start.y();
    const QRectF aboveEnd(rightwards ? b.x() + 4 : b.x() - 4 - size.width(), y - 5 - size.height(),
                          size.width(), size.height());
    const QRectF belowStart(rightwards ? a.x() - 4 - size.width() : a.x() + 4, y + 5, size.width(),
                            size.height());
    const QPointF mid = (a + b) / 2;
    const QRectF aboveMid(mid.x() - size.width() / 2, y - 5 - size.height(), size.width(),
                          size.height());
    const auto free = [&](const QRectF& r) {
        if (!g.axis.adjusted(-4, 0, 4, 0).contains(r))
            return false;
        for (const LayoutBand& band : g.bands)
            if (band.rect.intersects(r))
                return false;
        for (const QRectF& other : taken)
            if (other.intersects(r))
                return false;
        return true;
    };
    QRectF box = aboveMid;
    for (const QRectF& candidate : {aboveEnd, belowStart})
        if (free(candidate)) {
            box = candidate;
            break;
        }
    taken.push_back(box);
    QColor background = pal.color(QPalette::Base);
    background.setAlphaF(0.92f);
    p.setBrush(background);
    p.setPen(QPen(colour, 1.0));
    p.drawRoundedRect(box, 4, 4);
    p.setFont(small);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(box, Qt::AlignCenter, label);
}

void LayoutViewPainter::paintFooter(QPainter& p, const LayoutGeometry& g) const
{
    if (g.footer.isEmpty())
        return;
    const QPalette pal = palette();
    const qreal y = g.footer.top() + 6;
    p.setPen(QPen(muted(pal, 0.55), 1.5));
    p.drawLine(QPointF(g.footer.left() + 4, y), QPointF(g.footer.right() - 4, y));
    p.drawLine(QPointF(g.footer.left() + 4, y - 5), QPointF(g.footer.left() + 4, y + 1));
    p.drawLine(QPointF(g.footer.right() - 4, y - 5), QPointF(g.footer.right() - 4, y + 1));
    p.setPen(pal.color(QPalette::Text));
    p.setFont(font());
    p.drawText(g.footer.adjusted(0, 8, 0, 0), Qt::AlignHCenter | Qt::AlignTop,
               tr("DP crosses datacenters: each stage's gradient reduction spans %1 "
                  "datacenters (%2 replicas)")
                   .arg(g.dpCrossingDatacenters)
                   .arg(formatCount(core::dataParallel(m_scenario))));
}

void LayoutViewPainter::paintBoundaryHandle(QPainter& p, const LayoutGeometry& g,
                                            int boundary) const
{
    if (boundary < 0 || boundary >= std::ssize(g.boundaryY))
        return;
    const QPalette pal = palette();
    const double y = g.boundaryY[static_cast<std::size_t>(boundary)];
    p.setPen(QPen(pal.color(QPalette::Highlight), 3.0, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(QPointF(g.axis.left(), y), QPointF(g.axis.right(), y));
    const auto i = static_cast<std::size_t>(boundary);
    const QString text = tr("stage %1: %2 layers  |  stage %3: %4 layers")
                             .arg(boundary)
                             .arg(g.layersPerStage[i])
                             .arg(boundary + 1)
                             .arg(g.layersPerStage[i + 1]);
    const QFontMetricsF metrics(font());
    const QSizeF size(metrics.horizontalAdvance(text) + 12, metrics.height() + 6);
    const QRectF box(g.axis.left() + 6, y + 4, size.width(), size.height());
    p.setPen(Qt::NoPen);
    p.setBrush(pal.color(QPalette::Highlight));
    p.drawRoundedRect(box, 4, 4);
    p.setPen(pal.color(QPalette::HighlightedText));
    p.setFont(font());
    p.drawText(box, Qt::AlignCenter, text);
}

} // namespace archipelago::views
