#include "application.h"

#include "mainwindow.h"
#include "presetlibrary.h"
#include "prompts.h"
#include "screenshot.h"
#include "topologycanvas.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

namespace archipelago::app {

namespace {

constexpr int kUsageError = 2;

struct Arguments
{
    QString scenario;             // empty: the built-in default scenario
    ScreenshotOptions screenshot; // outputPath empty: interactive
    int tab = 0;                  // central tab shown: topology, layout or timeline
};

const QStringList kTabNames{QStringLiteral("topology"), QStringLiteral("layout"),
                            QStringLiteral("timeline")};

void printError(const QString& message)
{
    std::fprintf(stderr, "archipelago: %s\n", qPrintable(message));
}

// Exits through QCommandLineParser for --help and --version; returns false on a usage error.
bool parseArguments(const QApplication& application, Arguments& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Design-space explorer for multi-datacenter LLM training."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Render the main window, evaluated, to <file> (PNG) and exit."),
        QStringLiteral("file"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("Window size for --screenshot (default "
                                                 "1600x1000)."),
                                  QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    const QCommandLineOption tab(QStringLiteral("tab"),
                                 QStringLiteral("Central tab to show: topology (default), layout "
                                                "or timeline."),
                                 QStringLiteral("name"), kTabNames.front());
    parser.addOption(screenshot);
    parser.addOption(size);
    parser.addOption(tab);
    parser.addPositionalArgument(
        QStringLiteral("scenario"),
        QStringLiteral("Scenario file to open (default: the built-in default scenario)."),
        QStringLiteral("[SCENARIO.json]"));
    parser.process(application);

    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        printError(
            QStringLiteral("expected at most one scenario file, got %1").arg(positional.size()));
        return false;
    }
    arguments.scenario = positional.value(0);
    arguments.screenshot.outputPath = parser.value(screenshot);
    const QRegularExpressionMatch match =
        QRegularExpression(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$")).match(parser.value(size));
    if (!match.hasMatch()) {
        printError(QStringLiteral("--size expects WIDTHxHEIGHT, got “%1”").arg(parser.value(size)));
        return false;
    }
    arguments.screenshot.size = QSize(match.captured(1).toInt(), match.captured(2).toInt());
    arguments.tab = static_cast<int>(kTabNames.indexOf(parser.value(tab)));
    if (arguments.tab < 0) {
        printError(QStringLiteral("--tab expects one of %1, got “%2”")
                       .arg(kTabNames.join(QStringLiteral(", ")), parser.value(tab)));
        return false;
    }
    return true;
}

int runScreenshot(const Arguments& arguments)
{
    auto prompts = std::make_unique<SilentPrompts>();
    SilentPrompts* silent = prompts.get();
    MainWindow window(std::move(prompts));
    const bool loaded =
        arguments.scenario.isEmpty() ? window.newDocument() : window.openFile(arguments.scenario);
    if (!loaded) {
        for (const QString& line : silent->errors)
            printError(line);
        return 1;
    }
    window.centralTabs()->setCurrentIndex(arguments.tab);
    return takeScreenshot(window, arguments.screenshot);
}

int runInteractive(QApplication& application, const Arguments& arguments)
{
    MainWindow window;
    window.restoreLayout();
    window.show();
    // A file that cannot be opened has been reported; the default scenario takes its place.
    if (arguments.scenario.isEmpty() || !window.openFile(arguments.scenario)) {
        window.newDocument();
        window.offerUntitledRecovery();
    }
    // The canvas fits the topology once the window has its final size.
    QTimer::singleShot(0, &window, [&window] { window.topologyCanvas()->fitToView(); });
    return application.exec();
}

} // namespace

int runApplication(int argc, char** argv)
{
    QApplication application(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Archipelago"));
    QApplication::setApplicationName(QStringLiteral("archipelago"));
    QApplication::setApplicationVersion(QStringLiteral(ARCHIPELAGO_VERSION));
    PresetLibrary::initResources();

    Arguments arguments;
    if (!parseArguments(application, arguments))
        return kUsageError;
    if (!arguments.screenshot.outputPath.isEmpty())
        return runScreenshot(arguments);
    return runInteractive(application, arguments);
}

} // namespace archipelago::app
