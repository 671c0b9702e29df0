// Topology canvas, layout view and placement presets. Offscreen widget
// tests: items per object (never per GPU), in-place updates by id, and the intents that mouse and
// keyboard gestures emit. The views never change the scenario; the tests only listen.
#include "canvasfixtures.h"
#include "common/crossingchoices.h"
#include "layout/layoutview.h"
#include "layout/layoutviewgeometry.h"
#include "model/placementpresets.h"
#include "topology/topologycanvas.h"

#include <QComboBox>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QSignalSpy>
#include <QTest>

#include <numeric>

using namespace archipelago;
using archipelago::views::TopologyItemKind;
using archipelago::views::TopologySelection;

using namespace canvasfixtures;

namespace {

QPoint viewportPoint(const views::TopologyCanvas& canvas, TopologyItemKind kind, core::Id id,
                     QPointF offset = {150, 20})
{
    const QGraphicsItem* item = canvas.itemFor(kind, id);
    return canvas.view()->mapFromScene(item->mapToScene(offset));
}

} // namespace

class TestCanvas : public QObject
{
    Q_OBJECT

private slots:
    void largeTopologyIsAFewDozenItems();
    void setTopologyUpdatesItemsInPlace();
    void removingADatacenterRemovesItsItemAndLinks();
    void dragEmitsMergeableMoves();
    void connectDragEmitsConnect();
    void deleteKeyEmitsRemoveWithSelection();
    void ctrlClickExtendsSelection();
    void doubleClickEmitsEdit();
    void stageBoundaryDragKeepsLayerSum_data();
    void stageBoundaryDragKeepsLayerSum();
    void stageBandDropEmitsStageDatacenter();
    void crossingComboEmitsPlacement();
    void presetsFillEveryDatacenter_data();
    void presetsFillEveryDatacenter();

private:
    void showCanvas(views::TopologyCanvas& canvas, const core::Topology& topology);
};

void TestCanvas::showCanvas(views::TopologyCanvas& canvas, const core::Topology& topology)
{
    canvas.resize(1200, 800);
    canvas.setTopology(topology);
    canvas.show();
    QVERIFY(QTest::qWaitForWindowExposed(&canvas));
    canvas.view()->resetTransform();
    canvas.view()->centerOn(canvas.itemFor(TopologyItemKind::Datacenter, 0));
}

void TestCanvas::largeTopologyIsAFewDozenItems()
{
    views::TopologyCanvas canvas;
    const core::Topology topology = largeTopology();
    QCOMPARE(core::totalGpus(topology), 100352);
    canvas.setTopology(topology);
    QCOMPARE(canvas.itemCount(), 2 + 4 + 8 + 5);
    QVERIFY(canvas.scene()->items().size() < 50);
    for (core::Id id = 0; id < 8; ++id)
        QVERIFY(canvas.itemFor(TopologyItemKind::Pod, id));
    QVERIFY(canvas.itemFor(TopologyItemKind::Region, 1));
}

void TestCanvas::setTopologyUpdatesItemsInPlace()
{
    views::TopologyCanvas canvas;
    core::Topology topology = largeTopology();
    canvas.setTopology(topology);
    QGraphicsItem* dc = canvas.itemFor(TopologyItemKind::Datacenter, 1);
    QGraphicsItem* podItem = canvas.itemFor(TopologyItemKind::Pod, 2);
    QGraphicsItem* linkItem = canvas.itemFor(TopologyItemKind::Link, 0);
    canvas.setSelection({{1}, {}, {0}});
    QSignalSpy selection(&canvas, &views::TopologyCanvas::selectionChanged);

    topology.datacenters[1].x += 300;
    topology.datacenters[1].name = "renamed";
    topology.datacenters[1].pods.push_back(pod(100, 2, 16));
    canvas.setTopology(topology);

    QCOMPARE(canvas.itemFor(TopologyItemKind::Datacenter, 1), dc);
    QCOMPARE(canvas.itemFor(TopologyItemKind::Pod, 2), podItem);
    QCOMPARE(canvas.itemFor(TopologyItemKind::Link, 0), linkItem);
    QCOMPARE(dc->pos(), QPointF(topology.datacenters[1].x, topology.datacenters[1].y));
    QVERIFY(canvas.itemFor(TopologyItemKind::Pod, 100));
    QCOMPARE(canvas.itemFor(TopologyItemKind::Pod, 100)->parentItem(), dc);
    QVERIFY(dc->isSelected());
    QCOMPARE(canvas.selection(), (TopologySelection{{1}, {}, {0}}));
    QCOMPARE(selection.count(), 0);
    // The link follows the datacenter: its end lies on the moved box.
    QVERIFY(linkItem->sceneBoundingRect().intersects(dc->sceneBoundingRect()));
}

