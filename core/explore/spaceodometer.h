// Lazy enumeration of a SearchSpace: an odometer over its dimensions (the last one, the
// distributed optimizer, turns fastest; TP slowest). A point is decoded from its index, so any
// range of indices can be visited without ever holding a vector of every point.
#pragma once

#include "explore/designpoint.h"
#include "explore/searchspace.h"

#include <array>
#include <cstdint>

namespace archipelago::core {

class SpaceOdometer
{
public:
    static constexpr int kDimensions = 11;

    explicit SpaceOdometer(const SearchSpace& space);

    std::uint64_t size() const { return m_size; }
    // The point at `index` (< size()).
    DesignPoint at(std::uint64_t index) const;
    // The index of the (tp, cp, pp, ep) shape of the point at `index`, in [0, shapes()):
    // the placement depends on the shape alone.
    std::uint64_t shapeIndex(std::uint64_t index) const { return index / m_shapeStride; }
    std::uint64_t shapes() const { return m_size / m_shapeStride; }

private:
    const SearchSpace& m_space;
    std::array<std::uint64_t, kDimensions> m_radix{};
    std::uint64_t m_size = 0;
    std::uint64_t m_shapeStride = 1;
};

} // namespace archipelago::core
