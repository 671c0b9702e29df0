// Activation memory against Korthikanti et al. 2022, Table 2 (bytes per layer per micro-batch),
// state bytes per parameter per ZeRO stage / distributed optimizer, in-flight micro-batches, and
// the warning for a design that fits only if the allocator fragments little.
#include "compute/memorymodel.h"
#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "model/scheduletraits.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <variant>

using namespace archipelago::core;

class TestMemory : public QObject
{
    Q_OBJECT
private slots:
    void korthikantiTable2_data();
    void korthikantiTable2();
    void stateBytes_data();
    void stateBytes();
    void inFlight_data();
    void inFlight();
    void largerTpNeverRaisesWeights();
    void headroomIsTheFragmentationThatFits();
    void headroomWarning();
};

void TestMemory::korthikantiTable2_data()
{
    QTest::addColumn<int>("s");
    QTest::addColumn<int>("b");
    QTest::addColumn<int>("h");
    QTest::addColumn<int>("a");
    QTest::addColumn<int>("t");
    QTest::addColumn<bool>("sp");
    QTest::addColumn<int>("recompute"); // 0 none, 1 selective, 2 full
    const int shapes[][4] = {{2048, 1, 12288, 96}, {2048, 4, 6144, 64}, {4096, 2, 25600, 160}};
    for (const auto& sh : shapes)
        for (int t : {1, 2, 8})
            for (bool sp : {false, true})
                for (int rc : {0, 1, 2}) {
                    if (t == 1 && sp)
                        continue;
                    const QString name = QString("s%1 b%2 h%3 t%4 sp%5 rc%6")
                                             .arg(sh[0])
                                             .arg(sh[1])
                                             .arg(sh[2])
                                             .arg(t)
                                             .arg(sp)
                                             .arg(rc);
                    QTest::newRow(qPrintable(name))
                        << sh[0] << sh[1] << sh[2] << sh[3] << t << sp << rc;
                }
}

void TestMemory::korthikantiTable2()
{
    QFETCH(int, s);
    QFETCH(int, b);
    QFETCH(int, h);
    QFETCH(int, a);
    QFETCH(int, t);
    QFETCH(bool, sp);
    QFETCH(int, recompute);
    Workload w;
    w.hidden = h;
    w.heads = a;
    w.kvHeads = a;
    w.ffnHidden = 4 * h;
    w.seqLen = s;
    Parallelism par;
    par.tp = t;
    par.microBatch = b;
    par.sequenceParallel = sp;
    par.recompute = recompute == 0   ? Recompute::None
                    : recompute == 1 ? Recompute::Selective
                                     : Recompute::Full;
    const double sbh = double(s) * b * h;
    const double as_h = 5.0 * a * s / h;
    double expected = 0.0;
    if (recompute == 2)
        expected = sp ? 2.0 * sbh / t : 2.0 * sbh; // input only
    else if (recompute == 1)
        expected = sp ? 34.0 * sbh / t : sbh * (10.0 + 24.0 / t);
    else
        expected = sp ? sbh / t * (34.0 + as_h) : sbh * (10.0 + 24.0 / t + as_h / t);
    QCOMPARE(activationBytesPerLayer(w, par, false), expected);
}

void TestMemory::stateBytes_data()
{
    QTest::addColumn<int>("zero");
    QTest::addColumn<bool>("distOpt");
    QTest::addColumn<double>("d");
    QTest::addColumn<double>("expected");
    QTest::newRow("plain") << 0 << false << 8.0 << 18.0;
    QTest::newRow("megatron-distopt-d8") << 0 << true << 8.0 << 6.0 + 12.0 / 8;
    QTest::newRow("zero1-d64") << 1 << false << 64.0 << 6.0 + 12.0 / 64;
    QTest::newRow("zero2-d16") << 2 << false << 16.0 << 2.0 + 16.0 / 16;
    QTest::newRow("zero3-d32") << 3 << false << 32.0 << 18.0 / 32;
    QTest::newRow("zero3-d1") << 3 << true << 1.0 << 18.0;
}

void TestMemory::stateBytes()
{
    QFETCH(int, zero);
    QFETCH(bool, distOpt);
    QFETCH(double, d);
    QFETCH(double, expected);
    Parallelism par;
    par.zeroStage = zero;
    par.distributedOptimizer = distOpt;
    QCOMPARE(stateBytesPerParam(par, d).total(), expected);
}

