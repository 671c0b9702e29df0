// The topology canvas with extreme input: positions at the limits of a double, and 100,000
// parallel DCI links between two buildings. Scenarios are generated here, not committed.
#include "canvasfixtures.h"
#include "topology/topologycanvas.h"
#include "topology/topologylinkitem.h"
#include "topology/topologyscene.h"

#include <QGraphicsItem>
#include <QGraphicsView>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <cmath>
#include <limits>

using namespace archipelago;
using namespace canvasfixtures;
using views::TopologyItemKind;

namespace {

bool isFinite(const QRectF& r)
{
    return std::isfinite(r.x()) && std::isfinite(r.y()) && std::isfinite(r.width()) &&
           std::isfinite(r.height());
}

core::Topology parallelLinks(int count)
{
    core::Topology t;
    t.regions = {{0, "campus"}};
    t.datacenters = {datacenter(0, 0, 0, 0, {pod(0, 1, 8)}),
                     datacenter(1, 0, 600, 0, {pod(1, 1, 8)}),
                     datacenter(2, 0, 300, 400, {pod(2, 1, 8)})};
    for (int i = 0; i < count; ++i)
        t.links.push_back(link(i, i % 2 == 0 ? 0 : 1, i % 2 == 0 ? 1 : 0, 16));
    // Two more between other pairs: few parallel links still fan out, one item each.
    t.links.push_back(link(count, 1, 2));
    t.links.push_back(link(count + 1, 2, 1));
    return t;
}

} // namespace

class TestCanvasExtremes : public QObject
{
    Q_OBJECT

private slots:
    void extremePositionsStayInAFiniteScene_data();
    void extremePositionsStayInAFiniteScene();
    void ordinaryPositionsAreKept();
    void parallelLinksAreOneBundle();
};

void TestCanvasExtremes::extremePositionsStayInAFiniteScene_data()
{
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("y");
    const double max = std::numeric_limits<double>::max();
    QTest::newRow("all at 1e308") << 1e308 << 1e308;
    QTest::newRow("opposite extremes") << max << -max;
    QTest::newRow("one axis huge") << 1e308 << 0.0;
    QTest::newRow("just past the bound") << 2e6 << -3e6;
}

