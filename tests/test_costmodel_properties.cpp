// Properties the cost model must satisfy whatever its calibration.
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "model/scheduletraits.h"
#include "network/bom.h"
#include "network/fabric.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

using namespace archipelago::core;

namespace {

// 64 A100s in 8-GPU domains, a 13B-class GPT, TP 4 x PP 4 x DP 4.
Scenario baseScenario()
{
    Scenario s;
    Datacenter dc;
    dc.id = 0;
    dc.name = "dc";
    dc.accelerator = "A100-SXM4-80GB";
    dc.fabric.kind = FabricKind::Clos;
    Pod pod;
    pod.count = 1;
    pod.domainsPerPod = 8;
    pod.gpusPerDomain = 8;
    dc.pods.push_back(pod);
    s.topology.datacenters.push_back(dc);
    Workload& w = s.workload;
    w.layers = 40;
    w.hidden = 5120;
    w.heads = 40;
    w.kvHeads = 40;
    w.ffnHidden = 20480;
    w.vocab = 50304;
    w.seqLen = 2048;
    w.globalBatch = 128;
    s.parallelism.tp = 4;
    s.parallelism.pp = 4;
    s.parallelism.sequenceParallel = true;
    s.parallelism.recompute = Recompute::Selective;
    s.parallelism.distributedOptimizer = true;
    return s;
}

double partsSum(const Breakdown& b)
{
    return b.forwardS + b.backwardS + b.recomputeS + b.tpCommS + b.cpCommS + b.epCommS + b.ppCommS +
           b.dpCommS + b.optimizerS + b.bubbleS + b.interferenceS + b.variabilityS + b.overheadS;
}

// Capex may rise at most this much faster than delivered bandwidth where a whole extra port per
// NIC (or a whole port instead of a breakout lane) is bought: the extra host ports can push a
// fabric from two tiers to three, 3k/2 switches per k^2/2 hosts to 5k^2/4 per k^3/4 (Al-Fares
// et al. 2008 section 3.2), a factor 5/3 per host port; and a breakout cable that served two
// NICs becomes a transceiver pair each.
constexpr double kCapexPerDeliveredSlack = 2.0;

// Every preset in presets/, loaded once: the properties below hold on each of them.
const std::map<std::string, Scenario>& presets()
{
    static const std::map<std::string, Scenario> all = [] {
        namespace fs = std::filesystem;
        std::map<std::string, Scenario> out;
        for (const auto& entry :
             fs::directory_iterator(fs::path(ARCHIPELAGO_SOURCE_DIR) / "presets"))
            if (entry.path().extension() == ".json") {
                LoadResult r = loadScenarioFile(entry.path().string());
                if (!r.ok())
                    qFatal("preset %s does not load", entry.path().string().c_str());
                out.emplace(entry.path().stem().string(), std::move(*r.scenario));
            }
        return out;
    }();
    return all;
}

void addPresetRows()
{
    QTest::addColumn<QString>("preset");
    for (const auto& [name, s] : presets())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

Scenario preset(const QString& name)
{
    return presets().at(name.toStdString());
}

// The numbers only: a property compares iteration times, memory and capex.
Evaluation numbers(const Scenario& s)
{
    EvaluateOptions o;
    o.timeline = false;
    o.warnings = false;
    o.attribution = false;
    return evaluate(s, effectiveCatalog(s), o);
}

// Replaces (or adds) a catalog override: every datacenter's NIC at `gbps`.
void setNicGbps(Scenario& s, double gbps)
{
    const Catalog catalog = effectiveCatalog(s);
    for (const Datacenter& dc : s.topology.datacenters) {
        const NicSpec* nic = catalog.nic(dc.fabric.nicModel);
        if (!nic)
            qFatal("preset datacenter %s names no catalog NIC", dc.name.c_str());
        NicSpec faster = *nic;
        faster.gbps = gbps;
        auto& nics = s.catalogOverrides.nics;
        nics.erase(std::remove_if(nics.begin(), nics.end(),
                                  [&](const NicSpec& n) { return n.name == faster.name; }),
                   nics.end());
        nics.push_back(faster);
    }
}

double presetNicGbps(const Scenario& s)
{
    return fabricNicGbps(s.topology.datacenters.front(), effectiveCatalog(s));
}

// Evaluates `s` edited by `edit(s, x)` for each x in order and requires the iteration time
// never to rise (or, with `neverFaster`, never to fall) from one x to the next.
void requireMonotoneTime(const Scenario& base, const std::vector<double>& xs,
                         const std::function<void(Scenario&, double)>& edit, bool neverFaster,
                         const char* what)
{
    double previous = 0.0;
    double previousX = 0.0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        Scenario s = base;
        edit(s, xs[i]);
        const Evaluation ev = numbers(s);
        QVERIFY2(ev.ok, qPrintable(QString("%1 = %2 does not evaluate").arg(what).arg(xs[i])));
        if (i > 0) {
            const bool worse = neverFaster ? ev.iterationTimeS < previous * (1.0 - 1e-9)
                                           : ev.iterationTimeS > previous * (1.0 + 1e-9);
            QVERIFY2(!worse,
                     qPrintable(QString("%1 %2 -> %3: %4 s -> %5 s (%6%)")
                                    .arg(what)
                                    .arg(previousX, 0, 'g', 12)
                                    .arg(xs[i], 0, 'g', 12)
                                    .arg(previous, 0, 'g', 10)
                                    .arg(ev.iterationTimeS, 0, 'g', 10)
                                    .arg((ev.iterationTimeS / previous - 1.0) * 100.0, 0, 'f', 3)));
        }
        previous = ev.iterationTimeS;
        previousX = xs[i];
    }
}

} // namespace