void TestMemory::inFlight_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("rank");
    QTest::addColumn<double>("expected");
    const int onefb = int(ScheduleKind::OneFOneB);
    const int inter = int(ScheduleKind::Interleaved1F1B);
    QTest::newRow("1f1b rank0") << onefb << 8 << 1 << 64 << 0 << 8.0;
    QTest::newRow("1f1b last") << onefb << 8 << 1 << 64 << 7 << 1.0;
    QTest::newRow("1f1b few mb") << onefb << 8 << 1 << 4 << 0 << 4.0;
    QTest::newRow("gpipe") << int(ScheduleKind::GPipe) << 8 << 1 << 32 << 3 << 32.0;
    // Megatron warm-up (p-1)*2 + (v-1)*p + 1 chunk-micro-batches over v chunks.
    QTest::newRow("interleaved rank0") << inter << 8 << 3 << 64 << 0 << (14.0 + 16.0 + 1.0) / 3;
    QTest::newRow("zb-h1") << int(ScheduleKind::ZeroBubbleH1) << 4 << 1 << 16 << 1 << 3.0;
    QTest::newRow("zb-h2") << int(ScheduleKind::ZeroBubbleH2) << 4 << 1 << 16 << 0 << 7.0;
    // DeepSeek-V3 report Table 2: PP + 1 chunk activations, in micro-batches of the rank's two
    // chunks (two copies of the weights, 2x parameters): (16 + 1) / 2.
    QTest::newRow("dualpipe") << int(ScheduleKind::DualPipe) << 16 << 2 << 120 << 5 << 8.5;
    QCOMPARE(chunksPerRank(ScheduleKind::DualPipe, 1), 2);
    QCOMPARE(scheduleTraits(ScheduleKind::DualPipe).modelCopies, 2);
}

void TestMemory::inFlight()
{
    QFETCH(int, kind);
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    QFETCH(int, rank);
    QFETCH(double, expected);
    QCOMPARE(inFlightMicroBatches(ScheduleKind(kind), p, v, m, rank), expected);
}

void TestMemory::largerTpNeverRaisesWeights()
{
    Workload w;
    w.hidden = 8192;
    w.heads = 64;
    w.kvHeads = 8;
    w.ffnHidden = 28672;
    w.activation = FfnActivation::Swiglu;
    double previous = 1e300;
    for (int t : {1, 2, 4, 8}) {
        Parallelism par;
        par.tp = t;
        const double p = layerParamsPerGpu(w, par, false).dense;
        QVERIFY(p <= previous);
        previous = p;
    }
}

void TestMemory::headroomIsTheFragmentationThatFits()
{
    // 60 GiB allocated with 5% fragmentation and 2 GiB of context is 65 GiB: on a 65 GiB device
    // exactly 5% fits, on a bigger one more, on a smaller one less.
    QCOMPARE(60.0 + reserveGib(60.0), 65.0);
    QVERIFY(std::abs(fragmentationThatFits(60.0, 65.0) - 0.05) < 1e-12);
    QVERIFY(fragmentationThatFits(60.0, 80.0) > 0.05);
    QVERIFY(fragmentationThatFits(60.0, 64.0) < 0.05);
}

namespace {

const Warning* findWarning(const Evaluation& ev, WarningCode code)
{
    const auto it = std::find_if(ev.warnings.begin(), ev.warnings.end(),
                                 [code](const Warning& w) { return w.code == code; });
    return it == ev.warnings.end() ? nullptr : &*it;
}

double figure(const Warning& w, std::string_view key)
{
    for (const WarningValue& v : w.data)
        if (v.key == key && std::holds_alternative<double>(v.value))
            return std::get<double>(v.value);
    return -1.0;
}

} // namespace

void TestMemory::headroomWarning()
{
    // The two-building Llama 3 405B preset fills its H100s to within a few tenths of a per cent:
    // it fits with the allocator's 5% low end of fragmentation, not with the 10% high end.
    LoadResult loaded =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    QVERIFY(loaded.ok());
    const Scenario tight = *loaded.scenario;
    const Evaluation ev = evaluate(tight);
    QVERIFY(ev.ok && ev.fitsInMemory);
    const Warning* headroom = findWarning(ev, WarningCode::MemoryHeadroom);
    QVERIFY(headroom);
    QVERIFY(figure(*headroom, "use_pct") > 90.0 && figure(*headroom, "use_pct") <= 100.0);
    QVERIFY(figure(*headroom, "fits_pct") >= 0.0 &&
            figure(*headroom, "fits_pct") < 100.0 * kFragmentationHighFraction);
    const std::string text = warningText(*headroom);
    QVERIFY2(text.find("GMLake") != std::string::npos, text.c_str());
    QVERIFY2(text.find("GiB HBM") != std::string::npos, text.c_str());
    QCOMPARE(std::count_if(ev.warnings.begin(), ev.warnings.end(),
                           [](const Warning& w) { return w.code == WarningCode::MemoryHeadroom; }),
             std::ptrdiff_t{1});

    // On 141 GB H200s the same job has room to spare: no warning.
    Scenario roomy = tight;
    for (Datacenter& dc : roomy.topology.datacenters)
        dc.accelerator = "H200-SXM-141GB";
    const Evaluation roomyEv = evaluate(roomy);
    QVERIFY(roomyEv.ok && roomyEv.fitsInMemory);
    QVERIFY(!findWarning(roomyEv, WarningCode::MemoryHeadroom));

    // Twice the sequence does not fit: out of memory, and no headroom warning beside it.
    Scenario over = tight;
    over.workload.seqLen *= 2;
    const Evaluation overEv = evaluate(over);
    QVERIFY(!overEv.fitsInMemory);
    QVERIFY(findWarning(overEv, WarningCode::OutOfMemory));
    QVERIFY(!findWarning(overEv, WarningCode::MemoryHeadroom));
}

QTEST_APPLESS_MAIN(TestMemory)
#include "test_memory.moc"
