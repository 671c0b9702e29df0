#include "explore/memoryestimate.h"

#include "compute/memorymodel.h"

#include <algorithm>

namespace archipelago::core {

double memoryLowerBoundGib(const Scenario& scenario, std::int64_t dataParallel)
{
    const Workload& w = scenario.workload;
    const Parallelism& par = scenario.parallelism;
    const int pp = std::max(1, par.pp);
    // The busiest stage holds at least the average; floor keeps the bound below it.
    const double layers = static_cast<double>(w.layers / pp);
    // A MoE layer's dense part may be smaller than a dense layer's: the smaller of the two, and
    // the routed experts (sharded over another group) left out.
    double perLayer = layerParamsPerGpu(w, par, false).dense;
    if (w.moe.enabled())
        perLayer = std::min(perLayer, layerParamsPerGpu(w, par, true).dense);
    const double shardGroup =
        static_cast<double>(std::max<std::int64_t>(1, dataParallel)) * std::max(1, par.cp);
    const double allocatedGib =
        layers * perLayer * stateBytesPerParam(par, shardGroup).total() / kGib;
    return allocatedGib + reserveGib(allocatedGib);
}

} // namespace archipelago::core