class TestCostModelProperties : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void breakdownSumsToIterationTime_data();
    void breakdownSumsToIterationTime();
    void moreBandwidthNeverSlower();
    void moreMicroBatchesNeverRaiseBubble();
    void largerTpNeverRaisesWeightMemory();
    void utilisationBounded();
    void invalidScenariosAreRejected();
    void unrunnableSchedulesFallBackWithWarning();
    // Over every preset.
    void fasterNicNeverSlower_data() { addPresetRows(); }
    void fasterNicNeverSlower();
    void nicCapexHasNoRoundingCliff_data() { addPresetRows(); }
    void nicCapexHasNoRoundingCliff();
    void moreLeafOversubscriptionNeverFaster_data() { addPresetRows(); }
    void moreLeafOversubscriptionNeverFaster();
    void moreNicsPerGpuNeverSlower_data() { addPresetRows(); }
    void moreNicsPerGpuNeverSlower();
    void extraInFlightRaisesMemoryBeforeDci_data() { addPresetRows(); }
    void extraInFlightRaisesMemoryBeforeDci();
    void moreWavelengthsNeverSlower_data() { addPresetRows(); }
    void moreWavelengthsNeverSlower();
    void shorterDciNeverSlower_data() { addPresetRows(); }
    void shorterDciNeverSlower();
    void moreHbmBandwidthNeverSlower_data() { addPresetRows(); }
    void moreHbmBandwidthNeverSlower();
};

void TestCostModelProperties::initTestCase()
{
    if (!builtinCatalog().accelerator("A100-SXM4-80GB"))
        QSKIP("the built-in catalog has no A100-SXM4-80GB entry");
}

void TestCostModelProperties::breakdownSumsToIterationTime_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("recompute");
    QTest::addColumn<bool>("overlapDp");
    QTest::newRow("1f1b selective") << int(ScheduleKind::OneFOneB) << 1 << 1 << true;
    QTest::newRow("1f1b full no overlap") << int(ScheduleKind::OneFOneB) << 1 << 2 << false;
    QTest::newRow("interleaved") << int(ScheduleKind::Interleaved1F1B) << 2 << 0 << true;
    QTest::newRow("gpipe") << int(ScheduleKind::GPipe) << 1 << 2 << true;
    QTest::newRow("zb-h1") << int(ScheduleKind::ZeroBubbleH1) << 1 << 1 << false;
}

