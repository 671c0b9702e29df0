#include "explore/searchspace.h"

#include "model/scheduletraits.h"

#include <algorithm>

namespace archipelago::core {

namespace {

// Ascending, without duplicates or values below 1.
std::vector<int> distinctPositive(std::vector<int> values)
{
    std::erase_if(values, [](int v) { return v < 1; });
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

} // namespace

SearchSpace defaultSearchSpace(const Scenario& base)
{
    const Parallelism& par = base.parallelism;
    const Workload& w = base.workload;
    SearchSpace s;
    int domain = 8;
    if (!base.topology.datacenters.empty())
        domain = std::max(1, scaleUpDomainGpus(base.topology.datacenters.front()));
    // TP within the scale-up domain (Megatron keeps TP inside NVLink), powers of two.
    for (int t = 1; t <= domain; t *= 2)
        s.tp.push_back(t);
    s.tp.push_back(par.tp);
    s.tp = distinctPositive(s.tp);
    s.cp = distinctPositive({par.cp, w.seqLen >= 16384 ? 2 * par.cp : par.cp});
    s.pp = distinctPositive({par.pp / 2, par.pp, std::min(2 * par.pp, w.layers)});
    s.ep = w.moe.enabled() ? distinctPositive({par.ep / 2, par.ep, 2 * par.ep})
                           : std::vector<int>{par.ep};
    s.virtualStages = distinctPositive({1, 2, 4, par.virtualStages});
    s.microBatch = distinctPositive({1, 2, 4, par.microBatch});
    for (const ScheduleTraits& t : allScheduleTraits())
        s.schedules.push_back(t.kind);
    s.extraInFlightAtDci = std::vector<int>{
        0, base.schedule.extraInFlightAtDci > 0 ? base.schedule.extraInFlightAtDci : 2};
    s.recompute = {Recompute::None, Recompute::Selective, Recompute::Full};
    s.zeroStage = {par.zeroStage};
    if (par.zeroStage < 1)
        s.zeroStage.push_back(1);
    s.distributedOptimizer = {false, true};
    return s;
}

std::uint64_t spacePoints(const SearchSpace& s)
{
    const std::size_t sizes[] = {s.tp.size(),
                                 s.cp.size(),
                                 s.pp.size(),
                                 s.ep.size(),
                                 s.virtualStages.size(),
                                 s.microBatch.size(),
                                 s.schedules.size(),
                                 s.extraInFlightAtDci.size(),
                                 s.recompute.size(),
                                 s.zeroStage.size(),
                                 s.distributedOptimizer.size()};
    std::uint64_t n = 1;
    for (std::size_t k : sizes) {
        if (k == 0)
            return 0;
        if (n > (kMaxSpacePoints + 1) / k)
            return kMaxSpacePoints + 1;
        n *= k;
    }
    return std::min(n, kMaxSpacePoints + 1);
}

} // namespace archipelago::core
