// Tests of the pipeline simulator (core/pipelinesimulator.h) beyond the closed forms: links
// shared by several boundaries, no deadlock and every dependency held over grids of shapes, the
// timeline, invalid specs, and DualPipe (DeepSeek-V3 report Table 2, dualpipe.py's op order).
#include "pipeline/pipelinesimulator.h"

#include "pipeline/pipelineschedules.h"
#include "pipelinefixtures.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace archipelago::core;

using archipelago::tests::fuzzyEqual;
using archipelago::tests::name;
using archipelago::tests::relTol;
using archipelago::tests::run;
using archipelago::tests::uniform;

namespace {

const ScheduleKind allKinds[] = {ScheduleKind::GPipe, ScheduleKind::OneFOneB,
                                 ScheduleKind::Interleaved1F1B, ScheduleKind::ZeroBubbleH1,
                                 ScheduleKind::ZeroBubbleH2};

} // namespace

class TestPipelineRobustness : public QObject
{
    Q_OBJECT

private slots:
    void sharedResourceSerialises();
    void oppositeDirectionsDoNotInterfere();
    void resourceFreeSpecUnchanged_data();
    void resourceFreeSpecUnchanged();
    void resourceBusyAfter();
    void noDeadlockAndDependenciesHold();
    void timelineCounts_data();
    void timelineCounts();
    void invalidSpecs_data();
    void invalidSpecs();
    void dualPipeMatchesReportTable_data();
    void dualPipeMatchesReportTable();
    void dualPipeOpOrder();
    void dualPipeRejectsOddShapes_data();
    void dualPipeRejectsOddShapes();
    void dualPipeNoDeadlock();
};

// ------------------------------------------------------------------ shared links

namespace {

// p ranks of (nearly) free compute: the shared link is the bottleneck.
PipelineSpec linkBound(ScheduleKind kind, int p, int m, double send)
{
    PipelineSpec s = uniform(kind, p, 1, m, 1e-6, 2e-6, send);
    s.resources.push_back({LinkClass::Dci, 0, true, 50.0});
    s.resources.push_back({LinkClass::Dci, 0, false, 50.0});
    return s;
}

// The busy intervals of every resource are disjoint, sum to busyS, and end by the makespan.
bool capacityConserved(const PipelineResult& r)
{
    for (const PipelineResourceUsage& u : r.resources) {
        double sum = 0.0;
        double last = 0.0;
        for (const auto& [start, end] : u.busyIntervals) {
            if (start + 1e-12 < last || end < start)
                return false;
            sum += end - start;
            last = end;
        }
        if (!fuzzyEqual(sum, u.busyS) || last > r.makespanS * (1.0 + relTol))
            return false;
    }
    return true;
}

} // namespace

