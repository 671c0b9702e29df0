// The PDF backend (reportpdf.h). Units are CSS pixels (96 per inch, the resolution the
// writer is set to), so the views' drawings keep the proportions they have on screen. The
// document is laid out twice: once to count the pages, once to draw with "Page N of M".
#include "report/reportpdf.h"

#include <QApplication>
#include <QBuffer>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QTextLayout>

#include <algorithm>
#include <cmath>

namespace archipelago::report {

namespace {

constexpr double kDpi = 96.0;
constexpr double kMarginX = 52.0;   // ~14 mm
constexpr double kMarginTop = 48.0; // ~13 mm
constexpr double kFooter = 44.0;    // bottom margin with the page number
const QColor kText(0x20, 0x20, 0x20);
const QColor kMuted(0x60, 0x60, 0x60);
const QColor kRule(0xc8, 0xc8, 0xc8);
const QColor kHeaderFill(0xee, 0xf1, 0xf5);
const QColor kBetterText(0x1b, 0x6e, 0x20);
const QColor kBetterFill(0xe3, 0xf4, 0xe4);
const QColor kWorseText(0xa8, 0x1c, 0x1c);
const QColor kWorseFill(0xfb, 0xe4, 0xe4);

QFont font(double pt, bool bold = false)
{
    QFont f = QApplication::font();
    f.setPointSizeF(pt);
    f.setBold(bold);
    f.setKerning(true);
    return f;
}

class Layout
{
public:
    Layout(QPdfWriter& writer, const Report& report, int totalPages)
        : m_writer(writer)
        , m_report(report)
        , m_total(totalPages)
    {
        m_width = writer.width();
        m_height = writer.height();
        m_left = kMarginX;
        m_right = m_width - kMarginX;
        m_bottom = m_height - kFooter;
        m_y = kMarginTop;
    }

    // With a painter the page is drawn; without, only measured.
    void run(QPainter* painter)
    {
        m_p = painter;
        titleBlock();
        for (const ReportSection& s : m_report.sections)
            section(s);
        footer();
    }
    int pages() const { return m_page; }

private:
    double avail() const { return m_right - m_left; }
    double remaining() const { return m_bottom - m_y; }
    bool atTop() const { return m_y <= kMarginTop + 0.5; }

    void newPage()
    {
        footer();
        if (m_p)
            m_writer.newPage();
        ++m_page;
        m_y = kMarginTop;
    }
    void ensure(double h)
    {
        if (h > remaining() && !atTop())
            newPage();
    }

    void footer()
    {
        if (!m_p)
            return;
        m_p->save();
        m_p->setFont(font(7.5));
        m_p->setPen(kMuted);
        const QRectF r(m_left, m_height - kFooter + 14, avail(), 16);
        m_p->setPen(QPen(kRule, 0.8));
        m_p->drawLine(QPointF(m_left, r.top() - 4), QPointF(m_right, r.top() - 4));
        m_p->setPen(kMuted);
        QFontMetricsF fm(font(7.5), &m_writer);
        m_p->drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
                      fm.elidedText(m_report.title, Qt::ElideRight, avail() * 0.7));
        m_p->drawText(r, Qt::AlignRight | Qt::AlignVCenter,
                      QStringLiteral("Page %1 of %2").arg(m_page).arg(std::max(m_total, m_page)));
        m_p->restore();
    }

