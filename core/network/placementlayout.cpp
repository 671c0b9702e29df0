#include "network/placementlayout.h"

#include "network/collectives.h"
#include "network/dcimodel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace archipelago::core::detail {

namespace {

// H100 NVLink 4: 900 GB/s bidirectional per GPU; the default when the catalog lacks the GPU.
constexpr double kDefaultScaleUpGBps = 450.0;

std::size_t dimIndex(ParallelDim d)
{
    return static_cast<std::size_t>(d);
}

// Members of an aligned arithmetic progression (stride s, n members) inside an aligned
// container of C consecutive ranks.
std::int64_t membersIn(std::int64_t s, std::int64_t n, std::int64_t c)
{
    if (s <= 0 || s >= c)
        return 1;
    return std::min(n, c / s);
}

// Largest m <= raw that is a multiple of `inner` and divides n: keeps the levels' participants
// multiplying exactly to the group size when sizes do not divide evenly.
std::int64_t snap(std::int64_t raw, std::int64_t n, std::int64_t inner)
{
    for (std::int64_t m = std::max<std::int64_t>(raw / inner, 1) * inner; m >= inner; m -= inner)
        if (n % m == 0)
            return m;
    return inner;
}

// Fraction of an all-to-all's inter-domain bytes that must change rail: on a rail-only fabric it
// first crosses the scale-up domain (Wang et al. 2023, section 5: forwarding through NVLink).
double crossRailFraction(std::int64_t s, std::int64_t perDomain, int g)
{
    if (s % g == 0)
        return 0.0;
    return perDomain > 1 ? static_cast<double>(perDomain - 1) / static_cast<double>(perDomain)
                         : 1.0;
}

// The rate of one flow that climbs to `cls` through the uplinks of its container (a leaf for
// Spine, a pod for Core), when every GPU under those uplinks runs the same collective at once.
// `ringMembers` > 0: a ring (or tree) with that many members inside the container, whose only
// traffic across is its one boundary edge (Thakur et al. 2005: every ring edge carries the same
// bytes), so the container's gpus/ringMembers edges share the uplinks: ringMembers x the
// per-GPU share, at most the NIC; a ring with one member per container gets the per-GPU share.
// 0: every GPU's traffic crosses (all-to-all, point-to-point), to `peersPerGpu` peers each.
// The uplinks are ECMP-hashed (ecmpEfficiency, kFlowsPerNicPort flows per port of a GPU).
double crossingGBps(const FabricDesign& f, LinkClass cls, std::int64_t ringMembers,
                    std::int64_t peersPerGpu, int* flowsOut)
{
    const double gpus = static_cast<double>(f.gpusUnder(cls));
    if (gpus <= 0.0) {
        *flowsOut = 1;
        return f.levelGBps(cls);
    }
    const double ring = static_cast<double>(std::max<std::int64_t>(1, ringMembers));
    const double edges = std::max(1.0, gpus / ring);
    const double flows =
        edges * kFlowsPerNicPort * static_cast<double>(std::max<std::int64_t>(1, f.portsPerGpu)) *
        static_cast<double>(ringMembers > 0 ? 1 : std::max<std::int64_t>(1, peersPerGpu));
    const double linkGBps = f.linkGbps / 8.0;
    const double capacityGBps = gpus * f.levelGBps(cls);
    const double paths = linkGBps > 0.0 ? std::max(1.0, capacityGBps / linkGBps) : 1.0;
    // Hashed flows fill at most the links they land on: E[non-empty links] x link rate.
    const double carriedGBps =
        std::min(capacityGBps, ecmpEfficiency(flows, paths) * std::min(flows, paths) * linkGBps);
    *flowsOut = static_cast<int>(std::min(edges, 2e9));
    return std::min(f.gpuGBps, carriedGBps / edges);
}

LevelLink fabricLevel(const DcLayout& layout, LinkClass cls, std::int64_t participants,
                      double crossRail, std::int64_t ringMembers, std::int64_t peersPerGpu)
{
    LevelLink l;
    l.linkClass = cls;
    l.participants = static_cast<int>(participants);
    l.bandwidthGBps = cls == LinkClass::Leaf ? layout.fabric.levelGBps(cls)
                                             : crossingGBps(layout.fabric, cls, ringMembers,
                                                            peersPerGpu, &l.concurrentFlows);
    l.latencyS = FabricDesign::levelLatencyS(cls);
    if (crossRail > 0.0 && layout.fabric.kind == FabricKind::RailOnly) {
        // Time per byte = 1/B_fabric + f/B_scaleup: the extra hop over the scale-up domain.
        l.bandwidthGBps = 1.0 / (1.0 / l.bandwidthGBps + crossRail / layout.scaleUpGBps);
        l.latencyS += kScaleUpStepLatencyS;
    }
    return l;
}

LinkClass topClass(const FabricDesign& f)
{
    return f.tiers >= 3 ? LinkClass::Core : f.tiers == 2 ? LinkClass::Spine : LinkClass::Leaf;
}

std::string linkName(const Context& ctx, Id linkId)
{
    const DciLink* link = ctx.model.link(linkId);
    if (!link)
        return "link " + std::to_string(linkId);
    const Datacenter* a = findDatacenter(ctx.scenario.topology, link->a);
    const Datacenter* b = findDatacenter(ctx.scenario.topology, link->b);
    return (a ? a->name : "?") + " ↔ " + (b ? b->name : "?");
}

// Keep, per link, the worst case its transport meets (the lowest usable capacity: the figures
// the warning gives) and every user that crosses it.
void noteTransport(Context& ctx, const DciLink& link, const DciRoute& route, double rttS,
                   double connections, double usableGBps, std::string_view user)
{
    TransportUse& use = ctx.transport[link.id];
    if (use.users.empty() || usableGBps < use.usableGBps) {
        use.connections = connections;
        use.rttS = rttS;
        use.usableGBps = usableGBps;
        use.route = route.datacenters;
    }
    // Hashing leaves ~exp(-streams / ports) of the ports empty: rounding, not a bound.
    use.bound = use.bound || usableGBps < dciCapacityGBps(link) * (1.0 - 1e-6);
    if (std::find(use.users.begin(), use.users.end(), user) == use.users.end())
        use.users.emplace_back(user);
}

} // namespace

