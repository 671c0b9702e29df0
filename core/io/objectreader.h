// Typed, exception-free access to the fields of one JSON object.
// Every read names the key's JSON pointer in its diagnostic; keys that were never read are
// reported as "unknown key" warnings when the reader goes out of scope, so a reader function
// lists its keys once, by reading them.
#pragma once

#include "io/jsondocument.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

enum class Need
{
    Optional,
    Required
};

class ObjectReader
{
public:
    // `value` should be an object; otherwise an error is reported and every read is a no-op.
    ObjectReader(const Json& value, std::string pointer, DiagnosticSink& sink);
    ~ObjectReader();
    ObjectReader(const ObjectReader&) = delete;
    ObjectReader& operator=(const ObjectReader&) = delete;

    bool valid() const { return m_object != nullptr; }
    const std::string& pointer() const { return m_pointer; }
    std::string pointerOf(std::string_view key) const { return childPointer(m_pointer, key); }
    DiagnosticSink& sink() { return m_sink; }
    void error(std::string_view key, std::string message);

    // The value of `key`, or nullptr when absent (an error when required). Marks it as known.
    const Json* find(std::string_view key, Need need, std::string_view expected);
    // Marks a key as known without reading it.
    void skip(std::string_view key) { m_seen.emplace_back(key); }
    // Whether the object holds a key read so far (a file of another kind holds none).
    bool holdsKnownKey() const;

    // Each returns true when the key was present and of the right type (then `out` is set).
    bool integer(std::string_view key, int& out, Need need,
                 std::string_view expected = "a positive integer");
    bool number(std::string_view key, double& out, Need need,
                std::string_view expected = "a positive number");
    // The same, and the value must lie in `limit` (the ranges of model/scenariolimits.h, which
    // every reader shares so that a value refused in one file is refused in all).
    bool integer(std::string_view key, int& out, Need need, const limits::IntLimit& limit);
    bool number(std::string_view key, double& out, Need need, const limits::NumberLimit& limit);
    bool boolean(std::string_view key, bool& out, Need need = Need::Optional);
    // A string of at most `maxBytes` bytes (kMaxTextBytes; names pass kMaxNameBytes).
    bool string(std::string_view key, std::string& out, Need need = Need::Optional,
                std::size_t maxBytes = kMaxTextBytes);

    template <typename E>
    bool enumeration(std::string_view key, E& out,
                     std::optional<E> (*fromString)(const std::string&), std::string_view choices,
                     Need need = Need::Optional)
    {
        std::string text;
        const Json* v = find(key, need, "one of " + std::string(choices));
        if (!v)
            return false;
        if (v->is_string())
            if (auto e = fromString(v->get<std::string>())) {
                out = *e;
                return true;
            }
        error(key, "expected one of " + std::string(choices) + ", got " + describeJson(*v));
        return false;
    }

    // Calls read(ObjectReader&) on the nested object.
    template <typename F> bool object(std::string_view key, Need need, F&& read)
    {
        const Json* v = find(key, need, "an object");
        if (!v)
            return false;
        ObjectReader child(*v, pointerOf(key), m_sink);
        if (child.valid())
            read(child);
        return child.valid();
    }

    // Calls read(const Json& element, const std::string& pointer) on each element.
    template <typename F> bool array(std::string_view key, Need need, F&& read)
    {
        const Json* v = find(key, need, "an array");
        if (!v || !checkArray(key, *v))
            return false;
        for (std::size_t i = 0; i < v->size(); ++i)
            read((*v)[i], childPointer(pointerOf(key), i));
        return true;
    }

    // Calls read(ObjectReader&) on each element, which must be an object.
    template <typename F> bool objects(std::string_view key, Need need, F&& read)
    {
        return array(key, need, [&](const Json& element, const std::string& ptr) {
            ObjectReader child(element, ptr, m_sink);
            if (child.valid())
                read(child);
        });
    }

private:
    bool checkArray(std::string_view key, const Json& v);

    const Json* m_object = nullptr;
    std::string m_pointer;
    DiagnosticSink& m_sink;
    std::vector<std::string> m_seen;
};

// Readers for single values (array elements); they report to `sink` at `pointer`.
bool readInt(const Json& v, const std::string& pointer, DiagnosticSink& sink, int& out,
             std::string_view expected = "a positive integer");
bool readNumber(const Json& v, const std::string& pointer, DiagnosticSink& sink, double& out,
                std::string_view expected = "a number");

} // namespace archipelago::core
