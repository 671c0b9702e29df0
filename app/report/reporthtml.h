// The HTML backend: one self-contained file (inline CSS, figures as inline SVG, no external
// reference) that reads on screen and prints on A4 or Letter (@page, @media print, page
// breaks before the large sections, table headers repeated by the browser).
#pragma once

#include "report/reportmodel.h"

#include <QByteArray>

namespace archipelago::report {

QByteArray renderHtml(const Report& report, Paper paper);

// A figure as an <svg> element (no XML declaration), drawn by its paint callback.
QByteArray figureSvg(const ReportFigure& figure);

} // namespace archipelago::report