DcLayout& layoutFor(Context& ctx, Id dc)
{
    auto it = ctx.layouts.find(dc);
    if (it != ctx.layouts.end())
        return it->second;
    DcLayout layout;
    layout.dc = findDatacenter(ctx.scenario.topology, dc);
    layout.fabric = *ctx.model.fabric(dc);
    const std::vector<Warning>& fabricWarnings = ctx.model.fabricWarnings(dc);
    ctx.warnings.insert(ctx.warnings.end(), fabricWarnings.begin(), fabricWarnings.end());
    const AcceleratorSpec* acc = ctx.catalog.accelerator(layout.dc->accelerator);
    layout.scaleUpGBps = acc && acc->scaleUpGBpsPerDirection > 0.0 ? acc->scaleUpGBpsPerDirection
                                                                   : kDefaultScaleUpGBps;
    if (!acc)
        ctx.warnings.push_back(Warning{WarningCode::CatalogMissing, WarningForm::Accelerator}
                                   .name("accelerator", layout.dc->accelerator)
                                   .name("datacenter", layout.dc->name)
                                   .num("scale_up_gbps", kDefaultScaleUpGBps));
    return ctx.layouts.emplace(dc, std::move(layout)).first->second;
}

Sizes denseSizes(const Parallelism& par, const DcLayout& layout)
{
    return {par.tp, par.cp, 1, std::max<std::int64_t>(1, layout.dpLocal),
            std::max<std::int64_t>(1, layout.ppLocal)};
}

