#include "explore/spaceodometer.h"

namespace archipelago::core {

SpaceOdometer::SpaceOdometer(const SearchSpace& space)
    : m_space(space)
{
    m_radix = {space.dciTransports.size(),
               space.wavelengths.size(),
               space.fabrics.size(),
               space.ncclChannels.size(),
               space.tp.size(),
               space.cp.size(),
               space.pp.size(),
               space.ep.size(),
               space.boundaries.size(),
               space.stageSplits.size(),
               space.rankOrders.size(),
               space.dataParallel.size(),
               space.sequenceParallel.size(),
               space.virtualStages.size(),
               space.microBatch.size(),
               space.schedules.size(),
               space.extraInFlightAtDci.size(),
               space.recompute.size(),
               space.zeroStage.size(),
               space.distributedOptimizer.size(),
               space.gradReduceDtype.size(),
               space.datacenterSync.size(),
               space.innerSteps.size(),
               space.checkpointIntervalS.size()};
    m_size = spacePoints(space);
    for (int d = kDimensions - 1; d >= 0; --d)
        if (m_radix[static_cast<std::size_t>(d)] > 1)
            m_stepped.push_back(static_cast<std::size_t>(d));
    if (m_size > kMaxSpacePoints)
        m_size = 0; // refused by the reader; an empty odometer otherwise
    if (m_size == 0) {
        m_placements = m_topologies = 0;
        return;
    }
    constexpr int kFirstRest = kTopologyDimensions + kPlacementDimensions;
    for (int d = kFirstRest; d < kDimensions; ++d)
        m_placementStride *= m_radix[static_cast<std::size_t>(d)];
    m_placements = 1;
    for (int d = kTopologyDimensions; d < kFirstRest; ++d)
        m_placements *= m_radix[static_cast<std::size_t>(d)];
    m_topologyStride = m_placementStride * m_placements;
    m_topologies = m_size / m_topologyStride;
}

SpaceOdometer::Digits SpaceOdometer::digits(std::uint64_t index) const
{
    Digits digit{};
    std::uint64_t rest = index;
    // A dimension of one value has digit 0: no division (most of a space's dimensions).
    for (int d = kDimensions - 1; d >= 0 && rest > 0; --d) {
        const auto i = static_cast<std::size_t>(d);
        if (m_radix[i] == 1)
            continue;
        digit[i] = static_cast<std::uint32_t>(rest % m_radix[i]);
        rest /= m_radix[i];
    }
    return digit;
}

SpaceOdometer::Knobs SpaceOdometer::knobs(const Digits& digit) const
{
    const SearchSpace& s = m_space;
    Knobs k;
    k.tp = s.tp[digit[4]];
    k.sequenceParallel = s.sequenceParallel[digit[12]];
    k.virtualStages = s.virtualStages[digit[13]];
    k.schedule = s.schedules[digit[15]];
    k.extraInFlightAtDci = s.extraInFlightAtDci[digit[16]];
    k.zeroStage = s.zeroStage[digit[18]];
    k.distributedOptimizer = s.distributedOptimizer[digit[19]];
    k.datacenterSync = s.datacenterSync[digit[21]];
    k.innerSteps = s.innerSteps[digit[22]];
    return k;
}

DesignPoint SpaceOdometer::at(std::uint64_t index, const Digits& digit) const
{
    const SearchSpace& s = m_space;
    DesignPoint p;
    p.index = index;
    p.dciTransport = s.dciTransports[digit[0]];
    p.wavelengths = s.wavelengths[digit[1]];
    p.fabric = s.fabrics[digit[2]];
    p.ncclChannels = s.ncclChannels[digit[3]];
    p.tp = s.tp[digit[4]];
    p.cp = s.cp[digit[5]];
    p.pp = s.pp[digit[6]];
    p.ep = s.ep[digit[7]];
    p.boundary = s.boundaries[digit[8]];
    p.stageSplit = s.stageSplits[digit[9]];
    p.rankOrder = s.rankOrders[digit[10]];
    p.dataParallel = s.dataParallel[digit[11]];
    p.sequenceParallel = s.sequenceParallel[digit[12]];
    p.virtualStages = s.virtualStages[digit[13]];
    p.microBatch = s.microBatch[digit[14]];
    p.schedule = s.schedules[digit[15]];
    p.extraInFlightAtDci = s.extraInFlightAtDci[digit[16]];
    p.recompute = s.recompute[digit[17]];
    p.zeroStage = s.zeroStage[digit[18]];
    p.distributedOptimizer = s.distributedOptimizer[digit[19]];
    p.gradReduceDtype = s.gradReduceDtype[digit[20]];
    p.datacenterSync = s.datacenterSync[digit[21]];
    p.innerSteps = s.innerSteps[digit[22]];
    p.checkpointIntervalS = s.checkpointIntervalS[digit[23]];
    return p;
}

} // namespace archipelago::core
