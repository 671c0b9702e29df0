#include "explore/searchspace.h"

#include "model/scenariolimits.h"
#include "model/scheduletraits.h"

#include <algorithm>
#include <set>

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

// The value every element shares, or nullopt (also when there is none).
template <typename T, typename Range, typename Get>
std::optional<T> sharedValue(const Range& range, Get get)
{
    std::optional<T> value;
    for (const auto& element : range) {
        const T v = get(element);
        if (value && *value != v)
            return std::nullopt;
        value = v;
    }
    return value;
}

// Product of `sizes`, capped at `cap` + 1 (0 when a size is 0).
template <std::size_t N>
std::uint64_t cappedProduct(const std::array<std::size_t, N>& sizes, std::uint64_t cap)
{
    std::uint64_t n = 1;
    for (std::size_t k : sizes) {
        if (k == 0)
            return 0;
        if (n > (cap + 1) / k)
            return cap + 1;
        n *= k;
    }
    return std::min(n, cap + 1);
}

} // namespace

const char* toString(PlacementBoundary boundary)
{
    switch (boundary) {
    case PlacementBoundary::Base:
        return "base";
    case PlacementBoundary::Pp:
        return "pp";
    case PlacementBoundary::Dp:
        return "dp";
    }
    return "?";
}

std::optional<PlacementBoundary> placementBoundaryFromString(const std::string& text)
{
    for (PlacementBoundary b :
         {PlacementBoundary::Base, PlacementBoundary::Pp, PlacementBoundary::Dp})
        if (text == toString(b))
            return b;
    return std::nullopt;
}

std::string rankOrderToString(const RankOrder& order)
{
    std::string text;
    for (ParallelDim d : order)
        text += (text.empty() ? "" : "-") + std::string(toString(d));
    return text;
}

std::optional<RankOrder> rankOrderFromString(const std::string& text)
{
    RankOrder order{};
    std::set<ParallelDim> seen;
    std::size_t begin = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const std::size_t end = text.find('-', begin);
        const bool last = i + 1 == order.size();
        if (last != (end == std::string::npos))
            return std::nullopt;
        const std::optional<ParallelDim> d =
            parallelDimFromString(text.substr(begin, last ? std::string::npos : end - begin));
        if (!d || !seen.insert(*d).second)
            return std::nullopt;
        order[i] = *d;
        begin = end + 1;
    }
    return order;
}

std::vector<bool> defaultSequenceParallel(const Scenario& base, const std::vector<int>& tp)
{
    // Sequence parallelism only matters with TP > 1 (Megatron-LM arguments.py turns it off at
    // TP 1): the base's choice, plus the other one when the space has a TP above 1.
    std::vector<bool> values{base.parallelism.sequenceParallel};
    if (std::any_of(tp.begin(), tp.end(), [](int t) { return t > 1; }))
        values.push_back(!base.parallelism.sequenceParallel);
    return values;
}

std::vector<StageSplit> defaultStageSplits(const Scenario& base,
                                           const std::vector<PlacementBoundary>& boundaries)
{
    // The proportional split, and the boundary one stage either way (unequal datacenters,
    // a slower DCI: moving a stage can balance the pipeline).
    const bool ppAcross =
        base.topology.datacenters.size() > 1 &&
        std::find(boundaries.begin(), boundaries.end(), PlacementBoundary::Pp) != boundaries.end();
    return ppAcross ? std::vector<StageSplit>{0, -1, 1} : std::vector<StageSplit>{0};
}