void TestCostModelProperties::breakdownSumsToIterationTime()
{
    QFETCH(int, schedule);
    QFETCH(int, v);
    QFETCH(int, recompute);
    QFETCH(bool, overlapDp);
    Scenario s = baseScenario();
    s.schedule.kind = ScheduleKind(schedule);
    s.parallelism.virtualStages = v;
    s.parallelism.recompute = Recompute(recompute);
    s.parallelism.overlap.dpGradReduce = overlapDp;
    const Evaluation ev = evaluate(s);
    QVERIFY(ev.ok);
    QVERIFY(ev.iterationTimeS > 0.0);
    // Identity: every second of the iteration is in exactly one part (costmodel.cpp).
    QVERIFY(std::abs(partsSum(ev.breakdown) / ev.iterationTimeS - 1.0) < 1e-9);
    QVERIFY(ev.breakdown.bubbleS >= 0.0);
}

void TestCostModelProperties::moreBandwidthNeverSlower()
{
    Scenario s = baseScenario();
    AcceleratorSpec a = *builtinCatalog().accelerator("A100-SXM4-80GB");
    double previous = 1e300;
    for (double scale : {0.25, 0.5, 1.0, 2.0, 4.0}) {
        AcceleratorSpec faster = a;
        faster.scaleUpGBpsPerDirection = a.scaleUpGBpsPerDirection * scale;
        faster.nicGbps = a.nicGbps * scale;
        s.catalogOverrides.accelerators = {faster};
        const Evaluation ev = evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY2(ev.iterationTimeS <= previous * (1.0 + 1e-12),
                 qPrintable(QString("x%1: %2 s").arg(scale).arg(ev.iterationTimeS)));
        previous = ev.iterationTimeS;
    }
}

void TestCostModelProperties::moreMicroBatchesNeverRaiseBubble()
{
    Scenario s = baseScenario();
    double previous = 1.0;
    for (int batch : {16, 32, 64, 128, 256, 512}) {
        s.workload.globalBatch = batch;
        const Evaluation ev = evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY(ev.bubbleRatio <= previous + 1e-12);
        previous = ev.bubbleRatio;
    }
}

void TestCostModelProperties::largerTpNeverRaisesWeightMemory()
{
    Scenario s = baseScenario();
    s.parallelism.pp = 1;
    s.workload.globalBatch = 512;
    double previous = 1e300;
    for (int tp : {1, 2, 4, 8}) {
        s.parallelism.tp = tp;
        const Evaluation ev = evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY(ev.memory.weightsGib <= previous);
        previous = ev.memory.weightsGib;
    }
}

void TestCostModelProperties::utilisationBounded()
{
    Scenario s = baseScenario();
    for (int rc : {0, 1, 2}) {
        s.parallelism.recompute = Recompute(rc);
        const Evaluation ev = evaluate(s);
        QVERIFY(ev.ok);
        QVERIFY(ev.mfu > 0.0 && ev.mfu <= 1.0);
        QVERIFY(ev.hfu >= ev.mfu && ev.hfu <= 1.0);
        QVERIFY(ev.bubbleRatio >= 0.0 && ev.bubbleRatio < 1.0);
        QCOMPARE(ev.gpus, std::int64_t{64});
        QVERIFY(ev.tokensPerS > 0.0 && ev.gpuHoursToTrain > 0.0);
    }
}

void TestCostModelProperties::invalidScenariosAreRejected()
{
    Scenario s = baseScenario();
    s.parallelism.tp = 3; // does not divide 40 heads nor 64 GPUs
    QVERIFY(!evaluate(s).ok);
    s = baseScenario();
    s.topology.datacenters[0].accelerator = "no-such-gpu";
    const Evaluation ev = evaluate(s);
    QVERIFY(!ev.ok);
    QVERIFY(!ev.warnings.empty());
    s = baseScenario();
    s.workload.globalBatch = 100; // not a multiple of dp 4 x micro-batch... 100/4 ok, 25 mb
    s.parallelism.microBatch = 8;
    QVERIFY(!evaluate(s).ok);
}

