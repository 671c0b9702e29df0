// Tests of the pipeline discrete-event simulator (core/pipelinesimulator.h): closed forms of
// the schedules with uniform stages, exact cases with uneven stages and transfers, properties
// (monotonicity, cross-DC-aware warm-up) and the peak in flight against the schedule traits.
#include "pipeline/pipelinesimulator.h"

#include "model/scheduletraits.h"
#include "pipelinefixtures.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

using namespace archipelago::core;

using archipelago::tests::name;
using archipelago::tests::relTol;
using archipelago::tests::run;
using archipelago::tests::uniform;

namespace {

const int allP[] = {1, 2, 4, 8, 16};
const int allM[] = {1, 4, 8, 32, 64};

} // namespace

class TestPipelineSimulator : public QObject
{
    Q_OBJECT

private slots:
    void oneFOneBClosedForm_data();
    void oneFOneBClosedForm();
    void interleavedClosedForm_data();
    void interleavedClosedForm();
    void zeroBubbleH1_data();
    void zeroBubbleH1();
    void zeroBubbleH2_data();
    void zeroBubbleH2();
    void zeroBubbleUnevenSplit_data();
    void zeroBubbleUnevenSplit();
    void gpipeUnevenStages_data();
    void gpipeUnevenStages();
    void oneFOneBSlowStage_data();
    void oneFOneBSlowStage();
    void oneFOneBTransfers_data();
    void oneFOneBTransfers();
    void moreMicroBatchesNeverRaiseBubble_data();
    void moreMicroBatchesNeverRaiseBubble();
    void extraInFlightAtDci_data();
    void extraInFlightAtDci();
    void traitsInFlightMatchSimulatedPeak_data();
    void traitsInFlightMatchSimulatedPeak();
    void extraInFlightMatchesSimulatedPeak_data() { traitsInFlightMatchSimulatedPeak_data(); }
    void extraInFlightMatchesSimulatedPeak();
    void traitsTableNamesEverySchedule();
};

// ------------------------------------------------------------------ closed forms

void TestPipelineSimulator::oneFOneBClosedForm_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    for (ScheduleKind kind : {ScheduleKind::GPipe, ScheduleKind::OneFOneB})
        for (int p : allP)
            for (int m : allM)
                QTest::addRow("%s p=%d m=%d", name(kind), p, m) << kind << p << m;
}

// Narayanan et al. 2021 section 2.2: with uniform stages and free transfers, GPipe and 1F1B
// idle (p - 1)(f + b) per rank: bubble ratio (p - 1) / (m + p - 1), idle / compute (p - 1) / m.
void TestPipelineSimulator::oneFOneBClosedForm()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, m);
    const PipelineResult r = run(uniform(kind, p, 1, m));
    QVERIFY(r.ok);
    COMPARE_REL(r.makespanS, (m + p - 1) * 3.0);
    COMPARE_REL(r.periodS, r.makespanS);
    COMPARE_REL(r.bubbleRatio, (p - 1.0) / (m + p - 1.0));
    COMPARE_REL(r.idleOverCompute, (p - 1.0) / m);
    QCOMPARE(r.busyS.size(), std::size_t(p));
    QCOMPARE(r.peakInFlight.size(), std::size_t(p));
    for (int rank = 0; rank < p; ++rank) {
        COMPARE_REL(r.busyS[rank], m * 3.0);
        COMPARE_REL(r.idleS[rank], (p - 1) * 3.0);
        // GPipe holds all m; 1F1B rank r holds p - r (Narayanan et al. 2021 section 2.2).
        const int expected = kind == ScheduleKind::GPipe ? m : std::min(p - rank, m);
        QCOMPARE(r.peakInFlight[rank], expected);
    }
}

void TestPipelineSimulator::interleavedClosedForm_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    for (int p : allP)
        for (int v : {1, 2, 4})
            for (int m : allM)
                if (m % p == 0) // Megatron-LM requires it for the interleaved schedule
                    QTest::addRow("p=%d v=%d m=%d", p, v, m) << p << v << m;
}