void TestCanvas::removingADatacenterRemovesItsItemAndLinks()
{
    views::TopologyCanvas canvas;
    core::Topology topology = largeTopology();
    canvas.setTopology(topology);
    canvas.setSelection({{2}, {}, {}});
    QSignalSpy selection(&canvas, &views::TopologyCanvas::selectionChanged);
    const int before = canvas.itemCount();

    // What the app's RemoveDatacenter does: the datacenter and the links that touch it.
    std::erase_if(topology.datacenters, [](const core::Datacenter& d) { return d.id == 2; });
    std::erase_if(topology.links, [](const core::DciLink& l) { return l.a == 2 || l.b == 2; });
    canvas.setTopology(topology);

    QVERIFY(!canvas.itemFor(TopologyItemKind::Datacenter, 2));
    QVERIFY(!canvas.itemFor(TopologyItemKind::Pod, 4));
    QVERIFY(!canvas.itemFor(TopologyItemKind::Link, 1));
    QVERIFY(!canvas.itemFor(TopologyItemKind::Link, 2));
    QVERIFY(!canvas.itemFor(TopologyItemKind::Link, 4));
    QVERIFY(canvas.itemFor(TopologyItemKind::Link, 0));
    QCOMPARE(canvas.itemCount(), before - 1 - 2 - 3);
    QCOMPARE(canvas.scene()->items().size(), canvas.itemCount());
    QCOMPARE(selection.count(), 1);
    QVERIFY(canvas.selection().isEmpty());
}

void TestCanvas::dragEmitsMergeableMoves()
{
    views::TopologyCanvas canvas;
    const core::Topology topology = largeTopology();
    showCanvas(canvas, topology);
    QSignalSpy moves(&canvas, &views::TopologyCanvas::moveDatacentersRequested);
    QSignalSpy finished(&canvas, &views::TopologyCanvas::moveFinished);
    QWidget* viewport = canvas.view()->viewport();

    // Grab datacenter 0 by one of its pods: the datacenter moves.
    const QPoint start = viewportPoint(canvas, TopologyItemKind::Pod, 0, {100, 10});
    QTest::mousePress(viewport, Qt::LeftButton, {}, start);
    QTest::mouseMove(viewport, start + QPoint(20, 10));
    QTest::mouseMove(viewport, start + QPoint(40, 20));
    QTest::mouseMove(viewport, start + QPoint(60, 30));
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, start + QPoint(60, 30));

    QVERIFY(moves.count() >= 2);
    const int dragId = moves.first().at(2).toInt();
    for (const QList<QVariant>& step : std::as_const(moves)) {
        QCOMPARE(step.at(2).toInt(), dragId);
        QCOMPARE(step.at(0).value<QList<core::Id>>(), QList<core::Id>{0});
    }
    const auto last = moves.last().at(1).value<QList<QPointF>>();
    QCOMPARE(last.size(), 1);
    QCOMPARE(last.front(), QPointF(topology.datacenters[0].x + 60, topology.datacenters[0].y + 30));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().at(0).toInt(), dragId);

    // The app applies nothing here: setTopology puts the item back where the model has it.
    canvas.setTopology(topology);
    QCOMPARE(canvas.itemFor(TopologyItemKind::Datacenter, 0)->pos(),
             QPointF(topology.datacenters[0].x, topology.datacenters[0].y));

    // A second drag gets another id, so the app does not merge it into the first.
    moves.clear();
    const QPoint again = viewportPoint(canvas, TopologyItemKind::Datacenter, 0);
    QTest::mousePress(viewport, Qt::LeftButton, {}, again);
    QTest::mouseMove(viewport, again + QPoint(30, 0));
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, again + QPoint(30, 0));
    QVERIFY(!moves.isEmpty());
    QVERIFY(moves.first().at(2).toInt() != dragId);
}

