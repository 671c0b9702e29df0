#include "io/objectreader.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace archipelago::core {

namespace {

// Beyond this many unknown keys in one object, one summary line replaces the rest so that a
// huge object cannot flood the output.
constexpr std::size_t kMaxUnknownKeyWarnings = 20;

std::string typeError(std::string_view expected, const Json& v)
{
    return "expected " + std::string(expected) + ", got " + describeJson(v);
}

} // namespace

ObjectReader::ObjectReader(const Json& value, std::string pointer, DiagnosticSink& sink)
    : m_pointer(std::move(pointer))
    , m_sink(sink)
{
    if (value.is_object())
        m_object = &value;
    else
        m_sink.error(m_pointer, typeError("an object", value));
}

ObjectReader::~ObjectReader()
{
    if (!m_object)
        return;
    std::size_t unknown = 0;
    for (const auto& [key, value] : m_object->items()) {
        if (std::find(m_seen.begin(), m_seen.end(), key) != m_seen.end())
            continue;
        if (++unknown <= kMaxUnknownKeyWarnings)
            m_sink.warning(pointerOf(key), "unknown key \"" + key + "\" (ignored)");
    }
    if (unknown > kMaxUnknownKeyWarnings)
        m_sink.warning(m_pointer, std::to_string(unknown - kMaxUnknownKeyWarnings) +
                                      " more unknown keys (ignored)");
}

bool ObjectReader::holdsKnownKey() const
{
    return m_object && std::any_of(m_seen.begin(), m_seen.end(), [this](const std::string& key) {
               return m_object->contains(key);
           });
}

void ObjectReader::error(std::string_view key, std::string message)
{
    m_sink.error(pointerOf(key), std::move(message));
}

const Json* ObjectReader::find(std::string_view key, Need need, std::string_view expected)
{
    if (!m_object)
        return nullptr;
    m_seen.emplace_back(key);
    const auto it = m_object->find(std::string(key));
    if (it != m_object->end())
        return &*it;
    if (need == Need::Required)
        error(key, "missing required key \"" + std::string(key) + "\" (expected " +
                       std::string(expected) + ")");
    return nullptr;
}

bool ObjectReader::integer(std::string_view key, int& out, Need need, std::string_view expected)
{
    const Json* v = find(key, need, expected);
    return v && readInt(*v, pointerOf(key), m_sink, out, expected);
}

bool ObjectReader::number(std::string_view key, double& out, Need need, std::string_view expected)
{
    const Json* v = find(key, need, expected);
    return v && readNumber(*v, pointerOf(key), m_sink, out, expected);
}

bool ObjectReader::integer(std::string_view key, int& out, Need need, const limits::IntLimit& limit)
{
    int value = 0;
    if (!integer(key, value, need, limit.expected))
        return false;
    if (!limit.contains(value)) {
        error(key, "expected " + std::string(limit.expected) + ", got " + std::to_string(value));
        return false;
    }
    out = value;
    return true;
}

bool ObjectReader::number(std::string_view key, double& out, Need need,
                          const limits::NumberLimit& limit)
{
    double value = 0.0;
    if (!number(key, value, need, limit.expected))
        return false;
    if (!limit.contains(value)) {
        error(key, "expected " + std::string(limit.expected) + ", got " + formatNumber(value));
        return false;
    }
    out = value;
    return true;
}

bool ObjectReader::boolean(std::string_view key, bool& out, Need need)
{
    const Json* v = find(key, need, "true or false");
    if (!v)
        return false;
    if (!v->is_boolean()) {
        error(key, typeError("true or false", *v));
        return false;
    }
    out = v->get<bool>();
    return true;
}

bool ObjectReader::string(std::string_view key, std::string& out, Need need, std::size_t maxBytes)
{
    const Json* v = find(key, need, "a string");
    if (!v)
        return false;
    if (!v->is_string()) {
        error(key, typeError("a string", *v));
        return false;
    }
    if (const std::size_t bytes = v->get_ref<const std::string&>().size(); bytes > maxBytes) {
        error(key, "expected a string of at most " + std::to_string(maxBytes) + " bytes, got " +
                       std::to_string(bytes));
        return false;
    }
    out = v->get<std::string>();
    return true;
}

bool ObjectReader::checkArray(std::string_view key, const Json& v)
{
    if (!v.is_array()) {
        error(key, typeError("an array", v));
        return false;
    }
    if (v.size() > static_cast<std::size_t>(kMaxObjects)) {
        error(key, "expected at most " + std::to_string(kMaxObjects) + " entries, got " +
                       std::to_string(v.size()));
        return false;
    }
    return true;
}

bool readInt(const Json& v, const std::string& pointer, DiagnosticSink& sink, int& out,
             std::string_view expected)
{
    constexpr auto kMin = std::numeric_limits<int>::min();
    constexpr auto kMax = std::numeric_limits<int>::max();
    if (v.is_number_unsigned()) {
        if (v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMax)) {
            out = static_cast<int>(v.get<std::uint64_t>());
            return true;
        }
    } else if (v.is_number_integer()) {
        const auto i = v.get<std::int64_t>();
        if (i >= kMin && i <= kMax) {
            out = static_cast<int>(i);
            return true;
        }
    } else if (v.is_number_float()) {
        // Writers that only know doubles produce 8.0 for 8: accept integral values.
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::trunc(d) && d >= kMin && d <= kMax) {
            out = static_cast<int>(d);
            return true;
        }
    }
    sink.error(pointer, typeError(expected, v));
    return false;
}

bool readNumber(const Json& v, const std::string& pointer, DiagnosticSink& sink, double& out,
                std::string_view expected)
{
    if (!v.is_number()) {
        sink.error(pointer, typeError(expected, v));
        return false;
    }
    out = v.get<double>();
    if (!std::isfinite(out)) {
        sink.error(pointer, typeError(expected, v));
        return false;
    }
    return true;
}

} // namespace archipelago::core