// Narayanan et al. 2021 section 2.2: chunks of f/v and 2f/v shrink the bubble to
// (p - 1)(f + b) / v per rank: idle / compute (p - 1) / (v m), ratio (p - 1) / (v m + p - 1).
void TestPipelineSimulator::interleavedClosedForm()
{
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    const PipelineResult r = run(uniform(ScheduleKind::Interleaved1F1B, p, v, m));
    QVERIFY(r.ok);
    COMPARE_REL(r.idleOverCompute, (p - 1.0) / (v * m));
    COMPARE_REL(r.bubbleRatio, (p - 1.0) / (v * m + p - 1.0));
    COMPARE_REL(r.makespanS, m * 3.0 + (p - 1) * 3.0 / v);
    // Rank 0: Megatron's warm-up (p - 1) * 2 + (v - 1) * p chunk-forwards, plus the first
    // steady-state forward, capped at m * v; in micro-batches, rounded up.
    const int chunks = v == 1 ? std::min(p, m) : std::min(2 * (p - 1) + (v - 1) * p + 1, m * v);
    QCOMPARE(r.peakInFlight[0], (chunks + v - 1) / v);
}

void TestPipelineSimulator::zeroBubbleH1_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    for (int p : allP)
        for (int m : allM)
            if (m >= p)
                QTest::addRow("p=%d m=%d", p, m) << p << m;
}

// Qi et al. 2023 section 2.1 (ZB-H1), with T_F = T_B = T_W = 1 (backward 2 split evenly):
// bubble (p - 1)(T_F + T_B - T_W) = p - 1, a third of 1F1B's (p - 1)(T_F + T_B + T_W), at
// 1F1B's peak memory: p micro-batches on every rank.
void TestPipelineSimulator::zeroBubbleH1()
{
    QFETCH(int, p);
    QFETCH(int, m);
    const PipelineResult zb = run(uniform(ScheduleKind::ZeroBubbleH1, p, 1, m));
    const PipelineResult ofob = run(uniform(ScheduleKind::OneFOneB, p, 1, m));
    QVERIFY(zb.ok && ofob.ok);
    COMPARE_REL(zb.makespanS, 3.0 * m + (p - 1) * (1.0 + 1.0 - 1.0));
    COMPARE_REL(ofob.makespanS - 3.0 * m, 3.0 * (zb.makespanS - 3.0 * m));
    if (p > 1)
        QVERIFY(zb.makespanS < ofob.makespanS);
    for (int rank = 0; rank < p; ++rank)
        QCOMPARE(zb.peakInFlight[rank], p);
}

void TestPipelineSimulator::zeroBubbleH2_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    for (int p : allP)
        for (int m : allM)
            if (m >= 2 * p) // its 2p - 1 warm-up forwards need that many micro-batches
                QTest::addRow("p=%d m=%d", p, m) << p << m;
}

// Qi et al. 2023 section 2.2 (ZB-H2), T_F = T_B = T_W: bubble (p - 1)(T_F + T_B - 2 T_W) = 0
// per iteration period (the ranks form a parallelogram; consecutive iterations overlap with
// optimizer post-validation, section 4), with 2p - 1 micro-batches in flight on every rank.
void TestPipelineSimulator::zeroBubbleH2()
{
    QFETCH(int, p);
    QFETCH(int, m);
    const PipelineResult h2 = run(uniform(ScheduleKind::ZeroBubbleH2, p, 1, m));
    const PipelineResult h1 = run(uniform(ScheduleKind::ZeroBubbleH1, p, 1, m));
    QVERIFY(h2.ok && h1.ok);
    COMPARE_REL(h2.periodS, 3.0 * m);
    // A single iteration still waits (p - 1) T_F for the first forward to reach the last rank.
    COMPARE_REL(h2.makespanS, 3.0 * m + (p - 1));
    QVERIFY(h2.makespanS <= h1.makespanS + relTol);
    for (int rank = 0; rank < p; ++rank)
        QCOMPARE(h2.peakInFlight[rank], 2 * p - 1);
}

void TestPipelineSimulator::zeroBubbleUnevenSplit_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("wFraction");
    for (int p : {2, 4, 8, 16})
        for (int m : {8, 32, 64})
            for (double w : {0.2, 0.35, 0.65})
                if (m >= p)
                    QTest::addRow("p=%d m=%d W=%.2fB", p, m, w) << p << m << w;
}

