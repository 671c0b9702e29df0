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

// Writes `text` to `path` (the exports, `sweep -o`, `merge -o`, the report), never replacing
// what it must not:
// - a new or regular file atomically: into a new file beside it, flushed to disk, then renamed
//   over `path`, so that a reader finds the old file or the new one, never a part, and a failed
//   write leaves the old one. A replaced file keeps its mode (and its owner and group where the
//   process may set them; otherwise the permissions of the class that changed are dropped: never
//   wider than before); a new one gets 0666 less the umask;
// - a read-only file (no write bit, or not writable by this process) is refused, root or not;
// - a symbolic link is followed and the file it names written; the link stays;
// - a file with other hard links is rewritten in place, so that the links stay one file;
// - a character device (/dev/null) or a named pipe is written through; one that no process
//   reads is refused at once; a block device or a socket is refused.
// False after setting `error` to why not.
bool writeTextFileAtomically(const std::string& path, std::string_view text, std::string& error);

} // namespace archipelago::core
