// The one way the program reads a file it is given (scenario, published runs, catalog): regular
// files only, and never more than kMaxFileBytes, so that a named pipe, a device such as
// /dev/zero or a file that grows while it is read can neither hang the program nor exhaust its
// memory. And the one way it writes a file atomically.
#pragma once

#include "io/diagnosticsink.h"

#include <optional>
#include <string>
#include <string_view>

namespace archipelago::core {

// The bytes of `path`, or nullopt after reporting why not to `sink` (at the document, pointer
// ""). `kind` names what the file should be, for messages ("a scenario file").
std::optional<std::string> readTextFile(const std::string& path, DiagnosticSink& sink,
                                        std::string_view kind);

// Writes `text` to `path` atomically (the exports, `sweep -o`): into a new file beside it,
// flushed to disk, then renamed over `path`, so that a reader finds the old file or the new
// one, never a part, and a failed write leaves the old one. The new file has the permissions
// a created file gets (0666 less the umask). False after setting `error` to why not.
bool writeTextFileAtomically(const std::string& path, std::string_view text, std::string& error);

} // namespace archipelago::core