Sizes expertSizes(const Parallelism& par, const DcLayout& layout)
{
    const std::int64_t ep = std::max(1, par.ep);
    return {par.tp, 1, ep, std::max<std::int64_t>(1, layout.dpLocal * par.cp / ep),
            std::max<std::int64_t>(1, layout.ppLocal)};
}

std::int64_t stride(const std::vector<ParallelDim>& order, ParallelDim dim, const Sizes& sizes)
{
    std::int64_t s = 1;
    for (ParallelDim d : order) {
        if (d == dim)
            return s;
        s *= std::max<std::int64_t>(1, sizes[dimIndex(d)]);
    }
    return s; // a dimension missing from the order is outermost
}

LevelList intraLevels(const DcLayout& layout, std::int64_t s, std::int64_t n, bool allToAll,
                      bool railAligned)
{
    LevelList levels;
    if (n <= 1)
        return levels;
    const FabricDesign& f = layout.fabric;
    const std::int64_t g = f.gpusPerDomain;
    const std::int64_t leafSpan = f.domainsPerLeaf > 0 ? f.domainsPerLeaf * g : g;
    const std::int64_t podSpan = std::max(leafSpan, f.domainsPerPod * g);
    const std::int64_t m0 = snap(membersIn(s, n, g), n, 1);
    const std::int64_t m1 = snap(membersIn(s, n, leafSpan), n, m0);
    const std::int64_t m2 = snap(membersIn(s, n, podSpan), n, m1);
    if (m0 > 1) {
        LevelLink l;
        l.linkClass = LinkClass::ScaleUp;
        l.participants = static_cast<int>(m0);
        l.bandwidthGBps = layout.scaleUpGBps;
        l.latencyS = kScaleUpStepLatencyS;
        levels.push_back(l);
    }
    const double crossRail =
        allToAll && !railAligned ? crossRailFraction(s, m0, f.gpusPerDomain) : 0.0;
    // After the scale-up stage, m0 fabric rings (one per local index) run side by side; each has
    // m1/m0 members per leaf and m2/m0 per pod, and one edge out of each (ringMembers). An
    // all-to-all sends to every member outside the container instead.
    if (m1 / m0 > 1)
        levels.push_back(fabricLevel(layout, LinkClass::Leaf, m1 / m0, crossRail, 0, 0));
    if (m2 / m1 > 1)
        levels.push_back(fabricLevel(layout, LinkClass::Spine, m2 / m1, crossRail,
                                     allToAll ? 0 : m1 / m0, n - m1));
    if (n / m2 > 1)
        levels.push_back(fabricLevel(layout, LinkClass::Core, n / m2, crossRail,
                                     allToAll ? 0 : m2 / m0, n - m2));
    return levels;
}

void addRouteLoads(Context& ctx, Id a, Id b, double flows, DciLoads& loads)
{
    std::optional<DciRoute> scratch;
    const DciRoute* route = ctx.model.route(a, b, scratch);
    if (!route)
        return;
    for (std::size_t j = 0; j < route->links.size(); ++j) {
        const DciLink* link = ctx.model.link(route->links[j]);
        loads[{link->id, link->a == route->datacenters[j]}] += flows;
    }
}

void addRingLoads(Context& ctx, const std::vector<Id>& dcs, double flows, DciLoads& loads)
{
    for (std::size_t k = 0; k < dcs.size() && dcs.size() > 1; ++k)
        addRouteLoads(ctx, dcs[k], dcs[(k + 1) % dcs.size()], flows, loads);
}

