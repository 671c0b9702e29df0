// Collects the diagnostics of one file while it is read and checked, so that every reader
// reports all problems instead of stopping at the first (STYLE.md, "Files and errors").
#pragma once

#include "model/diagnostic.h"
#include "model/scenariolimits.h"

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

    explicit DiagnosticSink(std::string file)
        : file_(std::move(file))
    {}

    void error(std::string pointer, std::string message)
    {
        add({Diagnostic::Severity::Error, file_, std::move(pointer), std::move(message)});
    }
    void warning(std::string pointer, std::string message)
    {
        add({Diagnostic::Severity::Warning, file_, std::move(pointer), std::move(message)});
    }
    void add(Diagnostic d)
    {
        d.file = file_;
        const bool isError = d.severity == Diagnostic::Severity::Error;
        auto& list = isError ? errors_ : warnings_;
        if (list.size() < kMaxKept)
            list.push_back(std::move(d));
        else
            ++(isError ? moreErrors_ : moreWarnings_);
    }

    const std::string& file() const { return file_; }
    bool hasErrors() const { return !errors_.empty(); }
    const std::vector<Diagnostic>& errors() const { return errors_; }
    const std::vector<Diagnostic>& warnings() const { return warnings_; }
    // The kept diagnostics, then one line counting those dropped.
    std::vector<Diagnostic> takeErrors() { return take(errors_, moreErrors_, "errors"); }
    std::vector<Diagnostic> takeWarnings() { return take(warnings_, moreWarnings_, "warnings"); }

private:
    std::vector<Diagnostic> take(std::vector<Diagnostic>& list, std::size_t& more, const char* what)
    {
        std::vector<Diagnostic> out = std::exchange(list, {});
        if (more > 0)
            out.push_back({out.front().severity,
                           file_,
                           {},
                           std::to_string(more) + " more " + what + " not shown"});
        more = 0;
        return out;
    }

    std::string file_;
    std::vector<Diagnostic> errors_;
    std::vector<Diagnostic> warnings_;
    std::size_t moreErrors_ = 0;
    std::size_t moreWarnings_ = 0;
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
