// File > Import Launch Settings…: a pasted command line, launch script, NeMo recipe YAML or
// TorchTitan TOML read onto the current design (core::importLaunchSettings, as
// `archipelago-cli import` does), with what it sets, keeps and ignores shown as it is typed.
#pragma once

#include "launch/launchimport.h"
#include "model/scenario.h"

#include <QDialog>
#include <QString>

#include <optional>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace archipelago::app {

class ImportDialog : public QDialog
{
    Q_OBJECT

public:
    explicit ImportDialog(core::Scenario base, QWidget* parent = nullptr);

    core::Framework framework() const;
    void setFramework(core::Framework framework);
    void setText(const QString& text);
    // The scenario the settings make over the base; nullopt while they cannot be imported.
    const std::optional<core::Scenario>& importedScenario() const { return m_result.scenario; }
    const core::ImportedSettings& result() const { return m_result; }
    QString reportText() const; // what the dialog shows under the text
    bool openFile(const QString& path, QString* error);

private:
    void refresh();

    core::Scenario m_base;
    core::ImportedSettings m_result;
    QString m_source = QStringLiteral("pasted text");
    QComboBox* m_framework = nullptr;
    QPlainTextEdit* m_text = nullptr;
    QLabel* m_report = nullptr;
    QPushButton* m_import = nullptr;
};

} // namespace archipelago::app
