// `archipelago-cli report SCENARIO [--sweep SWEEP.json] [--paper a4|letter] -o OUT.pdf|OUT.html`
// and the write step File > Export Report… shares with it: the report of one scenario as a PDF
// or a self-contained HTML file, written atomically. Exit codes as app/cli/cli.h: 0, 1 invalid
// input (the file and the JSON pointer), 2 usage.
#pragma once

#include "report/reportinput.h"

#include <QString>

#include <iosfwd>
#include <string>
#include <vector>

namespace archipelago::report {

enum class ReportFormat
{
    Pdf,
    Html
};

// By the suffix of `path` (case-insensitive); nullopt for anything else.
std::optional<ReportFormat> reportFormatFor(const QString& path);

// Builds the report and renders it; empty when it cannot be rendered.
QByteArray renderReport(const ReportInput& input, ReportFormat format, Paper paper,
                        int* pages = nullptr);

// Builds the report and writes it to `path` (core/io/textfile.h: atomically, keeping the mode,
// refusing what it must not replace). False with `error` set, naming the file, when the file
// cannot be written.
bool writeReport(const ReportInput& input, const QString& path, ReportFormat format, Paper paper,
                 QString* error = nullptr, int* pages = nullptr);

// The command; needs a QApplication (main_cli.cpp creates one on the offscreen platform).
int runReport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

inline constexpr const char* kReportUsage =
    "Usage: archipelago-cli report SCENARIO.json [--sweep SWEEP.json] [--paper a4|letter]\n"
    "                              -o OUT.pdf|OUT.html|-\n";

} // namespace archipelago::report
