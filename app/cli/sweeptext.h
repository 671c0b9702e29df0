// The text output of `sweep` and `merge`, printed from the sweep's JSON (explore/sweepjson.h)
// so that a merged result reads like an unsharded one: the counts, the base and its rank, the
// top points by iteration time with what moves against the base, the top points of every other
// objective one line each, and the Pareto fronts. Never throws on a JSON that lacks a key.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <optional>
#include <string>

namespace archipelago::cli {

// `note` follows the file name on the first line ("merged from 4 shards"); `wallS` adds the
// run's time and speed (a sweep's, not a merge's).
void printSweepText(const nlohmann::json& result, const std::string& note,
                    std::optional<double> wallS, std::ostream& out);

// Writes `text` and a newline to `path` (core/io/textfile.h says what it replaces and what it
// refuses), or to `out` when `path` is "-", the shell's convention for standard output; false
// after telling `err` why not, naming the file.
bool writeOutputFile(const std::string& path, const std::string& text, const char* command,
                     std::ostream& out, std::ostream& err);

} // namespace archipelago::cli
