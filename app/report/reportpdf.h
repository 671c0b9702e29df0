// The PDF backend: lays a Report out on A4 or US Letter pages with QPdfWriter and QPainter —
// vector figures, tables that break across pages with their header repeated (or shrink to
// fit their columns), "Page N of M" in the footer.
#pragma once

#include "report/reportmodel.h"

#include <QByteArray>
#include <QPageSize>

namespace archipelago::report {

QPageSize pageSize(Paper paper);

// The PDF's bytes; `pages` (when given) receives the page count.
QByteArray renderPdf(const Report& report, Paper paper, int* pages = nullptr);

} // namespace archipelago::report
