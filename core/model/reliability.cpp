#include "model/reliability.h"

#include <array>
#include <utility>

namespace archipelago::core {

namespace {

constexpr std::array<std::pair<FailureUnit, const char*>, 9> kUnits{{
    {FailureUnit::Gpu, "gpu"},
    {FailureUnit::Host, "host"},
    {FailureUnit::Port, "port"},
    {FailureUnit::LeafSwitch, "leaf"},
    {FailureUnit::SpineSwitch, "spine"},
    {FailureUnit::CoreSwitch, "core"},
    {FailureUnit::Datacenter, "datacenter"},
    {FailureUnit::DciKm, "dci-km"},
    {FailureUnit::Wavelength, "wavelength"},
}};

} // namespace

const char* toString(FailureUnit unit)
{
    for (const auto& [u, name] : kUnits)
        if (u == unit)
            return name;
    return "gpu";
}

std::optional<FailureUnit> failureUnitFromString(const std::string& s)
{
    for (const auto& [u, name] : kUnits)
        if (s == name)
            return u;
    return std::nullopt;
}

const char* toString(FailureEffect effect)
{
    return effect == FailureEffect::Degrade ? "degrade" : "interrupt";
}

std::optional<FailureEffect> failureEffectFromString(const std::string& s)
{
    if (s == "interrupt")
        return FailureEffect::Interrupt;
    if (s == "degrade")
        return FailureEffect::Degrade;
    return std::nullopt;
}

} // namespace archipelago::core
