// Long pipelines made from a shorter run of the same shape (core/pipeline/pipelineperiodic.cpp):
// over randomised shapes of every schedule (uneven stages, transfers, cross-DC extras, long
// micro-batch counts), the figures equal the simulation's to 1e-9; every schedule but GPipe
// takes the path, GPipe (no alternating steady state) its closed form; so do pipelines whose
// transfers share links (each link's served order one more line of the recurrence), and
// steady states that repeat every two periods; a transfer that loads two links at once, or a
// timeline, is simulated.
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
    void equalsTheSimulationOnRandomShapes_data()
    {
        QTest::addColumn<bool>("loads");
        QTest::addRow("no shared links") << false;
        QTest::addRow("shared links") << true;
    }

    void equalsTheSimulationOnRandomShapes()
    {
        QFETCH(bool, loads);
        tests::Shapes shapes(loads ? 4343 : 424242);
        const auto before = extrapolations();
        int compared = 0;
        std::uint64_t gpipeWithoutLoads = 0;
        for (int i = 0; i < 500; ++i) {
            // Longer with shared links: a link's queue settles later, and a loaded pipeline is
            // extrapolated only when long (pipelineperiodic.cpp, kLoadedLeastSaving).
            const PipelineSpec s = shapes.next(loads, 1 + i % (loads ? 24 : 12));
            const PipelineResult reference = simulated(s);
            if (!reference.ok)
                continue; // a deadlocking extra
            const PipelineResult fast = core::simulatePipeline(s);
            const QString diff = tests::difference(fast, reference, 1e-9);
            QVERIFY2(diff.isEmpty(),
                     qPrintable(
                         QStringLiteral("case %1 (%2): %3").arg(i).arg(tests::describe(s), diff)));
            ++compared;
            if (s.schedule == ScheduleKind::GPipe && s.loads.empty())
                ++gpipeWithoutLoads;
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
        // GPipe in closed form, every time, but not with loads (simulated).
        const auto gpipe = static_cast<std::size_t>(ScheduleKind::GPipe);
        qInfo("gpipe: %llu in closed form",
              static_cast<unsigned long long>(after[gpipe] - before[gpipe]));
        QCOMPARE(after[gpipe] - before[gpipe], gpipeWithoutLoads);
        if (!loads)
            QVERIFY(gpipeWithoutLoads >= 10);
    }

    void longUnevenPipelinesOfEverySchedule_data()
    {
        QTest::addColumn<PipelineSpec>("spec");
        for (ScheduleKind k :
             {ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved1F1B,
              ScheduleKind::ZeroBubbleH1, ScheduleKind::ZeroBubbleH2, ScheduleKind::DualPipe}) {
            const int v = k == ScheduleKind::Interleaved1F1B ? 4
                          : k == ScheduleKind::DualPipe      ? 2
                                                             : 1;
            for (const int m : {256, 1024, 4096}) {
                PipelineSpec s = tests::uniform(k, 16, v, m, 1.0, 2.0, 0.01);
                // The first stage holds the embedding, the last the head and the loss.
                s.forwardS.front() *= 1.3;
                s.backwardS.back() *= 1.6;
                QTest::addRow("%s m %d", tests::name(k), m) << s;
                if (k == ScheduleKind::DualPipe || k == ScheduleKind::GPipe || m < 1024)
                    continue;
                // As the two-building preset: stages 0-7 in one building, 8-15 in the other,
                // each direction of the link between them one shared resource, loaded by every
                // boundary that crosses it (with interleaving, the wrap from stage 15 back to 0
                // too) in both directions; each transfer holds it for 0.2 of a 1.0 forward.
                s.resources = {{core::LinkClass::Dci, 0, true, 100.0},
                               {core::LinkClass::Dci, 0, false, 100.0}};
                for (int c = 0; c + 1 < 16 * v; ++c) {
                    const int from = c % 16;
                    if (from != 7 && from != 15)
                        continue;
                    const int ab = from == 7 ? 0 : 1; // activations from A to B, or B to A
                    s.loads.push_back({c, false, ab, 0.2 / v});
                    s.loads.push_back({c, true, 1 - ab, 0.2 / v});
                }
                QTest::addRow("%s m %d, a shared link", tests::name(k), m) << s;
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

    // A link the pipeline's transfers share, and the steady state it gives alternating between
    // two periods (the boundary's arrival four times its neighbours'): made from a run of two
    // groups a period.
    void aSharedLinkAndPeriodsThatAlternate()
    {
        PipelineSpec s = tests::uniform(ScheduleKind::OneFOneB, 8, 1, 512, 1.0, 2.0, 0.05);
        s.resources.push_back({core::LinkClass::Dci, 0, true, 10.0});
        s.loads.push_back({3, false, 0, 0.2});
        const auto i = static_cast<std::size_t>(ScheduleKind::OneFOneB);
        const auto before = extrapolations()[i];
        const PipelineResult fast = core::simulatePipeline(s);
        QCOMPARE(extrapolations()[i], before + 1);
        const QString diff = tests::difference(fast, simulated(s), 1e-9);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void transfersOnTwoLinksAndTimelinesAreSimulated()
    {
        PipelineSpec s = tests::uniform(ScheduleKind::OneFOneB, 8, 1, 512, 1.0, 2.0, 0.05);
        const auto i = static_cast<std::size_t>(ScheduleKind::OneFOneB);
        auto before = extrapolations()[i];
        // A route over two links: the transfer waits for both at once.
        s.resources.push_back({core::LinkClass::Dci, 0, true, 10.0});
        s.resources.push_back({core::LinkClass::Dci, 1, true, 10.0});
        s.loads.push_back({3, false, 0, 0.2});
        s.loads.push_back({3, false, 1, 0.1});
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
