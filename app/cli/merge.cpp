// archipelago-cli merge OUT1.json OUT2.json ... [--json | --csv] [--top N] [-o OUT.json]: the
// shards' outputs of `sweep --shard I/N` merged into the unsharded sweep's result, in the same
// JSON format (explore/sweepmerge.h), or printed as `sweep --csv` prints it (explore/sweepcsv.h).
// Exit codes: 0 success, 1 invalid input (a file that is not a shard's output, shards of different
// sweeps, a shard missing or given twice), 2 usage error.
#include "cli.h"

#include "explore/sweepcsv.h"
#include "explore/sweepmerge.h"
#include "sweeptext.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <optional>
#include <ostream>
#include <set>

namespace archipelago::cli {

int runMerge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    static const char* kUsage =
        "Usage: archipelago-cli merge OUT1.json OUT2.json ... [--json | --csv] [--top N] "
        "[-o OUT.json]\n";
    bool asJson = false;
    bool asCsv = false;
    std::string outFile;
    std::optional<int> top;
    std::vector<std::string> files;
    std::set<std::string> given;
    const auto usageError = [&](const std::string& message) {
        err << "archipelago-cli merge: " << core::displayText(message) << '\n' << kUsage;
        return kExitUsage;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") {
            asJson = true;
        } else if (a == "--csv") {
            asCsv = true;
        } else if (a == "-h" || a == "--help") {
            out << kUsage;
            return kExitOk;
        } else if (a == "-o" || a == "--top") {
            if (i + 1 >= args.size())
                return usageError(a + " needs a value");
            // One value per option: a second one is a mistake in a script, not an override.
            if (!given.insert(a).second)
                return usageError(a + " given twice");
            const std::string& v = args[++i];
            if (v.empty())
                return usageError(a + " needs a value, got an empty one");
            if (a == "-o") {
                outFile = v;
                continue;
            }
            int n = 0;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || end != v.data() + v.size() || n < 0 || n > 10000)
                return usageError("--top expects an integer in 0..10000, got '" + v + "'");
            top = n;
        } else if (a.starts_with("-")) {
            return usageError("unknown option '" + a + "'");
        } else {
            files.push_back(a);
        }
    }
    if (files.empty())
        return usageError("no shard outputs given");
    if (asJson && asCsv)
        return usageError("--json and --csv exclude each other");
    if (outFile == "-" && (asJson || asCsv))
        return usageError(std::string("-o - writes the JSON to standard output; ") +
                          (asJson ? "--json" : "--csv") + " would write there too");

    // One file at a time, each folded into the merge and dropped before the next is read.
    core::SweepMerger merger(top);
    for (const std::string& file : files)
        merger.addFile(file);
    const core::SweepMergeResult merged = merger.finish();
    if (!merged.merged) {
        for (const core::Diagnostic& d : merged.errors)
            err << d.toString() << '\n';
        return kExitInvalidInput;
    }
    const std::string text =
        merged.merged->dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    if (!outFile.empty() && !writeOutputFile(outFile, text, "merge", out, err))
        return kExitInvalidInput;
    if (outFile == "-") {
        // The JSON went to standard output; the summary stays off it.
    } else if (asJson) {
        out << text << '\n';
    } else if (asCsv) {
        out << core::sweepJsonToCsv(*merged.merged);
    } else {
        printSweepText(*merged.merged,
                       "merged from " + std::to_string(merged.shardCount) + " shard" +
                           (merged.shardCount == 1 ? "" : "s"),
                       std::nullopt, out);
    }
    return kExitOk;
}

} // namespace archipelago::cli
