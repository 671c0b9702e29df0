// File > Calibrate from Measured Runs… (app/gui/window/calibrationdialog.h): runs files added,
// the design's accelerator chosen first, a fit in the background with the leave-one-out table,
// the calibration saved and made the design's in one undoable edit, the evaluation summary
// naming it, and a document saved elsewhere still finding its calibration file.
#include "evaluation/costmodel.h"
#include "io/calibrationio.h"
#include "io/scenarioio.h"
#include "tables/evaluationsummary.h"
#include "window/calibrationdialog.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace archipelago;

namespace {

const QString kPreset =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR) + QStringLiteral("/presets/gpt3-175b-1024-a100.json");
const QString kRuns = QStringLiteral(ARCHIPELAGO_VALIDATION_DIR) +
                      QStringLiteral("/published-runs-h100-megascale.json");

} // namespace

class TestCalibrationDialog : public QObject
{
    Q_OBJECT
private slots:
    void fitSaveAndUse();
    void refusalIsShownNotSaved();
    void defaultSetKeepsWhatRunsIdentify();
    void summaryNamesTheCalibration();
};

void TestCalibrationDialog::fitSaveAndUse()
{
    QTemporaryDir dir;
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    QVERIFY(window.openFile(kPreset));
    const core::Scenario before = window.document()->scenario();
    app::CalibrationDialog dialog("A100-SXM4-80GB", dir.path());
    QString error;
    QVERIFY(!dialog.addRunsFile(dir.filePath(QStringLiteral("none.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("none.json")), qPrintable(error));
    QVERIFY2(dialog.addRunsFile(kRuns, &error), qPrintable(error));
    // The same runs twice would count them twice.
    QVERIFY(!dialog.addRunsFile(kRuns, &error));
    QVERIFY(error.contains(QStringLiteral("already added")));
    auto* accelerator = dialog.findChild<QComboBox*>(QStringLiteral("calibrationAccelerator"));
    QVERIFY(accelerator);
    QCOMPARE(accelerator->count(), 2);
    QCOMPARE(accelerator->currentData().toString(), QStringLiteral("A100-SXM4-80GB"));
    auto* use = dialog.findChild<QPushButton*>(QStringLiteral("calibrationUse"));
    QVERIFY(use && !use->isEnabled());

    dialog.setFitted({QStringLiteral("gemm_peak")});
    QSignalSpy finished(&dialog, &app::CalibrationDialog::finished);
    dialog.fit();
    QVERIFY(finished.wait(60000));
    QVERIFY2(dialog.calibration().has_value(), qPrintable(dialog.resultText()));
    QVERIFY(use->isEnabled());
    QVERIFY(dialog.resultText().contains(QStringLiteral("leave-one-out")));
    QVERIFY(dialog.resultText().contains(QStringLiteral("megascale2024-t2-megascale-256gpus")));
    QCOMPARE(dialog.calibration()->runs, 4);
    QCOMPARE(dialog.calibration()->fitted.size(), std::size_t{1});

    const QString file = dir.filePath(QStringLiteral("a100-calibration.json"));
    QVERIFY(dialog.save(file, &error));
    QVERIFY(core::loadCalibrationFile(file.toStdString()).ok());
    QCOMPARE(QString::fromStdString(dialog.calibration()->file), file);

    QVERIFY(window.applyCalibration(dialog.calibration()));
    QVERIFY(window.document()->scenario().calibration.has_value());
    QCOMPARE(window.document()->undoStack()->undoText(),
             QStringLiteral("Calibrate from Measured Runs"));
    QVERIFY(core::evaluate(window.document()->scenario()).calibration.has_value());

    // Saved in a folder of its own, the document names the calibration relative to itself, and
    // reopened finds it.
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("designs")));
    const QString saved = dir.filePath(QStringLiteral("designs/calibrated.json"));
    QVERIFY(window.document()->save(saved));
    QFile text(saved);
    QVERIFY(text.open(QIODevice::ReadOnly));
    QVERIFY(text.readAll().contains("\"calibration\": \"../a100-calibration.json\""));
    const core::LoadResult reopened = core::loadScenarioFile(saved.toStdString());
    QVERIFY(reopened.ok());
    QCOMPARE(reopened.scenario->calibration->fitted, dialog.calibration()->fitted);

    // Use Built-in Calibration, then undo twice: the design as it was.
    QVERIFY(window.applyCalibration(std::nullopt));
    QVERIFY(!window.document()->scenario().calibration);
    QCOMPARE(window.document()->undoStack()->undoText(),
             QStringLiteral("Use Built-in Calibration"));
    window.document()->undoStack()->undo();
    QVERIFY(window.document()->scenario().calibration.has_value());
    window.document()->undoStack()->undo();
    QCOMPARE(window.document()->scenario(), before);
}

void TestCalibrationDialog::refusalIsShownNotSaved()
{
    QTemporaryDir dir;
    app::CalibrationDialog dialog("H100-SXM5-80GB", dir.path());
    QString error;
    QVERIFY(dialog.addRunsFile(kRuns, &error));
    // Dense runs do not move with the expert all-to-all's interference.
    dialog.setFitted({QStringLiteral("ep_comm_interference")});
    QSignalSpy finished(&dialog, &app::CalibrationDialog::finished);
    dialog.fit();
    QVERIFY(finished.wait(60000));
    QVERIFY(!dialog.calibration());
    QVERIFY2(dialog.resultText().contains(
                 QStringLiteral("Cannot calibrate: ep_comm_interference: no run's predicted time")),
             qPrintable(dialog.resultText()));
    QVERIFY(!dialog.findChild<QPushButton*>(QStringLiteral("calibrationUse"))->isEnabled());
    QVERIFY(!dialog.save(dir.filePath(QStringLiteral("x.json")), &error));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x.json"))));
}

void TestCalibrationDialog::defaultSetKeepsWhatRunsIdentify()
{
    // MegaScale's four A100 rows are one job at four sizes: gemm_peak and memory_bound move
    // them in proportion. The boxes as they open fit what the runs identify, and say so.
    QTemporaryDir dir;
    app::CalibrationDialog dialog("A100-SXM4-80GB", dir.path());
    QString error;
    QVERIFY(dialog.addRunsFile(kRuns, &error));
    QSignalSpy finished(&dialog, &app::CalibrationDialog::finished);
    dialog.fit();
    QVERIFY(finished.wait(60000));
    QVERIFY2(dialog.calibration().has_value(), qPrintable(dialog.resultText()));
    QCOMPARE(dialog.calibration()->fitted.size(), std::size_t{1});
    QVERIFY(dialog.resultText().contains(QStringLiteral("Note: memory_bound not fitted")));
}

void TestCalibrationDialog::summaryNamesTheCalibration()
{
    views::EvaluationSummary summary;
    core::Evaluation e;
    e.ok = true;
    summary.setEvaluation(e);
    QCOMPARE(summary.figure(QStringLiteral("Calibration")), QStringLiteral("built-in"));
    core::Calibration c;
    c.file = "/data/h100.json";
    c.accelerator = "H100-SXM5-80GB";
    c.fitted = {{"gemm_peak", 0.66}};
    c.runs = 4;
    c.leaveOneOutMeanError = 0.0267;
    e.calibration = c;
    summary.setEvaluation(e);
    QCOMPARE(summary.figure(QStringLiteral("Calibration")),
             QStringLiteral("4 runs, leave-one-out error 2.7 %"));
    QVERIFY(summary.figureToolTip(QStringLiteral("Calibration"))
                .contains(QStringLiteral("/data/h100.json")));
}

QTEST_MAIN(TestCalibrationDialog)
#include "test_calibrationdialog.moc"
