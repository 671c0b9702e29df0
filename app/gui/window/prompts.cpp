#include "window/prompts.h"

#include "window/diagnosticsdialog.h"

#include "common/format.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QStringList>

#include <algorithm>

namespace archipelago::app {

namespace {

const QString kScenarioFilter = QStringLiteral("Archipelago scenarios (*.json);;All files (*)");

} // namespace

Prompts::SaveChoice Prompts::askSaveChanges(QWidget* parent, const QString& documentName)
{
    QMessageBox box(QMessageBox::Warning, QObject::tr("Unsaved changes"),
                    QObject::tr("Save the changes to “%1”?").arg(documentName),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setInformativeText(QObject::tr("Your changes are lost if you don't save them."));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return SaveChoice::Save;
    case QMessageBox::Discard:
        return SaveChoice::Discard;
    default:
        return SaveChoice::Cancel;
    }
}

QString Prompts::askOpenFileName(QWidget* parent, const QString& folder)
{
    return QFileDialog::getOpenFileName(parent, QObject::tr("Open Scenario"), folder,
                                        kScenarioFilter);
}

QString Prompts::askSaveFileName(QWidget* parent, const QString& suggestedPath)
{
    QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Save Scenario As"),
                                                suggestedPath, kScenarioFilter);
    if (!path.isEmpty() && !path.contains(QLatin1Char('.')))
        path += QStringLiteral(".json");
    return path;
}

void Prompts::showLoadErrors(QWidget* parent, const QString& path,
                             const std::vector<core::Diagnostic>& errors)
{
    DiagnosticsDialog dialog(path, errors, parent);
    dialog.exec();
}

void Prompts::showError(QWidget* parent, const QString& title, const QString& message)
{
    QMessageBox::critical(parent, title, message);
}

Prompts::RecoverChoice Prompts::askRecover(QWidget* parent, const QString& fileName,
                                           const QDateTime& when)
{
    const QString time = QLocale().toString(when, QLocale::ShortFormat);
    const QString text =
        fileName.isEmpty()
            ? QObject::tr("Archipelago did not close normally. Untitled work, never saved to a "
                          "file, was autosaved at %1.")
                  .arg(time)
            : QObject::tr("Archipelago did not close normally. An autosaved copy of “%1” from "
                          "%2 is newer than the file.\n\n%3")
                  .arg(QFileInfo(fileName).fileName(), time, QDir::toNativeSeparators(fileName));
    QMessageBox box(QMessageBox::Question, QObject::tr("Recover Unsaved Changes"), text,
                    QMessageBox::NoButton, parent);
    box.setInformativeText(
        fileName.isEmpty()
            ? QObject::tr("Recover it? “Not Now” keeps the copy and asks again at the next "
                          "start; “Discard Copy” deletes it.")
            : QObject::tr("Recover the autosaved changes? “Not Now” keeps the copy and asks "
                          "again at the next start or when the file is opened; “Discard Copy” "
                          "deletes it."));
    QPushButton* recover = box.addButton(QObject::tr("Recover"), QMessageBox::AcceptRole);
    QPushButton* later = box.addButton(QObject::tr("Not Now"), QMessageBox::RejectRole);
    QPushButton* discard = box.addButton(QObject::tr("Discard Copy"), QMessageBox::DestructiveRole);
    box.setDefaultButton(recover);
    box.setEscapeButton(later);
    box.exec();
    if (box.clickedButton() == recover)
        return RecoverChoice::Recover;
    if (box.clickedButton() == discard)
        return RecoverChoice::Discard;
    return RecoverChoice::Later;
}

BatchReply Prompts::askChangeGlobalBatch(QWidget* parent, const BatchQuestion& question)
{
    const QLocale english(QLocale::English);
    QString text = question.question;
    if (question.canKeepBatch()) {
        // What the idle GPUs cost, when the catalog prices the cluster.
        QString cost;
        if (question.keepIdleRunUsd > 0.0)
            cost = QObject::tr(": %1 an hour, %2 over the run")
                       .arg(views::formatUsd(question.keepIdleUsdPerHour),
                            views::formatUsd(question.keepIdleRunUsd));
        else if (question.keepIdleUsdPerHour > 0.0)
            cost = QObject::tr(": %1 an hour").arg(views::formatUsd(question.keepIdleUsdPerHour));
        text +=
            QObject::tr("\n\nOr keep %1 sequences with DP %2 instead: %3 of %4 GPUs (%5) "
                        "sit idle, paid for and doing nothing%6.")
                .arg(english.toString(question.batchBefore),
                     english.toString(question.keepDataParallel),
                     english.toString(question.keepIdleGpus), english.toString(question.totalGpus),
                     QStringLiteral("%1 %").arg(
                         100.0 * static_cast<double>(question.keepIdleGpus) /
                             static_cast<double>(std::max<std::int64_t>(1, question.totalGpus)),
                         0, 'f', 0),
                     cost);
    }
    QMessageBox box(QMessageBox::Question, QObject::tr("Change the Global Batch?"), text,
                    QMessageBox::NoButton, parent);
    QPushButton* change = box.addButton(
        QObject::tr("Change the Batch to %1").arg(english.toString(question.batchAfter)),
        QMessageBox::AcceptRole);
    QPushButton* keep = nullptr;
    if (question.canKeepBatch())
        keep = box.addButton(QObject::tr("Keep %1, %2 GPUs Idle")
                                 .arg(english.toString(question.batchBefore),
                                      english.toString(question.keepIdleGpus)),
                             QMessageBox::AcceptRole);
    box.addButton(QObject::tr("Cancel the Edit"), QMessageBox::RejectRole);
    box.setInformativeText(
        QObject::tr("%1. A different global batch is a different training job: design points "
                    "with different batches do not compare like for like.")
            .arg(question.edit));
    // Building a plan bottom-up changes DP at every step: one answer can stand for the rest.
    auto* remember = new QCheckBox(
        QObject::tr("Do the same for the rest of this session (Edit > Global Batch When DP "
                    "Changes)"));
    box.setCheckBox(remember);
    box.setDefaultButton(change);
    box.exec();
    const bool kept = keep && box.clickedButton() == keep;
    if (box.clickedButton() != change && !kept)
        return {BatchAnswer::Cancel, false};
    return {kept ? BatchAnswer::KeepBatch : BatchAnswer::ChangeBatch, remember->isChecked()};
}

Prompts::SaveChoice SilentPrompts::askSaveChanges(QWidget*, const QString&)
{
    ++saveQuestions;
    return saveChoice;
}

void SilentPrompts::showLoadErrors(QWidget*, const QString&,
                                   const std::vector<core::Diagnostic>& diagnostics)
{
    for (const core::Diagnostic& d : diagnostics)
        errors << QString::fromStdString(d.toString());
}

void SilentPrompts::showError(QWidget*, const QString& title, const QString& message)
{
    errors << title + QStringLiteral(": ") + message;
}

} // namespace archipelago::app
