// Inputs that once broke a reader (found by the fuzzers in tests/fuzz, or written by hand to
// reach the same limits): every reader must return on each of them, with or without errors.
// Under the asan preset any memory error or undefined behaviour fails this test.
#include "explore/sweep.h"
#include "explore/sweepmerge.h"
#include "explore/sweepsave.h"
#include "io/calibrationio.h"
#include "io/jsondocument.h"
#include "io/scenarioio.h"
#include "launch/launchimport.h"
#include "model/scenariotemplates.h"
#include "validation/measuredrun.h"
#include "validation/publishedruns.h"
#include "validation/runlog.h"
#include "validation/unpublishedknobs.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <string>
#include <vector>

using namespace archipelago;

class TestFuzzRegressions : public QObject
{
    Q_OBJECT

private slots:
    void readersReturn_data();
    void readersReturn();
};

void TestFuzzRegressions::readersReturn_data()
{
    QTest::addColumn<QString>("path");
    const QDir dir(QStringLiteral(ARCHIPELAGO_TEST_DATA "/fuzz-regressions"));
    const QStringList files = dir.entryList(QDir::Files, QDir::Name);
    QVERIFY2(!files.isEmpty(), "no inputs in tests/data/fuzz-regressions");
    for (const QString& name : files)
        QTest::newRow(qPrintable(name)) << dir.filePath(name);
}

void TestFuzzRegressions::readersReturn()
{
    QFETCH(QString, path);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    const std::string_view text(bytes.constData(), static_cast<std::size_t>(bytes.size()));

    // What the fuzz targets run (tests/fuzz/fuzz_*.cpp).
    const core::LoadResult scenario = core::parseScenario(text, "regression.json");
    if (scenario.ok()) {
        (void)core::checkScenario(*scenario.scenario, core::builtinCatalog());
        (void)core::serializeScenario(*scenario.scenario, scenario.pins);
    } else {
        QVERIFY(!scenario.errors.empty()); // a refusal always says why
    }
    const core::PublishedRunsLoad runs = core::parsePublishedRuns(text, "regression.json");
    // The unpublished knobs' search simulates at most its bound in each of its two sweeps, plus
    // each sweep's base (a hostile run once made it simulate for minutes).
    constexpr std::int64_t kMostCells = 2 * (core::kMaxKnobSearchCells + core::kMaxSweepCells);
    if (runs.ok())
        for (const core::PublishedRun& run : runs.runs)
            QVERIFY(core::scenarioForRun(run, core::builtinCatalog()).searchCells <= kMostCells);
    std::vector<core::Diagnostic> errors;
    const std::optional<core::Catalog> catalog =
        core::parseCatalog(text, "regression.json", errors);
    QVERIFY(catalog.has_value() || !errors.empty());
    // merge's reader of a shard's output, alone and given twice.
    core::DiagnosticSink sink("regression.json");
    core::Json parsed;
    if (core::parseJsonDocument(text, parsed, sink)) {
        const nlohmann::json shard(parsed);
        for (int copies : {1, 2}) {
            core::SweepMerger merger;
            for (int i = 0; i < copies; ++i)
                merger.add("regression.json", shard);
            const core::SweepMergeResult r = merger.finish();
            QVERIFY(r.merged.has_value() || !r.errors.empty());
        }
    }
    // The reader of a scenario's saved sweep (its explore section).
    static const core::Scenario base = core::minimalScenario();
    core::DiagnosticSink saved("regression.json");
    if (!core::readSavedSweep(text, base, saved))
        QVERIFY(saved.hasErrors());
    // The launch-settings import, as each framework (fuzz_launchimport picks by the first byte).
    for (core::Framework f :
         {core::Framework::MegatronLm, core::Framework::Nemo, core::Framework::TorchTitan}) {
        const core::ImportedSettings imported =
            core::importLaunchSettings(f, text, base, "regression.sh");
        QVERIFY(imported.scenario.has_value() || !imported.errors.empty());
    }
    QVERIFY(!core::parsePipelineLayout("(t*99999|)*99999").has_value());
    // The calibration file and the training logs (fuzz_calibration picks by the first byte).
    const core::CalibrationLoad calibration = core::parseCalibration(text, "regression.json");
    QVERIFY(calibration.ok() || !calibration.errors.empty());
    for (core::Framework f :
         {core::Framework::MegatronLm, core::Framework::Nemo, core::Framework::TorchTitan}) {
        const core::IterationLog log = core::readIterationLog(f, text, 1048576.0, 8);
        QVERIFY(log.ok() || !log.error.empty());
        (void)core::argumentMismatches(log.arguments, base);
    }
}

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "test_fuzzregressions.moc"