// With W a different share of the backward, the paper's bound is not exact for a static
// order; the properties still hold: ZB-H1 beats 1F1B at no more than 1F1B's memory, and
// ZB-H2's period is at most ZB-H1's once m covers its 2p - 1 warm-up forwards.
void TestPipelineSimulator::zeroBubbleUnevenSplit()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, wFraction);
    PipelineSpec s = uniform(ScheduleKind::ZeroBubbleH1, p, 1, m);
    s.weightGradS.assign(static_cast<std::size_t>(p), 2.0 * wFraction);
    const PipelineResult h1 = run(s);
    s.schedule = ScheduleKind::ZeroBubbleH2;
    const PipelineResult h2 = run(s);
    const PipelineResult ofob = run(uniform(ScheduleKind::OneFOneB, p, 1, m));
    QVERIFY(h1.ok && h2.ok && ofob.ok);
    QVERIFY(h1.makespanS < ofob.makespanS);
    if (m >= 2 * p)
        QVERIFY(h2.periodS <= h1.periodS + relTol);
    for (int rank = 0; rank < p; ++rank) {
        COMPARE_REL(h1.busyS[rank], 3.0 * m); // B + W = the full backward
        QVERIFY(h1.peakInFlight[rank] <= p);
    }
}

// ------------------------------------------------------------------ uneven stages

void TestPipelineSimulator::gpipeUnevenStages_data()
{
    QTest::addColumn<QList<double>>("forward");
    QTest::addColumn<QList<double>>("backward");
    QTest::addColumn<int>("m");
    QTest::addRow("slow first") << QList<double>{4, 1, 1, 1} << QList<double>{8, 2, 2, 2} << 8;
    QTest::addRow("slow middle") << QList<double>{1, 1, 3, 1} << QList<double>{2, 2, 6, 2} << 16;
    QTest::addRow("slow last") << QList<double>{1, 1, 1, 2.5} << QList<double>{2, 2, 2, 5} << 4;
    QTest::addRow("mixed speeds") << QList<double>{1.5, 0.5, 2, 1, 0.75}
                                  << QList<double>{2, 1.5, 3, 4, 1} << 32;
    QTest::addRow("one micro-batch") << QList<double>{1, 2, 3} << QList<double>{3, 2, 1} << 1;
}

// GPipe is two flow shops of identical jobs: all forwards, then all backwards. Each takes
// sum + (m - 1) * slowest (permutation flow shop with identical jobs), so the makespan is
// sum(f + b) + (m - 1)(max f + max b), exactly.
void TestPipelineSimulator::gpipeUnevenStages()
{
    QFETCH(QList<double>, forward);
    QFETCH(QList<double>, backward);
    QFETCH(int, m);
    PipelineSpec s;
    s.schedule = ScheduleKind::GPipe;
    s.stages = static_cast<int>(forward.size());
    s.microBatches = m;
    s.forwardS.assign(forward.begin(), forward.end());
    s.backwardS.assign(backward.begin(), backward.end());
    const PipelineResult r = run(s);
    QVERIFY(r.ok);
    const double sum = std::accumulate(forward.begin(), forward.end(), 0.0) +
                       std::accumulate(backward.begin(), backward.end(), 0.0);
    const double slowest = *std::max_element(forward.begin(), forward.end()) +
                           *std::max_element(backward.begin(), backward.end());
    COMPARE_REL(r.makespanS, sum + (m - 1) * slowest);
    for (int rank = 0; rank < s.stages; ++rank)
        COMPARE_REL(r.busyS[rank], m * (forward[rank] + backward[rank]));
}

void TestPipelineSimulator::oneFOneBSlowStage_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("slow");
    QTest::addColumn<double>("factor");
    QTest::addColumn<int>("m");
    for (int p : {2, 4, 8})
        for (int slow : {0, p / 2, p - 1})
            for (double factor : {1.5, 3.0})
                for (int m : {1, 8, 32})
                    QTest::addRow("p=%d slow=%d x%.1f m=%d", p, slow, factor, m)
                        << p << slow << factor << m;
}