// evaluate() never fails on a schedule the pipeline simulator cannot run as given: it adjusts
// and says why.
void TestCostModelProperties::unrunnableSchedulesFallBackWithWarning()
{
    auto hasWarning = [](const Evaluation& ev, const char* key) {
        const std::optional<WarningCode> code = warningCodeFromString(key);
        if (!code)
            qFatal("unknown warning code %s", key);
        return std::any_of(ev.warnings.begin(), ev.warnings.end(),
                           [&](const Warning& w) { return w.code == *code; });
    };
    Scenario s = baseScenario();
    s.schedule.kind = ScheduleKind::OneFOneB;
    s.parallelism.virtualStages = 2; // v > 1 without interleaving: evaluated with v = 1
    Evaluation ev = evaluate(s);
    QVERIFY(ev.ok);
    QVERIFY(hasWarning(ev, "virtual-stages-ignored"));
    s = baseScenario();
    s.schedule.kind = ScheduleKind::Interleaved1F1B;
    s.parallelism.virtualStages = 2;
    s.workload.globalBatch = 24; // dp 4 -> 6 micro-batches, not a multiple of pp 4
    ev = evaluate(s);
    QVERIFY(ev.ok);
    QVERIFY(hasWarning(ev, "interleaving-fallback"));
    QVERIFY(ev.iterationTimeS > 0.0);
}

// A NIC a hair faster than a whole number of switch ports (800.00001 Gb/s on 400G ports,
// 403 Gb/s on 400G ports) must not be slower.
void TestCostModelProperties::fasterNicNeverSlower()
{
    QFETCH(QString, preset);
    const Scenario base = ::preset(preset);
    const double nic = presetNicGbps(base);
    std::vector<double> xs;
    for (double k : {1.0, 1.0075, 1.5, 2.0, 2.0 * (1.0 + 1.25e-8), 2.0 * 1.0075, 3.0})
        xs.push_back(nic * k);
    requireMonotoneTime(base, xs, setNicGbps, false, "NIC Gb/s");
}

// Capex follows the bandwidth the fabric delivers, not the NIC's nominal rate: a NIC speed
// that buys no more delivered bandwidth (803 Gb/s on 400G ports still gets two ports) buys no
// more ports, cables or switches. Where delivered bandwidth steps up (a whole extra port),
// capex rises at most in proportion, plus the switch tier the extra ports may need.
void TestCostModelProperties::nicCapexHasNoRoundingCliff()
{
    QFETCH(QString, preset);
    const Scenario base = ::preset(preset);
    const double nic = presetNicGbps(base);
    struct Point
    {
        double nicGbps = 0.0, deliveredGBps = 0.0, capexUsd = 0.0;
    };
    auto at = [&](double gbps) {
        Scenario s = base;
        setNicGbps(s, gbps);
        const Catalog catalog = effectiveCatalog(s);
        Point pt;
        pt.nicGbps = gbps;
        for (const Datacenter& dc : s.topology.datacenters)
            pt.deliveredGBps += designFabric(dc, catalog).gpuGBps;
        pt.capexUsd =
            bomTotal(billOfMaterials(s, catalog), {"dci-optic", "line-terminal", "amplifier"})
                .capexUsd;
        return pt;
    };
    // The cases that once jumped: 1 + 1.25e-8 of 800 G is 800.00001 G; 1.0075 of 400 G is 403 G.
    for (double k : {1.0 + 1.25e-8, 1.0075, 2.0 * (1.0 + 1.25e-8), 2.0 * 1.0075}) {
        const Point lo = at(nic * (k > 1.5 ? 2.0 : 1.0));
        const Point hi = at(nic * k);
        QVERIFY2(std::abs(hi.capexUsd / lo.capexUsd - 1.0) < 1e-12,
                 qPrintable(QString("NIC %1 -> %2 Gb/s: capex $%3 -> $%4 (%5%)")
                                .arg(lo.nicGbps)
                                .arg(hi.nicGbps, 0, 'g', 12)
                                .arg(lo.capexUsd, 0, 'f', 0)
                                .arg(hi.capexUsd, 0, 'f', 0)
                                .arg((hi.capexUsd / lo.capexUsd - 1.0) * 100.0, 0, 'f', 2)));
    }
    // A sweep in 1% steps from half to three times the preset's NIC.
    Point previous = at(nic * 0.5);
    for (int i = 1; i <= 250; ++i) {
        const Point pt = at(nic * (0.5 + 0.01 * i));
        const QString step = QString("NIC %1 -> %2 Gb/s: delivered %3 -> %4 GB/s, capex $%5 -> $%6")
                                 .arg(previous.nicGbps)
                                 .arg(pt.nicGbps)
                                 .arg(previous.deliveredGBps)
                                 .arg(pt.deliveredGBps)
                                 .arg(previous.capexUsd, 0, 'f', 0)
                                 .arg(pt.capexUsd, 0, 'f', 0);
        QVERIFY2(pt.deliveredGBps >= previous.deliveredGBps, qPrintable(step));
        if (pt.deliveredGBps == previous.deliveredGBps)
            QVERIFY2(pt.capexUsd == previous.capexUsd, qPrintable(step));
        else
            QVERIFY2(pt.capexUsd / previous.capexUsd <=
                         kCapexPerDeliveredSlack * pt.deliveredGBps / previous.deliveredGBps,
                     qPrintable(step));
        previous = pt;
    }
}

