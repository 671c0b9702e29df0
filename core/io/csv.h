// Comma-separated values as RFC 4180 defines them (https://www.rfc-editor.org/rfc/rfc4180):
// records end in CRLF, a field holding a comma, a double quote, CR or LF is enclosed in double
// quotes with its quotes doubled, and the first record is the header. The exports of the
// evaluation, the pins and the sweep (io/evaluationcsv.h, explore/sweepcsv.h) write with these.
// Numbers keep full precision: the shortest text that reads back to the same double.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

// `text` as one field, quoted only when it has to be; control characters escaped and a text
// that a spreadsheet would run as a formula (=, +, -, @ first) prefixed with a single quote.
std::string csvField(std::string_view text);
// The shortest decimal that std::from_chars reads back to `v` exactly (std::to_chars), without
// thousands separators or a locale; "" for infinity and NaN, as the JSON writes null.
std::string csvNumber(double v);
// A JSON scalar as a cell: a string as it is, a number in full precision, true/false, "" for
// null; an array's elements as cells joined by `separator` ("clos/rail-only").
std::string csvCell(const nlohmann::json& value, std::string_view separator = "/");
// The fields quoted as needed, joined by commas, ended by CRLF.
std::string csvRecord(const std::vector<std::string>& fields);

} // namespace archipelago::core
