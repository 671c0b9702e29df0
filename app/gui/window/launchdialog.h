// File > Export Launch Settings…: the design point's settings for a training framework
// (core/launch, the same code as `archipelago-cli launch`), previewed as the script for sbatch
// it writes, with what the framework cannot express counted above it.
#pragma once

#include "launch/launchplan.h"
#include "model/evaluation.h"
#include "model/scenario.h"

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace archipelago::app {

class LaunchDialog : public QDialog
{
    Q_OBJECT

public:
    // `baseName` names the suggested file (<baseName>-<framework>.sh in `folder`).
    LaunchDialog(core::Scenario scenario, core::Evaluation evaluation, QString folder,
                 QString baseName, QWidget* parent = nullptr);

    core::Framework framework() const;
    void setFramework(core::Framework framework);
    QString scriptText() const; // the preview: what Save writes
    QString summaryText() const;
    // Writes the script to `path`; false after setting `error` (the dialog stays open).
    bool saveTo(const QString& path, QString* error);

private:
    void refresh();
    void saveInteractively();

    core::Scenario m_scenario;
    core::Catalog m_catalog;
    core::Evaluation m_evaluation;
    QString m_folder;
    QString m_baseName;
    QComboBox* m_framework = nullptr;
    QLabel* m_summary = nullptr;
    QPlainTextEdit* m_preview = nullptr;
};

} // namespace archipelago::app