void TestCostModelProperties::moreLeafOversubscriptionNeverFaster()
{
    QFETCH(QString, preset);
    requireMonotoneTime(
        ::preset(preset), {1.0, 1.5, 2.0, 3.0, 4.0},
        [](Scenario& s, double o) {
            for (Datacenter& dc : s.topology.datacenters)
                dc.fabric.leafOversubscription = o;
        },
        true, "leaf oversubscription");
}

void TestCostModelProperties::moreNicsPerGpuNeverSlower()
{
    QFETCH(QString, preset);
    requireMonotoneTime(
        ::preset(preset), {1.0, 2.0, 3.0, 4.0},
        [](Scenario& s, double n) {
            for (Datacenter& dc : s.topology.datacenters)
                dc.fabric.nicsPerGpu = static_cast<int>(n);
        },
        false, "NICs per GPU");
}

void TestCostModelProperties::moreWavelengthsNeverSlower()
{
    QFETCH(QString, preset);
    const Scenario base = ::preset(preset);
    if (base.topology.links.empty())
        QSKIP("no DCI link");
    requireMonotoneTime(
        base, {0.25, 0.5, 1.0, 2.0, 4.0},
        [](Scenario& s, double k) {
            for (DciLink& l : s.topology.links)
                l.wavelengths = std::max(1, static_cast<int>(std::lround(l.wavelengths * k)));
        },
        false, "wavelengths x");
}

void TestCostModelProperties::shorterDciNeverSlower()
{
    QFETCH(QString, preset);
    const Scenario base = ::preset(preset);
    if (base.topology.links.empty())
        QSKIP("no DCI link");
    requireMonotoneTime(
        base, {4.0, 2.0, 1.0, 0.5, 0.1, 0.01},
        [](Scenario& s, double k) {
            for (DciLink& l : s.topology.links)
                l.distanceKm *= k;
        },
        false, "distance x");
}

void TestCostModelProperties::moreHbmBandwidthNeverSlower()
{
    QFETCH(QString, preset);
    const Scenario base = ::preset(preset);
    requireMonotoneTime(
        base, {0.5, 1.0, 1.5, 2.0, 4.0},
        [](Scenario& s, double k) {
            const Catalog catalog = effectiveCatalog(s);
            std::vector<AcceleratorSpec> scaled;
            for (const Datacenter& dc : s.topology.datacenters)
                if (const AcceleratorSpec* a = catalog.accelerator(dc.accelerator);
                    a && std::none_of(scaled.begin(), scaled.end(), [&](const AcceleratorSpec& x) {
                        return x.name == a->name;
                    })) {
                    AcceleratorSpec faster = *a;
                    faster.hbmGBps = a->hbmGBps * k;
                    scaled.push_back(faster);
                }
            s.catalogOverrides.accelerators = scaled;
        },
        false, "HBM GB/s x");
}