    // Wrapped text, broken across pages between lines. Returns the height used.
    void text(const QString& s, const QFont& f, const QColor& color, double indent = 0.0,
              double after = 6.0, const QString& bullet = QString())
    {
        QTextLayout layout(s, f, &m_writer);
        QTextOption option;
        option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        layout.setTextOption(option);
        layout.setCacheEnabled(true);
        const double width = avail() - indent;
        layout.beginLayout();
        double h = 0.0;
        while (true) {
            QTextLine line = layout.createLine();
            if (!line.isValid())
                break;
            line.setLineWidth(width);
            line.setPosition(QPointF(0, h));
            h += line.height();
        }
        layout.endLayout();
        bool first = true;
        for (int i = 0; i < layout.lineCount(); ++i) {
            const QTextLine line = layout.lineAt(i);
            ensure(line.height());
            if (m_p) {
                m_p->setPen(color);
                line.draw(m_p, QPointF(m_left + indent, m_y - line.y()));
                if (first && !bullet.isEmpty()) {
                    m_p->setFont(f);
                    m_p->drawText(QPointF(m_left + indent - 12, m_y + line.ascent()), bullet);
                }
            }
            first = false;
            m_y += line.height();
        }
        m_y += after;
    }

    void titleBlock()
    {
        text(m_report.title, font(17, true), kText, 0, 6);
        for (const QString& line : m_report.titleLines)
            text(line, font(8), kMuted, 0, 1);
        m_y += 6;
        if (m_p) {
            m_p->setPen(QPen(kText, 1.2));
            m_p->drawLine(QPointF(m_left, m_y), QPointF(m_right, m_y));
        }
        m_y += 12;
    }

    void section(const ReportSection& s)
    {
        if (s.newPage && !atTop())
            newPage();
        // Keep the heading with the start of its first block: a row of figures whole (with
        // the text that introduces it), else a few lines.
        double lead = 90;
        const auto& blocks = s.blocks;
        if (!blocks.empty() && blocks[0].kind == ReportBlock::Kind::Figures)
            lead = figuresHeight(blocks[0].figures);
        else if (blocks.size() > 1 && blocks[1].kind == ReportBlock::Kind::Figures &&
                 (blocks[0].kind == ReportBlock::Kind::Note ||
                  blocks[0].kind == ReportBlock::Kind::Paragraph))
            lead = 40 + figuresHeight(blocks[1].figures);
        ensure(28 + lead);
        text(s.title, font(13, true), kText, 0, 2);
        if (m_p) {
            m_p->setPen(QPen(kRule, 0.8));
            m_p->drawLine(QPointF(m_left, m_y), QPointF(m_right, m_y));
        }
        m_y += 8;
        for (std::size_t i = 0; i < s.blocks.size(); ++i) {
            // A short text that introduces figures stays on their page.
            const bool intro = s.blocks[i].kind == ReportBlock::Kind::Note ||
                               s.blocks[i].kind == ReportBlock::Kind::Paragraph;
            if (intro && i + 1 < s.blocks.size() &&
                s.blocks[i + 1].kind == ReportBlock::Kind::Figures)
                ensure(40 + figuresHeight(s.blocks[i + 1].figures));
            block(s.blocks[i]);
        }
        m_y += 10;
    }

    void block(const ReportBlock& b)
    {
        switch (b.kind) {
        case ReportBlock::Kind::Heading:
            ensure(24 + 60);
            text(b.text, font(10.5, true), kText, 0, 4);
            break;
        case ReportBlock::Kind::Paragraph:
            text(b.text, font(9), kText, 0, 6);
            break;
        case ReportBlock::Kind::Note:
            text(b.text, font(8), kMuted, 0, 6);
            break;
        case ReportBlock::Kind::Bullets:
            for (const QString& item : b.items)
                text(item, font(9), kText, 16, 3, QStringLiteral("•"));
            m_y += 4;
            break;
        case ReportBlock::Kind::KeyFigures:
            keyFigures(b.items);
            break;
        case ReportBlock::Kind::Table:
            table(b.table);
            break;
        case ReportBlock::Kind::Figures:
            figures(b.figures);
            break;
        }
    }

