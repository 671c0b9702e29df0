// Lazy enumeration of a SearchSpace: an odometer over its dimensions. The topology variant
// (DCI transport, wavelengths, fabric, NCCL channels) turns slowest, so that a thread evaluates
// long runs of points on one topology; then the placement (tp, cp, pp, ep, boundary, stage split,
// rank order, dp), made once per value; the checkpoint interval turns fastest. A point is decoded
// from its index, so any range of indices can be visited without ever holding a vector of
// every point.
#pragma once

#include "explore/designpoint.h"
#include "explore/searchspace.h"

#include <array>
#include <cstdint>
#include <vector>

namespace archipelago::core {

class SpaceOdometer
{
public:
    static constexpr int kDimensions = 24;
    static constexpr int kTopologyDimensions = 4;  // the first four
    static constexpr int kPlacementDimensions = 8; // the next eight

    explicit SpaceOdometer(const SearchSpace& space);

    std::uint64_t size() const { return m_size; }
    // The point at `index` (< size()).
    DesignPoint at(std::uint64_t index) const { return at(index, digits(index)); }

    // The point's value index in each dimension, in the order above.
    using Digits = std::array<std::uint32_t, kDimensions>;
    Digits digits(std::uint64_t index) const;
    // The digits of the next index: a carry through the dimensions of more than one value,
    // fastest first (what a run of consecutive points costs instead of a decode each).
    void increment(Digits& digits) const
    {
        for (const std::size_t d : m_stepped) {
            if (++digits[d] < m_radix[d])
                return;
            digits[d] = 0;
        }
    }
    DesignPoint at(std::uint64_t index, const Digits& digits) const;
    // The few knobs that decide whether a point repeats another, read from its digits without
    // building the point (the sweep prunes most points on them).
    struct Knobs
    {
        int tp = 1;
        bool sequenceParallel = false;
        int virtualStages = 1;
        ScheduleKind schedule = ScheduleKind::OneFOneB;
        int extraInFlightAtDci = 0;
        int zeroStage = 0;
        bool distributedOptimizer = false;
        std::optional<DatacenterSync> datacenterSync;
        std::optional<int> innerSteps;
    };
    Knobs knobs(const Digits& digits) const;
    // The index of the placement (tp, cp, pp, ep, boundary, split, rank order, dp) of the point
    // at `index`, in [0, placements()), and of its topology variant, in [0, topologies()).
    std::uint64_t placementIndex(std::uint64_t index) const
    {
        return (index / m_placementStride) % m_placements;
    }
    std::uint64_t placements() const { return m_placements; }
    std::uint64_t topologyIndex(std::uint64_t index) const { return index / m_topologyStride; }
    std::uint64_t topologies() const { return m_topologies; }
    // The first point of placement `placement` (topology variant 0, every faster digit 0),
    // and of topology variant `topology`.
    std::uint64_t firstOfPlacement(std::uint64_t placement) const
    {
        return placement * m_placementStride;
    }
    std::uint64_t firstOfTopology(std::uint64_t topology) const
    {
        return topology * m_topologyStride;
    }

private:
    const SearchSpace& m_space;
    std::array<std::uint64_t, kDimensions> m_radix{};
    std::vector<std::size_t> m_stepped; // dimensions of more than one value, fastest first
    std::uint64_t m_size = 0;
    std::uint64_t m_placementStride = 1;
    std::uint64_t m_placements = 1;
    std::uint64_t m_topologyStride = 1;
    std::uint64_t m_topologies = 1;
};

} // namespace archipelago::core
