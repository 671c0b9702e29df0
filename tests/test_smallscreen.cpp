// The window on small screens: at 1280x800 and 1366x768 (the smallest common laptop panels) it
// takes the screen's width, not more, with the default layout and the default document.
#include "document/evaluator.h"
#include "window/mainwindow.h"
#include "window/prompts.h"

#include <QDockWidget>
#include <QStandardPaths>
#include <QTest>

using namespace archipelago;

class TestSmallScreen : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void windowFitsTheScreen_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1366x768") << QSize(1366, 768);
    }

    void windowFitsTheScreen()
    {
        QFETCH(QSize, size);
        app::MainWindow window(std::make_unique<app::SilentPrompts>());
        window.evaluator()->setDelay(0);
        QVERIFY(window.newDocument());
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(50);
        QString docks;
        for (const QDockWidget* dock : window.findChildren<QDockWidget*>())
            if (dock->isVisible())
                docks += QStringLiteral(" %1=%2x%3")
                             .arg(dock->objectName())
                             .arg(dock->minimumSizeHint().width())
                             .arg(dock->minimumSizeHint().height());
        const QSize minimum = window.minimumSizeHint();
        QVERIFY2(minimum.width() <= size.width() && minimum.height() <= size.height(),
                 qPrintable(QStringLiteral("minimum %1x%2;%3")
                                .arg(minimum.width())
                                .arg(minimum.height())
                                .arg(docks)));
        QCOMPARE(window.width(), size.width());
    }
};

QTEST_MAIN(TestSmallScreen)
#include "test_smallscreen.moc"