// Two boundaries that load one link in the same direction need twice its time: each of the m
// forward transfers holds the link for t, so m t for one boundary and 2 m t for two (plus the
// pipeline's fill, a few t), where unshared transfers would all overlap (about 3t in all).
void TestPipelineRobustness::sharedResourceSerialises()
{
    const int p = 3;
    const int m = 32;
    const double t = 1.0;
    {
        const ScheduleKind kind = ScheduleKind::GPipe; // all forwards first: no round trips
        const PipelineResult free = run(linkBound(kind, p, m, t));
        PipelineSpec one = linkBound(kind, p, m, t);
        one.loads.push_back({0, false, 0, t});
        PipelineSpec two = one;
        two.loads.push_back({1, false, 0, t});
        const PipelineResult r1 = run(one);
        const PipelineResult r2 = run(two);
        QVERIFY(free.ok && r1.ok && r2.ok);
        QVERIFY(capacityConserved(r1) && capacityConserved(r2));
        QVERIFY(free.makespanS < 2 * p * t + 1e-3);
        COMPARE_REL(r1.resources[0].busyS, m * t);
        COMPARE_REL(r2.resources[0].busyS, 2 * m * t);
        QCOMPARE(r1.resources[1].busyS, 0.0);
        QVERIFY(r1.makespanS >= m * t && r1.makespanS <= (m + 2 * p) * t);
        QVERIFY(r2.makespanS >= 2 * m * t && r2.makespanS <= (2 * m + 2 * p) * t);
        // The timeline's Send blocks over the link show the queue: they never overlap.
        PipelineSpec shown = two;
        shown.recordTimeline = true;
        const PipelineResult rt = run(shown);
        std::vector<std::pair<double, double>> sends;
        for (const TimelineBlock& b : rt.timeline)
            if (b.kind == BlockKind::Send && b.stage < 2 && b.endS - b.startS > 0.0 &&
                (b.stage == 0 || b.stage == 1) && b.startS < rt.makespanS)
                if (std::abs(b.endS - b.startS - t) < 1e-9)
                    sends.push_back({b.startS, b.endS});
        std::sort(sends.begin(), sends.end());
        QVERIFY(sends.size() >= static_cast<std::size_t>(2 * m));
        int overlaps = 0;
        for (std::size_t i = 1; i < sends.size(); ++i)
            overlaps += sends[i].first + 1e-9 < sends[i - 1].second ? 1 : 0;
        // Backward sends (unshared, also t long) may overlap the forward queue; the forward
        // ones alone are 2m back-to-back transfers.
        QVERIFY(overlaps <= m + p);
        COMPARE_REL(rt.makespanS, r2.makespanS);
    }
}

// Activations go one way and gradients the other: on the two directions of a link they do
// not queue behind each other; forced onto one direction they do.
void TestPipelineRobustness::oppositeDirectionsDoNotInterfere()
{
    const int p = 2;
    const int m = 32;
    const double t = 1.0;
    PipelineSpec split = linkBound(ScheduleKind::OneFOneB, p, m, t);
    split.loads = {{0, false, 0, t}, {0, true, 1, t}};
    PipelineSpec same = split;
    same.loads[1].resource = 0;
    const PipelineResult rs = run(split);
    const PipelineResult r1 = run(same);
    QVERIFY(rs.ok && r1.ok);
    QVERIFY(capacityConserved(rs) && capacityConserved(r1));
    COMPARE_REL(rs.resources[0].busyS, m * t);
    COMPARE_REL(rs.resources[1].busyS, m * t);
    COMPARE_REL(r1.resources[0].busyS, 2 * m * t);
    // 1F1B with p = 2 keeps two micro-batches in flight: a forward and a backward transfer
    // overlap in steady state, so each direction is busy almost all the time.
    QVERIFY(rs.makespanS <= (m + 4) * t);
    QVERIFY(r1.makespanS >= 2 * m * t);
}

void TestPipelineRobustness::resourceFreeSpecUnchanged_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    for (ScheduleKind kind : allKinds)
        for (int p : {2, 4, 8})
            for (int m : {4, 8, 16})
                for (int v : {1, 2}) {
                    if (v > 1 && (kind != ScheduleKind::Interleaved1F1B || m % p != 0))
                        continue;
                    QTest::addRow("%s p=%d v=%d m=%d", name(kind), p, v, m) << kind << p << v << m;
                }
}

