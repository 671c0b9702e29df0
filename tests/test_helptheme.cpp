// What a first-time user meets: the topology refits when datacenters come
// or go; DCI labels sit clear of the datacenter cards; the layout view labels some stages at
// PP 32 and in a small window; the Help menu (About, Keyboard Shortcuts from the real actions,
// the Guide on F1); the dark theme reaches the window and the canvas; the default document is
// named by its scenario, not by an internal file name.
#include "document/evaluator.h"
#include "document/presetlibrary.h"
#include "editing/editcontroller.h"
#include "editing/editvalidation.h"
#include "editing/setpipelineparallel.h"
#include "layout/layoutview.h"
#include "layout/layoutviewcanvas.h"
#include "topology/topologycanvas.h"
#include "topology/topologydatacenteritem.h"
#include "topology/topologylinkitem.h"
#include "topology/topologyscene.h"
#include "window/helpdialogs.h"
#include "window/mainwindow.h"
#include "window/prompts.h"
#include "window/theme.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QGraphicsView>
#include <QImage>
#include <QLabel>
#include <QMenuBar>
#include <QPainter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QUndoStack>

#include <algorithm>

using namespace archipelago;

namespace {

const QString kScaleAcross =
    QStringLiteral(ARCHIPELAGO_SOURCE_DIR "/presets/scale-across-100k-3-regions.json");

std::unique_ptr<app::MainWindow> shownWindow(QSize size = {1600, 1000})
{
    auto window = std::make_unique<app::MainWindow>(std::make_unique<app::SilentPrompts>());
    window->evaluator()->setDelay(0);
    window->resize(size);
    window->show();
    return window;
}

// The union of the topology items' scene rectangles (what fitToView frames).
QRectF topologyBounds(const views::TopologyCanvas* canvas)
{
    QRectF bounds;
    for (QGraphicsItem* item : canvas->scene()->items())
        if (item->isVisible() && !item->parentItem())
            bounds = bounds.united(item->sceneBoundingRect());
    return bounds;
}

bool topologyFitsViewport(const views::TopologyCanvas* canvas)
{
    const QGraphicsView* view = canvas->view();
    const QRectF visible = view->mapToScene(view->viewport()->rect()).boundingRect();
    return visible.adjusted(-1, -1, 1, 1).contains(topologyBounds(canvas));
}

} // namespace

class TestHelpTheme : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void canvasFitsOnOpenAndAfterAddingADatacenter();
    void smallEditsKeepTheZoom();
    void dciLabelsClearOfCards_data();
    void dciLabelsClearOfCards();
    void layoutLabelsSurviveThinBands_data();
    void layoutLabelsSurviveThinBands();
    void helpMenuHasItsThreeEntries();
    void shortcutsListTheRealActions();
    void guideShowsTheBubbleAndTheValidationError();
    void darkThemeReachesWindowAndCanvas();
    void themeNamesRoundTrip();
    void defaultDocumentIsNamedByItsScenario();
};

void TestHelpTheme::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ArchipelagoTest"));
    QCoreApplication::setApplicationName(QStringLiteral("test_helptheme"));
    app::PresetLibrary::initResources();
    QVERIFY(QFile::exists(kScaleAcross));
}

void TestHelpTheme::cleanup()
{
    app::applyTheme(app::Theme::Light);
}

void TestHelpTheme::canvasFitsOnOpenAndAfterAddingADatacenter()
{
    auto window = shownWindow();
    QVERIFY(window->newDocument());
    views::TopologyCanvas* canvas = window->topologyCanvas();
    QTRY_VERIFY(topologyFitsViewport(canvas));

    // Zoom in far, then add datacenters: the view frames all of them again.
    canvas->zoomIn();
    canvas->zoomIn();
    canvas->zoomIn();
    canvas->zoomIn();
    QVERIFY(!topologyFitsViewport(canvas));
    const int before = static_cast<int>(window->document()->scenario().topology.datacenters.size());
    for (int i = 0; i < 3; ++i)
        canvas->requestAddDatacenter();
    QCOMPARE(static_cast<int>(window->document()->scenario().topology.datacenters.size()),
             before + 3);
    QTRY_VERIFY(topologyFitsViewport(canvas));

    // Undo (a datacenter goes) refits too.
    canvas->zoomIn();
    canvas->zoomIn();
    canvas->zoomIn();
    canvas->zoomIn();
    window->document()->undoStack()->undo();
    QTRY_VERIFY(topologyFitsViewport(canvas));

    // Opening a preset frames it.
    canvas->zoomIn();
    canvas->zoomIn();
    canvas->zoomIn();
    canvas->zoomIn();
    window->document()->undoStack()->setClean();
    QVERIFY(window->openPreset(kScaleAcross));
    QTRY_VERIFY(topologyFitsViewport(canvas));
}