void TestCanvas::connectDragEmitsConnect()
{
    views::TopologyCanvas canvas;
    showCanvas(canvas, largeTopology());
    QSignalSpy connects(&canvas, &views::TopologyCanvas::connectRequested);
    QSignalSpy moves(&canvas, &views::TopologyCanvas::moveDatacentersRequested);
    QWidget* viewport = canvas.view()->viewport();

    canvas.setConnectMode(true);
    QPoint from = viewportPoint(canvas, TopologyItemKind::Datacenter, 0);
    QPoint to = viewportPoint(canvas, TopologyItemKind::Datacenter, 1);
    QTest::mousePress(viewport, Qt::LeftButton, {}, from);
    QTest::mouseMove(viewport, (from + to) / 2);
    QTest::mouseMove(viewport, to);
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, to);
    QCOMPARE(connects.count(), 1);
    QCOMPARE(connects.first().at(0).value<core::Id>(), 0);
    QCOMPARE(connects.first().at(1).value<core::Id>(), 1);
    QCOMPARE(moves.count(), 0);

    // Shift-drag connects without the mode; releasing on the source itself connects nothing.
    canvas.setConnectMode(false);
    to = viewportPoint(canvas, TopologyItemKind::Pod, 3, {50, 10});
    QTest::mousePress(viewport, Qt::LeftButton, Qt::ShiftModifier, from);
    QTest::mouseMove(viewport, to);
    QTest::mouseRelease(viewport, Qt::LeftButton, Qt::ShiftModifier, to);
    QCOMPARE(connects.count(), 2);
    QCOMPARE(connects.last().at(1).value<core::Id>(), 1);
    QTest::mousePress(viewport, Qt::LeftButton, Qt::ShiftModifier, from);
    QTest::mouseMove(viewport, from + QPoint(10, 5));
    QTest::mouseRelease(viewport, Qt::LeftButton, Qt::ShiftModifier, from + QPoint(10, 5));
    QCOMPARE(connects.count(), 2);
    QCOMPARE(canvas.itemCount(), 19); // the rubber line is gone, no link was added by the view
}

void TestCanvas::deleteKeyEmitsRemoveWithSelection()
{
    views::TopologyCanvas canvas;
    showCanvas(canvas, largeTopology());
    QSignalSpy removes(&canvas, &views::TopologyCanvas::removeRequested);
    canvas.setSelection({{3, 1}, {5, 4}, {4}});
    canvas.view()->setFocus();
    QTest::keyClick(canvas.view(), Qt::Key_Delete);
    QCOMPARE(removes.count(), 1);
    // In topology order, whatever the order of selection.
    QCOMPARE(removes.first().at(0).value<QList<core::Id>>(), (QList<core::Id>{1, 3}));
    QCOMPARE(removes.first().at(1).value<QList<core::Id>>(), QList<core::Id>{4});
    QCOMPARE(removes.first().at(2).value<QList<core::Id>>(), (QList<core::Id>{4, 5}));
    QCOMPARE(canvas.itemCount(), 19); // the view removed nothing itself

    // Links and pods of a removed datacenter go with it: they are not listed again.
    canvas.setSelection({{0}, {0, 3}, {0, 1}});
    QTest::keyClick(canvas.view(), Qt::Key_Backspace);
    QCOMPARE(removes.count(), 2);
    QCOMPARE(removes.last().at(0).value<QList<core::Id>>(), QList<core::Id>{0});
    QCOMPARE(removes.last().at(1).value<QList<core::Id>>(), QList<core::Id>{1});
    QCOMPARE(removes.last().at(2).value<QList<core::Id>>(), QList<core::Id>{3});

    canvas.setSelection({});
    QTest::keyClick(canvas.view(), Qt::Key_Delete);
    QCOMPARE(removes.count(), 2);
}

