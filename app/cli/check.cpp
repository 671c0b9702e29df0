// archipelago-cli check SCENARIO.json...: validates files (ARCHITECTURE.md section 6).
// "FILE: ok" per valid file on stdout; problems, one line each as "FILE: /pointer: message", and
// warnings on stderr, so that `check ... >/dev/null` shows exactly what needs attention.
#include "cli.h"

#include "explore/sweeprecord.h"
#include "io/scenarioio.h"

#include <ostream>

namespace archipelago::cli {

int runCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> files;
    bool optionsEnded = false;
    for (const std::string& arg : args) {
        if (!optionsEnded && (arg == "-h" || arg == "--help")) {
            out << "Usage: archipelago-cli check SCENARIO.json...\n"
                   "Validates scenario files: prints \"FILE: ok\" for each valid file, and one\n"
                   "line per problem (\"FILE: /json/pointer: message\") on stderr.\n"
                   "Exit codes: 0 all valid, 1 a file is invalid, 2 usage error.\n";
            return kExitOk;
        }
        if (!optionsEnded && arg == "--") {
            optionsEnded = true;
            continue;
        }
        // "-" alone would mean stdin, which check does not read; any other dash is an option.
        if (!optionsEnded && arg.starts_with("-")) {
            err << "archipelago-cli check: unknown option '" << core::displayText(arg) << "'\n"
                << "Usage: archipelago-cli check SCENARIO.json...\n";
            return kExitUsage;
        }
        files.push_back(arg);
    }
    if (files.empty()) {
        err << "archipelago-cli check: no scenario file given\n"
            << "Usage: archipelago-cli check SCENARIO.json...\n";
        return kExitUsage;
    }

    int exitCode = kExitOk;
    for (const std::string& file : files) {
        const core::LoadResult result = core::loadScenarioFile(file);
        for (const core::Diagnostic& d : result.errors)
            err << d.toString() << '\n';
        for (const core::Diagnostic& d : result.warnings)
            err << d.toString() << '\n';
        // The saved sweep is read as the window and `report` read it: one reader, one verdict.
        bool ok = result.ok();
        if (ok) {
            const core::SweepRecord record =
                core::readSweepRecord(result.explore, *result.scenario, file);
            for (const core::Diagnostic& d : record.errors)
                err << d.toString() << '\n';
            ok = record.errors.empty();
        }
        if (ok)
            out << core::displayText(file) << ": ok\n";
        else
            exitCode = kExitInvalidInput;
    }
    return exitCode;
}

} // namespace archipelago::cli