void TestHelpTheme::smallEditsKeepTheZoom()
{
    auto window = shownWindow();
    QVERIFY(window->newDocument());
    views::TopologyCanvas* canvas = window->topologyCanvas();
    QTRY_VERIFY(topologyFitsViewport(canvas));
    canvas->zoomIn();
    const double zoom = canvas->zoom();
    core::Parallelism p = window->document()->scenario().parallelism;
    window->edits()->setParallelism(p); // a no-op
    core::Workload w = window->document()->scenario().workload;
    w.globalBatch *= 2;
    window->edits()->setWorkload(w);
    QTest::qWait(50);
    QCOMPARE(canvas->zoom(), zoom);
}

void TestHelpTheme::dciLabelsClearOfCards_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QSize>("size");
    QTest::newRow("default 1600x1000") << QString() << QSize(1600, 1000);
    QTest::newRow("default 1280x800") << QString() << QSize(1280, 800);
    QTest::newRow("scale-across 1920x1080") << kScaleAcross << QSize(1920, 1080);
}

void TestHelpTheme::dciLabelsClearOfCards()
{
    QFETCH(QString, preset);
    QFETCH(QSize, size);
    auto window = shownWindow(size);
    QVERIFY(preset.isEmpty() ? window->newDocument() : window->openPreset(preset));
    auto* scene = static_cast<views::TopologyScene*>(window->topologyCanvas()->scene());
    const core::Topology& topology = window->document()->scenario().topology;
    QVERIFY(!topology.links.empty());
    int labels = 0;
    for (const core::DciLink& link : topology.links) {
        const views::TopologyLinkItem* item = scene->linkItem(link.id);
        QVERIFY(item);
        const QRectF label = item->labelRect();
        QVERIFY(!label.isEmpty());
        ++labels;
        for (const core::Datacenter& dc : topology.datacenters) {
            const QRectF card = scene->datacenterItem(dc.id)->sceneBoundingRect();
            QVERIFY2(!label.intersects(card),
                     qPrintable(QStringLiteral("link %1's label overlaps %2")
                                    .arg(link.id)
                                    .arg(QString::fromStdString(dc.name))));
        }
    }
    QVERIFY(labels > 0);
}

void TestHelpTheme::layoutLabelsSurviveThinBands_data()
{
    QTest::addColumn<int>("pp");
    QTest::addColumn<QSize>("size");
    QTest::newRow("PP 32 at 1600x1000") << 32 << QSize(1600, 1000);
    QTest::newRow("PP 32 at 1280x800") << 32 << QSize(1280, 800);
    QTest::newRow("default PP at 1280x800") << 0 << QSize(1280, 800);
}

void TestHelpTheme::layoutLabelsSurviveThinBands()
{
    QFETCH(int, pp);
    QFETCH(QSize, size);
    auto window = shownWindow(size);
    QVERIFY(window->newDocument());
    core::Scenario scenario = window->document()->scenario();
    if (pp > 0) {
        // The first preset where a user can set this PP (the edit would be refused otherwise).
        bool found = false;
        for (const app::PresetLibrary::Preset& preset : app::PresetLibrary::presets()) {
            QVERIFY(window->openPreset(preset.path));
            const core::Scenario candidate =
                app::SetPipelineParallel::withPipelineParallel(window->document()->scenario(), pp);
            if (app::scenarioErrors(candidate).empty()) {
                window->edits()->setPipelineParallel(pp);
                scenario = window->document()->scenario();
                found = true;
                break;
            }
        }
        QVERIFY2(found, "no preset takes this PP");
        QCOMPARE(scenario.parallelism.pp, pp);
    }
    window->centralTabs()->setCurrentWidget(window->layoutView());
    window->layoutView()->setScenario(scenario);
    auto* canvas = qobject_cast<views::LayoutViewCanvas*>(window->layoutView()->canvas());
    QVERIFY(canvas);
    canvas->grab(); // paints, and records the labels drawn
    const QStringList labels = canvas->drawnLabels();
    const int stages = scenario.parallelism.pp;
    QVERIFY2(!labels.isEmpty(), "no stage label drawn");
    // The first and the last stage are always named; at PP 32 some of the others too.
    QVERIFY2(labels.join(QLatin1Char('|')).contains(QStringLiteral("0")),
             qPrintable(labels.join(',')));
    QVERIFY2(std::any_of(
                 labels.begin(), labels.end(),
                 [&](const QString& label) { return label.contains(QString::number(stages - 1)); }),
             qPrintable(labels.join(',')));
    if (pp == 32)
        QVERIFY2(labels.size() >= 4, qPrintable(labels.join(',')));
}

