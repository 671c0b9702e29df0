#include "model/diagnostic.h"

namespace archipelago::core {

std::string Diagnostic::toString() const
{
    std::string out;
    if (!file.empty())
        out += file + ": ";
    if (severity == Severity::Warning)
        out += "warning: ";
    if (!pointer.empty())
        out += pointer + ": ";
    return out + message;
}

} // namespace archipelago::core
