// A problem found in a file or a scenario: which file, where (a JSON pointer) and what was
// expected. Every reader and checker reports through it (STYLE.md, "Files and errors").
#pragma once

#include <string>
#include <string_view>

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
    // "FILE: /pointer: message" (warnings prefixed "warning: "), on one line whatever the file
    // held: see displayText.
    std::string toString() const;

    bool operator==(const Diagnostic&) const = default;
};

// `text` safe to print on a terminal: keys, values and file names come from the input, and a
// newline or an escape sequence in them could forge a line ("fake.json: ok") or drive the
// terminal. Control characters (C0, DEL, C1) and bidirectional overrides become \uXXXX, bytes
// that are not UTF-8 become \xNN; everything else is kept as is.
std::string displayText(std::string_view text);

} // namespace archipelago::core
