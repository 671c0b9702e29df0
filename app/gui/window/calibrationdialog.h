// File > Calibrate from Measured Runs…: one accelerator's efficiency parameters fitted on the
// user's runs files (core::calibrate, as `archipelago-cli calibrate` does), in a background
// thread with progress and Cancel; the per-run table with the leave-one-out error beside the
// in-sample one, or why the runs do not identify the parameters asked for. "Save and Use…"
// writes the calibration file and hands it to the window, which makes it the design's
// calibration in one undoable edit.
#pragma once

#include "model/calibration.h"
#include "validation/calibration.h"
#include "validation/publishedruns.h"

#include <QDialog>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QThread;

namespace archipelago::app {

class CalibrationDialog : public QDialog
{
    Q_OBJECT

public:
    // `accelerator`: the design's, chosen first when the runs hold it; `folder`: where the
    // calibration file is offered.
    CalibrationDialog(const std::string& accelerator, QString folder, QWidget* parent = nullptr);
    ~CalibrationDialog() override;

    // Adds a runs file's runs; false with `error` (the file, the JSON pointer, what was
    // expected) when it cannot be read.
    bool addRunsFile(const QString& path, QString* error);
    // Parameter names to fit, refused if the runs do not identify them; until the boxes are
    // changed, the default set is fitted, less what the runs do not identify.
    void setFitted(const QStringList& parameters);
    // Starts the fit; `finished` is emitted when it ends.
    void fit();
    bool running() const { return m_thread != nullptr; }
    // Writes the last fit's calibration to `path`; false with `error`.
    bool save(const QString& path, QString* error);

    QString resultText() const; // the table, or why nothing was fitted
    const std::optional<core::Calibration>& calibration() const { return m_calibration; }
    QString savedPath() const { return m_savedPath; }

signals:
    void finished();

protected:
    void reject() override;

private:
    void refreshRuns();
    void finishFit(std::shared_ptr<core::CalibrationOutcome> outcome);
    void saveInteractively();

    std::string m_preferredAccelerator;
    QString m_folder;
    QStringList m_files;
    std::vector<core::PublishedRun> m_runs;
    std::optional<core::Calibration> m_calibration;
    std::shared_ptr<core::CalibrationOutcome> m_outcome;
    QString m_savedPath;
    QThread* m_thread = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_defaultFit = true; // the parameter boxes as they opened: the default set

    QLabel* m_runsLabel = nullptr;
    QComboBox* m_accelerator = nullptr;
    std::vector<QCheckBox*> m_parameters;
    QPushButton* m_fit = nullptr;
    QProgressBar* m_progress = nullptr;
    QPlainTextEdit* m_result = nullptr;
    QPushButton* m_use = nullptr;
};

} // namespace archipelago::app
