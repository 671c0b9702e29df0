// A value of a dimension that the topology sets per element (each DCI link, each datacenter):
// one value for every element, or one per element in topology order, either way with
// "base" (nullopt) for an element that keeps its own. The wavelength count and the transport
// of the DCI links are such dimensions (docs/explore.md); a new per-link setting is one more.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace archipelago::core {

template <typename T> struct ElementChoice
{
    std::optional<T> all; // with `each` empty: every element's value (nullopt: its own)
    std::vector<std::optional<T>> each; // non-empty: element i's value (nullopt: its own)

    // Implicit from the one-value forms, so that `{std::nullopt, 32}` lists them.
    ElementChoice() = default;
    ElementChoice(std::nullopt_t) {}
    ElementChoice(T value)
        : all(std::move(value))
    {}
    ElementChoice(std::optional<T> value)
        : all(std::move(value))
    {}
    // One per element; entries that are all the same are that one value (so that a list of
    // choices drops them as duplicates).
    explicit ElementChoice(std::vector<std::optional<T>> values)
    {
        if (!values.empty() && std::all_of(values.begin(), values.end(),
                                           [&](const auto& v) { return v == values.front(); }))
            all = values.front();
        else
            each = std::move(values);
    }

    bool isUniform() const { return each.empty(); }
    // Element i's value (nullopt: its own).
    std::optional<T> of(std::size_t i) const
    {
        return each.empty() ? all : (i < each.size() ? each[i] : std::nullopt);
    }
    // Every element keeps its own.
    bool isBase() const
    {
        return each.empty() ? !all : std::none_of(each.begin(), each.end(), [](const auto& v) {
            return v.has_value();
        });
    }
    bool operator==(const ElementChoice&) const = default;
};

} // namespace archipelago::core