void TestHelpTheme::helpMenuHasItsThreeEntries()
{
    auto window = shownWindow();
    QVERIFY(window->newDocument());
    auto* help = window->findChild<QMenu*>(QStringLiteral("HelpMenu"));
    QVERIFY(help);
    QStringList names;
    for (const QAction* action : help->actions())
        names << action->objectName();
    QVERIFY(names.contains(QStringLiteral("HelpAbout")));
    QVERIFY(names.contains(QStringLiteral("HelpShortcuts")));
    QVERIFY(names.contains(QStringLiteral("HelpGuide")));

    // F1 opens the Guide.
    QVERIFY(!window->findChild<QDialog*>(QStringLiteral("GuideDialog")));
    window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    QTest::keyClick(window->topologyCanvas()->view(), Qt::Key_F1);
    auto* guide = window->findChild<QDialog*>(QStringLiteral("GuideDialog"));
    QVERIFY(guide);
    QVERIFY(guide->isVisible());

    help->findChild<QAction*>(QStringLiteral("HelpAbout"))->trigger();
    auto* about = window->findChild<QDialog*>(QStringLiteral("AboutDialog"));
    QVERIFY(about && about->isVisible());
    auto* text = about->findChild<QLabel*>(QStringLiteral("AboutText"));
    QVERIFY(text->text().contains(QStringLiteral(ARCHIPELAGO_VERSION)));
    QVERIFY(text->text().contains(QString::fromLatin1(qVersion())));
    QVERIFY(text->text().contains(app::validationFigure().toHtmlEscaped()));
}

void TestHelpTheme::shortcutsListTheRealActions()
{
    auto window = shownWindow();
    const QList<app::ShortcutEntry> entries = app::collectShortcuts(window.get());
    const auto has = [&](const QString& key) {
        for (const app::ShortcutEntry& entry : entries)
            if (entry.keys.contains(key))
                return true;
        return false;
    };
    QVERIFY(has(QKeySequence(QKeySequence::Undo).toString(QKeySequence::NativeText)));
    QVERIFY(has(QStringLiteral("Ctrl+Z")));
    QVERIFY(has(QStringLiteral("Ctrl+1")));
    QVERIFY(has(QStringLiteral("F1")));
    // Each under the menu that shows it (no title-less level from a re-listing menu).
    for (const app::ShortcutEntry& entry : entries) {
        if (entry.keys.contains(QStringLiteral("Ctrl+1")))
            QCOMPARE(entry.menu, QStringLiteral("View"));
        if (entry.keys.contains(QStringLiteral("F1")))
            QCOMPARE(entry.menu, QStringLiteral("Help"));
        if (entry.keys.contains(QStringLiteral("Ctrl+Z")))
            QCOMPARE(entry.menu, QStringLiteral("Edit"));
    }

    // A new action with a shortcut shows up: the list is read from the actions.
    auto* extra = new QAction(QStringLiteral("Frobnicate"), window.get());
    extra->setShortcut(QKeySequence(QStringLiteral("Ctrl+Alt+F9")));
    QDialog* dialog = app::showShortcutsDialog(window.get());
    auto* tree = dialog->findChild<QTreeWidget*>(QStringLiteral("ShortcutsTable"));
    QVERIFY(tree);
    QStringList rows;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        rows << tree->topLevelItem(i)->text(0).trimmed() + QLatin1Char('=') +
                    tree->topLevelItem(i)->text(1);
    const QString all = rows.join(QLatin1Char('\n'));
    QVERIFY2(all.contains(QStringLiteral("Ctrl+Z")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Ctrl+1")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Frobnicate=Ctrl+Alt+F9")), qPrintable(all));
}

