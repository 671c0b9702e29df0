// File > Export Data… (app/gui/window/exportdata.h): each source in CSV and JSON, the format chosen
// by the extension, the dialog offering only what there is (no sweep before one has run), a failed
// write shown in the dialog, and the window's menu entry and data.
#include "document/evaluator.h"
#include "document/presetlibrary.h"
#include "evaluation/costmodel.h"
#include "explore/sweepcsv.h"
#include "io/evaluationcsv.h"
#include "io/scenarioio.h"
#include "window/exportdata.h"
#include "window/importdialog.h"
#include "window/launchdialog.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <nlohmann/json.hpp>

using namespace archipelago;
using app::ExportFormat;
using app::ExportSource;

namespace {

const QString kPreset =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR) + QStringLiteral("/presets/gpt3-175b-1024-a100.json");

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestExportData : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void textOfEachSource();
    void formatFollowsExtension();
    void dialogOffersWhatThereIs();
    void dialogShowsFailure();
    void windowExportsItsData();
    void launchDialogPreviewsAndSaves();
    void importDialogAppliesOneUndoStep();

private:
    app::ExportInput m_input; // evaluation and two points, no sweep
    core::SweepResult m_sweep;
};

void TestExportData::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ArchipelagoTest"));
    const core::LoadResult load = core::loadScenarioFile(kPreset.toStdString());
    QVERIFY(load.ok());
    const auto evaluation =
        std::make_shared<const core::Evaluation>(core::evaluate(*load.scenario));
    QVERIFY(evaluation->ok);
    core::Scenario other = *load.scenario;
    other.parallelism.pp = 16;
    m_input.documentName = kPreset;
    m_input.evaluation = evaluation;
    m_input.comparison.append({QStringLiteral("Pin, \"one\""), QColor(0x11, 0x22, 0x33), other,
                               std::make_shared<const core::Evaluation>(core::evaluate(other))});
    m_input.comparison.append({QStringLiteral("Current"), QColor(), *load.scenario, evaluation});
    core::SearchSpace space = core::defaultSearchSpace(*load.scenario);
    core::SweepOptions options;
    options.top = 3;
    m_sweep =
        core::runSweep(*load.scenario, core::effectiveCatalog(*load.scenario), space, options);
    QVERIFY(m_sweep.ok);
}

void TestExportData::textOfEachSource()
{
    const std::string file = kPreset.toStdString();
    QCOMPARE(app::exportText(m_input, ExportSource::Evaluation, ExportFormat::Csv).value(),
             core::evaluationToCsv(file, *m_input.evaluation));
    const nlohmann::json ev = nlohmann::json::parse(
        app::exportText(m_input, ExportSource::Evaluation, ExportFormat::Json).value());
    QCOMPARE(ev["iteration_time_s"].get<double>(), m_input.evaluation->iterationTimeS);
    QCOMPARE(ev["file"].get<std::string>(), file);

    const std::string pins =
        app::exportText(m_input, ExportSource::Comparison, ExportFormat::Csv).value();
    QVERIFY(pins.starts_with("name,color,tp,"));
    QVERIFY(pins.find("\"Pin, \"\"one\"\"\",#112233,") != std::string::npos);
    QVERIFY(pins.find("\r\nCurrent,,") != std::string::npos);
    const nlohmann::json pinsJson = nlohmann::json::parse(
        app::exportText(m_input, ExportSource::Comparison, ExportFormat::Json).value());
    QCOMPARE(pinsJson.size(), std::size_t{2});
    QCOMPARE(pinsJson[0]["knobs"]["pp"].get<int>(), 16);

    // No sweep yet: nothing to export; with one, the core's CSV.
    QVERIFY(!app::exportText(m_input, ExportSource::Sweep, ExportFormat::Csv));
    app::ExportInput withSweep = m_input;
    withSweep.sweep = m_sweep;
    QCOMPARE(app::exportText(withSweep, ExportSource::Sweep, ExportFormat::Csv).value(),
             core::sweepResultToCsv(file, m_sweep));
    const nlohmann::json sweep = nlohmann::json::parse(
        app::exportText(withSweep, ExportSource::Sweep, ExportFormat::Json).value());
    QVERIFY(sweep.contains("top_by_objective"));
    // A pin still being evaluated has its knobs and empty figures.
    app::ExportInput pending = m_input;
    pending.comparison[0].evaluation = nullptr;
    const nlohmann::json p = nlohmann::json::parse(
        app::exportText(pending, ExportSource::Comparison, ExportFormat::Json).value());
    QVERIFY(p[0]["evaluation"].is_null());
}

