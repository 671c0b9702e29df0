// MainWindow: File > Export Report… (Ctrl+E). The report is made by app/report, the code of
// `archipelago-cli report`, from what the window shows: the current design point, the pins
// and the document's file.
#include "window/mainwindow.h"

#include "document/evaluator.h"
#include "document/pinevaluations.h"
#include "editing/editcontroller.h"
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "report/reportcommand.h"
#include "report/reportsweep.h"
#include "window/calibrationdialog.h"
#include "window/importdialog.h"
#include "window/launchdialog.h"
#include "window/prompts.h"

#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QStandardPaths>
#include <QStatusBar>

namespace archipelago::app {

namespace {

report::Paper localPaper()
{
    // Letter where the locale measures in US units, A4 elsewhere.
    return QLocale().measurementSystem() == QLocale::ImperialUSSystem ? report::Paper::Letter
                                                                      : report::Paper::A4;
}

} // namespace

bool MainWindow::exportReport(const QString& path, QString* error)
{
    const std::optional<report::ReportFormat> format = report::reportFormatFor(path);
    if (!format) {
        if (error)
            *error = tr("%1: the report is written as .pdf or .html").arg(path);
        return false;
    }
    QApplication::setOverrideCursor(Qt::WaitCursor);
    report::ReportInput input;
    // The point as the document holds it now: the published evaluation when it is of this
    // scenario, else evaluated here (an edit may still be debouncing).
    const core::Scenario& scenario = m_document->scenario();
    const std::shared_ptr<const core::Scenario> evaluated = m_evaluator->evaluatedScenario();
    const std::shared_ptr<const core::Evaluation> current = m_evaluator->evaluation();
    input.current = {
        tr("Current"),
        m_currentPoint.color.isValid() ? m_currentPoint.color : report::currentPointColor(),
        scenario,
        evaluated && current && *evaluated == scenario ? *current : evaluateSafely(scenario)};
    const std::vector<core::PinnedScenario>& pins = m_document->pins();
    for (std::size_t i = 0; i < pins.size(); ++i) {
        const std::shared_ptr<const core::Evaluation> e =
            m_pinEvaluations->evaluationFor(pins[i].scenario);
        input.pinned.append({QString::fromStdString(pins[i].name),
                             report::pinColor(pins[i].color, static_cast<int>(i)), pins[i].scenario,
                             e ? *e : evaluateSafely(pins[i].scenario)});
    }
    // The sweep saved with the document (the Explore panel's last run), when there is one.
    std::vector<core::Diagnostic> sweepErrors;
    input.sweep = report::savedReportSweep(m_document->sweep(), scenario, input.current.evaluation,
                                           sweepErrors);
    input.fileName = m_document->fileName();
    QFile file(input.fileName);
    if (!m_document->isUntitled() && !m_document->isModified() && file.open(QIODevice::ReadOnly)) {
        input.fileBytes = file.readAll();
    } else {
        const std::string text = m_document->serialized();
        input.fileBytes = QByteArray(text.data(), static_cast<qsizetype>(text.size()));
        input.unsavedChanges = !m_document->isUntitled();
    }
    const bool ok = report::writeReport(input, path, *format, localPaper(), error);
    QApplication::restoreOverrideCursor();
    return ok;
}

void MainWindow::exportReportInteractively()
{
    const QString pdf = tr("PDF document (*.pdf)");
    const QString html = tr("HTML page, one file (*.html)");
    const QFileInfo info(m_document->fileName());
    const QString folder = m_document->isUntitled()
                               ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                               : info.absolutePath();
    const QString base =
        m_document->isUntitled() ? tr("report") : info.completeBaseName() + tr("-report");
    QString filter = pdf;
    QString path = QFileDialog::getSaveFileName(this, tr("Export Report"),
                                                folder + '/' + base + QStringLiteral(".pdf"),
                                                pdf + QStringLiteral(";;") + html, &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter == html ? QStringLiteral(".html") : QStringLiteral(".pdf");
    QString error;
    if (exportReport(path, &error))
        statusBar()->showMessage(tr("Report written to %1").arg(path), 5000);
    else
        m_prompts->showError(this, tr("Export Report"), error);
}

void MainWindow::exportLaunchSettings()
{
    const core::Scenario& scenario = m_document->scenario();
    // The evaluator's when it is of this scenario, else one now (a few ms, as the CLI does).
    std::shared_ptr<const core::Evaluation> published = m_evaluator->evaluation();
    const core::Evaluation evaluation =
        published && m_evaluator->evaluatedScenario() &&
                *m_evaluator->evaluatedScenario() == scenario
            ? *published
            : core::evaluate(scenario, core::effectiveCatalog(scenario));
    if (!evaluation.ok) {
        m_prompts->showError(this, tr("Export Launch Settings"),
                             tr("The scenario cannot be evaluated, so it has no launch settings. "
                                "The Warnings panel says why."));
        return;
    }
    const QFileInfo info(m_document->fileName());
    const QString folder = m_document->isUntitled()
                               ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                               : info.absolutePath();
    const QString base = m_document->isUntitled() ? tr("launch") : info.completeBaseName();
    LaunchDialog dialog(scenario, evaluation, folder, base, this);
    if (dialog.exec() == QDialog::Accepted)
        statusBar()->showMessage(tr("Launch settings written"), 5000);
}

void MainWindow::importLaunchSettings()
{
    ImportDialog dialog(m_document->scenario(), this);
    if (dialog.exec() == QDialog::Accepted)
        applyImportedSettings(dialog.result(), dialog.framework());
}

bool MainWindow::applyImportedSettings(const core::ImportedSettings& imported,
                                       core::Framework framework)
{
    if (!imported.scenario)
        return false;
    QStringList notes;
    for (const std::string& n : imported.notes)
        notes << QString::fromStdString(n);
    return m_edits->apply(
        *imported.scenario,
        tr("Import %1 Settings").arg(QString::fromUtf8(core::displayName(framework))), false, {},
        notes.join(QStringLiteral("; ")));
}

void MainWindow::calibrateFromMeasuredRuns()
{
    const core::Scenario& scenario = m_document->scenario();
    const std::string accelerator = scenario.topology.datacenters.empty()
                                        ? std::string()
                                        : scenario.topology.datacenters.front().accelerator;
    const QString folder = m_document->isUntitled()
                               ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                               : QFileInfo(m_document->fileName()).absolutePath();
    CalibrationDialog dialog(accelerator, folder, this);
    if (dialog.exec() == QDialog::Accepted && dialog.calibration())
        applyCalibration(dialog.calibration());
}

bool MainWindow::applyCalibration(const std::optional<core::Calibration>& calibration)
{
    core::Scenario target = m_document->scenario();
    if (target.calibration == calibration)
        return true;
    target.calibration = calibration;
    const bool applied = m_edits->apply(
        target, calibration ? tr("Calibrate from Measured Runs") : tr("Use Built-in Calibration"),
        false);
    if (applied && calibration)
        statusBar()->showMessage(QString::fromStdString(core::calibrationSummary(*calibration)),
                                 8000);
    return applied;
}

} // namespace archipelago::app