void addRingSpread(Context& ctx, const std::vector<Id>& dcs, double part, DciSpread& spread)
{
    const std::size_t k = dcs.size();
    for (std::size_t e = 0; e < k && k > 1; ++e) {
        std::optional<DciRoute> scratch;
        const DciRoute* route = ctx.model.route(dcs[e], dcs[(e + 1) % k], scratch);
        for (std::size_t j = 0; route && j < route->links.size(); ++j) {
            const DciLink* link = ctx.model.link(route->links[j]);
            if (!link)
                continue;
            const bool fromA = link->a == route->datacenters[j];
            auto it = std::find_if(spread.begin(), spread.end(), [&](const DciLinkShare& d) {
                return d.dciLinkId == link->id && d.fromA == fromA;
            });
            if (it == spread.end())
                it = spread.insert(spread.end(), DciLinkShare{link->id, fromA, 0.0});
            it->share += part / static_cast<double>(k);
        }
    }
}

LevelLink dciLevel(Context& ctx, const std::vector<Id>& dcs, double ownFlows, int participants,
                   const DciLoads* loads, NcclTraffic traffic, std::string_view user, bool oneWay)
{
    DciLoads own;
    if (!loads) {
        if (oneWay && dcs.size() == 2)
            addRouteLoads(ctx, dcs[0], dcs[1], ownFlows, own);
        else
            addRingLoads(ctx, dcs, ownFlows, own);
        loads = &own;
    }
    LevelLink l;
    l.linkClass = LinkClass::Dci;
    l.participants = participants;
    l.bandwidthGBps = std::numeric_limits<double>::infinity();
    const std::size_t hops = oneWay ? 1 : dcs.size();
    for (std::size_t k = 0; k < hops && dcs.size() > 1; ++k) {
        const Id from = dcs[k];
        const Id to = dcs[(k + 1) % dcs.size()];
        std::optional<DciRoute> scratch;
        const DciRoute* route = ctx.model.route(from, to, scratch);
        if (!route) {
            ctx.warnings.push_back(Warning{WarningCode::DciUnreachable}
                                       .count("from_datacenter_id", from)
                                       .count("to_datacenter_id", to));
            l.bandwidthGBps = 0.0;
            continue;
        }
        l.latencyS = std::max(l.latencyS, route->oneWayLatencyS);
        const double rtt = 2.0 * route->oneWayLatencyS;
        for (std::size_t j = 0; j < route->links.size(); ++j) {
            const DciLink* link = ctx.model.link(route->links[j]);
            const auto it = loads->find({link->id, link->a == route->datacenters[j]});
            const double flows = it == loads->end() ? 1.0 : std::max(1.0, it->second);
            // The transport bounds the whole link (dcimodel.h); what it lets through is shared
            // equally by the concurrent flows (max-min fair share).
            const DciConnections connections = dciConnections(*link, flows, traffic);
            const double usable = dciUsableCapacityGBps(*link, rtt, connections);
            if (ctx.wantWarnings)
                noteTransport(ctx, *link, *route, rtt, connections.connections, usable, user);
            const double bw = usable / flows;
            if (bw < l.bandwidthGBps) {
                l.bandwidthGBps = bw;
                l.dciLinkId = link->id;
                l.concurrentFlows = static_cast<int>(std::lround(flows));
            }
        }
    }
    // Traffic reaches the DCI through the top tier of each datacenter's fabric.
    double fabricLatency = 0.0;
    for (const Id dc : dcs) {
        const DcLayout& layout = layoutFor(ctx, dc);
        l.bandwidthGBps =
            std::min(l.bandwidthGBps, layout.fabric.levelGBps(topClass(layout.fabric)));
        fabricLatency =
            std::max(fabricLatency, FabricDesign::levelLatencyS(topClass(layout.fabric)));
    }
    l.latencyS += fabricLatency;
    return l;
}