void TestCanvasExtremes::extremePositionsStayInAFiniteScene()
{
    QFETCH(double, x);
    QFETCH(double, y);
    core::Topology t;
    t.regions = {{0, "far"}};
    // The datacenters alternate between the extreme and its opposite or zero, with one in an
    // ordinary place.
    for (core::Id i = 0; i < 5; ++i) {
        const double sx = i % 2 == 0 ? x : -x;
        const double sy = i % 3 == 0 ? y : 0.0;
        t.datacenters.push_back(
            datacenter(i, 0, i == 4 ? 10.0 : sx, i == 4 ? 20.0 : sy, {pod(i, 1, 8)}));
    }
    t.links = {link(0, 0, 1), link(1, 1, 2), link(2, 2, 3), link(3, 3, 4)};

    views::TopologyCanvas canvas;
    canvas.resize(1000, 700);
    canvas.setTopology(t);
    canvas.show();
    QVERIFY(QTest::qWaitForWindowExposed(&canvas));
    canvas.fitToView();

    const QRectF sceneRect = canvas.scene()->sceneRect();
    QVERIFY(isFinite(sceneRect));
    QVERIFY(sceneRect.width() < 1e7 && sceneRect.height() < 1e7);
    QRectF datacenters;
    for (core::Id i = 0; i < 5; ++i) {
        QGraphicsItem* item = canvas.itemFor(TopologyItemKind::Datacenter, i);
        QVERIFY(item);
        const QRectF r = item->sceneBoundingRect();
        QVERIFY2(isFinite(r), qPrintable(QStringLiteral("datacenter %1").arg(i)));
        QVERIFY(sceneRect.contains(r));
        datacenters = datacenters.united(r);
    }
    for (core::Id i = 0; i < 4; ++i) {
        QGraphicsItem* item = canvas.itemFor(TopologyItemKind::Link, i);
        QVERIFY(item);
        QVERIFY(isFinite(item->sceneBoundingRect()));
    }
    // Fitted to the view, every datacenter is on screen, and two in different places are drawn
    // in different places.
    const QRect viewport = canvas.view()->viewport()->rect();
    QVERIFY(viewport.contains(canvas.view()->mapFromScene(datacenters).boundingRect()));
    for (core::Id i = 0; i < 5; ++i)
        for (core::Id j = i + 1; j < 5; ++j)
            if (t.datacenters[i].x != t.datacenters[j].x ||
                t.datacenters[i].y != t.datacenters[j].y)
                QVERIFY(canvas.itemFor(TopologyItemKind::Datacenter, i)->pos() !=
                        canvas.itemFor(TopologyItemKind::Datacenter, j)->pos());

    // And something is painted: the rendered view is not blank.
    QImage image(canvas.view()->viewport()->size(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    canvas.view()->render(&painter);
    painter.end();
    int coloured = 0;
    for (int py = 0; py < image.height(); py += 4)
        for (int px = 0; px < image.width(); px += 4)
            coloured += image.pixel(px, py) != image.pixel(0, 0);
    QVERIFY2(coloured > 100, "the canvas is blank");
}

void TestCanvasExtremes::ordinaryPositionsAreKept()
{
    views::TopologyCanvas canvas;
    canvas.setTopology(largeTopology());
    for (const core::Datacenter& dc : largeTopology().datacenters)
        QCOMPARE(canvas.itemFor(TopologyItemKind::Datacenter, dc.id)->pos(), QPointF(dc.x, dc.y));
}

void TestCanvasExtremes::parallelLinksAreOneBundle()
{
    constexpr int kLinks = 100'000;
    const core::Topology t = parallelLinks(kLinks);
    views::TopologyScene scene;
    scene.setTopology(t);

    // Three datacenters with a pod each, the bundle and the two links between 1 and 2.
    QVERIFY2(scene.items().size() < 20,
             qPrintable(QStringLiteral("%1 items").arg(scene.items().size())));
    views::TopologyLinkItem* bundle = scene.linkItem(0);
    QVERIFY(bundle);
    // Every link of the pair, whichever way it points, is drawn by the same item.
    QCOMPARE(scene.linkItem(1), bundle);
    QCOMPARE(scene.linkItem(kLinks - 1), bundle);
    QCOMPARE(scene.item(TopologyItemKind::Link, 4242), bundle);
    const views::LinkBundle* info = scene.linkBundle(bundle->id());
    QVERIFY(info);
    QCOMPARE(info->count, kLinks);
    QCOMPARE(info->totalGbps, kLinks * 16 * 400.0);
    QVERIFY(bundle->toolTip().contains(QStringLiteral("100,000 links")));

    // The two links between 1 and 2 are still drawn apart.
    QVERIFY(!scene.linkBundle(kLinks));
    QVERIFY(scene.linkItem(kLinks) != scene.linkItem(kLinks + 1));
    QVERIFY(scene.linkItem(kLinks)->line() != scene.linkItem(kLinks + 1)->line());

    // Selecting any link of the bundle selects the bundle; the selection reports its item's id.
    views::TopologySelection selection;
    selection.links << 777;
    scene.setTopologySelection(selection);
    QVERIFY(bundle->isSelected());
    QCOMPARE(scene.topologySelection().links, QList<core::Id>{0});

    // Down to a few links the pair fans out again, one item per link.
    core::Topology fewer = t;
    fewer.links.erase(fewer.links.begin() + 4, fewer.links.begin() + kLinks);
    scene.setTopology(fewer);
    QVERIFY(!scene.linkBundle(0));
    for (core::Id id : {0, 1, 2, 3})
        QVERIFY(scene.linkItem(id));
    QVERIFY(scene.linkItem(0) != scene.linkItem(1));
    QVERIFY(!scene.linkItem(4));
}

QTEST_MAIN(TestCanvasExtremes)
#include "test_canvasextremes.moc"
