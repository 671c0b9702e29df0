// What a review report is made of: the scenario as evaluated, the pinned design points, the
// input file's bytes (for its SHA-256) and, optionally, a sweep's JSON. The CLI fills it from
// files (reportcommand.cpp), the window from its document (File > Export Report…).
#pragma once

#include "report/reportmodel.h"

#include "common/evaluateddesign.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

namespace archipelago::report {

struct ReportSweep
{
    QString file;        // where it was read from, for the text ("" for the document's)
    nlohmann::json json; // `archipelago-cli sweep --json` output (explore/sweepjson.h)
};

struct ReportInput
{
    views::EvaluatedDesign current;       // the scenario and its evaluation
    QList<views::EvaluatedDesign> pinned; // compared with it
    QString fileName;                     // the input file ("" for an unsaved document)
    QByteArray fileBytes;                 // hashed for the title block
    bool unsavedChanges = false;          // fileBytes is the document as it would be saved
    std::optional<ReportSweep> sweep;
    QDateTime generatedAt = QDateTime::currentDateTimeUtc();
};

// Fills the report's sections in their order: summary, drawings, plots, tables, bill of
// materials, comparison, sweep, assumptions, validation.
Report buildReport(const ReportInput& input);

// The sections' titles in order, as the builder writes them (tests compare against this).
QStringList reportSectionTitles(bool withSweep);

// The pin colours and the current point's colour the window uses (app/gui), for the CLI.
QColor pinColor(const std::string& own, int index);
QColor currentPointColor();

} // namespace archipelago::report
