#include "io/csv.h"

#include "model/diagnostic.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace archipelago::core {

namespace {

// A whole number as std::from_chars reads it ("-3.5", "1e-05"): a spreadsheet reads it as the
// number it is, so its sign stays.
bool isFiniteNumber(std::string_view text)
{
    double v = 0;
    const char* end = text.data() + text.size();
    const std::from_chars_result r = std::from_chars(text.data(), end, v);
    return r.ec == std::errc() && r.ptr == end && std::isfinite(v);
}

} // namespace

std::string csvField(std::string_view raw)
{
    // Names come from the files read: control characters (an escape sequence, a bidirectional
    // override, a line break that forges a record) are escaped as the text output escapes them.
    std::string text = displayText(raw);
    // Spreadsheet formula injection: a cell beginning with =, +, - or @ runs as a formula
    // (=HYPERLINK(...), =cmd|...); OWASP's advice is to prefix such a cell with a single quote
    // so that it shows as text (https://owasp.org/www-community/attacks/CSV_Injection). Numbers
    // are left alone. Tab and CR, also on OWASP's list, are already escaped above.
    if (!text.empty() && std::string_view("=+-@").find(text.front()) != std::string_view::npos &&
        !isFiniteNumber(text))
        text.insert(0, 1, '\'');
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (const char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string csvNumber(double v)
{
    if (!std::isfinite(v))
        return {};
    char buf[64];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
    return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string();
}

std::string csvCell(const nlohmann::json& value, std::string_view separator)
{
    switch (value.type()) {
    case nlohmann::json::value_t::string:
        return value.get<std::string>();
    case nlohmann::json::value_t::boolean:
        return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_integer:
        return std::to_string(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
        return std::to_string(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
        return csvNumber(value.get<double>());
    case nlohmann::json::value_t::array: {
        std::string out;
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (i > 0)
                out += separator;
            out += csvCell(value[i], separator);
        }
        return out;
    }
    default: // null, objects (no column holds one), binary
        return {};
    }
}

std::string csvRecord(const std::vector<std::string>& fields)
{
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i > 0)
            out += ',';
        out += csvField(fields[i]);
    }
    out += "\r\n";
    return out;
}

} // namespace archipelago::core
