#include "io/jsondocument.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <new>
#include <unordered_set>
#include <utility>
#include <vector>

namespace archipelago::core {

namespace {

// Keeps messages printable whatever bytes the input held (binary garbage ends up in the
// "last read" token of a syntax error).
std::string printable(std::string_view text)
{
    std::string out;
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) {
            out += c;
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", byte);
            out += buf;
        }
    }
    return out;
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ...":
// keep only the part after the location, which we report ourselves.
std::string exceptionDetail(const std::string& what)
{
    std::string detail = what;
    if (const auto bracket = detail.find("] ");
        detail.starts_with("[json.exception") && bracket != std::string::npos)
        detail.erase(0, bracket + 2);
    if (detail.starts_with("parse error"))
        if (const auto colon = detail.find(": "); colon != std::string::npos)
            detail.erase(0, colon + 2);
    return printable(detail);
}

// Builds the DOM like nlohmann's own SAX DOM parser, and also tracks the JSON pointer of the
// value being parsed.
class DomBuilder
{
public:
    DomBuilder(Json& root, std::string_view text, DiagnosticSink& sink)
        : m_root(root)
        , m_text(text)
        , m_sink(sink)
    {}

    bool null() { return add(Json(nullptr)) != nullptr; }
    bool boolean(bool v) { return add(Json(v)) != nullptr; }
    bool number_integer(Json::number_integer_t v) { return add(Json(v)) != nullptr; }
    bool number_unsigned(Json::number_unsigned_t v) { return add(Json(v)) != nullptr; }
    bool number_float(Json::number_float_t v, const Json::string_t&)
    {
        return add(Json(v)) != nullptr;
    }
    bool string(Json::string_t& v) { return add(Json(std::move(v))) != nullptr; }
    bool binary(Json::binary_t&) { return false; } // never produced by JSON text

    bool start_object(std::size_t) { return open(Json::object()); }
    bool start_array(std::size_t) { return open(Json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(Json::string_t& k)
    {
        if (!m_stack.back().keys.insert(k).second)
            m_sink.error(childPointer(pointer(), k),
                         "duplicate key \"" + printable(k) + "\" (which value is meant?)");
        m_key = std::move(k);
        m_keyPending = true;
        return true;
    }

    bool parse_error(std::size_t position, const std::string&, const Json::exception& ex)
    {
        const std::size_t end = std::min(position, m_text.size());
        const auto upto = m_text.substr(0, end);
        const auto line = std::count(upto.begin(), upto.end(), '\n') + 1;
        const auto lastNewline = upto.rfind('\n');
        const auto column = lastNewline == std::string_view::npos ? end : end - lastNewline - 1;
        std::string where = "at line " + std::to_string(line) + ", column " +
                            std::to_string(column) + " (byte " + std::to_string(position) + ")";
        // 406: a number such as 1e999 that does not fit a double.
        if (ex.id == 406)
            m_sink.error(pendingPointer(), "expected a finite number, got one out of range " +
                                               where + ": " + exceptionDetail(ex.what()));
        else
            m_sink.error(pendingPointer(),
                         "invalid JSON " + where + ": " + exceptionDetail(ex.what()));
        return false;
    }

private:
    struct Frame
    {
        Json* value;
        std::string pointer;
        std::unordered_set<std::string> keys; // objects only: finds duplicates in O(1)
    };

    // Pointer of the innermost open container.
    std::string pointer() const { return m_stack.empty() ? std::string{} : m_stack.back().pointer; }

    // Pointer of the value about to be parsed.
    std::string pendingPointer() const
    {
        if (m_stack.empty())
            return {};
        const Json& top = *m_stack.back().value;
        if (top.is_array())
            return childPointer(pointer(), top.size());
        return m_keyPending ? childPointer(pointer(), m_key) : pointer();
    }

    Json* add(Json value)
    {
        if (++m_values > kMaxJsonValues) {
            m_sink.error(pendingPointer(), "the document holds more than " +
                                               std::to_string(kMaxJsonValues) +
                                               " JSON values; refusing to read it");
            return nullptr;
        }
        if (m_stack.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        Json& top = *m_stack.back().value;
        if (top.is_array()) {
            top.push_back(std::move(value));
            return &top.back();
        }
        m_keyPending = false;
        // Appended without the ordered map's linear key search, which would make an object of
        // a million keys take hours. A duplicate key is appended too: it is already an error,
        // so which copy a reader would see does not matter.
        auto& entries = static_cast<Json::object_t::Container&>(top.get_ref<Json::object_t&>());
        entries.emplace_back(m_key, std::move(value));
        return &entries.back().second;
    }

    bool open(Json container)
    {
        if (m_stack.size() >= kMaxJsonDepth) {
            m_sink.error(pendingPointer(), "nesting deeper than " + std::to_string(kMaxJsonDepth) +
                                               " levels; refusing to read it");
            return false;
        }
        std::string childPtr = pendingPointer();
        Json* child = add(std::move(container));
        if (!child)
            return false;
        // Safe to keep: a container is only modified while it is the innermost open one, so
        // the vectors holding the outer ones do not reallocate.
        m_stack.push_back({child, std::move(childPtr), {}});
        return true;
    }

    bool close()
    {
        m_stack.pop_back();
        m_keyPending = false;
        return true;
    }

    Json& m_root;
    std::string_view m_text;
    DiagnosticSink& m_sink;
    std::vector<Frame> m_stack;
    std::string m_key;
    bool m_keyPending = false;
    std::size_t m_values = 0;
};

} // namespace

bool parseJsonDocument(std::string_view text, Json& out, DiagnosticSink& sink)
{
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        sink.error({}, "the file is empty (expected a JSON object)");
        return false;
    }
    // nlohmann's lexer takes a NUL byte for the end of input and would report "unexpected end
    // of input" for a binary file: say what it is instead.
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        sink.error({}, "expected JSON text, found a NUL byte at byte " + std::to_string(nul) +
                           " (a binary file?)");
        return false;
    }
    const std::size_t errorsBefore = sink.errors().size();
    DomBuilder builder(out, text, sink);
    bool ok = false;
    try {
        ok = Json::sax_parse(text.data(), text.data() + text.size(), &builder);
    } catch (const std::bad_alloc&) {
        sink.error({},
                   "out of memory while parsing " + std::to_string(text.size()) + " bytes of JSON");
        return false;
    } catch (const std::exception& ex) {
        // The SAX interface reports errors through parse_error; this only guards against an
        // allocation failure or a library change.
        sink.error({}, std::string("invalid JSON: ") + printable(ex.what()));
        return false;
    }
    if (!ok && sink.errors().size() == errorsBefore)
        sink.error({}, "invalid JSON");
    // Duplicate keys are errors but do not stop the parse: the caller reads on and reports
    // everything else too.
    return ok;
}

std::string describeJson(const Json& value)
{
    constexpr std::size_t kMaxShown = 60;
    switch (value.type()) {
    case Json::value_t::object:
        return "an object";
    case Json::value_t::array:
        return value.size() == 1 ? "an array of 1 value"
                                 : "an array of " + std::to_string(value.size()) + " values";
    case Json::value_t::null:
        return "null";
    case Json::value_t::number_float:
        return formatNumber(value.get<double>());
    default: {
        std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
        if (text.size() > kMaxShown)
            text = text.substr(0, kMaxShown) + "...";
        return text;
    }
    }
}

std::string formatNumber(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, result.ptr);
}

} // namespace archipelago::core
