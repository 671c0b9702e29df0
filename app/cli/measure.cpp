// archipelago-cli measure megatron-lm|nemo|torchtitan LOG --over SCENARIO.json [--id ID]
// -o RUNS.json: the iteration time a training log measured (validation/runlog.h), with the
// scenario the job ran, appended to a runs file for `calibrate` (validation/measuredrun.h).
#include "cli.h"

#include "evaluation/costmodel.h"
#include "io/scenarioio.h"
#include "io/textfile.h"
#include "validation/measuredrun.h"
#include "validation/runlog.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <set>
#include <sys/stat.h>

namespace archipelago::cli {

namespace {

const char* kMeasureUsage = "Usage: archipelago-cli measure megatron-lm|nemo|torchtitan LOG "
                            "--over SCENARIO.json [--id ID] -o RUNS.json\n";

std::string fixed(const char* format, double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

core::YearMonth thisMonth()
{
    const std::chrono::year_month_day today{
        std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
    return {static_cast<int>(today.year()), static_cast<int>(unsigned(today.month()))};
}

bool exists(const std::string& path)
{
    struct stat st
    {};
    return ::stat(path.c_str(), &st) == 0;
}

} // namespace

int runMeasure(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::optional<core::Framework> framework;
    std::string log, over, id, output;
    std::set<std::string> given;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            out << kMeasureUsage
                << "Reads the iteration times a training log printed (Megatron-LM's \"elapsed\n"
                   "time per iteration (ms)\", NeMo's \"train_step_timing in s\", TorchTitan's\n"
                   "tokens per second per GPU), leaves out the warm-up, and appends their median\n"
                   "with the scenario the job ran to RUNS.json (created when absent) for\n"
                   "archipelago-cli calibrate. A Megatron-LM log's argument dump must agree with\n"
                   "the scenario.\n";
            return kExitOk;
        }
        if (a == "--over" || a == "--id" || a == "-o") {
            const std::optional<std::string> value =
                optionValue(args, i, given, "measure", kMeasureUsage, err);
            if (!value)
                return kExitUsage;
            (a == "--over" ? over : a == "--id" ? id : output) = *value;
            continue;
        }
        if (a.starts_with("-")) {
            err << "archipelago-cli measure: unknown option '" << core::displayText(a) << "'\n"
                << kMeasureUsage;
            return kExitUsage;
        }
        if (!framework) {
            framework = core::frameworkFromString(a);
            if (!framework) {
                err << "archipelago-cli measure: unknown framework '" << core::displayText(a)
                    << "' (expected megatron-lm, nemo or torchtitan)\n";
                return kExitUsage;
            }
        } else if (log.empty()) {
            log = a;
        } else {
            err << "archipelago-cli measure: one log at a time\n" << kMeasureUsage;
            return kExitUsage;
        }
    }
    if (!framework || log.empty() || over.empty() || output.empty()) {
        err << "archipelago-cli measure: "
            << (!framework     ? "no framework"
                : log.empty()  ? "no log file"
                : over.empty() ? "no --over SCENARIO.json"
                               : "no -o RUNS.json")
            << '\n'
            << kMeasureUsage;
        return kExitUsage;
    }

    const core::LoadResult loaded = core::loadScenarioFile(over);
    for (const core::Diagnostic& d : loaded.errors)
        err << d.toString() << '\n';
    if (!loaded.ok())
        return kExitInvalidInput;
    const core::Scenario& scenario = *loaded.scenario;
    core::DiagnosticSink sink(log);
    const std::optional<std::string> text = core::readTextFile(log, sink, "a training log");
    if (!text) {
        for (const core::Diagnostic& d : sink.takeErrors())
            err << d.toString() << '\n';
        return kExitInvalidInput;
    }
    const long long gpus = core::dataParallel(scenario) * scenario.parallelism.tp *
                           scenario.parallelism.pp * scenario.parallelism.cp;
    const double tokens =
        static_cast<double>(scenario.workload.globalBatch) * scenario.workload.seqLen;
    const core::IterationLog measured = core::readIterationLog(*framework, *text, tokens, gpus);
    if (!measured.ok()) {
        err << core::displayText(log) << ": " << measured.error << '\n';
        return kExitInvalidInput;
    }
    const std::vector<std::string> mismatches =
        core::argumentMismatches(measured.arguments, scenario);
    if (!mismatches.empty()) {
        err << core::displayText(log) << ": the job ran another configuration than "
            << core::displayText(over) << ":\n";
        for (const std::string& m : mismatches)
            err << "  " << m << '\n';
        err << "Import its launch command over the topology first (archipelago-cli import).\n";
        return kExitInvalidInput;
    }

    const int steady = static_cast<int>(measured.samples.size()) - measured.warmup;
    const char* unit =
        *framework == core::Framework::MegatronLm ? "logged intervals" : "logged steps";
    core::MeasuredRunInput input;
    input.framework = *framework;
    input.iterationS = measured.medianS;
    // When the job ran: the log's timestamps, else now (its stack is not older than that).
    input.softwareDate = measured.month.value_or(thisMonth());
    input.id = id.empty() ? std::filesystem::path(over).stem().string() + "-" +
                                std::filesystem::path(log).stem().string()
                          : id;
    input.source = "measured: " + std::filesystem::path(log).filename().string() + " (" +
                   core::displayName(*framework) + ")";
    input.notes = "median of " + std::to_string(steady) + " " + unit + " after " +
                  std::to_string(measured.warmup) + " of warm-up, from " +
                  fixed("%.4g", measured.lowS) + " to " + fixed("%.4g", measured.highS) +
                  " s; the run's scenario is " + std::filesystem::path(over).filename().string();
    std::string error;
    const core::Catalog catalog = core::effectiveCatalog(scenario);
    const std::optional<core::Json> run = core::measuredRunJson(scenario, catalog, input, error);
    if (!run) {
        err << "archipelago-cli measure: " << core::displayText(error) << '\n';
        return kExitInvalidInput;
    }
    std::string existing;
    if (exists(output)) {
        core::DiagnosticSink outSink(output);
        const std::optional<std::string> current =
            core::readTextFile(output, outSink, "a runs file");
        if (!current) {
            for (const core::Diagnostic& d : outSink.takeErrors())
                err << d.toString() << '\n';
            return kExitInvalidInput;
        }
        existing = *current;
    }
    const std::optional<std::string> updated = core::withRunAppended(existing, output, *run, error);
    if (!updated) {
        err << "archipelago-cli measure: " << core::displayText(error) << '\n';
        return kExitInvalidInput;
    }
    if (!core::writeTextFileAtomically(output, *updated, error)) {
        err << "archipelago-cli measure: " << core::displayText(output) << ": " << error << '\n';
        return kExitInvalidInput;
    }
    const core::Evaluation ev = core::evaluate(scenario, catalog);
    out << core::displayText(input.id) << ": " << fixed("%.2f", measured.medianS)
        << " s per iteration, the median of " << steady << " " << unit << " ("
        << fixed("%.2f", measured.lowS) << " to " << fixed("%.2f", measured.highS) << " s)";
    if (ev.ok)
        out << "; the model predicts " << fixed("%.2f", ev.iterationTimeS) << " s ("
            << fixed("%+.1f%%", 100.0 * (ev.iterationTimeS / measured.medianS - 1.0)) << ")";
    out << '\n';
    err << core::displayText(output) << ": run added\n";
    return kExitOk;
}

} // namespace archipelago::cli
