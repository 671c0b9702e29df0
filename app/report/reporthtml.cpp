// The HTML backend (reporthtml.h).
#include "report/reporthtml.h"

#include <QBuffer>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>

namespace archipelago::report {

namespace {

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

const char* kCss = R"css(
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; font-size: 10pt;
       color: #202020; background: #fff; margin: 0 auto; padding: 24px 32px; max-width: 1100px; }
h1 { font-size: 18pt; margin: 0 0 6px 0; }
.meta { color: #606060; font-size: 8.5pt; margin: 1px 0; overflow-wrap: anywhere; }
header { border-bottom: 2px solid #202020; padding-bottom: 10px; margin-bottom: 18px; }
h2 { font-size: 13pt; border-bottom: 1px solid #c8c8c8; padding-bottom: 3px; margin: 26px 0 10px 0; }
h3 { font-size: 10.5pt; margin: 14px 0 6px 0; }
p { margin: 4px 0 8px 0; line-height: 1.35; }
.note { color: #606060; font-size: 8.5pt; }
ul { margin: 4px 0 10px 0; padding-left: 22px; }
li { margin: 2px 0; }
.figures { display: flex; gap: 12px; align-items: flex-start; margin: 6px 0 12px 0; }
figure { flex: 1 1 0; margin: 0; min-width: 0; }
figure svg { width: 100%; height: auto; display: block; }
figcaption { text-align: center; color: #606060; font-size: 8pt; margin-top: 2px; }
.keys { display: grid; grid-template-columns: repeat(4, 1fr); gap: 6px; margin: 8px 0 12px 0; }
.key { background: #eef1f5; padding: 6px 8px; }
.key .label { color: #606060; font-size: 8pt; }
.key .value { font-weight: bold; font-size: 11.5pt; margin-top: 2px; }
.key .value.bad { color: #a81c1c; }
table { border-collapse: collapse; width: 100%; font-size: 8.5pt; margin: 2px 0 14px 0; }
caption { text-align: left; font-weight: bold; font-size: 9pt; padding: 4px 0; }
th { background: #eef1f5; text-align: left; padding: 3px 6px; }
th.num { text-align: right; }
td { padding: 3px 6px; border-bottom: 1px solid #dcdcdc; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
td.better { background: #e3f4e4; color: #1b6e20; }
td.worse { background: #fbe4e4; color: #a81c1c; }
td.strong { font-weight: bold; }
@page { size: %PAGE%; margin: 14mm 13mm 16mm 13mm; }
@media print {
  body { padding: 0; max-width: none; font-size: 9pt; }
  section.newpage { break-before: page; }
  h2, h3, caption { break-after: avoid; }
  .figures, figure, tr, .keys, .keep { break-inside: avoid; }
  thead { display: table-header-group; }
}
)css";

QString cellClass(const ReportTable& t, int row, int column)
{
    QStringList classes;
    if (column < t.rightAligned.size() && t.rightAligned[column])
        classes.append(QStringLiteral("num"));
    switch (t.markAt(row, column)) {
    case CellMark::Better:
        classes.append(QStringLiteral("better"));
        break;
    case CellMark::Worse:
        classes.append(QStringLiteral("worse"));
        break;
    case CellMark::Strong:
        classes.append(QStringLiteral("strong"));
        break;
    case CellMark::None:
        break;
    }
    return classes.isEmpty() ? QString() : QStringLiteral(" class=\"%1\"").arg(classes.join(' '));
}

void table(QString& out, const ReportTable& t)
{
    out += QStringLiteral("<table>");
    if (!t.caption.isEmpty())
        out += QStringLiteral("<caption>%1</caption>").arg(esc(t.caption));
    out += QStringLiteral("<thead><tr>");
    for (int c = 0; c < t.headers.size(); ++c)
        out += QStringLiteral("<th%1>%2</th>")
                   .arg(c < t.rightAligned.size() && t.rightAligned[c]
                            ? QStringLiteral(" class=\"num\"")
                            : QString(),
                        esc(t.headers[c]));
    out += QStringLiteral("</tr></thead><tbody>\n");
    for (int r = 0; r < t.rows.size(); ++r) {
        out += QStringLiteral("<tr>");
        for (int c = 0; c < t.headers.size(); ++c)
            out +=
                QStringLiteral("<td%1>%2</td>")
                    .arg(cellClass(t, r, c), esc(c < t.rows[r].size() ? t.rows[r][c] : QString()));
        out += QStringLiteral("</tr>\n");
    }
    out += QStringLiteral("</tbody></table>\n");
}

} // namespace

QByteArray figureSvg(const ReportFigure& figure)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    const QSize size = figure.size.toSize().expandedTo(QSize(1, 1));
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setResolution(96); // the views' logical resolution (the default is 72)
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(figure.caption);
    {
        QPainter p;
        if (p.begin(&generator)) {
            p.setRenderHint(QPainter::Antialiasing);
            figure.paint(p, QRectF(QPointF(0, 0), figure.size));
            p.end();
        }
    }
    // Inline: drop the XML declaration and the DOCTYPE before <svg>.
    // and the namespace declarations, which HTML5 implies for an inline <svg> (and which
    // would be the file's only "http://" strings).
    const qsizetype start = bytes.indexOf("<svg");
    if (start < 0)
        return {};
    QString svg = QString::fromUtf8(bytes.mid(start));
    static const QRegularExpression xmlns(QStringLiteral("\\s+xmlns(:[a-z]+)?=\"[^\"]*\""));
    svg.remove(xmlns);
    // Qt names its default font by the fontconfig alias ("Sans Serif"), which a browser does
    // not know: add the CSS generic family so text stays sans-serif.
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
    svg.replace(family, QStringLiteral("font-family=\"\\1, sans-serif\""));
    return svg.toUtf8();
}

QByteArray renderHtml(const Report& report, Paper paper)
{
    QString out;
    out +=
        QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out += QStringLiteral("<meta name=\"generator\" content=\"Archipelago %1\">\n")
               .arg(QStringLiteral(ARCHIPELAGO_VERSION));
    out += QStringLiteral("<title>%1</title>\n<style>").arg(esc(report.title));
    out += QString::fromUtf8(kCss).replace(QStringLiteral("%PAGE%"), paper == Paper::Letter
                                                                         ? QStringLiteral("letter")
                                                                         : QStringLiteral("A4"));
    out +=
        QStringLiteral("</style>\n</head>\n<body>\n<header>\n<h1>%1</h1>\n").arg(esc(report.title));
    for (const QString& line : report.titleLines)
        out += QStringLiteral("<p class=\"meta\">%1</p>\n").arg(esc(line));
    out += QStringLiteral("</header>\n");
    for (const ReportSection& s : report.sections) {
        out += QStringLiteral("<section id=\"%1\"%2>\n<h2>%3</h2>\n")
                   .arg(s.id, s.newPage ? QStringLiteral(" class=\"newpage\"") : QString(),
                        esc(s.title));
        bool keeping = false;
        for (std::size_t i = 0; i < s.blocks.size(); ++i) {
            const ReportBlock& b = s.blocks[i];
            // A short text that introduces figures prints on their page.
            if ((b.kind == ReportBlock::Kind::Note || b.kind == ReportBlock::Kind::Paragraph) &&
                i + 1 < s.blocks.size() && s.blocks[i + 1].kind == ReportBlock::Kind::Figures) {
                out += QStringLiteral("<div class=\"keep\">\n");
                keeping = true;
            }
            switch (b.kind) {
            case ReportBlock::Kind::Heading:
                out += QStringLiteral("<h3>%1</h3>\n").arg(esc(b.text));
                break;
            case ReportBlock::Kind::Paragraph:
                out += QStringLiteral("<p>%1</p>\n").arg(esc(b.text));
                break;
            case ReportBlock::Kind::Note:
                out += QStringLiteral("<p class=\"note\">%1</p>\n").arg(esc(b.text));
                break;
            case ReportBlock::Kind::Bullets:
                out += QStringLiteral("<ul>\n");
                for (const QString& item : b.items)
                    out += QStringLiteral("<li>%1</li>\n").arg(esc(item));
                out += QStringLiteral("</ul>\n");
                break;
            case ReportBlock::Kind::KeyFigures:
                out += QStringLiteral("<div class=\"keys\">\n");
                for (const QString& item : b.items) {
                    const QString value = item.section('\t', 1);
                    out +=
                        QStringLiteral("<div class=\"key\"><div class=\"label\">%1</div><div "
                                       "class=\"value%2\">%3</div></div>\n")
                            .arg(esc(item.section('\t', 0, 0)),
                                 value.contains(QLatin1String("NOT FIT")) ? QStringLiteral(" bad")
                                                                          : QString(),
                                 esc(value));
                }
                out += QStringLiteral("</div>\n");
                break;
            case ReportBlock::Kind::Table:
                table(out, b.table);
                break;
            case ReportBlock::Kind::Figures:
                out += QStringLiteral("<div class=\"figures\">\n");
                for (const ReportFigure& f : b.figures)
                    out +=
                        QStringLiteral("<figure>%1%2</figure>\n")
                            .arg(QString::fromUtf8(figureSvg(f)),
                                 f.caption.isEmpty() ? QString()
                                                     : QStringLiteral("<figcaption>%1</figcaption>")
                                                           .arg(esc(f.caption)));
                out += QStringLiteral("</div>\n");
                if (keeping)
                    out += QStringLiteral("</div>\n");
                keeping = false;
                break;
            }
        }
        out += QStringLiteral("</section>\n");
    }
    out += QStringLiteral("</body>\n</html>\n");
    return out.toUtf8();
}

} // namespace archipelago::report