void TestExportData::formatFollowsExtension()
{
    QCOMPARE(app::exportFormatFor(QStringLiteral("/a/b.json")), ExportFormat::Json);
    QCOMPARE(app::exportFormatFor(QStringLiteral("/a/b.JSON")), ExportFormat::Json);
    QCOMPARE(app::exportFormatFor(QStringLiteral("/a/b.csv")), ExportFormat::Csv);
    QCOMPARE(app::exportFormatFor(QStringLiteral("/a/b.json.csv")), ExportFormat::Csv);
    QTemporaryDir dir;
    QString error;
    const QString json = dir.filePath(QStringLiteral("pins.json"));
    QVERIFY(app::writeExport(m_input, ExportSource::Comparison, json, &error));
    QVERIFY(nlohmann::json::parse(readAll(json).toStdString()).is_array());
    const QString csv = dir.filePath(QStringLiteral("pins.CSV"));
    QVERIFY(app::writeExport(m_input, ExportSource::Comparison, csv, &error));
    QVERIFY(readAll(csv).startsWith("name,color,"));
    QVERIFY(!app::writeExport(m_input, ExportSource::Sweep, csv, &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(readAll(csv).startsWith("name,color,")); // the failure left the file alone
}

void TestExportData::dialogOffersWhatThereIs()
{
    QTemporaryDir dir;
    {
        app::ExportDataDialog dialog(m_input, dir.path());
        auto* source = dialog.findChild<QComboBox*>(QStringLiteral("exportSource"));
        QVERIFY(source);
        auto* model = qobject_cast<QStandardItemModel*>(source->model());
        QVERIFY(model);
        QCOMPARE(source->count(), 3);
        QVERIFY(model->item(0)->isEnabled());
        QVERIFY(model->item(1)->isEnabled());
        QVERIFY(!model->item(2)->isEnabled()); // no sweep
        QCOMPARE(dialog.source(), ExportSource::Evaluation);
        dialog.setSource(ExportSource::Sweep);
        QCOMPARE(dialog.source(), ExportSource::Evaluation);
        // The suggested file: beside the document, named after it and the source, as CSV.
        QCOMPARE(dialog.path(), dir.filePath(QStringLiteral("gpt3-175b-1024-a100-evaluation.csv")));
        dialog.setSource(ExportSource::Comparison);
        QVERIFY(dialog.path().endsWith(QStringLiteral("-comparison.csv")));
        // The format renames the extension; a typed extension picks the format.
        dialog.setFormat(ExportFormat::Json);
        QVERIFY(dialog.path().endsWith(QStringLiteral("-comparison.json")));
        dialog.setPath(dir.filePath(QStringLiteral("mine.csv")));
        QCOMPARE(dialog.format(), ExportFormat::Csv);
        // No extension: the chosen format's is added.
        dialog.setPath(dir.filePath(QStringLiteral("noext")));
        dialog.setFormat(ExportFormat::Json);
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QVERIFY(
            nlohmann::json::parse(readAll(dir.filePath(QStringLiteral("noext.json"))).toStdString())
                .is_array());
    }
    app::ExportInput withSweep = m_input;
    withSweep.sweep = m_sweep;
    app::ExportDataDialog dialog(withSweep, dir.path());
    dialog.setSource(ExportSource::Sweep);
    QCOMPARE(dialog.source(), ExportSource::Sweep);
    // To look at the dialog: ARCHIPELAGO_GRAB_EXPORT_DIALOG=/tmp/export.png.
    if (const QString grab = qEnvironmentVariable("ARCHIPELAGO_GRAB_EXPORT_DIALOG");
        !grab.isEmpty())
        QVERIFY(dialog.grab().save(grab));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    const QByteArray csv = readAll(dir.filePath(QStringLiteral("gpt3-175b-1024-a100-sweep.csv")));
    QVERIFY(csv.startsWith("list,rank,"));
    QVERIFY(csv.contains("\r\ntop_iteration_time,1,"));
}

void TestExportData::dialogShowsFailure()
{
    QTemporaryDir dir;
    app::ExportDataDialog dialog(m_input, dir.path());
    dialog.setPath(dir.filePath(QStringLiteral("no/such/folder/x.csv")));
    dialog.accept();
    QVERIFY(dialog.result() != QDialog::Accepted);
    QVERIFY(dialog.errorText().contains(QStringLiteral("Cannot write")));
    dialog.setPath(QString());
    dialog.accept();
    QVERIFY(dialog.result() != QDialog::Accepted);
}

void TestExportData::windowExportsItsData()
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    QSignalSpy published(window.evaluator(), &app::Evaluator::evaluated);
    QVERIFY(window.openFile(kPreset));
    QVERIFY(published.wait(20'000) || window.evaluator()->evaluation());
    QTRY_VERIFY_WITH_TIMEOUT(!window.evaluator()->isBusy(), 20'000);
    window.pinCurrent();
    QAction* action = nullptr;
    for (QAction* a : window.menuBar()->findChildren<QAction*>())
        if (a->text() == QStringLiteral("Export &Data…"))
            action = a;
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+E")));
    QTRY_VERIFY_WITH_TIMEOUT(window.pinnedPoints().size() == 1, 20'000);
    const app::ExportInput input = app::exportInputOf(window);
    QVERIFY(input.has(ExportSource::Evaluation));
    QVERIFY(!input.has(ExportSource::Sweep));
    QCOMPARE(input.comparison.size(), qsizetype{2}); // the pin and the current point
    QCOMPARE(input.documentName, kPreset);
    const nlohmann::json ev = nlohmann::json::parse(
        app::exportText(input, ExportSource::Evaluation, ExportFormat::Json).value());
    QCOMPARE(ev["iteration_time_s"].get<double>(), m_input.evaluation->iterationTimeS);
    QVERIFY(app::exportInputOf(window, &m_sweep).has(ExportSource::Sweep));
}

// File > Export Launch Settings…: the preview is the CLI's script (core/launch), it follows the
// framework chosen, counts what the framework cannot express, and Save writes exactly it.
void TestExportData::launchDialogPreviewsAndSaves()
{
    const core::LoadResult loaded =
        core::loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/deepseek-v3-moe-2048-h800.json");
    QVERIFY(loaded.ok());
    const core::Scenario& scenario = *loaded.scenario;
    const core::Catalog catalog = core::effectiveCatalog(scenario);
    const core::Evaluation evaluation = core::evaluate(scenario, catalog);
    QTemporaryDir dir;
    app::LaunchDialog dialog(scenario, evaluation, dir.path(), QStringLiteral("deepseek"));
    QCOMPARE(dialog.framework(), core::Framework::MegatronLm);
    const core::LaunchPlan plan =
        core::launchPlan(scenario, catalog, evaluation, core::Framework::MegatronLm);
    QCOMPARE(dialog.scriptText(),
             QString::fromStdString(core::renderLaunchPlan(plan, ARCHIPELAGO_VERSION)));
    QVERIFY(dialog.scriptText().contains(QStringLiteral("--expert-model-parallel-size 64")));
    QVERIFY2(dialog.summaryText().contains(QStringLiteral("2 knobs the framework cannot express")),
             qPrintable(dialog.summaryText()));
    dialog.setFramework(core::Framework::TorchTitan);
    QVERIFY(dialog.scriptText().contains(QStringLiteral("[parallelism]")));
    QVERIFY(dialog.findChild<QPlainTextEdit*>(QStringLiteral("launchPreview"))->isReadOnly());

    const QString path = dir.filePath(QStringLiteral("deepseek-torchtitan.sh"));
    QString error;
    QVERIFY(dialog.saveTo(path, &error));
    QCOMPARE(QString::fromUtf8(readAll(path)), dialog.scriptText());
    QVERIFY(QFileInfo(path).isExecutable());
    QVERIFY(!dialog.saveTo(dir.filePath(QStringLiteral("missing/x.sh")), &error));
    QVERIFY(error.contains(QStringLiteral("missing")));

    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    QAction* action = nullptr;
    for (QAction* a : window.menuBar()->findChildren<QAction*>())
        if (a->text() == QStringLiteral("Export &Launch Settings…"))
            action = a;
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+L")));
}

// File > Import Launch Settings…: the pasted command is read as it is typed, a bad value
// disables Import with the setting named, and the import is one undoable edit.
void TestExportData::importDialogAppliesOneUndoStep()
{
    app::MainWindow window(std::make_unique<app::SilentPrompts>());
    QVERIFY(window.openFile(kPreset));
    const core::Scenario before = window.document()->scenario();
    app::ImportDialog dialog(before);
    QVERIFY(!dialog.importedScenario());
    auto* accept = dialog.findChild<QPushButton*>(QStringLiteral("importAccept"));
    QVERIFY(accept && !accept->isEnabled());
    dialog.setText(QStringLiteral("python pretrain_gpt.py --tensor-model-parallel-size eight"));
    QVERIFY(!accept->isEnabled());
    QVERIFY2(dialog.reportText().contains(QStringLiteral("--tensor-model-parallel-size: expected "
                                                         "an integer")),
             qPrintable(dialog.reportText()));
    dialog.setText(QStringLiteral("python pretrain_gpt.py --tensor-model-parallel-size 4 \\\n"
                                  "  --pipeline-model-parallel-size 16 --num-layers 96 --lr 1e-4"));
    QVERIFY(accept->isEnabled());
    QVERIFY(dialog.reportText().contains(QStringLiteral("Sets TP 4, CP 1, PP 16")));
    QVERIFY(dialog.reportText().contains(QStringLiteral("Ignored (no knob in the model): --lr")));

    QVERIFY(window.applyImportedSettings(dialog.result(), dialog.framework()));
    QCOMPARE(window.document()->scenario().parallelism.tp, 4);
    QCOMPARE(window.document()->undoStack()->undoText(),
             QStringLiteral("Import Megatron-LM Settings"));
    window.document()->undoStack()->undo();
    QCOMPARE(window.document()->scenario(), before);
}

QTEST_MAIN(TestExportData)
#include "test_exportdata.moc"