// Loads that take no time, or a resource no transfer loads, change nothing: same makespan,
// busy times, peaks and timeline (in another order) as the spec without resources.
void TestPipelineRobustness::resourceFreeSpecUnchanged()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    PipelineSpec plain = uniform(kind, p, v, m, 1.0, 2.0, 0.3);
    for (std::size_t c = 0; c < plain.sendS.size(); ++c)
        plain.sendS[c] = 0.1 + 0.2 * static_cast<double>(c % 3);
    plain.recordTimeline = true;
    PipelineSpec idle = plain;
    idle.resources.push_back({LinkClass::Dci, 3, true, 50.0});
    PipelineSpec zero = idle;
    for (int c = 0; c + 1 < p * v; ++c)
        for (bool backward : {false, true})
            zero.loads.push_back({c, backward, 0, 0.0});
    const PipelineResult a = run(plain);
    for (const PipelineSpec& spec : {idle, zero}) {
        const PipelineResult b = run(spec);
        QVERIFY(a.ok && b.ok);
        QCOMPARE(b.makespanS, a.makespanS);
        QCOMPARE(b.periodS, a.periodS);
        QCOMPARE(b.busyS, a.busyS);
        QCOMPARE(b.finishS, a.finishS);
        QCOMPARE(b.peakInFlight, a.peakInFlight);
        QCOMPARE(b.gradReadyEndS, a.gradReadyEndS);
        QCOMPARE(b.resources.size(), std::size_t(1));
        QCOMPARE(b.resources[0].busyS, 0.0);
        auto ta = a.timeline;
        auto tb = b.timeline;
        const auto order = [](const TimelineBlock& x, const TimelineBlock& y) {
            return std::tie(x.stage, x.kind, x.chunk, x.microBatch, x.startS) <
                   std::tie(y.stage, y.kind, y.chunk, y.microBatch, y.startS);
        };
        std::sort(ta.begin(), ta.end(), order);
        std::sort(tb.begin(), tb.end(), order);
        QVERIFY(ta == tb);
    }
    QVERIFY(a.resources.empty());
}

// resourceBusyAfterS clips the busy intervals at t and at the makespan.
void TestPipelineRobustness::resourceBusyAfter()
{
    const int m = 8;
    PipelineSpec s = linkBound(ScheduleKind::GPipe, 2, m, 1.0);
    s.loads.push_back({0, false, 0, 1.0});
    const PipelineResult r = run(s);
    QVERIFY(r.ok);
    COMPARE_REL(r.resourceBusyAfterS(0, 0.0), r.resources[0].busyS);
    COMPARE_REL(r.resourceBusyAfterS(0, -5.0), m * 1.0);
    QVERIFY(std::abs(r.resourceBusyAfterS(0, 3.5) - (m - 3.5)) < 1e-4); // back to back from ~0
    QCOMPARE(r.resourceBusyAfterS(0, r.makespanS), 0.0);
    QCOMPARE(r.resourceBusyAfterS(1, 0.0), 0.0);
    QCOMPARE(r.resourceBusyAfterS(7, 0.0), 0.0);
    QCOMPARE(r.resources[0].busyIntervals.size(), std::size_t(1)); // merged, back to back
}

// ------------------------------------------------------------------ robustness and timeline

