// The questions the main window asks the user (save changes? which file?) and the errors it
// shows, behind one interface so that tests and --screenshot run without modal dialogs.
#pragma once

#include "editing/editvalidation.h"
#include "io/scenarioio.h"

#include <QDateTime>
#include <QStringList>

#include <vector>

class QWidget;

namespace archipelago::app {

class Prompts
{
public:
    enum class SaveChoice
    {
        Save,
        Discard,
        Cancel
    };

    virtual ~Prompts() = default;

    virtual SaveChoice askSaveChanges(QWidget* parent, const QString& documentName);
    // An empty string means the user cancelled.
    virtual QString askOpenFileName(QWidget* parent, const QString& folder);
    virtual QString askSaveFileName(QWidget* parent, const QString& suggestedPath);
    virtual void showLoadErrors(QWidget* parent, const QString& path,
                                const std::vector<core::Diagnostic>& errors);
    virtual void showError(QWidget* parent, const QString& title, const QString& message);
    // An autosaved copy of `documentName` from `when` is newer than the file: recover it, keep
    // it for later, or discard it? Only Discard deletes the copy.
    enum class RecoverChoice
    {
        Recover,
        Later,
        Discard
    };
    // `fileName` is the document's file ("" for untitled work); `when`, the copy's time.
    virtual RecoverChoice askRecover(QWidget* parent, const QString& fileName,
                                     const QDateTime& when);
    // An edit only stays valid if the workload's global batch changes (`question` says from
    // what to what, and why): change it as part of the edit, keep it and leave GPUs idle (when
    // the question offers that), or cancel the edit? A side effect on the workload is never
    // silent.
    virtual BatchReply askChangeGlobalBatch(QWidget* parent, const BatchQuestion& question);
};

// Answers without asking: discard changes, cancel file dialogs (or answer Save As with
// saveAsPath), record the errors. For --screenshot and the tests.
class SilentPrompts : public Prompts
{
public:
    SaveChoice askSaveChanges(QWidget*, const QString&) override;
    QString askOpenFileName(QWidget*, const QString&) override { return {}; }
    QString askSaveFileName(QWidget*, const QString&) override { return saveAsPath; }
    void showLoadErrors(QWidget*, const QString& path,
                        const std::vector<core::Diagnostic>& errors) override;
    void showError(QWidget*, const QString& title, const QString& message) override;
    RecoverChoice askRecover(QWidget*, const QString& fileName, const QDateTime&) override
    {
        ++recoverQuestions;
        recoverFiles.append(fileName);
        return recover;
    }

    SaveChoice saveChoice = SaveChoice::Discard;
    QString saveAsPath; // the answer to "Save As"; empty cancels
    int saveQuestions = 0;
    // The answer to "recover the autosaved copy?": not asked, nothing is deleted.
    RecoverChoice recover = RecoverChoice::Later;
    int recoverQuestions = 0;
    QStringList recoverFiles; // the documents asked about, in order ("" for untitled work)
    BatchReply askChangeGlobalBatch(QWidget*, const BatchQuestion& question) override
    {
        batchQuestions.append(question.question);
        batchOffers.append(question);
        return {batchAnswer, batchRemember};
    }
    // The answer to "change the global batch with the edit?", and whether it stands
    BatchAnswer batchAnswer = BatchAnswer::ChangeBatch;
    bool batchRemember = false;
    QStringList batchQuestions;       // the questions asked, in order
    QList<BatchQuestion> batchOffers; // the same, with what keeping the batch would mean
    QStringList errors;               // one line per diagnostic or error shown
};

} // namespace archipelago::app
