// Collects the diagnostics of one file while it is read and checked, so that every reader
// reports all problems instead of stopping at the first (STYLE.md, "Files and errors").
#pragma once

#include "model/diagnostic.h"
#include "model/scenariolimits.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace archipelago::core {

class DiagnosticSink
{
public:
    // A hostile file can hold millions of bad values; nobody reads past the first few hundred
    // lines, and keeping them all would cost memory.
    static constexpr std::size_t kMaxKept = 500;

    // A sink that keeps only errors (a sweep's question about a candidate: refused or not)
    // drops warnings, and the checks that feed it skip composing them.
    enum class Keep : std::uint8_t
    {
        All,
        ErrorsOnly
    };
    explicit DiagnosticSink(std::string file, Keep keep = Keep::All)
        : m_file(std::move(file))
        , m_keepWarnings(keep == Keep::All)
    {}

    void error(std::string pointer, std::string message)
    {
        add({Diagnostic::Severity::Error, m_file, std::move(pointer), std::move(message)});
    }
    void warning(std::string pointer, std::string message)
    {
        add({Diagnostic::Severity::Warning, m_file, std::move(pointer), std::move(message)});
    }
    void add(Diagnostic d)
    {
        const bool isError = d.severity == Diagnostic::Severity::Error;
        if (!isError && !m_keepWarnings)
            return;
        d.file = m_file;
        auto& list = isError ? m_errors : m_warnings;
        if (list.size() < kMaxKept)
            list.push_back(std::move(d));
        else
            ++(isError ? m_moreErrors : m_moreWarnings);
    }

    const std::string& file() const { return m_file; }
    bool keepsWarnings() const { return m_keepWarnings; }
    bool hasErrors() const { return !m_errors.empty(); }
    const std::vector<Diagnostic>& errors() const { return m_errors; }
    const std::vector<Diagnostic>& warnings() const { return m_warnings; }
    // The kept diagnostics, then one line counting those dropped.
    std::vector<Diagnostic> takeErrors() { return take(m_errors, m_moreErrors, "errors"); }
    std::vector<Diagnostic> takeWarnings() { return take(m_warnings, m_moreWarnings, "warnings"); }

private:
    std::vector<Diagnostic> take(std::vector<Diagnostic>& list, std::size_t& more, const char* what)
    {
        std::vector<Diagnostic> out = std::exchange(list, {});
        if (more > 0)
            out.push_back({out.front().severity,
                           m_file,
                           {},
                           std::to_string(more) + " more " + what + " not shown"});
        more = 0;
        return out;
    }

    std::string m_file;
    std::vector<Diagnostic> m_errors;
    std::vector<Diagnostic> m_warnings;
    std::size_t m_moreErrors = 0;
    std::size_t m_moreWarnings = 0;
    bool m_keepWarnings = true;
};

// JSON pointer (RFC 6901) of a child: "~" and "/" in keys are escaped as "~0" and "~1".
inline std::string childPointer(const std::string& parent, std::string_view key)
{
    std::string out = parent;
    out += '/';
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

inline std::string childPointer(const std::string& parent, std::size_t index)
{
    return parent + '/' + std::to_string(index);
}

// True when `pointer` is `prefix` or lies inside it ("/a/b" is inside "/a", "/ab" is not).
inline bool pointerWithin(std::string_view pointer, std::string_view prefix)
{
    if (pointer.size() < prefix.size() || pointer.substr(0, prefix.size()) != prefix)
        return false;
    return pointer.size() == prefix.size() || pointer[prefix.size()] == '/';
}

} // namespace archipelago::core
