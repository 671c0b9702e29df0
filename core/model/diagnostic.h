// A problem found in a file or a scenario: which file, where (a JSON pointer) and what was
// expected. Every reader and checker reports through it (STYLE.md, "Files and errors").
#pragma once

#include <string>

namespace archipelago::core {

struct Diagnostic
{
    enum class Severity
    {
        Error,
        Warning
    };
    Severity severity = Severity::Error;
    std::string file;
    std::string pointer; // JSON pointer, "" for the whole document
    std::string message; // what was expected, and what was found
    // "FILE: /pointer: message" (warnings prefixed "warning: ").
    std::string toString() const;

    bool operator==(const Diagnostic&) const = default;
};

} // namespace archipelago::core
