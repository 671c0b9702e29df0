#include "window/screenshot.h"

#include "document/evaluator.h"
#include "document/livefront.h"
#include "document/pinevaluations.h"
#include "topology/topologycanvas.h"
#include "window/mainwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QImageWriter>
#include <QPixmap>
#include <QTimer>

#include <cstdio>

namespace archipelago::app {

namespace {

void printError(const QString& message)
{
    std::fprintf(stderr, "archipelago: %s\n", qPrintable(message));
}

// Returns false on timeout.
bool waitForEvaluation(Evaluator* evaluator, int timeoutMs)
{
    if (!evaluator->isBusy() && evaluator->evaluation())
        return true;
    QEventLoop loop;
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
    QObject::connect(evaluator, &Evaluator::evaluated, &loop, [&loop, evaluator] {
        if (!evaluator->isBusy())
            loop.quit();
    });
    timeout.start(timeoutMs);
    loop.exec();
    return !evaluator->isBusy() && evaluator->evaluation();
}

} // namespace

int takeScreenshot(MainWindow& window, const ScreenshotOptions& options)
{
    window.resize(options.size);
    window.show();
    if (!waitForEvaluation(window.evaluator(), options.evaluationTimeoutMs))
        printError(QStringLiteral("the evaluation did not finish within %1 s; rendering the "
                                  "window without it")
                       .arg(options.evaluationTimeoutMs / 1000));
    // The pins' evaluations run beside the current one; the plots show them when they are in.
    QElapsedTimer pins;
    pins.start();
    while (window.pinEvaluations()->isBusy() && pins.elapsed() < options.evaluationTimeoutMs)
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    // And the live front's finding, so that the status bar says what it found.
    while (window.liveFront()->isPending() && pins.elapsed() < options.evaluationTimeoutMs)
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    // Let layouts and pending paints settle, then fit the canvas to its final size.
    QApplication::processEvents();
    window.topologyCanvas()->fitToView();
    QApplication::processEvents();
    const QPixmap pixmap = window.grab();
    if (pixmap.isNull()) {
        printError(QStringLiteral("could not render the window"));
        return 1;
    }
    QImageWriter writer(options.outputPath);
    if (!writer.write(pixmap.toImage())) {
        printError(
            QStringLiteral("cannot write %1: %2").arg(options.outputPath, writer.errorString()));
        return 1;
    }
    return 0;
}

} // namespace archipelago::app
