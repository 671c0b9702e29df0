// archipelago-cli: argument forwarding only; the commands live in app/cli, except `report`,
// which renders the window's views and so lives in the Qt report library (app/report) and
// exists only in builds with the GUI.
#include "cli.h"

#ifdef ARCHIPELAGO_BUILD_GUI
#include "report/reportcommand.h"

#include <QApplication>
#endif

#include <iostream>
#include <string>
#include <vector>

#ifdef ARCHIPELAGO_BUILD_GUI
namespace {

// Qt's messages go to stderr as usual, except the offscreen platform's notice about a missing
// XDG_RUNTIME_DIR, which says nothing about the report (a CI job or ssh session has none).
void filterQtMessages(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
        return;
    std::cerr << qPrintable(qFormatLogMessage(type, context, message)) << '\n';
}

} // namespace
#endif

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "report") {
        const std::vector<std::string> rest(args.begin() + 1, args.end());
#ifdef ARCHIPELAGO_BUILD_GUI
        // The views draw offscreen: no display is needed, whatever the environment says.
        qputenv("QT_QPA_PLATFORM", "offscreen");
        qInstallMessageHandler(filterQtMessages);
        int qtArgc = 1;
        char* qtArgv[] = {argv[0], nullptr};
        QApplication app(qtArgc, qtArgv);
        return archipelago::report::runReport(rest, std::cout, std::cerr);
#else
        std::cerr << "archipelago-cli report: this build has no report support (it was built "
                     "without the GUI, ARCHIPELAGO_BUILD_GUI=OFF)\n";
        return archipelago::cli::kExitUsage;
#endif
    }
    return archipelago::cli::run(args, std::cout, std::cerr);
}
