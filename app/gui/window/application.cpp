#include "window/application.h"

#include "document/presetlibrary.h"
#include "panels/explorepanel.h"
#include "topology/topologycanvas.h"
#include "window/mainwindow.h"
#include "window/prompts.h"
#include "window/screenshot.h"
#include "window/theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <QTabWidget>

#include <cstdio>
#include <optional>

namespace archipelago::app {

namespace {

constexpr int kUsageError = 2;

struct Arguments
{
    QString scenario;             // empty: the built-in default scenario
    ScreenshotOptions screenshot; // outputPath empty: interactive
    int tab = 0;                  // central tab shown: topology, layout or timeline
    std::optional<Theme> theme;   // --theme; unset: the one saved in View > Theme
};

// The central tabs, then "explore": the Explore dock raised with the default space's sweep.
const QStringList kTabNames{QStringLiteral("topology"), QStringLiteral("layout"),
                            QStringLiteral("timeline"), QStringLiteral("explore")};
const int kExploreTab = 3;

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
                                                 "1600x1000; each side 320..8192)."),
                                  QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    const QCommandLineOption tab(QStringLiteral("tab"),
                                 QStringLiteral("Central tab to show: topology (default), layout "
                                                "or timeline; or explore: the Explore panel "
                                                "with the default space swept."),
                                 QStringLiteral("name"), kTabNames.front());
    parser.addOption(screenshot);
    parser.addOption(size);
    parser.addOption(tab);
    const QCommandLineOption theme(QStringLiteral("theme"),
                                   QStringLiteral("Colour theme: light, dark or system (default: "
                                                  "the one chosen in View > Theme)."),
                                   QStringLiteral("name"));
    parser.addOption(theme);
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
    // An 8K frame is the most a screenshot needs; 40000x40000 crashed rendering (a 6.4 GB image).
    constexpr int kMinSide = 320, kMaxSide = 8192;
    if (arguments.screenshot.size.width() < kMinSide ||
        arguments.screenshot.size.height() < kMinSide ||
        arguments.screenshot.size.width() > kMaxSide ||
        arguments.screenshot.size.height() > kMaxSide) {
        printError(QStringLiteral("--size expects each side in %1..%2 pixels, got “%3”")
                       .arg(kMinSide)
                       .arg(kMaxSide)
                       .arg(parser.value(size)));
        return false;
    }
    if (parser.isSet(theme)) {
        arguments.theme = themeFromName(parser.value(theme));
        if (!arguments.theme) {
            printError(QStringLiteral("--theme expects light, dark or system, got “%1”")
                           .arg(parser.value(theme)));
            return false;
        }
    }
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
    if (arguments.tab == kExploreTab) {
        // The panel raised and tall, the default space for the scenario swept to the end.
        window.resize(arguments.screenshot.size);
        window.show();
        window.showExplore();
        QApplication::processEvents();
        window.resizeDocks({window.exploreDock()}, {arguments.screenshot.size.height() / 2},
                           Qt::Vertical);
        ExplorePanel* explore = window.explorePanel();
        explore->resetSpace();
        if (!explore->runAndWait())
            printError(QStringLiteral("the sweep did not run: %1").arg(explore->message()));
        // The fastest point previewed beside the current design (plots, comparison, scatter).
        const auto& top = explore->topBy(core::SweepObjective::IterationTime);
        if (!top.empty())
            explore->previewPoint(top.front().point.index);
        return takeScreenshot(window, arguments.screenshot);
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
        window.offerRecoveryAtStart();
    }
    // The canvas fits the topology once the window has its final size.
    window.topologyCanvas()->fitWhenReady();
    return application.exec();
}

} // namespace

int runApplication(int argc, char** argv)
{
    // --version, --help and --screenshot need no display. Without one (a server, a CI job, a
    // fresh install over ssh) Qt's default platform plugin would abort before they are read.
    const auto needsNoDisplay = [argc, argv] {
        for (int i = 1; i < argc; ++i) {
            const QByteArray a(argv[i]);
            if (a == "--version" || a == "-v" || a == "--help" || a == "-h" || a == "--help-all" ||
                a.startsWith("--screenshot"))
                return true;
        }
        return false;
    };
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") && needsNoDisplay())
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication application(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Archipelago"));
    QApplication::setApplicationName(QStringLiteral("archipelago"));
    QApplication::setApplicationVersion(QStringLiteral(ARCHIPELAGO_VERSION));
    PresetLibrary::initResources();

    Arguments arguments;
    if (!parseArguments(application, arguments))
        return kUsageError;
    applyTheme(arguments.theme.value_or(savedTheme()));
    if (!arguments.screenshot.outputPath.isEmpty())
        return runScreenshot(arguments);
    return runInteractive(application, arguments);
}

} // namespace archipelago::app