// Every schedule over a grid of p, v, m, extra in-flight and DCI placements, with uneven
// stages and transfers: no deadlock, and the timeline obeys every dependency and never runs
// two ops at once on a rank.
void TestPipelineRobustness::noDeadlockAndDependenciesHold()
{
    int cases = 0;
    for (ScheduleKind kind : allKinds)
        for (int p : {1, 2, 3, 4, 5, 8})
            for (int v : {1, 2, 3, 4}) {
                if (v > 1 && kind != ScheduleKind::Interleaved1F1B)
                    continue;
                for (int m : {1, 2, 3, 4, 5, 8, 10, 16, 24}) {
                    if (v > 1 && m % p != 0)
                        continue;
                    for (int extra : {0, 1, 3})
                        for (int dci = -1; dci < std::min(p * v - 1, 4); ++dci) {
                            const int n = p * v;
                            PipelineSpec s;
                            s.schedule = kind;
                            s.stages = p;
                            s.virtualStages = v;
                            s.microBatches = m;
                            for (int c = 0; c < n; ++c) {
                                s.forwardS.push_back(0.5 + 0.25 * ((c * 5) % 3));
                                s.backwardS.push_back(1.0 + 0.5 * ((c * 3) % 4));
                                s.weightGradS.push_back(0.4 * s.backwardS.back());
                            }
                            s.sendS.assign(static_cast<std::size_t>(n - 1), 0.05);
                            s.sendCrossesDci.assign(static_cast<std::size_t>(n - 1), false);
                            if (dci >= 0) {
                                s.sendS[dci] = 3.0;
                                s.sendCrossesDci[dci] = true;
                                // Half the cases share the DCI link (each direction).
                                if (extra != 1) {
                                    s.resources = {{}, {LinkClass::Dci, 0, false, 1.0}};
                                    s.loads = {{dci, false, 0, 2.5}, {dci, true, 1, 2.5}};
                                }
                            }
                            s.extraInFlightAtDci = extra;
                            const PipelineResult r = simulatePipeline(s);
                            ++cases;
                            if (!r.ok)
                                QFAIL(qPrintable(QStringLiteral("%1 p=%2 v=%3 m=%4 e=%5: %6")
                                                     .arg(QLatin1String(name(kind)))
                                                     .arg(p)
                                                     .arg(v)
                                                     .arg(m)
                                                     .arg(extra)
                                                     .arg(QString::fromStdString(r.error))));
                            // End times by (kind, chunk, micro-batch) to check dependencies.
                            std::map<std::tuple<int, int, int>, std::pair<double, double>> at;
                            std::vector<std::vector<std::pair<double, double>>> byRank(
                                static_cast<std::size_t>(p));
                            for (const TimelineBlock& b : r.timeline) {
                                if (b.kind == BlockKind::Send)
                                    continue;
                                const int chunk = b.chunk * p + b.stage;
                                at[{static_cast<int>(b.kind), chunk, b.microBatch}] = {b.startS,
                                                                                       b.endS};
                                byRank[b.stage].push_back({b.startS, b.endS});
                            }
                            const auto fwd = static_cast<int>(BlockKind::Forward);
                            const auto bwd = static_cast<int>(BlockKind::Backward);
                            const auto endOf = [&at](int k, int c, int j) {
                                const auto it = at.find({k, c, j});
                                return it == at.end() ? std::numeric_limits<double>::quiet_NaN()
                                                      : it->second.second;
                            };
                            for (const auto& [key, span] : at) {
                                const auto [k, c, j] = key;
                                const double start = span.first + 1e-12;
                                if (k == fwd && c > 0)
                                    QVERIFY(start >= endOf(fwd, c - 1, j) + s.sendS[c - 1]);
                                if (k == bwd && c + 1 < n)
                                    QVERIFY(start >= endOf(bwd, c + 1, j) + s.sendS[c]);
                                if (k == bwd)
                                    QVERIFY(start >= endOf(fwd, c, j));
                                if (k == static_cast<int>(BlockKind::WeightGrad))
                                    QVERIFY(start >= endOf(bwd, c, j));
                            }
                            QVERIFY(capacityConserved(r));
                            for (auto& spans : byRank) {
                                std::sort(spans.begin(), spans.end());
                                for (std::size_t i = 1; i < spans.size(); ++i)
                                    QVERIFY(spans[i].first + 1e-12 >= spans[i - 1].second);
                            }
                        }
                }
            }
    QVERIFY(cases > 1000);
}

void TestPipelineRobustness::timelineCounts_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    for (ScheduleKind kind : allKinds)
        for (int p : {1, 4, 8})
            for (int v : {1, 2, 4})
                for (int m : {4, 8, 32}) {
                    if (v > 1 && kind != ScheduleKind::Interleaved1F1B)
                        continue;
                    if (v > 1 && m % p != 0)
                        continue;
                    QTest::addRow("%s p=%d v=%d m=%d", name(kind), p, v, m) << kind << p << v << m;
                }
}

