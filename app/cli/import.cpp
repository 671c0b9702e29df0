// archipelago-cli import megatron-lm|nemo|torchtitan COMMAND|FILE --over SCENARIO.json
// [-o OUT.json]: a framework's launch settings (a command line, a launch script, a NeMo recipe
// YAML or a TorchTitan TOML) as the workload and parallelism of a scenario over SCENARIO.json's
// topology (launch/launchimport.h). The scenario JSON on standard output or in OUT.json; what
// was set, kept and ignored on standard error.
#include "cli.h"

#include "io/diagnosticsink.h"
#include "io/scenarioio.h"
#include "io/textfile.h"
#include "launch/launchimport.h"

#include <filesystem>
#include <ostream>
#include <set>

namespace archipelago::cli {

namespace {

const char* kImportUsage = "Usage: archipelago-cli import megatron-lm|nemo|torchtitan "
                           "COMMAND|FILE --over SCENARIO.json [-o OUT.json]\n";

} // namespace

int runImport(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> positional;
    std::string over;
    std::string output;
    std::set<std::string> given;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            out << kImportUsage
                << "Reads a framework's settings (a command line in quotes, or a file: a launch\n"
                   "script, a NeMo recipe YAML, a TorchTitan TOML) and writes the scenario they\n"
                   "describe over SCENARIO.json's topology: its workload, parallelism, schedule\n"
                   "and layers per stage, with the placement re-made for the new degrees. What\n"
                   "the settings do not carry stays as SCENARIO.json has it.\n";
            return kExitOk;
        }
        if (a == "--over" || a == "-o") {
            const std::optional<std::string> value =
                optionValue(args, i, given, "import", kImportUsage, err);
            if (!value)
                return kExitUsage;
            (a == "-o" ? output : over) = *value;
            continue;
        }
        positional.push_back(a);
    }
    if (positional.size() != 2 || over.empty()) {
        err << "archipelago-cli import: "
            << (over.empty() ? "--over SCENARIO.json names the topology to import over"
                             : "expected a framework and one command or file")
            << '\n'
            << kImportUsage;
        return kExitUsage;
    }
    const std::optional<core::Framework> framework = core::frameworkFromString(positional[0]);
    if (!framework) {
        err << "archipelago-cli import: unknown framework '" << core::displayText(positional[0])
            << "' (expected megatron-lm, nemo or torchtitan)\n";
        return kExitUsage;
    }
    // A file that exists is read; anything else is the command itself.
    std::string text = positional[1];
    std::string source = "command line";
    std::error_code ec;
    if (std::filesystem::is_regular_file(positional[1], ec)) {
        core::DiagnosticSink sink(positional[1]);
        const std::optional<std::string> read =
            core::readTextFile(positional[1], sink, "a launch settings file");
        if (!read) {
            for (const core::Diagnostic& d : sink.errors())
                err << d.toString() << '\n';
            return kExitInvalidInput;
        }
        text = *read;
        source = positional[1];
    }
    const core::LoadResult base = core::loadScenarioFile(over);
    for (const core::Diagnostic& d : base.errors)
        err << d.toString() << '\n';
    if (!base.ok())
        return kExitInvalidInput;

    const core::ImportedSettings imported =
        core::importLaunchSettings(*framework, text, *base.scenario, source);
    for (const core::Diagnostic& d : imported.errors)
        err << d.toString() << '\n';
    if (!imported.scenario)
        return kExitInvalidInput;
    for (const std::string& a : imported.applied)
        err << "set: " << a << '\n';
    for (const std::string& n : imported.notes)
        err << "note: " << n << '\n';
    for (const std::string& i : imported.ignored)
        err << "ignored (no knob in the model): " << core::displayText(i) << '\n';
    const std::string json = core::serializeScenario(*imported.scenario);
    if (output.empty() || output == "-") {
        out << json;
        return kExitOk;
    }
    std::string error;
    if (!core::writeTextFileAtomically(output, json, error)) {
        err << "archipelago-cli import: " << core::displayText(output) << ": " << error << '\n';
        return kExitInvalidInput;
    }
    return kExitOk;
}

} // namespace archipelago::cli