    void keyFigures(const QStringList& items)
    {
        const int columns = 4;
        const double cellW = avail() / columns;
        const double cellH = 42;
        const QFont labelFont = font(7.5);
        const QFont valueFont = font(11, true);
        for (int i = 0; i < items.size(); i += columns) {
            ensure(cellH);
            for (int c = 0; c < columns && i + c < items.size(); ++c) {
                const QString label = items[i + c].section('\t', 0, 0);
                const QString value = items[i + c].section('\t', 1);
                const QRectF r(m_left + c * cellW, m_y, cellW - 6, cellH - 6);
                if (!m_p)
                    continue;
                m_p->setPen(Qt::NoPen);
                m_p->setBrush(kHeaderFill);
                m_p->drawRect(r);
                m_p->setFont(labelFont);
                m_p->setPen(kMuted);
                m_p->drawText(r.adjusted(6, 4, -4, 0), Qt::AlignLeft | Qt::AlignTop, label);
                m_p->setPen(value.contains(QLatin1String("NOT FIT")) ? kWorseText : kText);
                QFont vf = valueFont;
                QFontMetricsF fm(vf, &m_writer);
                // Long values ("79.6 GiB of 79.6 GiB per GPU — fits") shrink to the cell.
                while (fm.horizontalAdvance(value) > r.width() - 10 && vf.pointSizeF() > 6.5) {
                    vf.setPointSizeF(vf.pointSizeF() - 0.5);
                    fm = QFontMetricsF(vf, &m_writer);
                }
                m_p->setFont(vf);
                m_p->drawText(r.adjusted(6, 0, -4, -5), Qt::AlignLeft | Qt::AlignBottom,
                              fm.elidedText(value, Qt::ElideRight, r.width() - 10));
            }
            m_y += cellH;
        }
        m_y += 6;
    }

    static constexpr double kFigureGap = 10;
    double figureWidth(const std::vector<ReportFigure>& figs) const
    {
        const int n = static_cast<int>(figs.size());
        return (avail() - kFigureGap * (n - 1)) / n;
    }
    static double captionHeight(const std::vector<ReportFigure>& figs)
    {
        for (const ReportFigure& f : figs)
            if (!f.caption.isEmpty())
                return 16;
        return 0;
    }
    // The height a row of figures takes, caption included, at most a page.
    double figuresHeight(const std::vector<ReportFigure>& figs) const
    {
        if (figs.empty())
            return 0;
        const double w = figureWidth(figs);
        double h = 0;
        for (const ReportFigure& f : figs)
            if (!f.size.isEmpty())
                h = std::max(h, w * f.size.height() / f.size.width());
        const double caption = captionHeight(figs);
        return std::min(h, m_bottom - kMarginTop - caption - 4) + caption;
    }

    void figures(const std::vector<ReportFigure>& figs)
    {
        if (figs.empty())
            return;
        const double gap = kFigureGap;
        const int n = static_cast<int>(figs.size());
        const double w = figureWidth(figs);
        const double caption = captionHeight(figs);
        double h = figuresHeight(figs) - caption;
        ensure(h + caption);
        h = std::min(h, remaining() - caption);
        for (int i = 0; i < n; ++i) {
            const QRectF r(m_left + i * (w + gap), m_y, w, h);
            if (!m_p)
                continue;
            m_p->save();
            m_p->setRenderHint(QPainter::Antialiasing);
            figs[static_cast<std::size_t>(i)].paint(*m_p, r);
            m_p->restore();
            m_p->setFont(font(7.5));
            m_p->setPen(kMuted);
            m_p->drawText(QRectF(r.left(), r.bottom() + 2, w, caption),
                          Qt::AlignHCenter | Qt::AlignTop,
                          figs[static_cast<std::size_t>(i)].caption);
        }
        m_y += h + caption + 8;
    }

