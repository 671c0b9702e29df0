// File > Export Data…: the current evaluation, the comparison of the pinned design points or
// the last sweep, as CSV or JSON (chosen by the file's extension), written atomically with the
// core writers the CLI uses (io/evaluationcsv.h, explore/sweepcsv.h, io/textfile.h), so that a
// file exported from the window and `archipelago-cli evaluate --csv` hold the same columns.
#pragma once

#include "explore/sweep.h"
#include "model/evaluation.h"
#include "model/scenario.h"

#include <QColor>
#include <QDialog>
#include <QList>
#include <QString>

#include <memory>
#include <optional>
#include <string>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace archipelago::app {

class MainWindow;

enum class ExportSource
{
    Evaluation, // the current design point's evaluation
    Comparison, // the pinned design points and the current one
    Sweep,      // the last sweep's top lists and fronts
};

enum class ExportFormat
{
    Csv,
    Json,
};

// What there is to export, copied so that an evaluation or a sweep that finishes while the
// dialog is open changes nothing under it.
struct ExportInput
{
    struct Point
    {
        QString name;
        QColor color;
        core::Scenario scenario;
        std::shared_ptr<const core::Evaluation> evaluation; // nullptr: being computed
    };

    QString documentName; // the scenario's file, or its display name when untitled
    std::shared_ptr<const core::Evaluation> evaluation; // nullptr before the first
    QList<Point> comparison;                            // the pins, then the current point
    std::optional<core::SweepResult> sweep;

    bool has(ExportSource source) const;
};

// The window's data: its evaluation, its pins and current point, and `lastSweep` when given
// (the Explore panel's last result; nullptr: no sweep to offer).
ExportInput exportInputOf(const MainWindow& window, const core::SweepResult* lastSweep = nullptr);

// ".json" (any case) is JSON; anything else CSV.
ExportFormat exportFormatFor(const QString& path);
// The text of `source` in `format`, or nullopt when the input lacks that source.
std::optional<std::string> exportText(const ExportInput& input, ExportSource source,
                                      ExportFormat format);
// Writes `source` to `path` in the format of its extension, atomically; false after setting
// `error` to why not.
bool writeExport(const ExportInput& input, ExportSource source, const QString& path,
                 QString* error);

// What to export (the sources the input lacks are listed, disabled), the format and the file;
// OK writes it and closes, a failure is shown in the dialog, which stays open.
class ExportDataDialog : public QDialog
{
    Q_OBJECT

public:
    ExportDataDialog(ExportInput input, const QString& suggestedFolder, QWidget* parent = nullptr);

    ExportSource source() const;
    void setSource(ExportSource source); // ignored when the input lacks it
    ExportFormat format() const;
    void setFormat(ExportFormat format);
    QString path() const;
    void setPath(const QString& path);
    QString errorText() const; // the last failure, or ""

    void accept() override;

private:
    void browse();
    void onFormatChanged();
    void onPathEdited();
    void updateOk();
    QString suggestedPath() const;

    ExportInput m_input;
    QString m_folder;
    QComboBox* m_source = nullptr;
    QComboBox* m_format = nullptr;
    QLineEdit* m_path = nullptr;
    QLabel* m_error = nullptr;
    QPushButton* m_ok = nullptr;
    bool m_pathEdited = false;
};

// The dialog, modal; true when a file was written.
bool showExportDataDialog(QWidget* parent, ExportInput input, const QString& suggestedFolder);

} // namespace archipelago::app