void TestCanvas::ctrlClickExtendsSelection()
{
    views::TopologyCanvas canvas;
    showCanvas(canvas, largeTopology());
    QSignalSpy selection(&canvas, &views::TopologyCanvas::selectionChanged);
    QWidget* viewport = canvas.view()->viewport();
    QTest::mouseClick(viewport, Qt::LeftButton, {},
                      viewportPoint(canvas, TopologyItemKind::Datacenter, 0));
    QTest::mouseClick(viewport, Qt::LeftButton, Qt::ControlModifier,
                      viewportPoint(canvas, TopologyItemKind::Datacenter, 1));
    QCOMPARE(canvas.selection().datacenters, (QList<core::Id>{0, 1}));
    QVERIFY(selection.count() >= 2);
    QCOMPARE(selection.last().at(0).value<TopologySelection>().datacenters,
             (QList<core::Id>{0, 1}));

    // A rubber band around datacenter 0 selects it, not also the pods drawn inside it.
    const QGraphicsItem* dc = canvas.itemFor(TopologyItemKind::Datacenter, 0);
    const QRect box = canvas.view()->mapFromScene(dc->sceneBoundingRect()).boundingRect();
    const QPoint from = box.topLeft() - QPoint(12, 12);
    QTest::mousePress(viewport, Qt::LeftButton, {}, from);
    QTest::mouseMove(viewport, from + QPoint(40, 40));
    QTest::mouseMove(viewport, box.bottomRight() + QPoint(6, 6));
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, box.bottomRight() + QPoint(6, 6));
    QCOMPARE(canvas.selection().datacenters, QList<core::Id>{0});
    QVERIFY(canvas.selection().pods.isEmpty());
}

void TestCanvas::doubleClickEmitsEdit()
{
    views::TopologyCanvas canvas;
    showCanvas(canvas, largeTopology());
    QSignalSpy edits(&canvas, &views::TopologyCanvas::editRequested);
    QTest::mouseDClick(canvas.view()->viewport(), Qt::LeftButton, {},
                       viewportPoint(canvas, TopologyItemKind::Pod, 1, {100, 10}));
    QCOMPARE(edits.count(), 1);
    QCOMPARE(edits.first().at(0).value<TopologyItemKind>(), TopologyItemKind::Pod);
    QCOMPARE(edits.first().at(1).value<core::Id>(), 1);
}

void TestCanvas::stageBoundaryDragKeepsLayerSum_data()
{
    QTest::addColumn<int>("boundary");
    QTest::addColumn<int>("layersMoved"); // positive: down, the upper stage grows
    QTest::addColumn<std::vector<int>>("expected");
    QTest::newRow("grow stage 1") << 1 << 3 << std::vector<int>{8, 11, 5, 8};
    QTest::newRow("shrink stage 0") << 0 << -2 << std::vector<int>{6, 10, 8, 8};
    QTest::newRow("clamped at one layer") << 2 << 40 << std::vector<int>{8, 8, 15, 1};
}

void TestCanvas::stageBoundaryDragKeepsLayerSum()
{
    QFETCH(int, boundary);
    QFETCH(int, layersMoved);
    QFETCH(std::vector<int>, expected);
    views::LayoutView view;
    view.resize(900, 640);
    view.setScenario(core::Scenario(scenarioWith({2048, 2048}, 8, 4, 32)));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy splits(&view, &views::LayoutView::layersPerStageRequested);

    const views::LayoutGeometry g = view.layoutGeometry();
    QCOMPARE(g.boundaryY.size(), std::size_t{3});
    const QPoint start(
        static_cast<int>(g.axis.center().x()),
        static_cast<int>(std::lround(g.boundaryY[static_cast<std::size_t>(boundary)])));
    const QPoint end =
        start + QPoint(0, static_cast<int>(std::lround(layersMoved * g.pixelsPerLayer)));
    QWidget* canvas = view.canvas();
    QTest::mousePress(canvas, Qt::LeftButton, {}, start);
    QTest::mouseMove(canvas, (start + end) / 2);
    QTest::mouseMove(canvas, end);
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, end);

    QCOMPARE(splits.count(), 1);
    const auto split = splits.first().at(0).value<std::vector<int>>();
    QCOMPARE(std::accumulate(split.begin(), split.end(), 0), 32);
    QVERIFY(std::all_of(split.begin(), split.end(), [](int n) { return n >= 1; }));
    QCOMPARE(split, expected);
}