    // Column widths for `t` in font `f`, as a browser lays out an automatic table: natural
    // widths when they fit; else every column gets at least its longest word and the rest of
    // the width goes to the columns in proportion to how much more they would take.
    QList<double> columnWidths(const ReportTable& t, const QFont& f, const QFont& bold,
                               bool* fits) const
    {
        const double pad = 12; // the cell padding (2 x 5) and a margin for rounding
        const int n = static_cast<int>(t.headers.size());
        QFontMetricsF fb(bold, &m_writer);
        QList<double> natural(n, 0.0), least(n, 0.0);
        auto measure = [&](int c, const QString& s) {
            const double whole = fb.horizontalAdvance(s) + pad;
            natural[c] = std::max(natural[c], whole);
            // Numbers ("+2.1 %", "$1.23 M") never wrap; text wraps between words.
            if (c < t.rightAligned.size() && t.rightAligned[c]) {
                least[c] = std::max(least[c], std::min(whole, avail() / 3));
                return;
            }
            for (const QString& word : s.split(' ', Qt::SkipEmptyParts))
                least[c] =
                    std::max(least[c], std::min(fb.horizontalAdvance(word) + pad, avail() / 3));
        };
        for (int c = 0; c < n; ++c) {
            measure(c, t.headers[c]);
            for (const QStringList& row : t.rows)
                if (c < row.size())
                    measure(c, row[c]);
        }
        Q_UNUSED(f);
        double sumNatural = 0, sumLeast = 0;
        for (int c = 0; c < n; ++c) {
            sumNatural += natural[c];
            sumLeast += least[c];
        }
        *fits = sumNatural <= avail();
        QList<double> widths(n, 0.0);
        if (*fits) {
            // Spread the slack so the table spans the text width.
            for (int c = 0; c < n; ++c)
                widths[c] = natural[c] + (avail() - sumNatural) / n;
        } else if (sumLeast <= avail()) {
            const double want = sumNatural - sumLeast;
            for (int c = 0; c < n; ++c)
                widths[c] = least[c] + (avail() - sumLeast) * (natural[c] - least[c]) / want;
        } else {
            for (int c = 0; c < n; ++c)
                widths[c] = least[c] * avail() / sumLeast;
        }
        return widths;
    }

    // Word wrap, and wrap anywhere only where a word is wider than the cell.
    int wrapFlags(const QString& s, const QFontMetricsF& fm, double width) const
    {
        for (const QString& word : s.split(' ', Qt::SkipEmptyParts))
            if (fm.horizontalAdvance(word) > width)
                return Qt::TextWordWrap | Qt::TextWrapAnywhere;
        return Qt::TextWordWrap;
    }

