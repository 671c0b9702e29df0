// Links conserve capacity: whatever the schedule, the bytes a DCI link carries in one
// direction per iteration, divided by its capacity per direction, fit in the iteration time.
// Checked on every preset with its DCI links cut to 1, 2, 4 and 8 wavelengths.
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "model/dcilink.h"
#include "model/scheduletraits.h"
#include "network/placement.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <string>

using namespace archipelago::core;

class TestCapacity : public QObject
{
    Q_OBJECT

private slots:
    void dciLinksConserveCapacity_data();
    void dciLinksConserveCapacity();
    void everyScheduleConservesCapacity_data();
    void everyScheduleConservesCapacity();
};

namespace {

// Iteration time against each direction of every DCI link; "" when it fits.
QString overCapacity(const Scenario& s, const Evaluation& ev)
{
    for (const LinkTraffic& t : ev.traffic) {
        if (t.linkClass != LinkClass::Dci || t.dciLinkId < 0)
            continue;
        const DciLink* link = findLink(s.topology, t.dciLinkId);
        const double capacity = link ? dciCapacityGBps(*link) * 1e9 : 0.0;
        for (const double bytes : {t.bytesAToB, t.bytesBToA})
            if (capacity > 0.0 && ev.iterationTimeS < bytes / capacity * (1.0 - 1e-9))
                return QStringLiteral("link %1: %2 s one way, iteration %3 s")
                    .arg(t.dciLinkId)
                    .arg(bytes / capacity)
                    .arg(ev.iterationTimeS);
    }
    return {};
}

} // namespace

void TestCapacity::dciLinksConserveCapacity_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<int>("wavelengths");
    namespace fs = std::filesystem;
    std::vector<std::string> presets;
    for (const auto& entry : fs::directory_iterator(ARCHIPELAGO_SOURCE_DIR "/presets"))
        if (entry.path().extension() == ".json")
            presets.push_back(entry.path().string());
    std::sort(presets.begin(), presets.end());
    QVERIFY(presets.size() >= 5);
    for (const std::string& path : presets)
        for (int w : {1, 2, 4, 8})
            QTest::addRow("%s x%d", fs::path(path).stem().string().c_str(), w)
                << QString::fromStdString(path) << w;
}

void TestCapacity::dciLinksConserveCapacity()
{
    QFETCH(QString, preset);
    QFETCH(int, wavelengths);
    const LoadResult load = loadScenarioFile(preset.toStdString());
    QVERIFY(load.ok());
    Scenario s = *load.scenario;
    if (s.topology.links.empty())
        QSKIP("no DCI link");
    for (DciLink& link : s.topology.links)
        link.wavelengths = wavelengths;
    const Evaluation ev = evaluate(s);
    QVERIFY2(ev.ok, ev.warnings.empty() ? "" : warningText(ev.warnings.front()).c_str());
    for (const LinkTraffic& t : ev.traffic) {
        if (t.linkClass != LinkClass::Dci || t.dciLinkId < 0)
            continue;
        const DciLink* link = findLink(s.topology, t.dciLinkId);
        QVERIFY(link);
        const double capacity = dciCapacityGBps(*link) * 1e9;
        QCOMPARE(t.bytesAToB + t.bytesBToA, t.bytesPerIteration);
        QVERIFY(t.utilisation <= 1.0);
        for (const double bytes : {t.bytesAToB, t.bytesBToA}) {
            const double needS = bytes / capacity;
            if (ev.iterationTimeS >= needS * (1.0 - 1e-9))
                continue;
            // Which part breaks it: the pipeline's transfers queue on the link in the
            // simulator; the data-parallel collectives share it through evaluation/datacost.cpp.
            const PlacementAnalysis pl = analyzePlacement(s, effectiveCatalog(s));
            const bool dpCrosses = pl.dp.crossesDci() || pl.expertDp.crossesDci();
            const bool collectivesCross =
                dpCrosses || pl.tp.crossesDci() || pl.cp.crossesDci() || pl.ep.crossesDci();
            const QString why =
                QStringLiteral("link %1: %2 bytes one way need %3 s at %4 GB/s, iteration %5 s "
                               "(%6; dp comm %7 s, pp comm %8 s)")
                    .arg(t.dciLinkId)
                    .arg(bytes, 0, 'g', 6)
                    .arg(needS)
                    .arg(capacity / 1e9)
                    .arg(ev.iterationTimeS)
                    .arg(dpCrosses          ? QStringLiteral("data-parallel gradients cross it")
                         : collectivesCross ? QStringLiteral("TP/CP/EP collectives cross it")
                                            : QStringLiteral("pipeline transfers only"))
                    .arg(ev.breakdown.dpCommS)
                    .arg(ev.breakdown.ppCommS);
            QFAIL(qPrintable(why));
        }
    }
}

void TestCapacity::everyScheduleConservesCapacity_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("wavelengths");
    QTest::addColumn<int>("extra");
    for (const ScheduleTraits& t : allScheduleTraits())
        for (int w : {1, 4})
            for (int extra : {0, 1})
                QTest::addRow("%s x%d extra %d", std::string(t.key).c_str(), w, extra)
                    << static_cast<int>(t.kind) << w << extra;
}

// The pipeline alone (the two-buildings preset keeps DP inside each building), under every
// schedule and with the cross-DC-aware extra in-flight micro-batch.
void TestCapacity::everyScheduleConservesCapacity()
{
    QFETCH(int, kind);
    QFETCH(int, wavelengths);
    QFETCH(int, extra);
    const LoadResult load =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    QVERIFY(load.ok());
    Scenario s = *load.scenario;
    s.schedule.kind = static_cast<ScheduleKind>(kind);
    s.schedule.extraInFlightAtDci = extra;
    if (!scheduleTraits(s.schedule.kind).interleaved)
        s.parallelism.virtualStages = 1;
    // DualPipe needs at least 2p micro-batches (dualpipe.py asserts it): twice the batch.
    if (s.schedule.kind == ScheduleKind::DualPipe)
        s.workload.globalBatch *= 2;
    for (DciLink& link : s.topology.links)
        link.wavelengths = wavelengths;
    const Evaluation ev = evaluate(s);
    QVERIFY2(ev.ok, ev.warnings.empty() ? "" : warningText(ev.warnings.front()).c_str());
    const QString why = overCapacity(s, ev);
    QVERIFY2(why.isEmpty(), qPrintable(why));
}

QTEST_GUILESS_MAIN(TestCapacity)
#include "test_capacity.moc"