void TestHelpTheme::guideShowsTheBubbleAndTheValidationError()
{
    const QString html = app::guideHtml();
    QVERIFY(!html.contains(QStringLiteral("{{")));
    QVERIFY(html.contains(QStringLiteral("idle time over its makespan, averaged over stages")));
    QVERIFY(html.contains(QStringLiteral(ARCHIPELAGO_VERSION)));
    const QString figure = app::validationFigure();
    QVERIFY(!figure.isEmpty());
    QVERIFY(html.contains(figure.toHtmlEscaped()) ||
            html.contains(QStringLiteral("No validation")));
    if (QFile::exists(QStringLiteral(ARCHIPELAGO_VALIDATION_DIR))) {
        // Built with the runs: the figure is computed, a percentage.
        QVERIFY2(figure.contains(QLatin1Char('%')), qPrintable(figure));
    }
}

void TestHelpTheme::darkThemeReachesWindowAndCanvas()
{
    auto window = shownWindow();
    QVERIFY(window->newDocument());
    views::TopologyCanvas* canvas = window->topologyCanvas();
    QTRY_VERIFY(topologyFitsViewport(canvas));

    app::applyTheme(app::Theme::Dark);
    QCOMPARE(app::currentTheme(), app::Theme::Dark);
    QTRY_VERIFY(window->palette().color(QPalette::Window).lightnessF() < 0.3);
    QTRY_VERIFY(canvas->view()->palette().color(QPalette::Base).lightnessF() < 0.3);
    QTRY_VERIFY(canvas->scene()->palette().color(QPalette::Base).lightnessF() < 0.3);

    // A datacenter card paints its background dark and its name light.
    const core::Datacenter& dc = window->document()->scenario().topology.datacenters.front();
    auto* item = static_cast<views::TopologyScene*>(canvas->scene())->datacenterItem(dc.id);
    const QRectF card = item->sceneBoundingRect();
    QImage image(card.size().toSize(), QImage::Format_ARGB32);
    image.fill(Qt::magenta);
    {
        QPainter painter(&image);
        canvas->scene()->render(&painter, QRectF(QPointF(0, 0), card.size()), card);
    }
    const QColor inside = image.pixelColor(4, image.height() / 2);
    QVERIFY2(inside.lightnessF() < 0.3, qPrintable(inside.name()));

    app::applyTheme(app::Theme::Light);
    QTRY_VERIFY(window->palette().color(QPalette::Window).lightnessF() > 0.6);
    QTRY_VERIFY(canvas->scene()->palette().color(QPalette::Base).lightnessF() > 0.6);
}

void TestHelpTheme::themeNamesRoundTrip()
{
    for (const app::Theme theme : {app::Theme::System, app::Theme::Light, app::Theme::Dark})
        QCOMPARE(app::themeFromName(app::themeName(theme)), theme);
    QVERIFY(!app::themeFromName(QStringLiteral("purple")));
    app::saveTheme(app::Theme::Dark);
    QCOMPARE(app::savedTheme(), app::Theme::Dark);
    app::saveTheme(app::Theme::System);
    QCOMPARE(app::savedTheme(), app::Theme::System);
}

void TestHelpTheme::defaultDocumentIsNamedByItsScenario()
{
    auto window = shownWindow();
    QVERIFY(window->newDocument());
    const QString name = QString::fromStdString(window->document()->scenario().name);
    const QString message = window->statusBar()->currentMessage();
    QVERIFY2(!message.contains(QStringLiteral(".json")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("Default scenario")), qPrintable(message));
    QVERIFY2(message.contains(name), qPrintable(message));
    QVERIFY2(!window->windowTitle().contains(QStringLiteral(".json")),
             qPrintable(window->windowTitle()));
    QVERIFY2(window->windowTitle().contains(name), qPrintable(window->windowTitle()));

    QVERIFY(window->openPreset(kScaleAcross));
    QVERIFY2(!window->statusBar()->currentMessage().contains(QStringLiteral(".json")),
             qPrintable(window->statusBar()->currentMessage()));
    QVERIFY(window->statusBar()->currentMessage().startsWith(QStringLiteral("Preset: ")));

    // A file opened by name keeps its file name.
    QVERIFY(window->openFile(kScaleAcross));
    QVERIFY(window->statusBar()->currentMessage().contains(
        QStringLiteral("scale-across-100k-3-regions.json")));
}

QTEST_MAIN(TestHelpTheme)
#include "test_helptheme.moc"
