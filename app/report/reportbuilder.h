// The report's sections one by one (reportbuilder.cpp, reportledger.cpp, reportsweep.cpp);
// buildReport() in reportinput.h puts them in order.
#pragma once

#include "report/reportinput.h"

#include <optional>

namespace archipelago::report {

// A block of text (a paragraph, a note or a heading) and a table block.
ReportBlock paragraph(const QString& text, ReportBlock::Kind kind = ReportBlock::Kind::Paragraph);
ReportBlock tableBlock(ReportTable table);

ReportSection summarySection(const ReportInput& input);
ReportSection drawingsSection(const ReportInput& input);
ReportSection plotsSection(const ReportInput& input);
ReportSection tablesSection(const ReportInput& input);
ReportSection bomSection(const ReportInput& input);
ReportSection comparisonSection(const ReportInput& input);
ReportSection sweepSection(const ReportSweep& sweep);
ReportSection goodputSection(const ReportInput& input);
ReportSection assumptionsSection(const ReportInput& input);
ReportSection validationSection();
// The comparison rows (views/tables/comparisontablerows.h) for `points`, marked against the last.
ReportTable comparisonTable(const QList<views::EvaluatedDesign>& points);

// "PP crosses the dc-west/dc-east boundary": which parallel dimensions the placement spreads
// over more than one datacenter ("" when the job sits in one).
QString crossingSentence(const core::Scenario& scenario);
// The evaluation's warnings, most serious first, as text.
QStringList rankedWarnings(const core::Evaluation& evaluation);
// The `count` to put first: the most serious of each kind of warning, then the next ones.
QStringList topWarnings(const core::Evaluation& evaluation, int count);

} // namespace archipelago::report