// p v m forwards and as many backwards (and W's for zero bubble); one Send block per transfer
// that takes time, flagged when it crosses a DCI; nothing past the makespan.
void TestPipelineRobustness::timelineCounts()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    PipelineSpec s = uniform(kind, p, v, m, 1.0, 2.0, 0.1);
    s.recordTimeline = true;
    const int n = p * v;
    s.sendCrossesDci.assign(static_cast<std::size_t>(std::max(n - 1, 0)), false);
    if (n > 1)
        s.sendCrossesDci[static_cast<std::size_t>(n / 2 - 1)] = true;
    const PipelineResult r = run(s);
    QVERIFY(r.ok);
    std::map<BlockKind, int> count;
    int dciSends = 0;
    double last = 0.0;
    for (const TimelineBlock& b : r.timeline) {
        ++count[b.kind];
        dciSends += b.crossesDci ? 1 : 0;
        QVERIFY(b.kind == BlockKind::Send || !b.crossesDci);
        QVERIFY(b.stage >= 0 && b.stage < p && b.chunk >= 0 && b.chunk < v);
        QVERIFY(b.endS >= b.startS);
        if (b.kind != BlockKind::Send)
            last = std::max(last, b.endS);
    }
    const bool zeroBubble =
        kind == ScheduleKind::ZeroBubbleH1 || kind == ScheduleKind::ZeroBubbleH2;
    QCOMPARE(count[BlockKind::Forward], p * v * m);
    QCOMPARE(count[BlockKind::Backward], p * v * m);
    QCOMPARE(count[BlockKind::WeightGrad], zeroBubble ? p * v * m : 0);
    QCOMPARE(count[BlockKind::Send], 2 * (n - 1) * m);
    QCOMPARE(dciSends, n > 1 ? 2 * m : 0);
    COMPARE_REL(last, r.makespanS);

    s.recordTimeline = false;
    const PipelineResult quiet = run(s);
    QVERIFY(quiet.timeline.empty());
    COMPARE_REL(quiet.makespanS, r.makespanS);
}

void TestPipelineRobustness::invalidSpecs_data()
{
    QTest::addColumn<PipelineSpec>("spec");
    const PipelineSpec ok = uniform(ScheduleKind::OneFOneB, 4, 1, 8);
    PipelineSpec s = ok;
    s.stages = 0;
    QTest::addRow("no stages") << s;
    s = ok;
    s.microBatches = 0;
    QTest::addRow("no micro-batches") << s;
    s = ok;
    s.virtualStages = 2;
    QTest::addRow("virtual stages without interleaving") << s;
    s = uniform(ScheduleKind::Interleaved1F1B, 4, 2, 6);
    QTest::addRow("interleaved, m not a multiple of p") << s;
    s = ok;
    s.forwardS.pop_back();
    QTest::addRow("forward size") << s;
    s = ok;
    s.sendS.assign(4, 0.1);
    QTest::addRow("send size") << s;
    s = ok;
    s.sendCrossesDci.assign(2, true);
    QTest::addRow("dci size") << s;
    s = ok;
    s.backwardS[1] = -1.0;
    QTest::addRow("negative time") << s;
    s = ok;
    s.forwardS[2] = std::nan("");
    QTest::addRow("nan time") << s;
    s = ok;
    s.sendS.assign(3, std::numeric_limits<double>::infinity());
    QTest::addRow("infinite send") << s;
    s = uniform(ScheduleKind::ZeroBubbleH1, 4, 1, 8);
    s.weightGradS.assign(4, 2.5);
    QTest::addRow("W longer than the backward") << s;
    s = ok;
    s.extraInFlightAtDci = -1;
    QTest::addRow("negative extra in-flight") << s;
    s = ok;
    s.microBatches = 1 << 30;
    QTest::addRow("absurdly large") << s;
    s = ok;
    s.resources.push_back({});
    s.loads.push_back({3, false, 0, 1.0});
    QTest::addRow("load past the last boundary") << s;
    s.loads = {{0, true, 1, 1.0}};
    QTest::addRow("load of an unknown resource") << s;
    s.loads = {{0, true, 0, -1.0}};
    QTest::addRow("negative service") << s;
    s.loads = {{0, true, 0, std::numeric_limits<double>::infinity()}};
    QTest::addRow("infinite service") << s;
}