// 1F1B with one slow stage s: at most sum(f + b) + (m - 1)(f_s + b_s) (each micro-batch
// behind the first waits at most one slow step), at least the slow stage's own work plus what
// must run before and after it; both are exact when the slow stage is the last one.
void TestPipelineSimulator::oneFOneBSlowStage()
{
    QFETCH(int, p);
    QFETCH(int, slow);
    QFETCH(double, factor);
    QFETCH(int, m);
    PipelineSpec s = uniform(ScheduleKind::OneFOneB, p, 1, m);
    s.forwardS[slow] *= factor;
    s.backwardS[slow] *= factor;
    const PipelineResult r = run(s);
    QVERIFY(r.ok);
    double sum = 0.0;
    double before = 0.0;
    for (int i = 0; i < p; ++i) {
        sum += s.forwardS[i] + s.backwardS[i];
        if (i < slow)
            before += s.forwardS[i] + s.backwardS[i];
    }
    const double slowStep = s.forwardS[slow] + s.backwardS[slow];
    const double upper = sum + (m - 1) * slowStep;
    const double lower = before + m * slowStep;
    QVERIFY(r.makespanS <= upper + relTol * upper);
    QVERIFY(r.makespanS >= lower - relTol * lower);
    if (slow == p - 1)
        COMPARE_REL(r.makespanS, upper);
}

// ------------------------------------------------------------------ transfers

void TestPipelineSimulator::oneFOneBTransfers_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("send");
    QTest::addColumn<double>("backward");
    for (int p : allP)
        for (int m : allM)
            for (double send : {0.05, 1.5, 40.0})
                QTest::addRow("p=%d m=%d t=%g", p, m, send) << p << m << send << 2.0;
    QTest::addRow("b=f p=8 m=32 t=0.3") << 8 << 32 << 0.3 << 1.0;
    QTest::addRow("b=3f p=4 m=17 t=2") << 4 << 17 << 2.0 << 3.0;
}

// Exact 1F1B makespan with uniform stages and the same transfer time t on every boundary,
// derived from this model's longest path: the first micro-batch's round trip crosses 2(p - 1)
// boundaries, and in steady state rank 0's p in-flight micro-batches have no slack on their
// round trip, so each later micro-batch adds 2t except one in every p:
//   makespan = (m + p - 1)(f + b) + 2t [(p - 1) + (m - 2) - floor((m - 2) / p)]
// (about 2t (p - 1) / p per micro-batch for large m, independent of f, b and t).
void TestPipelineSimulator::oneFOneBTransfers()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, send);
    QFETCH(double, backward);
    const PipelineResult r = run(uniform(ScheduleKind::OneFOneB, p, 1, m, 1.0, backward, send));
    QVERIFY(r.ok);
    const double x = m - 2;
    const double crossings = p == 1 ? 0.0 : (p - 1) + x - std::floor(x / p);
    COMPARE_REL(r.makespanS, (m + p - 1) * (1.0 + backward) + 2.0 * send * crossings);
    if (p > 1 && m <= 2)
        COMPARE_REL(r.makespanS - (m + p - 1) * (1.0 + backward), 2.0 * (p - 1) * send);
}

void TestPipelineSimulator::moreMicroBatchesNeverRaiseBubble_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<bool>("uneven");
    for (ScheduleKind kind : {ScheduleKind::GPipe, ScheduleKind::OneFOneB,
                              ScheduleKind::ZeroBubbleH1, ScheduleKind::ZeroBubbleH2})
        for (bool uneven : {false, true})
            QTest::addRow("%s %s", name(kind), uneven ? "uneven" : "uniform") << kind << uneven;
}

// Free transfers: the bubble ratio never rises with m (property over p = 2..16, m = 1..64).
// (With transfers it may, slightly: see oneFOneBTransfers, one micro-batch in p is free.)
void TestPipelineSimulator::moreMicroBatchesNeverRaiseBubble()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(bool, uneven);
    for (int p = 2; p <= 16; ++p) {
        double previous = 1.0;
        for (int m = 1; m <= 64; ++m) {
            PipelineSpec s = uniform(kind, p, 1, m);
            if (uneven)
                for (int i = 0; i < p; ++i) {
                    s.forwardS[i] = 1.0 + 0.37 * ((i * 7) % 5);
                    s.backwardS[i] = 2.1 * s.forwardS[i];
                }
            const PipelineResult r = run(s);
            QVERIFY(r.ok);
            if (r.bubbleRatio > previous + relTol)
                QFAIL(qPrintable(QStringLiteral("p=%1 m=%2: bubble %3 > %4 at m - 1")
                                     .arg(p)
                                     .arg(m)
                                     .arg(r.bubbleRatio)
                                     .arg(previous)));
            previous = r.bubbleRatio;
        }
    }
}

