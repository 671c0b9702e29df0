// The report command and the shared write step (reportcommand.h).
#include "report/reportcommand.h"

#include "report/reporthtml.h"
#include "report/reportpdf.h"
#include "report/reportsweep.h"

#include "evaluation/costmodel.h"
#include "explore/sweepmerge.h"
#include "io/scenarioio.h"
#include "io/textfile.h"

#include <QFile>
#include <QFileInfo>

#include <ostream>
#include <set>

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

QByteArray renderReport(const ReportInput& input, ReportFormat format, Paper paper, int* pages)
{
    const Report report = buildReport(input);
    return format == ReportFormat::Pdf ? renderPdf(report, paper, pages)
                                       : renderHtml(report, paper);
}

bool writeReport(const ReportInput& input, const QString& path, ReportFormat format, Paper paper,
                 QString* error, int* pages)
{
    const QByteArray bytes = renderReport(input, format, paper, pages);
    if (bytes.isEmpty()) {
        if (error)
            *error = QStringLiteral("%1: the report could not be rendered").arg(path);
        return false;
    }
    std::string why;
    if (!core::writeTextFileAtomically(
            QFile::encodeName(path).toStdString(),
            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), why)) {
        if (error)
            *error = QStringLiteral("cannot write '%1': %2").arg(path, QString::fromStdString(why));
        return false;
    }
    return true;
}

int runReport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> files;
    std::string sweepFile, outFile, paperName = "a4";
    bool optionsEnded = false;
    std::set<std::string> given;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& target) {
            if (i + 1 >= args.size() || args[i + 1].empty()) {
                err << "archipelago-cli report: " << a << " needs a value\n" << kReportUsage;
                return false;
            }
            // One value per option: a second one is a mistake in a script, not an override.
            if (!given.insert(a == "--output" ? "-o" : a).second) {
                err << "archipelago-cli report: " << a << " given twice\n" << kReportUsage;
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
    // `-o -`: the PDF to standard output, as the shell's convention has it. The name's bytes are
    // the file's name, whatever their encoding (a QString would not give them back).
    const bool toStdout = outFile == "-";
    const std::optional<ReportFormat> format =
        toStdout ? std::optional(ReportFormat::Pdf)
                 : reportFormatFor(QFile::decodeName(QByteArray::fromStdString(outFile)));
    if (!format) {
        err << "archipelago-cli report: " << core::displayText(outFile)
            << ": the output must end in .pdf or .html (or be - for a PDF on standard output)\n"
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

    // A scenario the model refuses gets evaluate's verdict and message, not a report that reads
    // "0.0 of 0.0 GiB — fits" (one reader, one verdict).
    const core::Evaluation evaluation = core::evaluate(*load.scenario);
    if (!evaluation.ok) {
        for (const core::Warning& w : evaluation.warnings)
            err << core::Diagnostic{core::Diagnostic::Severity::Error,
                                    file,
                                    {},
                                    core::warningText(w)}
                       .toString()
                << '\n';
        return kExitInvalidInput;
    }

    ReportInput input;
    input.fileName = QString::fromStdString(file);
    input.fileBytes = QByteArray(text->data(), static_cast<qsizetype>(text->size()));
    input.current = {QStringLiteral("Current"), currentPointColor(), *load.scenario, evaluation};
    for (std::size_t i = 0; i < load.pins.size(); ++i) {
        const core::PinnedScenario& pin = load.pins[i];
        input.pinned.append({QString::fromStdString(pin.name),
                             pinColor(pin.color, static_cast<int>(i)), pin.scenario,
                             core::evaluate(pin.scenario)});
    }
    if (sweepFile.empty()) {
        // The sweep saved with the scenario, when it holds one.
        std::vector<core::Diagnostic> errors;
        const core::SweepRecord record = core::readSweepRecord(load.explore, *load.scenario, file);
        input.sweep =
            savedReportSweep(record, input.current.scenario, input.current.evaluation, errors);
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
        // Another scenario's sweep would be presented as this one's design space.
        const nlohmann::json* fingerprint = nullptr;
        if (const auto inputs = input.sweep->json.find("inputs");
            inputs != input.sweep->json.end() && inputs->is_object())
            if (const auto f = inputs->find("scenario_fnv1a64"); f != inputs->end())
                fingerprint = &*f;
        const std::string expected = core::scenarioFingerprint(*load.scenario);
        if (!fingerprint || !fingerprint->is_string() ||
            fingerprint->get<std::string>() != expected) {
            err << core::Diagnostic{core::Diagnostic::Severity::Error, sweepFile,
                                    "/inputs/scenario_fnv1a64",
                                    (fingerprint && fingerprint->is_string()
                                         ? "the sweep was run on another scenario (" +
                                               fingerprint->get<std::string>() + ", not " +
                                               expected + ", the fingerprint of " + file + ")"
                                         : std::string("no scenario fingerprint: not the output "
                                                       "of archipelago-cli sweep -o")) +
                                        "; run archipelago-cli sweep on this scenario"}
                       .toString()
                << '\n';
            return kExitInvalidInput;
        }
    }

    int pages = 0;
    const QByteArray bytes = renderReport(input, *format, paper, &pages);
    if (bytes.isEmpty()) {
        err << "archipelago-cli report: " << core::displayText(outFile)
            << ": the report could not be rendered\n";
        return kExitInvalidInput;
    }
    const std::string_view data(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    if (toStdout) {
        out << data << std::flush;
        return kExitOk;
    }
    std::string why;
    if (!core::writeTextFileAtomically(outFile, data, why)) {
        err << "archipelago-cli report: cannot write '" << core::displayText(outFile)
            << "': " << core::displayText(why) << '\n';
        return kExitInvalidInput;
    }
    out << "wrote " << core::displayText(outFile);
    if (*format == ReportFormat::Pdf)
        out << " (" << pages << (pages == 1 ? " page" : " pages") << ", "
            << (paper == Paper::Letter ? "US Letter" : "A4") << ")";
    out << '\n';
    return kExitOk;
}

} // namespace archipelago::report
