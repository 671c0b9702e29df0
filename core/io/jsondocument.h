// Parsing JSON text into a DOM without exceptions and with bounded resources.
// A SAX handler builds the document so that a syntax error is reported at the JSON pointer where
// it occurred (not only a byte offset), duplicate keys are caught, and nesting depth and value
// count are bounded: no input can exhaust the stack, memory or time.
#pragma once

#include "io/diagnosticsink.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace archipelago::core {

// Ordered so that documents keep their key order through a migration or a save.
using Json = nlohmann::ordered_json;

inline constexpr std::size_t kMaxJsonDepth = 64;
// Generous for any real scenario (a few hundred values) while bounding memory for a
// kMaxFileBytes file of tiny values.
inline constexpr std::size_t kMaxJsonValues = 4'000'000;

// Parses `text` into `out`. On failure reports an error (pointer, line, column, byte offset) to
// `sink` and returns false.
bool parseJsonDocument(std::string_view text, Json& out, DiagnosticSink& sink);

// Short text for "got ..." in messages: strings quoted, numbers as written, containers by kind.
std::string describeJson(const Json& value);

// Shortest text that reads back as the same double ("-400", "0.25", "1e+30").
std::string formatNumber(double value);

} // namespace archipelago::core
