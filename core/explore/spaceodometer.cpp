#include "explore/spaceodometer.h"

namespace archipelago::core {

SpaceOdometer::SpaceOdometer(const SearchSpace& space)
    : m_space(space)
{
    m_radix = {space.tp.size(),
               space.cp.size(),
               space.pp.size(),
               space.ep.size(),
               space.virtualStages.size(),
               space.microBatch.size(),
               space.schedules.size(),
               space.extraInFlightAtDci.size(),
               space.recompute.size(),
               space.zeroStage.size(),
               space.distributedOptimizer.size()};
    m_size = spacePoints(space);
    if (m_size > kMaxSpacePoints)
        m_size = 0; // refused by the reader; an empty odometer otherwise
    for (int d = 4; d < kDimensions; ++d)
        m_shapeStride *= m_radix[static_cast<std::size_t>(d)];
}

DesignPoint SpaceOdometer::at(std::uint64_t index) const
{
    std::array<std::size_t, kDimensions> digit{};
    std::uint64_t rest = index;
    for (int d = kDimensions - 1; d >= 0; --d) {
        const auto i = static_cast<std::size_t>(d);
        digit[i] = static_cast<std::size_t>(rest % m_radix[i]);
        rest /= m_radix[i];
    }
    DesignPoint p;
    p.index = index;
    p.tp = m_space.tp[digit[0]];
    p.cp = m_space.cp[digit[1]];
    p.pp = m_space.pp[digit[2]];
    p.ep = m_space.ep[digit[3]];
    p.virtualStages = m_space.virtualStages[digit[4]];
    p.microBatch = m_space.microBatch[digit[5]];
    p.schedule = m_space.schedules[digit[6]];
    p.extraInFlightAtDci = m_space.extraInFlightAtDci[digit[7]];
    p.recompute = m_space.recompute[digit[8]];
    p.zeroStage = m_space.zeroStage[digit[9]];
    p.distributedOptimizer = m_space.distributedOptimizer[digit[10]];
    return p;
}

} // namespace archipelago::core
