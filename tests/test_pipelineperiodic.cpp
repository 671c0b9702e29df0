// Long pipelines made from a shorter run of the same shape (core/pipeline/pipelineperiodic.cpp):
// over randomised shapes of every schedule (uneven stages, transfers, cross-DC extras, long
// micro-batch counts), the figures equal the simulation's to 1e-9; every schedule but GPipe
// takes the path, GPipe (no alternating steady state) is simulated; a pipeline with shared-
// link loads or a timeline is simulated; the cost does not grow with the micro-batches.
#include "pipeline/pipelineshapes.h"
#include "pipeline/pipelinesimulator.h"
#include "pipelinefixtures.h"
#include "pipelinerandom.h"

#include <QTest>

#include <array>

using namespace archipelago;
using core::PipelineResult;
using core::PipelineSpec;
using core::ScheduleKind;

namespace {

// The simulation itself, for reference (a timeline forces the worklist).
PipelineResult simulated(PipelineSpec s)
{
    s.recordTimeline = true;
    return core::simulatePipeline(s);
}

std::array<std::uint64_t, 8> extrapolations()
{
    return core::detail::scratch().extrapolations;
}

} // namespace

class TestPipelinePeriodic : public QObject
{
    Q_OBJECT

private slots:
    void equalsTheSimulationOnRandomShapes()
    {
        tests::Shapes shapes(424242);
        const auto before = extrapolations();
        int compared = 0;
        for (int i = 0; i < 500; ++i) {
            const PipelineSpec s = shapes.next(false, 1 + i % 12);
            const PipelineResult reference = simulated(s);
            if (!reference.ok)
                continue; // a deadlocking extra
            const PipelineResult fast = core::simulatePipeline(s);
            const QString diff = tests::difference(fast, reference, 1e-9);
            QVERIFY2(diff.isEmpty(),
                     qPrintable(
                         QStringLiteral("case %1 (%2): %3").arg(i).arg(tests::describe(s), diff)));
            ++compared;
        }
        QVERIFY(compared > 400);
        const auto after = extrapolations();
        for (ScheduleKind k :
             {ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B, ScheduleKind::ZeroBubbleH1,
              ScheduleKind::ZeroBubbleH2, ScheduleKind::DualPipe}) {
            const auto i = static_cast<std::size_t>(k);
            qInfo("%s: %llu extrapolated", tests::name(k),
                  static_cast<unsigned long long>(after[i] - before[i]));
            QVERIFY2(after[i] - before[i] >= 10, tests::name(k));
        }
        const auto gpipe = static_cast<std::size_t>(ScheduleKind::GPipe);
        QCOMPARE(after[gpipe], before[gpipe]);
    }

    void longUnevenPipelinesOfEverySchedule_data()
    {
        QTest::addColumn<PipelineSpec>("spec");
        for (ScheduleKind k :
             {ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B, ScheduleKind::ZeroBubbleH1,
              ScheduleKind::ZeroBubbleH2, ScheduleKind::DualPipe}) {
            const int v = k == ScheduleKind::Interleaved1F1B ? 4
                          : k == ScheduleKind::DualPipe      ? 2
                                                             : 1;
            for (const int m : {256, 1024, 4096}) {
                PipelineSpec s = tests::uniform(k, 16, v, m, 1.0, 2.0, 0.01);
                // The first stage holds the embedding, the last the head and the loss.
                s.forwardS.front() *= 1.3;
                s.backwardS.back() *= 1.6;
                QTest::addRow("%s m %d", tests::name(k), m) << s;
            }
        }
        // A short run too large for the simulator to keep its cells (64 x 8 chunks, at least 320
        // micro-batches: 164k cells): the extrapolation still reads them (it crashed once).
        PipelineSpec big =
            tests::uniform(ScheduleKind::Interleaved1F1B, 64, 8, 2048, 1.0, 2.0, 0.01);
        big.forwardS.front() *= 1.3;
        QTest::addRow("interleaved p 64 v 8 m 2048") << big;
    }

    void longUnevenPipelinesOfEverySchedule()
    {
        QFETCH(PipelineSpec, spec);
        const auto before = extrapolations()[static_cast<std::size_t>(spec.schedule)];
        const PipelineResult fast = core::simulatePipeline(spec);
        QCOMPARE(extrapolations()[static_cast<std::size_t>(spec.schedule)], before + 1);
        const QString diff = tests::difference(fast, simulated(spec), 1e-9);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void loadsAndTimelinesAreSimulated()
    {
        PipelineSpec s = tests::uniform(ScheduleKind::OneFOneB, 8, 1, 512, 1.0, 2.0, 0.05);
        const auto i = static_cast<std::size_t>(ScheduleKind::OneFOneB);
        auto before = extrapolations()[i];
        s.resources.push_back({core::LinkClass::Dci, 0, true, 10.0});
        s.loads.push_back({3, false, 0, 0.2});
        QVERIFY(core::simulatePipeline(s).ok);
        QCOMPARE(extrapolations()[i], before);
        s.loads.clear();
        s.resources.clear();
        s.recordTimeline = true;
        const PipelineResult r = core::simulatePipeline(s);
        QVERIFY(r.ok);
        QVERIFY(!r.timeline.empty());
        QCOMPARE(extrapolations()[i], before);
    }
};

QTEST_GUILESS_MAIN(TestPipelinePeriodic)
#include "test_pipelineperiodic.moc"
