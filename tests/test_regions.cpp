// Regions in the window, as a user builds a multi-region plan: add a region from the canvas,
// rename it on its property page, move a datacenter into it (or into a new one) from the
// datacenter page, read the distances to the other regions, delete it; each one undo step with
// a readable name. Also: names that would make two objects indistinguishable are refused, and a
// double-click on a region opens the region's page.
#include "document/document.h"
#include "document/evaluator.h"
#include "editing/editcontroller.h"
#include "propertyeditor/propertyeditor.h"
#include "propertyeditor/propertyeditordatacenter.h"
#include "propertyeditor/propertyeditorregion.h"
#include "tables/scenariotree.h"
#include "topology/topologycanvas.h"
#include "window/mainwindow.h"
#include "window/noticebar.h"
#include "window/prompts.h"

#include <QAction>
#include <QGraphicsItem>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

using namespace archipelago;

namespace {

const QString kTwoBuildings =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
const QString kThreeRegions =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/scale-across-100k-3-regions.json");

const core::Region* regionNamed(const core::Scenario& s, const std::string& name)
{
    for (const core::Region& r : s.topology.regions)
        if (r.name == name)
            return &r;
    return nullptr;
}

// Types `text` into a line edit and commits it as the user does (Return).
void typeInto(QLineEdit* field, const QString& text)
{
    field->setFocus();
    field->selectAll();
    QTest::keyClick(field, Qt::Key_Backspace);
    QTest::keyClicks(field, text);
    QTest::keyClick(field, Qt::Key_Return);
}

} // namespace