void TestCanvas::stageBandDropEmitsStageDatacenter()
{
    views::LayoutView view;
    view.resize(900, 640);
    core::Scenario s = scenarioWith({2048, 2048}, 8, 4, 32);
    s.placement = core::ppAcrossDatacenters(s); // stages 0-1 in dc-0, 2-3 in dc-1
    view.setScenario(s);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy moves(&view, &views::LayoutView::stageDatacenterRequested);

    const views::LayoutGeometry g = view.layoutGeometry();
    QCOMPARE(g.crossings.size(), std::size_t{1});
    QCOMPARE(g.crossings.front().boundary, 1);
    const auto band = std::find_if(g.bands.begin(), g.bands.end(),
                                   [](const views::LayoutBand& b) { return b.stage == 1; });
    QVERIFY(band != g.bands.end());
    QCOMPARE(band->datacenter, 0);
    const QPoint start = band->rect.center().toPoint();
    const QPoint end(static_cast<int>(g.columns[1].body.center().x()), start.y());
    QWidget* canvas = view.canvas();
    QTest::mousePress(canvas, Qt::LeftButton, {}, start);
    QTest::mouseMove(canvas, start + QPoint(30, 0));
    QTest::mouseMove(canvas, end);
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, end);
    QCOMPARE(moves.count(), 1);
    QCOMPARE(moves.first().at(0).toInt(), 0);
    QCOMPARE(moves.first().at(1).toInt(), 1);
    QCOMPARE(moves.first().at(2).value<core::Id>(), 1);
}

void TestCanvas::crossingComboEmitsPlacement()
{
    views::LayoutView view;
    core::Scenario s = scenarioWith({2048, 2048}, 8, 4, 32);
    s.placement = core::dpAcrossDatacenters(s);
    view.setScenario(s);
    QCOMPARE(views::currentCrossingChoice(s, views::crossingChoices(s)), 1); // DP crosses
    QCOMPARE(view.crossingCombo()->currentIndex(), 1);
    QSignalSpy placements(&view, &views::LayoutView::placementRequested);
    view.crossingCombo()->setCurrentIndex(0);
    QCOMPARE(placements.count(), 0); // programmatic changes are not intents
    emit view.crossingCombo()->activated(0);
    QCOMPARE(placements.count(), 1);
    const auto placement = placements.first().at(0).value<core::Placement>();
    QCOMPARE(placement, core::ppAcrossDatacenters(s));
}

void TestCanvas::presetsFillEveryDatacenter_data()
{
    QTest::addColumn<std::vector<std::int64_t>>("domains"); // 8-GPU domains per datacenter
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::newRow("two equal") << std::vector<std::int64_t>{2048, 2048} << 8 << 8;
    QTest::newRow("1:1:2") << std::vector<std::int64_t>{1024, 1024, 2048} << 8 << 8;
    QTest::newRow("four of 25,088") << std::vector<std::int64_t>{3136, 3136, 3136, 3136} << 8 << 4;
    QTest::newRow("tp 4, pp 16") << std::vector<std::int64_t>{512, 1536} << 4 << 16;
}

void TestCanvas::presetsFillEveryDatacenter()
{
    QFETCH(std::vector<std::int64_t>, domains);
    QFETCH(int, tp);
    QFETCH(int, pp);
    core::Scenario s = scenarioWith(domains, tp, pp, 64);
    for (const auto& preset : {core::ppAcrossDatacenters, core::dpAcrossDatacenters}) {
        s.placement = preset(s);
        QVERIFY(!s.placement.shards.empty());
        const std::vector<std::int64_t> placed = core::placedGpusPerDatacenter(s);
        for (std::size_t i = 0; i < s.topology.datacenters.size(); ++i)
            QCOMPARE(placed[i], core::gpusInDatacenter(s.topology.datacenters[i]));
        for (const core::PlacementShard& shard : s.placement.shards)
            QCOMPARE(static_cast<int>(shard.stageDatacenters.size()), pp);
    }
    // PP across: one shard, stages in topology order; DP across: one shard per datacenter.
    QCOMPARE(core::ppAcrossDatacenters(s).shards.size(), std::size_t{1});
    QCOMPARE(core::dpAcrossDatacenters(s).shards.size(), domains.size());
    QCOMPARE(core::apportion(8, {1, 1, 2}), (std::vector<int>{2, 2, 4}));
    QCOMPARE(core::apportion(3, {1, 1}), (std::vector<int>{2, 1}));
}

QTEST_MAIN(TestCanvas)
#include "test_canvas.moc"