void TestPipelineRobustness::invalidSpecs()
{
    QFETCH(PipelineSpec, spec);
    const PipelineResult r = simulatePipeline(spec);
    QVERIFY(!r.ok);
    QVERIFY(!r.error.empty());
    QVERIFY(std::isnan(r.makespanS));
    QVERIFY(r.timeline.empty());
}

// ------------------------------------------------------------------ DualPipe

namespace {

// DualPipe with uniform chunks: f forward, b full backward, w of it the weight gradient, for
// each of the 2p chunks (chunk p + s repeats stage s on rank p - 1 - s).
PipelineSpec dualPipe(int p, int m, double f, double b, double w)
{
    PipelineSpec s;
    s.schedule = ScheduleKind::DualPipe;
    s.stages = p;
    s.virtualStages = 2;
    s.microBatches = m;
    const auto n = static_cast<std::size_t>(2 * p);
    s.forwardS.assign(n, f);
    s.backwardS.assign(n, b);
    s.weightGradS.assign(n, w);
    s.recordTimeline = false;
    return s;
}

// Most (chunk, micro-batch) activations a rank holds, counted from its op order: an F takes
// one, a full backward or a W gives it back.
std::vector<int> chunkActivationPeaks(const PipelineSpec& spec)
{
    const RankOrders o = buildRankOrders(spec);
    std::vector<int> peaks;
    for (int r = 0; r < spec.stages; ++r) {
        int held = 0;
        int peak = 0;
        for (int i = o.begin[static_cast<std::size_t>(r)];
             i < o.begin[static_cast<std::size_t>(r) + 1]; ++i) {
            const PipelineOp& op = o.ops[static_cast<std::size_t>(i)];
            if (op.kind == PipelineOpKind::Forward)
                peak = std::max(peak, ++held);
            else if (op.kind == PipelineOpKind::WeightGrad ||
                     (op.kind == PipelineOpKind::Backward && op.fullBackward))
                --held;
        }
        peaks.push_back(peak);
    }
    return peaks;
}

} // namespace

void TestPipelineRobustness::dualPipeMatchesReportTable_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("f");
    for (int p : {2, 4, 8, 16})
        for (int m : {2 * p, 2 * p + 2, 4 * p, 40})
            for (double f : {1.0, 2.5})
                QTest::addRow("p=%d m=%d F=%g", p, m, f) << p << m << f;
}

// DeepSeek-V3 report Table 2, DualPipe: bubble (PP/2 - 1)(F&B + B - 3W), activations PP + 1,
// with B the full backward and F&B an overlapped forward-backward pair, here F + B (the pair
// runs both ops back to back; the EP all-to-all hiding is in the chunk times). Exact with the
// zero-bubble paper's uniform costs, T_F = T_B(input) = T_W: F = f, B = 2f, W = f. Every rank
// idles that long (the schedule is symmetric), compute m (F + B) per rank.
void TestPipelineRobustness::dualPipeMatchesReportTable()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, f);
    const double b = 2.0 * f;
    const double w = f;
    const PipelineSpec spec = dualPipe(p, m, f, b, w);
    const PipelineResult r = run(spec);
    QVERIFY(r.ok);
    const double bubble = (p / 2.0 - 1.0) * ((f + b) + b - 3.0 * w);
    for (int rank = 0; rank < p; ++rank) {
        COMPARE_REL(r.busyS[static_cast<std::size_t>(rank)], m * (f + b));
        COMPARE_REL(r.idleS[static_cast<std::size_t>(rank)], bubble);
    }
    COMPARE_REL(r.makespanS, m * (f + b) + bubble);
    // Against 1F1B (p - 1)(F + B) and ZB-H1 (p - 1)(F + B - 2W) on the same p and m.
    if (p > 2) {
        QVERIFY(bubble < (p - 1) * (f + b - 2.0 * w));
        const PipelineResult zb = run(uniform(ScheduleKind::ZeroBubbleH1, p, 1, m, f, b));
        QVERIFY(r.makespanS < zb.makespanS);
    }
    // Activations: PP + 1 chunk activations on every rank; the simulator reports them in
    // micro-batches of the rank's 2 chunks, rounded up.
    for (int peak : chunkActivationPeaks(spec))
        QCOMPARE(peak, p + 1);
    for (int rank = 0; rank < p; ++rank)
        QCOMPARE(r.peakInFlight[static_cast<std::size_t>(rank)], p / 2 + 1);
}