    void table(const ReportTable& t)
    {
        if (t.headers.isEmpty())
            return;
        // Shrink the font until the columns fit (down to 6.5 pt), then wrap.
        double pt = 8.0;
        bool fits = false;
        QList<double> widths;
        while (true) {
            widths = columnWidths(t, font(pt), font(pt, true), &fits);
            if (fits || pt <= 6.5)
                break;
            pt -= 0.5;
        }
        const QFont f = font(pt), bold = font(pt, true);
        const double padX = 5, padY = 3;
        auto rowHeight = [&](const QStringList& cells, bool header, int row) {
            double h = 0;
            for (int c = 0; c < widths.size(); ++c) {
                const QString s = c < cells.size() ? cells[c] : QString();
                QFontMetricsF fm(header || t.markAt(row, c) == CellMark::Strong ? bold : f,
                                 &m_writer);
                const double w = widths[c] - 2 * padX;
                const QRectF r = fm.boundingRect(QRectF(0, 0, w, 1e6), wrapFlags(s, fm, w), s);
                h = std::max(h, r.height());
            }
            return h + 2 * padY;
        };
        auto drawRow = [&](const QStringList& cells, double h, bool header, int row) {
            double x = m_left;
            for (int c = 0; c < widths.size(); ++c) {
                const QString s = c < cells.size() ? cells[c] : QString();
                const QRectF cell(x, m_y, widths[c], h);
                const CellMark mark = header ? CellMark::None : t.markAt(row, c);
                if (m_p) {
                    const QColor fill = header                     ? kHeaderFill
                                        : mark == CellMark::Better ? kBetterFill
                                        : mark == CellMark::Worse  ? kWorseFill
                                                                   : QColor();
                    if (fill.isValid())
                        m_p->fillRect(cell, fill);
                    const QFont& cellFont = header || mark == CellMark::Strong ? bold : f;
                    m_p->setFont(cellFont);
                    m_p->setPen(mark == CellMark::Better  ? kBetterText
                                : mark == CellMark::Worse ? kWorseText
                                                          : kText);
                    const bool right = c < t.rightAligned.size() && t.rightAligned[c];
                    m_p->drawText(cell.adjusted(padX, padY, -padX, -padY),
                                  (right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop |
                                      wrapFlags(s, QFontMetricsF(cellFont, &m_writer),
                                                cell.width() - 2 * padX),
                                  s);
                }
                x += widths[c];
            }
            if (m_p) {
                m_p->setPen(QPen(kRule, 0.6));
                m_p->drawLine(QPointF(m_left, m_y + h), QPointF(m_right, m_y + h));
            }
            m_y += h;
        };
        const double headerH = rowHeight(t.headers, true, -1);
        auto header = [&](bool continued) {
            if (!t.caption.isEmpty())
                text(continued ? t.caption + QStringLiteral(" (continued)") : t.caption,
                     font(8.5, true), kText, 0, 3);
            drawRow(t.headers, headerH, true, -1);
        };
        // A short table (under 40% of a page) is not split, so no subtotal is left alone on
        // the next page; a longer one starts where its header and first row fit, so that the
        // heading and the text before it are not left alone instead.
        const double captionH = t.caption.isEmpty() ? 0 : 18;
        double whole = captionH + headerH;
        for (int r = 0; r < t.rows.size(); ++r)
            whole += rowHeight(t.rows[r], false, r);
        const double firstRow = t.rows.isEmpty() ? 0 : rowHeight(t.rows.front(), false, 0);
        ensure(whole <= 0.4 * (m_bottom - kMarginTop) ? whole : captionH + headerH + firstRow);
        header(false);
        for (int r = 0; r < t.rows.size(); ++r) {
            const double h = rowHeight(t.rows[r], false, r);
            if (h > remaining() && !atTop()) {
                newPage();
                header(true);
            }
            drawRow(t.rows[r], h, false, r);
        }
        m_y += 12;
    }

    QPdfWriter& m_writer;
    const Report& m_report;
    QPainter* m_p = nullptr;
    int m_total = 0;
    int m_page = 1;
    double m_width = 0, m_height = 0, m_left = 0, m_right = 0, m_bottom = 0, m_y = 0;
};

void setUp(QPdfWriter& writer, const Report& report, Paper paper)
{
    writer.setResolution(static_cast<int>(kDpi));
    writer.setPageLayout(
        QPageLayout(pageSize(paper), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.setTitle(report.title);
    writer.setCreator(QStringLiteral("Archipelago %1").arg(QStringLiteral(ARCHIPELAGO_VERSION)));
}

} // namespace

QPageSize pageSize(Paper paper)
{
    return QPageSize(paper == Paper::Letter ? QPageSize::Letter : QPageSize::A4);
}

QByteArray renderPdf(const Report& report, Paper paper, int* pages)
{
    // Pass 1: count the pages (measure only).
    int total = 0;
    {
        QBuffer scratch;
        scratch.open(QIODevice::WriteOnly);
        QPdfWriter writer(&scratch);
        setUp(writer, report, paper);
        Layout layout(writer, report, 0);
        layout.run(nullptr);
        total = layout.pages();
    }
    // Pass 2: draw.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        setUp(writer, report, paper);
        QPainter painter;
        if (!painter.begin(&writer))
            return {};
        Layout layout(writer, report, total);
        layout.run(&painter);
        total = layout.pages();
        painter.end();
    }
    if (pages)
        *pages = total;
    return bytes;
}

} // namespace archipelago::report
