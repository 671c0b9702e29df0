// The simulator's replays (core/pipeline/pipelinesimulator.cpp): a shape simulated before is
// run again in the order it ran instead of through the worklist and the heap. Over randomised
// shapes of every schedule, with uneven stages, transfers, cross-DC extras and transfers that
// load shared links, a replay gives exactly (bit for bit) what the simulation gives on the
// same numbers; a replay with loads is refused, and the shape simulated, when a shared link
// would serve its transfers in another order than the recorded one.
#include "model/scheduletraits.h"
#include "pipeline/pipelineshapes.h"
#include "pipeline/pipelinesimulator.h"
#include "pipelinefixtures.h"

#include <QTest>

#include <random>

using namespace archipelago;
using core::PipelineResult;
using core::PipelineSpec;
using core::ScheduleKind;

namespace {

// Everything but the timeline, exactly.
QString difference(const PipelineResult& a, const PipelineResult& b)
{
    if (a.ok != b.ok)
        return QStringLiteral("ok");
    if (!a.ok)
        return {};
    if (a.makespanS != b.makespanS)
        return QStringLiteral("makespan %1 vs %2")
            .arg(a.makespanS, 0, 'g', 17)
            .arg(b.makespanS, 0, 'g', 17);
    if (a.periodS != b.periodS)
        return QStringLiteral("period");
    if (a.finishS != b.finishS || a.busyS != b.busyS || a.idleS != b.idleS)
        return QStringLiteral("per-rank times");
    if (a.bubbleRatio != b.bubbleRatio || a.idleOverCompute != b.idleOverCompute)
        return QStringLiteral("bubble");
    if (a.peakInFlight != b.peakInFlight)
        return QStringLiteral("peak in flight");
    if (a.firstForwardStartS != b.firstForwardStartS || a.gradReadyStartS != b.gradReadyStartS ||
        a.gradReadyEndS != b.gradReadyEndS)
        return QStringLiteral("per-chunk times");
    if (a.resources.size() != b.resources.size())
        return QStringLiteral("resources");
    for (std::size_t i = 0; i < a.resources.size(); ++i)
        if (a.resources[i].busyS != b.resources[i].busyS ||
            a.resources[i].busyIntervals != b.resources[i].busyIntervals)
            return QStringLiteral("resource %1 usage").arg(i);
    return {};
}

class Shapes
{
public:
    explicit Shapes(unsigned seed)
        : m_rng(seed)
    {}

    // A random valid shape: schedule, p, v, m, uneven stage times, transfers, and (with
    // `loads`) shared links loaded by some boundaries in some directions.
    PipelineSpec next(bool loads)
    {
        PipelineSpec s;
        const auto schedules = core::allScheduleTraits();
        const core::ScheduleTraits& t = schedules[pick(0, static_cast<int>(schedules.size()) - 1)];
        s.schedule = t.kind;
        const bool dualPipe = t.modelCopies == 2;
        s.stages = dualPipe ? 2 * pick(1, 4) : pick(2, 8);
        s.virtualStages = t.fixedChunksPerRank > 0 ? t.fixedChunksPerRank
                          : t.interleaved          ? pick(1, 3)
                                                   : 1;
        if (dualPipe)
            s.microBatches = 2 * pick(s.stages, s.stages + 6);
        else if (t.interleaved && s.virtualStages > 1)
            s.microBatches = s.stages * pick(1, 4);
        else
            s.microBatches = pick(1, 24);
        const auto n = static_cast<std::size_t>(s.stages * s.virtualStages);
        for (std::size_t c = 0; c < n; ++c) {
            s.forwardS.push_back(uniform(0.5, 1.5));
            s.backwardS.push_back(uniform(1.0, 3.0));
        }
        if (t.splitsWeightGrad && pick(0, 1))
            for (std::size_t c = 0; c < n; ++c)
                s.weightGradS.push_back(s.backwardS[c] * uniform(0.2, 0.8));
        if (pick(0, 3) > 0)
            for (std::size_t c = 0; c + 1 < n; ++c)
                s.sendS.push_back(pick(0, 2) ? uniform(0.0, 0.4) : 0.0);
        if (!dualPipe && !s.sendS.empty() && pick(0, 2) == 0) {
            s.sendCrossesDci.assign(n - 1, false);
            s.sendCrossesDci[static_cast<std::size_t>(pick(0, static_cast<int>(n) - 2))] = true;
            s.extraInFlightAtDci = pick(1, 2);
        }
        if (loads && n > 1) {
            const int resources = pick(1, 3);
            for (int r = 0; r < resources; ++r)
                s.resources.push_back({core::LinkClass::Dci, r, r % 2 == 0, 100.0});
            for (std::size_t c = 0; c + 1 < n; ++c)
                for (const bool backward : {false, true})
                    if (pick(0, 2) == 0)
                        s.loads.push_back({static_cast<int>(c), backward, pick(0, resources - 1),
                                           uniform(0.05, 0.8)});
        }
        s.recordTimeline = false;
        return s;
    }

