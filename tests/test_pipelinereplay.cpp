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
#include "pipelinerandom.h"

#include <QTest>

using namespace archipelago;
using core::PipelineResult;
using core::PipelineSpec;
using tests::difference;
using tests::Shapes;

namespace {

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
    // The replay itself: a long pipeline would be extrapolated (test_pipelineperiodic).
    const PipelineResult replayed = core::detail::simulateValid(next);
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
            QVERIFY2(diff.isEmpty(),
                     qPrintable(
                         QStringLiteral("case %1 (%2): %3").arg(i).arg(tests::describe(s), diff)));
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
            const PipelineResult a = core::detail::simulateValid(s);
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