void TestPipelineSimulator::extraInFlightAtDci_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("dciSend");
    for (ScheduleKind kind : {ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B,
                              ScheduleKind::ZeroBubbleH1, ScheduleKind::ZeroBubbleH2}) {
        const int v = kind == ScheduleKind::Interleaved1F1B ? 2 : 1;
        for (double send : {2.0, 8.0})
            QTest::addRow("%s t=%g", name(kind), send) << kind << v << send;
    }
}

// Cross-DC-aware variant: p = 8, DCI between ranks 3 and 4 (every chunk boundary c with
// c % p == 3). A long DCI transfer stalls the plain schedule on the round trip; extra warm-up
// forwards on the ranks before it overlap the transfer and lower the bubble. With the DCI
// boundary free, the extra forwards change nothing (they only hold more memory).
void TestPipelineSimulator::extraInFlightAtDci()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, v);
    QFETCH(double, dciSend);
    const int p = 8;
    const int m = 32;
    const auto make = [&](double send, int extra) {
        PipelineSpec s = uniform(kind, p, v, m);
        const auto boundaries = static_cast<std::size_t>(p * v - 1);
        s.sendS.assign(boundaries, 0.01);
        s.sendCrossesDci.assign(boundaries, false);
        for (std::size_t c = 3; c < boundaries; c += static_cast<std::size_t>(p)) {
            s.sendS[c] = send;
            s.sendCrossesDci[c] = true;
        }
        s.extraInFlightAtDci = extra;
        return run(s);
    };
    const PipelineResult plain = make(dciSend, 0);
    const PipelineResult aware = make(dciSend, 2);
    QVERIFY(plain.ok && aware.ok);
    QVERIFY2(aware.bubbleRatio < plain.bubbleRatio - 1e-3,
             qPrintable(QStringLiteral("%1 vs %2").arg(aware.bubbleRatio).arg(plain.bubbleRatio)));
    QCOMPARE(aware.peakInFlight[0], plain.peakInFlight[0] + 2);
    if (v == 1) // ranks after the boundary are untouched
        QCOMPARE(aware.peakInFlight[p - 1], plain.peakInFlight[p - 1]);

    const PipelineResult freePlain = make(0.0, 0);
    const PipelineResult freeAware = make(0.0, 2);
    QVERIFY(freePlain.ok && freeAware.ok);
    QVERIFY(freeAware.bubbleRatio <= freePlain.bubbleRatio + relTol);
    QVERIFY(freeAware.makespanS <= freePlain.makespanS * (1.0 + relTol));
}

// ------------------------------------------------------------------ in flight against the traits

// The memory model's in-flight count (model/scheduletraits.h) is the one formula; the simulator
// measures the peak from the op order it runs. They agree on every rank for the schedules that
// do not split the backward. For ZB-H1/H2 the simulator holds a micro-batch until its deferred
// W ends, so rank r counts r (2r for H2) more; the formula counts full activations only until
// B, which is right on rank 0 (the worst stage of a uniform pipeline) and low on later ranks by
// what W keeps (the linear layers' inputs, Qi et al. 2023 section 3, M_W). Pinned here so a
// change to either side is seen.
void TestPipelineSimulator::traitsInFlightMatchSimulatedPeak_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    for (const ScheduleTraits& t : allScheduleTraits())
        for (int p : {2, 4, 8})
            for (int m : {4, 8, 16, 32})
                for (int v : t.interleaved ? std::vector<int>{2, 3}
                                           : std::vector<int>{chunksPerRank(t.kind, 1)}) {
                    if (t.interleaved && m % p != 0)
                        continue;
                    if (t.modelCopies == 2 && m < 2 * p) // DualPipe: m >= 2p
                        continue;
                    const std::string name = std::string(t.key) + " p" + std::to_string(p) + " v" +
                                             std::to_string(v) + " m" + std::to_string(m);
                    QTest::newRow(name.c_str()) << static_cast<int>(t.kind) << p << v << m;
                }
}

