// archipelago-cli launch SCENARIO.json --for megatron-lm|nemo|torchtitan [-o FILE]: the design
// point's launch settings for a training framework as a script for sbatch (launch/launchplan.h).
// Standard output without -o; -o writes the file atomically and makes it executable only when
// it is new (core::writeLaunchScript).
#include "cli.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "launch/launchplan.h"

#include <ostream>
#include <set>

namespace archipelago::cli {

namespace {

const char* kLaunchUsage =
    "Usage: archipelago-cli launch SCENARIO.json --for megatron-lm|nemo|torchtitan [-o FILE]\n";

} // namespace

int runLaunch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string file;
    std::string output;
    std::optional<core::Framework> framework;
    std::set<std::string> given;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            out << kLaunchUsage
                << "Writes a script for sbatch that launches the scenario's design point with\n"
                   "the framework's settings (Megatron-LM core_v0.15.3, NeMo v2.4.0, TorchTitan\n"
                   "v0.2.2): the rank order across buildings as a Slurm hostfile, the NCCL\n"
                   "environment of the long-haul links, and every knob the framework cannot\n"
                   "express, listed in the script's header.\n";
            return kExitOk;
        }
        if (a == "--for" || a == "-o") {
            const std::optional<std::string> taken =
                optionValue(args, i, given, "launch", kLaunchUsage, err);
            if (!taken)
                return kExitUsage;
            const std::string& value = *taken;
            if (a == "-o") {
                output = value;
                continue;
            }
            framework = core::frameworkFromString(value);
            if (!framework) {
                err << "archipelago-cli launch: unknown framework '" << core::displayText(value)
                    << "' (expected megatron-lm, nemo or torchtitan)\n";
                return kExitUsage;
            }
            continue;
        }
        if (a.starts_with("-") && a != "-") {
            err << "archipelago-cli launch: unknown option '" << core::displayText(a) << "'\n"
                << kLaunchUsage;
            return kExitUsage;
        }
        if (!file.empty()) {
            err << "archipelago-cli launch: one scenario at a time\n" << kLaunchUsage;
            return kExitUsage;
        }
        file = a;
    }
    if (file.empty() || !framework) {
        err << "archipelago-cli launch: " << (file.empty() ? "no scenario file given" : "no --for")
            << '\n'
            << kLaunchUsage;
        return kExitUsage;
    }

    const core::LoadResult loaded = core::loadScenarioFile(file);
    for (const core::Diagnostic& d : loaded.errors)
        err << d.toString() << '\n';
    if (!loaded.ok())
        return kExitInvalidInput;
    const core::Scenario& scenario = *loaded.scenario;
    const core::Catalog catalog = core::effectiveCatalog(scenario);
    const core::Evaluation evaluation = core::evaluate(scenario, catalog);
    if (!evaluation.ok) {
        err << core::displayText(file) << ": the scenario cannot be evaluated, so it has no "
            << "launch settings:\n";
        for (const core::Warning& w : evaluation.warnings)
            err << "  " << core::warningText(w) << '\n';
        return kExitInvalidInput;
    }
    const core::LaunchPlan plan = core::launchPlan(scenario, catalog, evaluation, *framework);
    if (!evaluation.fitsInMemory)
        err << core::displayText(file) << ": " << core::memoryWarning(evaluation) << '\n';
    const std::string text = core::renderLaunchPlan(plan, ARCHIPELAGO_VERSION);
    if (output.empty() || output == "-") {
        out << text;
        return kExitOk;
    }
    std::string error;
    if (!core::writeLaunchScript(output, text, error)) {
        err << "archipelago-cli launch: " << core::displayText(output) << ": " << error << '\n';
        return kExitInvalidInput;
    }
    err << core::displayText(output) << ": " << core::displayName(*framework) << " settings for "
        << plan.ranks.worldSize << " GPUs";
    if (!plan.unexpressed.empty())
        err << "; " << plan.unexpressed.size() << " knob(s) not expressible, listed in the file";
    err << '\n';
    return kExitOk;
}

} // namespace archipelago::cli