// Extra micro-batches run ahead of a DCI boundary hold their activations: the ranks before the
// boundary need that much more memory, for every schedule that runs them, up to all the
// iteration's micro-batches (a rank cannot hold more than m). Without a DCI boundary nothing
// changes. Checked with the preset's batch and with four times as many micro-batches, where
// the first stage is not yet holding all of them.
void TestCostModelProperties::extraInFlightRaisesMemoryBeforeDci()
{
    QFETCH(QString, preset);
    const Scenario base = ::preset(preset);
    // The last stage that sends over a DCI boundary (-1: none), and whether the wrap from the
    // last stage to the first crosses one (interleaved schedules run that boundary too).
    int lastDciSender = -1;
    bool wrapCrosses = false;
    for (const PlacementShard& shard : base.placement.shards) {
        const auto& sd = shard.stageDatacenters;
        for (std::size_t i = 0; i + 1 < sd.size(); ++i)
            if (sd[i] != sd[i + 1])
                lastDciSender = std::max(lastDciSender, static_cast<int>(i));
        wrapCrosses = wrapCrosses || (sd.size() > 1 && sd.front() != sd.back());
    }
    for (const ScheduleTraits& traits : allScheduleTraits()) {
        if (!traits.extraInFlightApplies)
            continue;
        for (const int batchScale : {1, 4}) {
            Scenario s = base;
            s.schedule.kind = traits.kind;
            s.parallelism.virtualStages =
                traits.interleaved ? std::max(2, base.parallelism.virtualStages) : 1;
            s.workload.globalBatch *= batchScale;
            const auto m = static_cast<int>(microBatchesPerIteration(s));
            std::vector<Evaluation> ev;
            for (const int extra : {0, 4, 8}) {
                s.schedule.extraInFlightAtDci = extra;
                ev.push_back(numbers(s));
                QVERIFY(ev.back().ok);
            }
            const MemoryBreakdown& plain = ev[0].memory;
            const MemoryBreakdown& aware = ev[1].memory;
            const QString what =
                QString("%1, m = %2: %3 GiB (%4 in flight on stage %5) -> %6 GiB (%7 on stage "
                        "%8) -> %9 GiB")
                    .arg(QString::fromUtf8(traits.key.data(), static_cast<int>(traits.key.size())))
                    .arg(m)
                    .arg(ev[0].memoryPeakGib)
                    .arg(plain.inFlightMicroBatches)
                    .arg(plain.worstStage)
                    .arg(ev[1].memoryPeakGib)
                    .arg(aware.inFlightMicroBatches)
                    .arg(aware.worstStage)
                    .arg(ev[2].memoryPeakGib);
            const bool crosses = lastDciSender >= 0 || (traits.interleaved && wrapCrosses);
            if (!crosses) {
                QVERIFY2(ev[1].memoryPeakGib == ev[0].memoryPeakGib, qPrintable(what));
                continue;
            }
            QVERIFY2(ev[1].memoryPeakGib >= ev[0].memoryPeakGib, qPrintable(what));
            // Interleaved: every rank runs the extras (pipelineschedules.cpp explains why).
            const int lastAhead = traits.interleaved ? s.parallelism.pp - 1 : lastDciSender;
            if (plain.worstStage != aware.worstStage || plain.worstStage > lastAhead)
                continue;
            // The worst stage runs ahead of the boundary: it holds 4 more, up to all m.
            QVERIFY2(aware.inFlightMicroBatches == std::min(m, plain.inFlightMicroBatches + 4),
                     qPrintable(what));
            if (plain.inFlightMicroBatches + 8 > m || ev[2].memory.worstStage != plain.worstStage)
                continue;
            // Not clamped: each 4 extra micro-batches add the same activations, and more memory.
            const double first = ev[1].memory.activationsGib - ev[0].memory.activationsGib;
            const double second = ev[2].memory.activationsGib - ev[1].memory.activationsGib;
            QVERIFY2(first > 0.0 && std::abs(second / first - 1.0) < 1e-9, qPrintable(what));
            QVERIFY2(ev[1].memoryPeakGib > ev[0].memoryPeakGib, qPrintable(what));
        }
    }
}

QTEST_APPLESS_MAIN(TestCostModelProperties)
#include "test_costmodel_properties.moc"