void TestPipelineSimulator::traitsInFlightMatchSimulatedPeak()
{
    QFETCH(int, kind);
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    PipelineSpec spec;
    spec.schedule = static_cast<ScheduleKind>(kind);
    spec.stages = p;
    spec.virtualStages = v;
    spec.microBatches = m;
    spec.forwardS.assign(static_cast<std::size_t>(p * v), 1.0);
    spec.backwardS.assign(static_cast<std::size_t>(p * v), 2.0);
    spec.recordTimeline = false;
    const PipelineResult r = simulatePipeline(spec);
    QVERIFY2(r.ok, r.error.c_str());
    const ScheduleTraits& traits = scheduleTraits(spec.schedule);
    for (int rank = 0; rank < p; ++rank) {
        const int formula =
            static_cast<int>(std::ceil(inFlightMicroBatches(spec.schedule, p, v, m, rank) - 1e-9));
        // DualPipe's formula (the report's PP + 1) already counts what its W's hold.
        const int deferredW = spec.schedule == ScheduleKind::ZeroBubbleH2 ? 2 * rank
                              : spec.schedule == ScheduleKind::DualPipe   ? 0
                                                                          : rank;
        const int expected = traits.splitsWeightGrad ? std::min(m, formula + deferredW) : formula;
        QCOMPARE(r.peakInFlight[static_cast<std::size_t>(rank)], expected);
    }
}

// The memory pass's rule for the cross-DC-aware extras (evaluationfill.cpp: the traits' count
// plus the extras on every rank up to the last DCI sender, all ranks when interleaved, at most
// m) is what the simulator holds.
void TestPipelineSimulator::extraInFlightMatchesSimulatedPeak()
{
    QFETCH(int, kind);
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    const ScheduleTraits& traits = scheduleTraits(static_cast<ScheduleKind>(kind));
    if (!traits.extraInFlightApplies)
        QSKIP("the schedule runs no extras");
    for (const int extra : {1, 4}) {
        PipelineSpec spec;
        spec.schedule = traits.kind;
        spec.stages = p;
        spec.virtualStages = v;
        spec.microBatches = m;
        spec.forwardS.assign(static_cast<std::size_t>(p * v), 1.0);
        spec.backwardS.assign(static_cast<std::size_t>(p * v), 2.0);
        spec.recordTimeline = false;
        // One DCI boundary in the middle of the first chain: ranks 0 .. p/2 - 1 run ahead.
        const int lastSender = p / 2 - 1;
        spec.sendCrossesDci.assign(static_cast<std::size_t>(p * v - 1), false);
        spec.sendCrossesDci[static_cast<std::size_t>(lastSender)] = true;
        spec.sendS.assign(static_cast<std::size_t>(p * v - 1), 0.0);
        spec.extraInFlightAtDci = extra;
        const PipelineResult r = simulatePipeline(spec);
        QVERIFY2(r.ok, r.error.c_str());
        for (int rank = 0; rank < p; ++rank) {
            const int ahead = v > 1 || rank <= lastSender ? extra : 0;
            const double held =
                std::min<double>(m, inFlightMicroBatches(traits.kind, p, v, m, rank) + ahead);
            const int formula = static_cast<int>(std::ceil(held - 1e-9));
            const int deferredW = traits.kind == ScheduleKind::ZeroBubbleH2 ? 2 * rank : rank;
            const int expected =
                traits.splitsWeightGrad ? std::min(m, formula + deferredW) : formula;
            QVERIFY2(r.peakInFlight[static_cast<std::size_t>(rank)] == expected,
                     qPrintable(QString("extra %1, rank %2: simulated %3, memory pass %4")
                                    .arg(extra)
                                    .arg(rank)
                                    .arg(r.peakInFlight[static_cast<std::size_t>(rank)])
                                    .arg(expected)));
        }
    }
}

void TestPipelineSimulator::traitsTableNamesEverySchedule()
{
    int count = 0;
    for (const ScheduleTraits& t : allScheduleTraits()) {
        QCOMPARE(static_cast<int>(t.kind), count++);
        QCOMPARE(scheduleKindFromString(std::string(t.key)), std::optional<ScheduleKind>(t.kind));
        QVERIFY(!t.displayName.empty() && !t.source.empty());
    }
    QCOMPARE(count, static_cast<int>(ScheduleKind::DualPipe) + 1);
}

QTEST_APPLESS_MAIN(TestPipelineSimulator)
#include "test_pipelinesimulator.moc"