// The op order of dualpipe.py for p = 4, m = 8, rank 0 (h = 0, phase 0 down, chunk 0, phase
// 1 up, chunk 7; up micro-batches numbered 4..7) and rank 1 (middle rank, h = 1).
void TestPipelineRobustness::dualPipeOpOrder()
{
    const RankOrders o = buildRankOrders(dualPipe(4, 8, 1.0, 2.0, 1.0));
    QCOMPARE(o.chainLength, 4);
    QCOMPARE(o.chunkRank, (std::vector<int>{0, 1, 2, 3, 3, 2, 1, 0}));
    const auto text = [&](int rank) {
        std::string out;
        for (int i = o.begin[static_cast<std::size_t>(rank)];
             i < o.begin[static_cast<std::size_t>(rank) + 1]; ++i) {
            const PipelineOp& op = o.ops[static_cast<std::size_t>(i)];
            out += op.kind == PipelineOpKind::Forward    ? "F"
                   : op.kind == PipelineOpKind::Backward ? (op.fullBackward ? "B" : "b")
                                                         : "W";
            out += std::to_string(op.chunk) + "." + std::to_string(op.microBatch);
            out += op.pairedWithNext ? "&" : " ";
        }
        return out;
    };
    // Steps 1-8 of dualpipe.py; "&" joins an overlapped pair, "b" is B without its W.
    QCOMPARE(text(0), std::string("F0.0 F0.1 F0.2 F7.4 b7.4 W7.4 F7.5 F0.3&B7.5 F7.6&B0.0 "
                                  "B7.6 F7.7&B0.1 B7.7 b0.2 W0.2 b0.3 W0.3 "));
    // The middle rank runs its first F0 and B1 apart ("to further reduce bubble size").
    QCOMPARE(text(1), std::string("F1.0 F6.4 F1.1 F6.5 F1.2 B6.4 F6.6&B1.0 F1.3&B6.5 "
                                  "F6.7&B1.1 B6.6 B1.2 b6.7 b1.3 W6.7 W1.3 "));
    // Ranks p - 1 - r mirror ranks r with the copies swapped.
    QCOMPARE(text(3).substr(0, 20), std::string("F4.4 F4.5 F4.6 F3.0 "));
}

void TestPipelineRobustness::dualPipeRejectsOddShapes_data()
{
    QTest::addColumn<PipelineSpec>("spec");
    QTest::addRow("odd p") << dualPipe(3, 12, 1.0, 2.0, 1.0);
    QTest::addRow("odd m") << dualPipe(4, 9, 1.0, 2.0, 1.0);
    QTest::addRow("m < 2p") << dualPipe(4, 6, 1.0, 2.0, 1.0);
    PipelineSpec s = dualPipe(4, 8, 1.0, 2.0, 1.0);
    s.virtualStages = 1;
    s.forwardS.resize(4);
    s.backwardS.resize(4);
    s.weightGradS.resize(4);
    QTest::addRow("one chunk per rank") << s;
}

void TestPipelineRobustness::dualPipeRejectsOddShapes()
{
    QFETCH(PipelineSpec, spec);
    const PipelineResult r = simulatePipeline(spec);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.find("DualPipe") != std::string::npos, r.error.c_str());
}

