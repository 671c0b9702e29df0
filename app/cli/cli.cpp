#include "cli.h"

#include <ostream>

namespace archipelago::cli {

std::string usage()
{
    return "Usage: archipelago-cli COMMAND [ARGS]\n"
           "\n"
           "Design-space explorer for training large language models across datacenters.\n"
           "\n"
           "Commands:\n"
           "  check SCENARIO.json...              validate files: exit 0, or exit 1 and one\n"
           "                                      line per problem\n"
           "  evaluate SCENARIO.json... [--json | --csv]\n"
           "                                      the Evaluation, as a table, JSON or CSV\n"
           "  validate RUNS.json [--json]         predicted vs measured for published runs\n"
           "  sweep SCENARIO.json [--space SPACE.json] [--json | --csv] [--top N] [--threads K]\n"
           "        [--shard I/N | auto | auto/N] [-o OUT.json] [--progress]\n"
           "                                      search the design space around a scenario,\n"
           "                                      or one shard of it (points I modulo N)\n"
           "  merge OUT1.json OUT2.json ... [--json | --csv] [--top N] [-o OUT.json]\n"
           "                                      merge the shards' outputs of sweep -o\n"
           "  launch SCENARIO.json --for megatron-lm|nemo|torchtitan [-o FILE]\n"
           "                                      the design point's launch settings for a\n"
           "                                      training framework, as a script for sbatch\n"
           "  import megatron-lm|nemo|torchtitan COMMAND|FILE --over SCENARIO.json [-o OUT.json]\n"
           "                                      a framework's settings as the workload and\n"
           "                                      parallelism of a scenario over SCENARIO.json\n"
           "  measure megatron-lm|nemo|torchtitan LOG --over SCENARIO.json [--id ID] -o RUNS.json\n"
           "                                      a training log's measured iteration time, as\n"
           "                                      a run of RUNS.json for calibrate\n"
           "  calibrate RUNS.json... [--accelerator NAME] [--fit NAME,...] -o OUT.json\n"
           "                                      an accelerator's efficiency parameters fitted\n"
           "                                      on measured runs, with leave-one-out errors\n"
           "  report SCENARIO.json [--sweep SWEEP.json] [--paper a4|letter]\n"
           "        -o OUT.pdf|OUT.html|-\n"
           "                                      the review report (builds with the GUI only)\n"
           "\n"
           "Options:\n"
           "  -h, --help                          show this help and exit\n"
           "  --version                           show the version and exit\n"
           "\n"
           "Exit codes: 0 success, 1 invalid input, 2 usage error; a sweep stopped by SIGINT\n"
           "or SIGTERM keeps what it found and exits 128 + the signal.\n";
}

std::optional<std::string> optionValue(const std::vector<std::string>& args, std::size_t& i,
                                       std::set<std::string>& given, std::string_view command,
                                       std::string_view usage, std::ostream& err)
{
    const std::string& option = args[i];
    if (i + 1 >= args.size()) {
        err << "archipelago-cli " << command << ": " << option << " needs a value\n" << usage;
        return std::nullopt;
    }
    if (!given.insert(option).second) {
        err << "archipelago-cli " << command << ": " << option << " given twice\n" << usage;
        return std::nullopt;
    }
    return args[++i];
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty()) {
        err << usage();
        return kExitUsage;
    }
    const std::string& command = args.front();
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "-h" || command == "--help" || command == "help") {
        out << usage();
        return kExitOk;
    }
    if (command == "--version") {
        out << "archipelago-cli " << ARCHIPELAGO_VERSION << '\n';
        return kExitOk;
    }
    if (command == "check")
        return runCheck(rest, out, err);
    if (command == "evaluate")
        return runEvaluate(rest, out, err);
    if (command == "validate")
        return runValidate(rest, out, err);
    if (command == "sweep")
        return runSweep(rest, out, err);
    if (command == "merge")
        return runMerge(rest, out, err);
    if (command == "launch")
        return runLaunch(rest, out, err);
    if (command == "import")
        return runImport(rest, out, err);
    if (command == "measure")
        return runMeasure(rest, out, err);
    if (command == "calibrate")
        return runCalibrate(rest, out, err);
    err << "archipelago-cli: unknown command '" << command << "'\n\n" << usage();
    return kExitUsage;
}

} // namespace archipelago::cli
