#include "model/catalog.h"

#include <algorithm>
#include <array>
#include <utility>

namespace archipelago::core {

namespace {

template <typename T> const T* findByName(const std::vector<T>& items, const std::string& name)
{
    auto it =
        std::find_if(items.begin(), items.end(), [&](const T& item) { return item.name == name; });
    return it == items.end() ? nullptr : &*it;
}

template <typename T> void mergeByName(std::vector<T>& base, const std::vector<T>& overrides)
{
    for (const T& item : overrides) {
        auto it =
            std::find_if(base.begin(), base.end(), [&](const T& b) { return b.name == item.name; });
        if (it == base.end())
            base.push_back(item);
        else
            *it = item;
    }
}

constexpr std::array<std::pair<OpticReach, const char*>, 8> kReachNames{{
    {OpticReach::Dac, "dac"},
    {OpticReach::Aoc, "aoc"},
    {OpticReach::Sr, "sr"},
    {OpticReach::Dr, "dr"},
    {OpticReach::Fr, "fr"},
    {OpticReach::Lr, "lr"},
    {OpticReach::Zr, "zr"},
    {OpticReach::ZrPlus, "zr+"},
}};

} // namespace

const AcceleratorSpec* Catalog::accelerator(const std::string& name) const
{
    return findByName(accelerators, name);
}
const NicSpec* Catalog::nic(const std::string& name) const
{
    return findByName(nics, name);
}
const SwitchSpec* Catalog::switchSpec(const std::string& name) const
{
    return findByName(switches, name);
}
const OpticSpec* Catalog::optic(const std::string& name) const
{
    return findByName(optics, name);
}
const LineSystemSpec* Catalog::lineSystem(const std::string& name) const
{
    return findByName(lineSystems, name);
}

Catalog Catalog::mergedWith(const Catalog& overrides) const
{
    Catalog merged = *this;
    mergeByName(merged.accelerators, overrides.accelerators);
    mergeByName(merged.nics, overrides.nics);
    mergeByName(merged.switches, overrides.switches);
    mergeByName(merged.optics, overrides.optics);
    mergeByName(merged.lineSystems, overrides.lineSystems);
    if (overrides.reliability)
        merged.reliability = overrides.reliability;
    if (overrides.economics)
        merged.economics = overrides.economics;
    return merged;
}

bool Catalog::empty() const
{
    return accelerators.empty() && nics.empty() && switches.empty() && optics.empty() &&
           lineSystems.empty() && !reliability && !economics;
}

const char* toString(OpticReach reach)
{
    for (const auto& [r, name] : kReachNames)
        if (r == reach)
            return name;
    return "?";
}

std::optional<OpticReach> opticReachFromString(const std::string& s)
{
    for (const auto& [r, name] : kReachNames)
        if (s == name)
            return r;
    return std::nullopt;
}

} // namespace archipelago::core