// Every even p and m >= 2p runs to the end with uneven chunks and transfers; each op starts
// after its inputs (its own chain's neighbour, the pair's both inputs) and no rank runs two
// ops at once; the weight gradients of every chunk become final.
void TestPipelineRobustness::dualPipeNoDeadlock()
{
    int cases = 0;
    for (int p : {2, 4, 6, 8, 10, 16})
        for (int m = 2 * p; m <= 4 * p + 6; m += 2)
            for (double send : {0.0, 0.3}) {
                PipelineSpec s = dualPipe(p, m, 1.0, 2.0, 1.0);
                for (int c = 0; c < 2 * p; ++c) {
                    s.forwardS[static_cast<std::size_t>(c)] = 0.5 + 0.25 * ((c * 5) % 3);
                    s.backwardS[static_cast<std::size_t>(c)] = 1.0 + 0.5 * ((c * 3) % 4);
                    s.weightGradS[static_cast<std::size_t>(c)] = 0.4 * (1.0 + 0.5 * ((c * 3) % 4));
                }
                s.sendS.assign(static_cast<std::size_t>(2 * p - 1), send);
                s.recordTimeline = true;
                const PipelineResult r = simulatePipeline(s);
                ++cases;
                QVERIFY2(r.ok, qPrintable(QStringLiteral("p=%1 m=%2: %3")
                                              .arg(p)
                                              .arg(m)
                                              .arg(QString::fromStdString(r.error))));
                std::map<std::tuple<int, int, int>, std::pair<double, double>> at;
                std::vector<std::vector<std::pair<double, double>>> byRank(
                    static_cast<std::size_t>(p));
                const std::vector<int> ranks = chunkRanks(ScheduleKind::DualPipe, p, 2);
                for (const TimelineBlock& b : r.timeline) {
                    if (b.kind == BlockKind::Send)
                        continue;
                    // Local chunk 0 of rank r is chunk r, local chunk 1 is 2p - 1 - r.
                    const int chunk = b.chunk == 0 ? b.stage : 2 * p - 1 - b.stage;
                    QCOMPARE(ranks[static_cast<std::size_t>(chunk)], b.stage);
                    at[{static_cast<int>(b.kind), chunk, b.microBatch}] = {b.startS, b.endS};
                    byRank[static_cast<std::size_t>(b.stage)].push_back({b.startS, b.endS});
                }
                std::map<int, int> count;
                for (const auto& entry : at)
                    ++count[std::get<0>(entry.first)];
                QCOMPARE(count[static_cast<int>(BlockKind::Forward)], p * m); // 2p chunks, m/2
                QCOMPARE(count[static_cast<int>(BlockKind::Backward)], p * m);
                const auto fwd = static_cast<int>(BlockKind::Forward);
                const auto bwd = static_cast<int>(BlockKind::Backward);
                const auto endOf = [&at](int k, int c, int j) {
                    const auto it = at.find({k, c, j});
                    return it == at.end() ? std::numeric_limits<double>::quiet_NaN()
                                          : it->second.second;
                };
                for (const auto& [key, span] : at) {
                    const auto [k, c, j] = key;
                    const double start = span.first + 1e-12;
                    QCOMPARE(c < p, j < m / 2); // down copy: the first half of the micro-batches
                    if (k == fwd && c % p > 0)
                        QVERIFY(start >= endOf(fwd, c - 1, j) + send);
                    if (k == bwd && c % p < p - 1)
                        QVERIFY(start >= endOf(bwd, c + 1, j) + send);
                    if (k == bwd)
                        QVERIFY(start >= endOf(fwd, c, j));
                }
                for (auto& spans : byRank) {
                    std::sort(spans.begin(), spans.end());
                    for (std::size_t i = 1; i < spans.size(); ++i)
                        QVERIFY(spans[i].first + 1e-12 >= spans[i - 1].second);
                }
                for (double end : r.gradReadyEndS)
                    QVERIFY(end > 0.0);
            }
    QVERIFY(cases > 50);
}

QTEST_APPLESS_MAIN(TestPipelineRobustness)
#include "test_pipelinerobustness.moc"
