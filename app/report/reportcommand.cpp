// The report command and the shared write step (reportcommand.h).
#include "reportcommand.h"

#include "reporthtml.h"
#include "reportpdf.h"
#include "reportsweep.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "io/textfile.h"

#include <QFileInfo>

#include <ostream>

namespace archipelago::report {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInvalidInput = 1;
constexpr int kExitUsage = 2;

} // namespace

std::optional<ReportFormat> reportFormatFor(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("pdf"))
        return ReportFormat::Pdf;
    if (suffix == QLatin1String("html") || suffix == QLatin1String("htm"))
        return ReportFormat::Html;
    return std::nullopt;
}

bool writeReport(const ReportInput& input, const QString& path, ReportFormat format, Paper paper,
                 QString* error, int* pages)
{
    const Report report = buildReport(input);
    const QByteArray bytes =
        format == ReportFormat::Pdf ? renderPdf(report, paper, pages) : renderHtml(report, paper);
    if (bytes.isEmpty()) {
        if (error)
            *error = QStringLiteral("%1: the report could not be rendered").arg(path);
        return false;
    }
    std::string why;
    if (!core::writeTextFileAtomically(
            path.toStdString(),
            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), why)) {
        if (error)
            *error = QString::fromStdString(why);
        return false;
    }
    return true;
}

int runReport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> files;
    std::string sweepFile, outFile, paperName = "a4";
    bool optionsEnded = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& target) {
            if (i + 1 >= args.size()) {
                err << "archipelago-cli report: " << a << " needs a value\n" << kReportUsage;
                return false;
            }
            target = args[++i];
            return true;
        };
        if (!optionsEnded && (a == "-h" || a == "--help")) {
            out << kReportUsage;
            return kExitOk;
        } else if (!optionsEnded && a == "--") {
            optionsEnded = true;
        } else if (!optionsEnded && (a == "-o" || a == "--output")) {
            if (!value(outFile))
                return kExitUsage;
        } else if (!optionsEnded && a == "--sweep") {
            if (!value(sweepFile))
                return kExitUsage;
        } else if (!optionsEnded && a == "--paper") {
            if (!value(paperName))
                return kExitUsage;
        } else if (!optionsEnded && a.size() > 1 && a.front() == '-') {
            err << "archipelago-cli report: unknown option '" << core::displayText(a) << "'\n"
                << kReportUsage;
            return kExitUsage;
        } else {
            files.push_back(a);
        }
    }
    if (files.size() != 1 || outFile.empty()) {
        err << (files.size() > 1  ? "archipelago-cli report: one scenario file at a time\n"
                : outFile.empty() ? "archipelago-cli report: -o OUT.pdf|OUT.html is required\n"
                                  : "archipelago-cli report: a scenario file is required\n")
            << kReportUsage;
        return kExitUsage;
    }
    Paper paper = Paper::A4;
    if (paperName == "letter" || paperName == "Letter" || paperName == "us-letter")
        paper = Paper::Letter;
    else if (paperName != "a4" && paperName != "A4") {
        err << "archipelago-cli report: --paper must be a4 or letter, not '"
            << core::displayText(paperName) << "'\n"
            << kReportUsage;
        return kExitUsage;
    }
    const std::optional<ReportFormat> format = reportFormatFor(QString::fromStdString(outFile));
    if (!format) {
        err << "archipelago-cli report: " << core::displayText(outFile)
            << ": the output must end in .pdf or .html\n"
            << kReportUsage;
        return kExitUsage;
    }

    // The scenario: read once, hashed as read, evaluated as the window would.
    const std::string& file = files.front();
    core::DiagnosticSink sink(file);
    const std::optional<std::string> text = core::readTextFile(file, sink, "a scenario file");
    if (!text) {
        for (const core::Diagnostic& d : sink.takeErrors())
            err << d.toString() << '\n';
        return kExitInvalidInput;
    }
    const core::LoadResult load = core::parseScenario(*text, file);
    for (const core::Diagnostic& d : load.errors)
        err << d.toString() << '\n';
    if (!load.ok())
        return kExitInvalidInput;

    ReportInput input;
    input.fileName = QString::fromStdString(file);
    input.fileBytes = QByteArray(text->data(), static_cast<qsizetype>(text->size()));
    input.current = {QStringLiteral("Current"), currentPointColor(), *load.scenario,
                     core::evaluate(*load.scenario)};
    for (std::size_t i = 0; i < load.pins.size(); ++i) {
        const core::PinnedScenario& pin = load.pins[i];
        input.pinned.append({QString::fromStdString(pin.name),
                             pinColor(pin.color, static_cast<int>(i)), pin.scenario,
                             core::evaluate(pin.scenario)});
    }
    if (sweepFile.empty()) {
        // The sweep saved with the scenario, when it holds one.
        std::vector<core::Diagnostic> errors;
        input.sweep =
            savedReportSweep(input.current.scenario, input.current.evaluation, file, errors);
        for (const core::Diagnostic& d : errors)
            err << d.toString() << '\n';
        if (!errors.empty())
            return kExitInvalidInput;
    } else {
        std::vector<core::Diagnostic> errors;
        input.sweep = readReportSweep(sweepFile, errors);
        for (const core::Diagnostic& d : errors)
            err << d.toString() << '\n';
        if (!input.sweep)
            return kExitInvalidInput;
    }

    QString error;
    int pages = 0;
    if (!writeReport(input, QString::fromStdString(outFile), *format, paper, &error, &pages)) {
        err << "archipelago-cli report: " << error.toStdString() << '\n';
        return kExitInvalidInput;
    }
    out << "wrote " << outFile;
    if (*format == ReportFormat::Pdf)
        out << " (" << pages << (pages == 1 ? " page" : " pages") << ", "
            << (paper == Paper::Letter ? "US Letter" : "A4") << ")";
    out << '\n';
    return kExitOk;
}

} // namespace archipelago::report