SearchSpace defaultSearchSpace(const Scenario& base)
{
    const Parallelism& par = base.parallelism;
    const Workload& w = base.workload;
    const Topology& topo = base.topology;
    SearchSpace s;
    // The network technology: the base's ("base": each link and datacenter keeps its own), and
    // for a topology whose DCI links share one wavelength count, half and twice it (a cheaper
    // and a faster DCI). Other transports and fabric kinds come from --space.
    s.dciTransports = {std::nullopt};
    s.wavelengths = {std::nullopt};
    if (const std::optional<int> shared =
            sharedValue<int>(topo.links, [](const DciLink& l) { return l.wavelengths; }))
        for (int n : {*shared / 2, 2 * *shared})
            if (limits::kWavelengths.contains(n) && n != *shared)
                s.wavelengths.push_back(n);
    s.fabrics = {std::nullopt};

    int domain = 8;
    if (!topo.datacenters.empty())
        domain = std::max(1, scaleUpDomainGpus(topo.datacenters.front()));
    // TP within the scale-up domain (Megatron keeps TP inside NVLink), powers of two.
    for (int t = 1; t <= domain; t *= 2)
        s.tp.push_back(t);
    s.tp.push_back(par.tp);
    s.tp = distinctPositive(s.tp);
    s.cp = distinctPositive({par.cp, w.seqLen >= 16384 ? 2 * par.cp : par.cp});
    s.pp = distinctPositive({par.pp / 2, par.pp, std::min(2 * par.pp, w.layers)});
    s.ep = w.moe.enabled() ? distinctPositive({par.ep / 2, par.ep, 2 * par.ep})
                           : std::vector<int>{par.ep};
    // Across datacenters: the base's placement re-made for each shape, and both presets.
    s.boundaries = {PlacementBoundary::Base};
    if (topo.datacenters.size() > 1) {
        s.boundaries.push_back(PlacementBoundary::Pp);
        s.boundaries.push_back(PlacementBoundary::Dp);
    }
    s.stageSplits = defaultStageSplits(base, s.boundaries);
    RankOrder order = kMegatronRankOrder;
    if (base.placement.rankOrder.size() == order.size())
        std::copy(base.placement.rankOrder.begin(), base.placement.rankOrder.end(), order.begin());
    s.rankOrders = {order};
    s.dataParallel = {0};
    s.sequenceParallel = defaultSequenceParallel(base, s.tp);
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
    // The base's precision only: reducing in bf16 trades accuracy for bytes, which is the
    // user's call (docs/explore.md), so a space searches it only when asked.
    s.gradReduceDtype = {par.gradReduceDtype};
    s.globalBatch = {w.globalBatch, w.globalBatch};
    return s;
}

std::uint64_t spacePoints(const SearchSpace& s)
{
    const std::array<std::size_t, 24> sizes{s.dciTransports.size(),
                                            s.wavelengths.size(),
                                            s.fabrics.size(),
                                            s.ncclChannels.size(),
                                            s.tp.size(),
                                            s.cp.size(),
                                            s.pp.size(),
                                            s.ep.size(),
                                            s.boundaries.size(),
                                            s.stageSplits.size(),
                                            s.rankOrders.size(),
                                            s.dataParallel.size(),
                                            s.sequenceParallel.size(),
                                            s.virtualStages.size(),
                                            s.microBatch.size(),
                                            s.schedules.size(),
                                            s.extraInFlightAtDci.size(),
                                            s.recompute.size(),
                                            s.zeroStage.size(),
                                            s.distributedOptimizer.size(),
                                            s.gradReduceDtype.size(),
                                            s.datacenterSync.size(),
                                            s.innerSteps.size(),
                                            s.checkpointIntervalS.size()};
    return cappedProduct(sizes, kMaxSpacePoints);
}

std::uint64_t spacePlacements(const SearchSpace& s)
{
    const std::array<std::size_t, 8> sizes{
        s.tp.size(),         s.cp.size(),          s.pp.size(),         s.ep.size(),
        s.boundaries.size(), s.stageSplits.size(), s.rankOrders.size(), s.dataParallel.size()};
    return cappedProduct(sizes, kMaxSpacePlacements);
}

std::uint64_t spaceTopologies(const SearchSpace& s)
{
    const std::array<std::size_t, 4> sizes{s.dciTransports.size(), s.wavelengths.size(),
                                           s.fabrics.size(), s.ncclChannels.size()};
    return cappedProduct(sizes, kMaxSpaceTopologies);
}

void applyTopologyVariant(Topology& topology, const Topology& base,
                          const ElementChoice<DciTransport>& transport,
                          const ElementChoice<int>& wavelengths, const FabricChoice& fabric,
                          int ncclChannels)
{
    for (std::size_t i = 0; i < topology.links.size() && i < base.links.size(); ++i) {
        topology.links[i].transport = transport.of(i).value_or(base.links[i].transport);
        topology.links[i].wavelengths = wavelengths.of(i).value_or(base.links[i].wavelengths);
        // A long-haul deployment raises NCCL_MIN_NCHANNELS and NCCL_NCHANNELS_PER_NET_PEER
        // together (docs/network.md, "NCCL's connections").
        const NcclSettings& own = base.links[i].nccl;
        topology.links[i].nccl.channels = ncclChannels > 0 ? ncclChannels : own.channels;
        topology.links[i].nccl.p2pChannelsPerPeer =
            ncclChannels > 0 ? ncclChannels : own.p2pChannelsPerPeer;
    }
    for (std::size_t i = 0; i < topology.datacenters.size() && i < base.datacenters.size(); ++i)
        topology.datacenters[i].fabric.kind =
            fabric.of(i).value_or(base.datacenters[i].fabric.kind);
}

} // namespace archipelago::core
