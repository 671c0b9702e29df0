// archipelago-cli sweep SCENARIO [--space SPACE.json] [--json | --csv] [--top N] [--threads K]
// [--shard I/N|auto[/N]] [-o OUT.json]: the design-space search around a scenario
// (core/explore, docs/explore.md), or one shard of it (merged with `merge`, merge.cpp). --csv
// prints the top lists and the fronts as CSV (explore/sweepcsv.h); -o always writes the JSON,
// which `merge` reads (-o - to standard output, instead of the summary).
// Exit codes as every command: 0 success, 1 invalid input (the scenario, the space file),
// 2 usage error.
#include "cli.h"

#include "evaluation/costmodel.h"
#include "explore/spacejson.h"
#include "explore/sweep.h"
#include "explore/sweepcsv.h"
#include "explore/sweepjson.h"
#include "explore/sweepkeys.h"
#include "explore/sweepmerge.h"
#include "io/scenarioio.h"
#include "shardoption.h"
#include "sweepprogress.h"
#include "sweeptext.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <charconv>
#include <csignal>
#include <optional>
#include <ostream>
#include <set>

namespace archipelago::cli {

namespace {

const char* kSweepUsage =
    "Usage: archipelago-cli sweep SCENARIO.json [--space SPACE.json] [--json | --csv] [--top N]\n"
    "                             [--threads K] [--shard I/N | auto | auto/N] [-o OUT.json]\n"
    "                             [--progress]\n";

// SIGINT (Ctrl-C) and SIGTERM (a batch system's time limit, `kill`) stop the sweep between
// batches (SweepOptions::cancel) instead of killing it, so that what it found is kept. Only a
// lock-free atomic store happens in the handler, which async-signal safety allows.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};

extern "C" void onInterrupt(int signal)
{
    g_signal.store(signal, std::memory_order_relaxed);
    g_interrupted.store(true, std::memory_order_relaxed);
}

// Installs the handlers for its lifetime and restores the previous ones after (the tests run
// the command in their own process).
class InterruptScope
{
public:
    InterruptScope()
    {
        g_interrupted.store(false);
        g_signal.store(0);
        m_int = std::signal(SIGINT, onInterrupt);
        m_term = std::signal(SIGTERM, onInterrupt);
    }
    ~InterruptScope()
    {
        std::signal(SIGINT, m_int == SIG_ERR ? SIG_DFL : m_int);
        std::signal(SIGTERM, m_term == SIG_ERR ? SIG_DFL : m_term);
    }
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

private:
    void (*m_int)(int) = SIG_DFL;
    void (*m_term)(int) = SIG_DFL;
};

std::optional<int> parseCount(const std::string& text, int low, int high)
{
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < low || v > high)
        return std::nullopt;
    return v;
}

} // namespace

int runSweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    bool asJson = false;
    bool asCsv = false;
    bool progressLog = false;
    std::string spaceFile;
    std::string outFile;
    core::SweepOptions options;
    std::vector<std::string> files;
    std::set<std::string> given;
    const auto usageError = [&](const std::string& message) {
        err << "archipelago-cli sweep: " << core::displayText(message) << '\n' << kSweepUsage;
        return kExitUsage;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool hasValue = i + 1 < args.size();
        if (a == "--json") {
            asJson = true;
        } else if (a == "--csv") {
            asCsv = true;
        } else if (a == "--progress") {
            progressLog = true;
        } else if (a == "-h" || a == "--help") {
            out << kSweepUsage;
            return kExitOk;
        } else if (a == "--space" || a == "-o" || a == "--top" || a == "--threads" ||
                   a == "--shard") {
            if (!hasValue)
                return usageError(a + " needs a value");
            // One value per option: a second one is a mistake in a script, not an override.
            if (!given.insert(a).second)
                return usageError(a + " given twice");
            const std::string& v = args[++i];
            if (v.empty())
                return usageError(a + " needs a value, got an empty one");
            if (a == "--space") {
                spaceFile = v;
            } else if (a == "-o") {
                outFile = v;
            } else if (a == "--top") {
                const std::optional<int> n = parseCount(v, 0, 10000);
                if (!n)
                    return usageError("--top expects an integer in 0..10000, got '" + v + "'");
                options.top = *n;
            } else if (a == "--shard") {
                std::string error;
                const std::optional<ShardSpec> shard =
                    parseShardOption(v, processEnvironment(), error);
                if (!shard)
                    return usageError(error);
                options.shardIndex = shard->index;
                options.shardCount = shard->count;
            } else {
                const std::optional<int> n = parseCount(v, 1, 1024);
                if (!n)
                    return usageError("--threads expects an integer in 1..1024, got '" + v + "'");
                options.threads = *n;
            }
        } else if (a.starts_with("-")) {
            return usageError("unknown option '" + a + "'");
        } else {
            files.push_back(a);
        }
    }
    if (asJson && asCsv)
        return usageError("--json and --csv exclude each other");
    if (outFile == "-" && (asJson || asCsv))
        return usageError(std::string("-o - writes the JSON to standard output; ") +
                          (asJson ? "--json" : "--csv") + " would write there too");
    if (files.size() != 1)
        return usageError(files.empty() ? "no scenario given" : "one scenario at a time");
    const std::string& file = files.front();
    const core::LoadResult load = core::loadScenarioFile(file);
    if (!load.ok()) {
        for (const core::Diagnostic& d : load.errors)
            err << d.toString() << '\n';
        return kExitInvalidInput;
    }
    const core::Scenario& base = *load.scenario;
    core::SearchSpace space = core::defaultSearchSpace(base);
    core::DiagnosticSink sink(spaceFile);
    if (!spaceFile.empty()) {
        std::optional<core::SearchSpace> read = core::loadSearchSpace(spaceFile, base, sink);
        for (const core::Diagnostic& d : sink.takeWarnings())
            err << d.toString() << '\n';
        if (!read) {
            for (const core::Diagnostic& d : sink.takeErrors())
                err << d.toString() << '\n';
            return kExitInvalidInput;
        }
        space = std::move(*read);
    }
    // What the shards of one sweep share, checked by `merge`.
    std::optional<nlohmann::json> inputs =
        core::sweepInputsToJson(base, spaceFile, options.top, sink);
    if (!inputs) {
        for (const core::Diagnostic& d : sink.takeErrors())
            err << d.toString() << '\n';
        return kExitInvalidInput;
    }
    (*inputs)["version"] = ARCHIPELAGO_VERSION;

    // On a terminal the line rewritten in place; with --progress elsewhere (a batch log), a line
    // now and then.
    const ProgressLine::Mode mode = stderrIsTerminal() ? ProgressLine::Mode::Terminal
                                    : progressLog      ? ProgressLine::Mode::Log
                                                       : ProgressLine::Mode::Off;
    ProgressLine progress(err, mode, options.shardIndex, options.shardCount);
    options.progress = [&progress](const core::SweepProgress& p) { progress.update(p); };
    core::SweepResult result;
    int interruptedBy = 0;
    {
        InterruptScope scope;
        options.cancel = &g_interrupted;
        result = core::runSweep(base, core::effectiveCatalog(base), space, options);
        interruptedBy = result.cancelled ? g_signal.load() : 0;
    }
    progress.clear();
    if (!result.ok) {
        err << core::Diagnostic{core::Diagnostic::Severity::Error, file, {}, result.error}
                   .toString()
            << '\n';
        return kExitInvalidInput;
    }
    nlohmann::json json = core::sweepResultToJson(file, result);
    json[core::sweepkeys::kInputs] = std::move(*inputs);
    const std::string text = json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    if (!outFile.empty() && !writeOutputFile(outFile, text, "sweep", out, err))
        return kExitInvalidInput;
    if (outFile == "-") {
        // The JSON went to standard output; the summary stays off it.
    } else if (asJson) {
        out << text << '\n';
    } else if (asCsv) {
        out << core::sweepJsonToCsv(json);
    } else {
        const std::string note = result.shardCount > 1
                                     ? "shard " + std::to_string(result.shardIndex) + "/" +
                                           std::to_string(result.shardCount) +
                                           ": the points of index " +
                                           std::to_string(result.shardIndex) + " modulo " +
                                           std::to_string(result.shardCount)
                                     : std::string();
        printSweepText(json, note, result.wallS, out);
    }
    if (result.cancelled) {
        // What it had, printed and written, marked "cancelled" (merge refuses it as a shard); the
        // exit status is the shell's for a command a signal stopped, 128 + the signal.
        err << "archipelago-cli sweep: interrupted ("
            << (interruptedBy == SIGTERM ? "SIGTERM" : "SIGINT") << ") after "
            << result.counts.considered << " points; "
            << (outFile.empty() || outFile == "-"
                    ? std::string("the results so far, marked cancelled")
                    : "wrote the results so far to '" + core::displayText(outFile) +
                          "', marked cancelled")
            << '\n';
        return 128 + (interruptedBy > 0 ? interruptedBy : SIGINT);
    }
    return kExitOk;
}

} // namespace archipelago::cli