LevelLink boundaryLink(Context& ctx, const Scenario& scenario, const PlacementShard& shard, int i,
                       bool wrap, const DciLoads& loads)
{
    const auto& sd = shard.stageDatacenters;
    const auto pp = static_cast<int>(sd.size());
    const Id a = sd[static_cast<std::size_t>(i)];
    const Id b = sd[static_cast<std::size_t>((i + 1) % pp)];
    if (a != b) {
        const std::string user =
            ctx.wantWarnings ? "stage " + std::to_string(i) + " → " + std::to_string((i + 1) % pp)
                             : std::string();
        LevelLink l = dciLevel(ctx, {a, b}, 0.0, 2, &loads, NcclTraffic::PointToPoint, user, true);
        l.fromDatacenter = a;
        l.toDatacenter = b;
        return l;
    }
    const DcLayout& layout = layoutFor(ctx, a);
    const FabricDesign& f = layout.fabric;
    const std::int64_t s = stride(scenario.placement.rankOrder, ParallelDim::Pp,
                                  denseSizes(scenario.parallelism, layout));
    // Ranks [start, end) hold the sending and the receiving stage (consecutive local stages).
    const auto local = std::count(sd.begin(), sd.begin() + i, a);
    const std::int64_t start = wrap ? 0 : local * s;
    const std::int64_t end = wrap ? std::count(sd.begin(), sd.end(), a) * s : (local + 2) * s;
    const auto within = [&](std::int64_t span) {
        return span > 0 && start / span == (end - 1) / span;
    };
    const std::int64_t g = f.gpusPerDomain;
    LevelLink l;
    l.participants = 2;
    if (within(g)) {
        l.linkClass = LinkClass::ScaleUp;
        l.bandwidthGBps = layout.scaleUpGBps;
        l.latencyS = kScaleUpStepLatencyS;
        return l;
    }
    const LinkClass cls = f.domainsPerLeaf > 0 && within(f.domainsPerLeaf * g) ? LinkClass::Leaf
                          : f.samePod(start, end - 1)                          ? LinkClass::Spine
                                                                               : LinkClass::Core;
    const bool crossRail = s % g != 0;
    // Every GPU of the stage sends its activations across at once, to one peer.
    return fabricLevel(layout, f.tiers <= 1 ? LinkClass::Leaf : cls, 2, crossRail ? 1.0 : 0.0, 0,
                       1);
}

double allReduceProxyS(const GroupPath& path)
{
    double data = 1e9;
    double t = 0.0;
    for (const LevelLink& l : path.levels) {
        const double p = std::max(1, l.participants);
        if (l.bandwidthGBps <= 0.0)
            return std::numeric_limits<double>::infinity();
        t += 2.0 * (p - 1.0) / p * data / (l.bandwidthGBps * 1e9) + 2.0 * (p - 1.0) * l.latencyS;
        data /= p;
    }
    return t;
}

double transferProxyS(const LevelLink& link)
{
    if (link.bandwidthGBps <= 0.0)
        return std::numeric_limits<double>::infinity();
    return link.latencyS + 1e8 / (link.bandwidthGBps * 1e9);
}

void warnCrossRail(Context& ctx, const DcLayout& layout, const GroupPath& path,
                   const std::string& what)
{
    if (!ctx.wantWarnings)
        return;
    if (layout.fabric.kind != FabricKind::RailOnly)
        return;
    for (const LevelLink& l : path.levels) {
        const double plain = layout.fabric.levelGBps(l.linkClass);
        if (l.linkClass == LinkClass::ScaleUp || l.linkClass == LinkClass::Dci ||
            l.bandwidthGBps >= plain)
            continue;
        ctx.warnings.push_back(Warning{WarningCode::RailOnlyForwarding}
                                   .name("what", what)
                                   .count("datacenter_id", layout.dc->id)
                                   .name("datacenter", layout.dc->name)
                                   .num("forwarded_gbps", l.bandwidthGBps)
                                   .num("plain_gbps", plain)
                                   .num("extra_time_pct", (plain / l.bandwidthGBps - 1.0) * 100.0));
        return;
    }
}

