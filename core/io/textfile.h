// The one way the program reads a file it is given (scenario, published runs, catalog): regular
// files only, and never more than kMaxFileBytes, so that a named pipe, a device such as
// /dev/zero or a file that grows while it is read can neither hang the program nor exhaust its
// memory.
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

} // namespace archipelago::core