    // The same shape and loads with every time scaled by a factor in [1 - spread, 1 + spread].
    PipelineSpec perturbed(PipelineSpec s, double spread)
    {
        for (std::vector<double>* v : {&s.forwardS, &s.backwardS, &s.sendS})
            for (double& x : *v)
                x *= uniform(1.0 - spread, 1.0 + spread);
        for (std::size_t c = 0; c < s.weightGradS.size(); ++c)
            s.weightGradS[c] = std::min(s.backwardS[c], s.weightGradS[c] * uniform(0.9, 1.1));
        for (core::PipelineLoad& l : s.loads)
            l.serviceS *= uniform(1.0 - spread, 1.0 + spread);
        return s;
    }

private:
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(m_rng); }
    double uniform(double lo, double hi)
    {
        return std::uniform_real_distribution<double>(lo, hi)(m_rng);
    }
    std::mt19937 m_rng;
};

// The spec simulated (a timeline forces the worklist and records the order), then `next`
// replayed and simulated; false (with the reason) when they differ.
QString replayAgainstSimulation(const PipelineSpec& first, const PipelineSpec& next)
{
    PipelineSpec recorded = first;
    recorded.recordTimeline = true;
    if (!core::simulatePipeline(recorded).ok)
        return {}; // a deadlocking extra: nothing to replay
    PipelineSpec simulated = next;
    simulated.recordTimeline = true;
    const PipelineResult replayed = core::simulatePipeline(next);
    const PipelineResult reference = core::simulatePipeline(simulated);
    return difference(replayed, reference);
}

} // namespace

class TestPipelineReplay : public QObject
{
    Q_OBJECT

private slots:
    void replayWithoutLoadsIsTheSimulation()
    {
        Shapes shapes(20261201);
        core::detail::SimulatorScratch& scratch = core::detail::scratch();
        scratch.shapes.clear(); // nothing recorded by another test
        const std::uint64_t before = scratch.replays;
        for (int i = 0; i < 400; ++i) {
            const PipelineSpec s = shapes.next(false);
            const QString diff = replayAgainstSimulation(s, shapes.perturbed(s, 0.3));
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("case %1: %2").arg(i).arg(diff)));
        }
        QVERIFY(scratch.replays - before >= 300);
    }

    void replayWithLoadsIsTheSimulation()
    {
        // Small changes keep the links' service order (replayed); large ones change it
        // (refused, simulated): the figures are the simulation's either way.
        Shapes shapes(7);
        core::detail::SimulatorScratch& scratch = core::detail::scratch();
        const std::uint64_t replayed = scratch.loadedReplays;
        const std::uint64_t refused = scratch.loadedReplaysRefused;
        for (int i = 0; i < 600; ++i) {
            const PipelineSpec s = shapes.next(true);
            const double spread = i % 3 == 0 ? 0.6 : 1e-3;
            const QString diff = replayAgainstSimulation(s, shapes.perturbed(s, spread));
            QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("case %1 (%2 %3 stages, v %4, m "
                                                               "%5, %6 loads): %7")
                                                    .arg(i)
                                                    .arg(tests::name(s.schedule))
                                                    .arg(s.stages)
                                                    .arg(s.virtualStages)
                                                    .arg(s.microBatches)
                                                    .arg(s.loads.size())
                                                    .arg(diff)));
        }
        qInfo("with loads: %llu replayed, %llu refused",
              static_cast<unsigned long long>(scratch.loadedReplays - replayed),
              static_cast<unsigned long long>(scratch.loadedReplaysRefused - refused));
        QVERIFY(scratch.loadedReplays - replayed >= 200);
        QVERIFY(scratch.loadedReplaysRefused - refused >= 20);
    }

    void sameNumbersReplayTheSameOrder()
    {
        // The explorer's case: the same shape and loads again and again.
        Shapes shapes(11);
        core::detail::SimulatorScratch& scratch = core::detail::scratch();
        for (int i = 0; i < 50; ++i) {
            PipelineSpec s = shapes.next(true);
            if (s.loads.empty())
                continue;
            s.recordTimeline = true;
            if (!core::simulatePipeline(s).ok)
                continue;
            s.recordTimeline = false;
            const std::uint64_t refused = scratch.loadedReplaysRefused;
            const std::uint64_t replayed = scratch.loadedReplays;
            const PipelineResult a = core::simulatePipeline(s);
            QVERIFY(a.ok);
            // Ties on a link (two transfers ready at once) are left to the simulation.
            QVERIFY(scratch.loadedReplays == replayed + 1 ||
                    scratch.loadedReplaysRefused == refused + 1);
            s.recordTimeline = true;
            QVERIFY2(difference(a, core::simulatePipeline(s)).isEmpty(),
                     qPrintable(QString::number(i)));
        }
    }
};

QTEST_GUILESS_MAIN(TestPipelineReplay)
#include "test_pipelinereplay.moc"