namespace {

// The figures of a level that crosses a DCI link: which link, how far, its per-step latency,
// how many flows share it and what each GPU gets.
Warning withLinkFigures(Context& ctx, Warning w, const LevelLink& link)
{
    Warning out =
        std::move(w).count("link_id", link.dciLinkId).name("link", linkName(ctx, link.dciLinkId));
    if (const DciLink* dci = ctx.model.link(link.dciLinkId))
        out.data.push_back({"distance_km", dci->distanceKm}); // else the text says "?"
    return std::move(out)
        .num("latency_us", link.latencyS * 1e6)
        .count("flows", link.concurrentFlows)
        .num("gpu_gbps", link.bandwidthGBps);
}

} // namespace

void warnBoundary(Context& ctx, int from, int to, const LevelLink& link)
{
    if (!ctx.wantWarnings)
        return;
    // The boundary's route, not only its narrowest link: a boundary between sites without a
    // direct link crosses every link of the shortest route (TopologyGraph::route).
    std::optional<DciRoute> scratch;
    const DciRoute* route = ctx.model.route(link.fromDatacenter, link.toDatacenter, scratch);
    Warning w = Warning{WarningCode::PpCrossesDc}.count("from_stage", from).count("to_stage", to);
    if (route)
        w.data.insert(w.data.end(), {{"route", routeName(ctx.scenario.topology, *route)},
                                     {"route_km", route->distanceKm}});
    ctx.warnings.push_back(std::move(w)
                               .count("link_id", link.dciLinkId)
                               .name("link", linkName(ctx, link.dciLinkId))
                               .num("latency_us", link.latencyS * 1e6)
                               .count("flows", link.concurrentFlows)
                               .num("gpu_gbps", link.bandwidthGBps));
}

void warnShared(Context& ctx, const GroupPath& path, const std::string& what)
{
    if (!ctx.wantWarnings)
        return;
    if (path.levels.empty() || path.levels.back().linkClass != LinkClass::Dci)
        return;
    const LevelLink& l = path.levels.back();
    const DciLink* dci = ctx.model.link(l.dciLinkId);
    if (!dci)
        return;
    const int perGroup = std::max(1, path.size() / std::max(1, l.participants));
    const int groups = std::max(1, l.concurrentFlows / perGroup);
    const double cap = dciCapacityGBps(*dci);
    ctx.warnings.push_back(Warning{WarningCode::DciShared}
                               .name("what", what)
                               .count("groups", groups)
                               .count("link_id", dci->id)
                               .name("link", linkName(ctx, dci->id))
                               .num("capacity_tbps", cap * 8.0 / 1000.0)
                               .num("group_gbps", cap / groups)
                               .num("gpu_gbps", l.bandwidthGBps));
}

void warnSplit(Context& ctx, ParallelDim dim, int degree, const LevelLink& link)
{
    if (!ctx.wantWarnings)
        return;
    const bool tp = dim == ParallelDim::Tp;
    ctx.warnings.push_back(withLinkFigures(
        ctx,
        Warning{tp ? WarningCode::TpCrossesDc : WarningCode::CpCrossesDc}.count("degree", degree),
        link));
}

void warnTransport(Context& ctx)
{
    for (const auto& [id, use] : ctx.transport) {
        const DciLink* link = ctx.model.link(id);
        if (!use.bound || !link)
            continue;
        std::string users;
        for (const std::string& user : use.users)
            users += (users.empty() ? "" : ", ") + user;
        DciRoute route;
        route.datacenters = use.route;
        ctx.warnings.push_back(Warning{WarningCode::DciTransportBound}
                                   .name("transport", toString(link->transport))
                                   .count("link_id", id)
                                   .name("link", linkName(ctx, id))
                                   .num("distance_km", link->distanceKm)
                                   .num("loss", link->packetLossRate)
                                   .num("connections", use.connections)
                                   .num("rtt_ms", use.rttS * 1e3)
                                   .name("route", routeName(ctx.scenario.topology, route))
                                   .num("usable_gbps", use.usableGBps)
                                   .num("capacity_gbps", dciCapacityGBps(*link))
                                   .name("users", std::move(users)));
    }
    ctx.transport.clear();
}

} // namespace archipelago::core::detail
