#include "model/reliability.h"

namespace archipelago::core {

const char* toString(FailureUnit unit)
{
    return unit == FailureUnit::Gpu ? "gpu" : "host";
}

std::optional<FailureUnit> failureUnitFromString(const std::string& s)
{
    if (s == "gpu")
        return FailureUnit::Gpu;
    if (s == "host")
        return FailureUnit::Host;
    return std::nullopt;
}

} // namespace archipelago::core