class TestRegions : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        m_window = std::make_unique<app::MainWindow>(std::make_unique<app::SilentPrompts>());
        m_window->evaluator()->setDelay(0);
        m_window->resize(1280, 800);
        m_window->show();
    }
    void cleanup() { m_window.reset(); }

    void addRegionFromTheCanvas()
    {
        QVERIFY(m_window->openPreset(kTwoBuildings));
        app::Document* doc = m_window->document();
        const core::Scenario before = doc->scenario();
        QCOMPARE(before.topology.regions.size(), std::size_t{1});

        m_window->topologyCanvas()->requestAddRegion();
        const core::Topology& t = doc->scenario().topology;
        QCOMPARE(t.regions.size(), std::size_t{2});
        const core::Region& added = t.regions.back();
        QCOMPARE(added.name, std::string("region-2"));
        QCOMPARE(t.datacenters.size(), std::size_t{3});
        const core::Datacenter& dc = t.datacenters.back();
        QCOMPARE(dc.regionId, added.id);
        QCOMPARE(core::gpusInDatacenter(dc), core::gpusInDatacenter(t.datacenters.front()));
        // Linked to the nearest building, the one to its right, at the canvas distance read as
        // kilometres, long haul (more than the campus default).
        QCOMPARE(t.links.size(), std::size_t{2});
        const core::DciLink& link = t.links.back();
        QCOMPARE(link.b, dc.id);
        QCOMPARE(link.a, before.topology.datacenters.back().id);
        QVERIFY2(link.distanceKm > 100.0, qPrintable(QString::number(link.distanceKm)));
        // One step (with the batch it asked to fit to the new GPUs).
        QVERIFY2(doc->undoStack()->undoText().startsWith(QStringLiteral("Add Region region-2")),
                 qPrintable(doc->undoStack()->undoText()));
        // The canvas draws the new region around its datacenter.
        QGraphicsItem* item =
            m_window->topologyCanvas()->itemFor(views::TopologyItemKind::Region, added.id);
        QVERIFY(item && item->isVisible());

        doc->undoStack()->undo();
        QCOMPARE(doc->scenario(), before);
    }

    void newLinkInARegionTakesItsLength()
    {
        QVERIFY(m_window->openPreset(kTwoBuildings));
        app::Document* doc = m_window->document();
        core::Scenario near = doc->scenario();
        QCOMPARE(near.topology.links.size(), std::size_t{1});
        near.topology.links.front().distanceKm = 5.0;
        QVERIFY(m_window->edits()->apply(near, QStringLiteral("Set Distance"), false));
        // A third building of the same region: linked at the region's 5 km, not a campus's 10.
        m_window->topologyCanvas()->requestAddDatacenter();
        const core::Topology& t = doc->scenario().topology;
        QCOMPARE(t.datacenters.size(), std::size_t{3});
        QCOMPARE(t.datacenters.back().regionId, t.datacenters.front().regionId);
        QCOMPARE(t.links.size(), std::size_t{2});
        QCOMPARE(t.links.back().distanceKm, 5.0);
    }

    // Found walking the first-time user's question: 800 km typed on a metro link kept its 600 km
    // line system and 120 km optic, with only a warning under the field. A link lengthened past
    // their reach takes the ones that reach, as a new link would, and the window says so; one
    // set in the same edit is the user's.
    void linkLengthenedPastReachTakesLongHaulParts()
    {
        QVERIFY(m_window->openPreset(kTwoBuildings));
        app::Document* doc = m_window->document();
        QCOMPARE(doc->scenario().topology.links.front().optic, std::string("400ZR"));
        QCOMPARE(doc->scenario().topology.links.front().lineSystem,
                 std::string("Metro-DWDM-C-band"));
        core::Scenario far = doc->scenario();
        far.topology.links.front().distanceKm = 800.0;
        QVERIFY(m_window->edits()->applyEdit(far, {"/topology/links/0/distance_km"}, false));
        const core::DciLink& link = doc->scenario().topology.links.front();
        QCOMPARE(link.distanceKm, 800.0);
        QCOMPARE(link.optic, std::string("400ZR+"));
        QCOMPARE(link.lineSystem, std::string("Long-haul-DWDM-C+L"));
        QVERIFY2(m_window->noticeBar()->text().contains(
                     QStringLiteral("line system Metro-DWDM-C-band → Long-haul-DWDM-C+L")),
                 qPrintable(m_window->noticeBar()->text()));
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario().topology.links.front().lineSystem,
                 std::string("Metro-DWDM-C-band"));

        // Parts chosen in the same edit are the user's: the optic is left as it is (its reach
        // warning says so).
        far = doc->scenario();
        far.topology.links.front().distanceKm = 800.0;
        far.topology.links.front().lineSystem = "Long-haul-DWDM-C+L";
        QVERIFY(m_window->edits()->applyEdit(far, {"/topology/links/0"}, false));
        QCOMPARE(doc->scenario().topology.links.front().optic, std::string("400ZR"));
    }

    void renameOnTheRegionPage()
    {
        QVERIFY(m_window->openPreset(kThreeRegions));
        app::Document* doc = m_window->document();
        const core::Region regionB = *regionNamed(doc->scenario(), "region-b");

        // The tree's region row opens the region's page.
        m_window->scenarioTree()->selectItem({views::ScenarioItem::Kind::Region, regionB.id});
        views::PropertyEditor* editor = m_window->propertyEditor();
        views::RegionEditor* page = editor->regionEditor();
        QCOMPARE(editor->currentPage(), page);
        QCOMPARE(page->title(), QStringLiteral("Region: region-b"));
        // The distances to the other regions, over the links.
        const QString links = page->linksLabel()->text();
        QVERIFY2(links.contains(QStringLiteral("region-a: 150 km")), qPrintable(links));
        QVERIFY2(links.contains(QStringLiteral("region-c: 600 km")), qPrintable(links));
        QVERIFY2(page->datacentersLabel()->text().contains(QStringLiteral("dc-b")),
                 qPrintable(page->datacentersLabel()->text()));

        // A name another region has is refused on the field, nothing is pushed.
        const int steps = doc->undoStack()->count();
        typeInto(page->nameField(), QStringLiteral("region-a"));
        QVERIFY(page->nameRow()->isRefused());
        QVERIFY2(page->nameRow()->message().contains(QStringLiteral("region-a")),
                 qPrintable(page->nameRow()->message()));
        QCOMPARE(doc->undoStack()->count(), steps);
        typeInto(page->nameField(), QStringLiteral("  "));
        QVERIFY(page->nameRow()->isRefused());
        QCOMPARE(doc->undoStack()->count(), steps);

        typeInto(page->nameField(), QStringLiteral("us-west"));
        QVERIFY(regionNamed(doc->scenario(), "us-west"));
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Rename Region region-b to us-west"));
        QCOMPARE(editor->currentPage(), page);
        QCOMPARE(page->title(), QStringLiteral("Region: us-west"));
    }

    void moveDatacentersBetweenRegions()
    {
        QVERIFY(m_window->openPreset(kTwoBuildings));
        app::Document* doc = m_window->document();
        const core::Scenario before = doc->scenario();
        const core::Datacenter buildingB = before.topology.datacenters.back();
        views::PropertyEditor* editor = m_window->propertyEditor();
        editor->setSelection(views::ScenarioItem::Kind::Datacenter, {buildingB.id});
        views::DatacenterEditor* page = editor->datacenterEditor();
        QCOMPARE(editor->currentPage(), page);

        // "New region" moves the building into a region of its own, in one step.
        views::ChoiceField* region = page->regionField();
        const int newRegion = region->findData(QStringLiteral("new"));
        QVERIFY(newRegion >= 0);
        region->setCurrentIndex(newRegion);
        emit region->activated(newRegion);
        const core::Topology& t = doc->scenario().topology;
        QCOMPARE(t.regions.size(), std::size_t{2});
        QCOMPARE(core::findDatacenter(t, buildingB.id)->regionId, t.regions.back().id);
        QCOMPARE(doc->undoStack()->undoText(),
                 QStringLiteral("Move building-b to New Region region-2"));
        // Regions group; the cost is the links' (the distance did not move).
        QCOMPARE(doc->scenario().topology.links, before.topology.links);

        // And back into the first region, by its name in the box.
        const int first = region->findData(QString::number(before.topology.regions.front().id));
        QVERIFY(first >= 0);
        region->setCurrentIndex(first);
        emit region->activated(first);
        QCOMPARE(core::findDatacenter(doc->scenario().topology, buildingB.id)->regionId,
                 before.topology.regions.front().id);
        QCOMPARE(doc->undoStack()->undoText(),
                 QStringLiteral("Move building-b to %1")
                     .arg(QString::fromStdString(before.topology.regions.front().name)));
    }

    void deleteMovesItsDatacenters()
    {
        QVERIFY(m_window->openPreset(kThreeRegions));
        app::Document* doc = m_window->document();
        const core::Scenario before = doc->scenario();
        const core::Region regionC = *regionNamed(before, "region-c");
        views::PropertyEditor* editor = m_window->propertyEditor();
        editor->setSelection(views::ScenarioItem::Kind::Region, {regionC.id});
        views::RegionEditor* page = editor->regionEditor();
        QVERIFY(page->deleteButton()->isEnabled());
        // dc-c's shortest link reaches region-b (600 km, against 700 km to region-a).
        QCOMPARE(views::RegionEditor::successorRegion(before.topology, regionC.id),
                 regionNamed(before, "region-b")->id);
        QTest::mouseClick(page->deleteButton(), Qt::LeftButton);
        const core::Topology& t = doc->scenario().topology;
        QCOMPARE(t.regions.size(), std::size_t{2});
        QVERIFY(!regionNamed(doc->scenario(), "region-c"));
        QCOMPARE(t.datacenters.size(), before.topology.datacenters.size());
        QCOMPARE(core::findDatacenter(t, before.topology.datacenters.back().id)->regionId,
                 regionNamed(doc->scenario(), "region-b")->id);
        QCOMPARE(doc->undoStack()->undoText(),
                 QStringLiteral("Delete Region region-c (dc-c to region-b)"));
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario(), before);

        // The last region stays: its Delete is disabled, and says why.
        QVERIFY(m_window->openPreset(kTwoBuildings));
        const core::Id only = doc->scenario().topology.regions.front().id;
        editor->setSelection(views::ScenarioItem::Kind::Region, {only});
        QCOMPARE(editor->currentPage(), page);
        QVERIFY(!page->deleteButton()->isEnabled());
        QVERIFY(page->deleteButton()->toolTip().contains(QStringLiteral("at least one region")));
    }

    void datacenterNamesStayDistinct()
    {
        QVERIFY(m_window->openPreset(kTwoBuildings));
        app::Document* doc = m_window->document();
        const core::Scenario before = doc->scenario();
        views::PropertyEditor* editor = m_window->propertyEditor();
        views::DatacenterEditor* page = editor->datacenterEditor();
        const core::Id a = before.topology.datacenters.front().id;
        const core::Id b = before.topology.datacenters.back().id;
        editor->setSelection(views::ScenarioItem::Kind::Datacenter, {a});
        typeInto(page->nameField(), QStringLiteral("building-b")); // the other's name
        QVERIFY(page->nameRow()->isRefused());
        QCOMPARE(page->nameField()->text(), QStringLiteral("building-a"));
        typeInto(page->nameField(), QString());
        QVERIFY(page->nameRow()->isRefused());
        QCOMPARE(doc->scenario(), before);

        // Two selected cannot take one name: the field is off.
        editor->setSelection(views::ScenarioItem::Kind::Datacenter, {a, b});
        QVERIFY(!page->nameField()->isEnabled());

        // A rename reads as one: not "Set Name B1 to B1".
        editor->setSelection(views::ScenarioItem::Kind::Datacenter, {a});
        typeInto(page->nameField(), QStringLiteral("B1"));
        QCOMPARE(core::findDatacenter(doc->scenario().topology, a)->name, std::string("B1"));
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Rename building-a to B1"));
    }

    void growingADatacenterGrowsItsFabric()
    {
        QVERIFY(m_window->newEmptyDocument());
        app::Document* doc = m_window->document();
        core::Datacenter dc = doc->scenario().topology.datacenters.front();
        QCOMPARE(dc.fabric.tiers, 2);
        // 4 pods of 256 8-GPU domains: 8,192 GPUs, more than a 2-tier radix-64 Clos holds.
        dc.pods.front().count = 4;
        dc.pods.front().domainsPerPod = 256;
        QVERIFY(m_window->edits()->setDatacenters({dc}));
        const core::Datacenter& grown = doc->scenario().topology.datacenters.front();
        QCOMPARE(core::gpusInDatacenter(grown), std::int64_t{8192});
        QCOMPARE(grown.fabric.tiers, 3);
        QVERIFY2(m_window->noticeBar()->text().contains(QStringLiteral("fabric grown to 3 tiers")),
                 qPrintable(m_window->noticeBar()->text()));
        // One step: undo gives back the small datacenter and its fabric.
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario().topology.datacenters.front().fabric.tiers, 2);

        // A fabric the user sets in the same edit is theirs.
        dc.fabric.tiers = 2;
        dc.fabric.leafOversubscription = 2.0;
        QVERIFY(m_window->edits()->setDatacenters({dc}));
        QCOMPARE(doc->scenario().topology.datacenters.front().fabric.tiers, 2);
    }

    void fileNewSaysWhatItIs()
    {
        QVERIFY(m_window->newEmptyDocument());
        QAction* fileNew = nullptr;
        for (QAction* action : m_window->findChildren<QAction*>())
            if (action->text() == QStringLiteral("&New"))
                fileNew = action;
        QVERIFY(fileNew);
        fileNew->trigger();
        const QString notice = m_window->noticeBar()->text();
        QVERIFY2(notice.contains(QStringLiteral("default scenario")), qPrintable(notice));
        QVERIFY2(notice.contains(QString::fromStdString(m_window->document()->scenario().name)),
                 qPrintable(notice));
    }

    void doubleClickOnARegionOpensItsPage()
    {
        QVERIFY(m_window->openPreset(kThreeRegions));
        const core::Region regionA = m_window->document()->scenario().topology.regions.front();
        emit m_window->topologyCanvas()->editRequested(views::TopologyItemKind::Region, regionA.id);
        views::PropertyEditor* editor = m_window->propertyEditor();
        QCOMPARE(editor->currentPage(), editor->regionEditor());
        QCOMPARE(editor->regionEditor()->title(),
                 QStringLiteral("Region: %1").arg(QString::fromStdString(regionA.name)));
    }

private:
    std::unique_ptr<app::MainWindow> m_window;
};

QTEST_MAIN(TestRegions)
#include "test_regions.moc"
