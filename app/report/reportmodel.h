// The review report as a document of sections and blocks (paragraphs, key figures, tables,
// figures), independent of the output format: reportbuilder.cpp fills it from a scenario and
// its evaluation, reportpdf.cpp lays it out on pages and reporthtml.cpp writes it as one HTML
// file. Figures are painter callbacks, so both backends draw the same vector graphics.
#pragma once

#include <QColor>
#include <QList>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

class QPainter;

namespace archipelago::report {

enum class Paper
{
    A4,
    Letter
};

// How a table cell is marked: differences in the comparison, subtotals, warnings.
enum class CellMark
{
    None,
    Better, // green
    Worse,  // red
    Strong  // bold (totals)
};

struct ReportTable
{
    QStringList headers;
    QList<QStringList> rows;
    QList<QList<CellMark>> marks; // empty, or one list per row (missing cells: None)
    QList<bool> rightAligned;     // per column (numbers); missing: left
    QString caption;              // shown above the table
    CellMark markAt(int row, int column) const
    {
        if (row < 0 || row >= marks.size() || column < 0 || column >= marks[row].size())
            return CellMark::None;
        return marks[row][column];
    }
};

// A vector drawing: `paint` draws into `target` (in the painter's units, at any scale); `size`
// is the drawing's natural size in CSS pixels (1/96 in), which sets its aspect ratio.
struct ReportFigure
{
    QString caption;
    QSizeF size;
    std::function<void(QPainter&, const QRectF&)> paint;
};

struct ReportBlock
{
    enum class Kind
    {
        Heading,    // a subsection title (text)
        Paragraph,  // text
        Note,       // small grey text
        Bullets,    // items
        KeyFigures, // items as "label\tvalue" pairs, in a grid
        Table,      // table
        Figures     // figures side by side (one: full width)
    };
    Kind kind = Kind::Paragraph;
    QString text;
    QStringList items;
    ReportTable table;
    std::vector<ReportFigure> figures;
};

struct ReportSection
{
    QString id; // HTML anchor and test handle: "summary", "topology", ...
    QString title;
    std::vector<ReportBlock> blocks;
    bool newPage = false; // start on a fresh page in the PDF
};

struct Report
{
    QString title;          // "Capacity-planning review: <scenario>"
    QStringList titleLines; // date, version, input file, SHA-256
    std::vector<ReportSection> sections;
};

} // namespace archipelago::report
