#include "evaluation/goodput.h"

#include "compute/memorymodel.h"
#include "compute/modelflops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

namespace archipelago::core {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kDayS = 86400.0;

// The largest share of the job's GPUs in one datacenter, from the GPUs the placement puts in
// each (placedGpusPerDatacenter: split shards included).
double largestDatacenterShare(const std::vector<std::int64_t>& placed, double gpus)
{
    if (!(gpus > 0.0))
        return 1.0;
    const auto most = std::max_element(placed.begin(), placed.end());
    return most == placed.end() ? 1.0 : static_cast<double>(*most) / gpus;
}

bool isDci(FailureUnit u)
{
    return u == FailureUnit::DciKm || u == FailureUnit::Wavelength;
}

// The busiest link's utilisation of a class, or of one DCI hop (`link` >= 0).
double utilisation(const Evaluation& ev, LinkClass linkClass, Id link = -1)
{
    double u = 0.0;
    for (const LinkTraffic& t : ev.traffic)
        if (t.linkClass == linkClass && (link < 0 || t.dciLinkId == link))
            u = std::max(u, t.utilisation);
    return u;
}

// A copy of each building's share of a checkpoint in the nearest other building (by route),
// over the DCI in what the training traffic leaves of each link direction: the line rate less
// training's mean rate in that direction. Returns the bytes that cross the DCI per checkpoint
// and the time the most loaded link direction takes; the time is infinite when a link has
// nothing left, and both are {0, infinite} when a building with GPUs reaches no other one.
std::pair<double, double> remoteReplica(const Scenario& s, const Evaluation& ev,
                                        const TopologyModel& topology,
                                        const std::vector<std::int64_t>& placed, double gpus,
                                        double checkpointBytes)
{
    struct Load
    {
        Id link = -1;
        bool aToB = true;
        double bytes = 0.0;
    };
    std::vector<Load> loads;
    double crossing = 0.0;
    bool unreachable = false;
    const std::vector<Datacenter>& dcs = s.topology.datacenters;
    for (std::size_t i = 0; i < placed.size() && i < dcs.size() && gpus > 0.0; ++i) {
        if (placed[i] <= 0)
            continue;
        std::optional<DciRoute> scratch;
        std::optional<DciRoute> nearest;
        for (std::size_t j = 0; j < dcs.size(); ++j) {
            if (j == i)
                continue;
            const DciRoute* r = topology.route(dcs[i].id, dcs[j].id, scratch);
            if (r && !r->links.empty() && (!nearest || r->distanceKm < nearest->distanceKm))
                nearest = *r;
        }
        if (!nearest) {
            unreachable = true;
            continue;
        }
        const double bytes = checkpointBytes * static_cast<double>(placed[i]) / gpus;
        crossing += bytes;
        for (std::size_t k = 0; k < nearest->links.size(); ++k) {
            const DciLink* link = topology.link(nearest->links[k]);
            if (!link)
                continue;
            const bool aToB = link->a == nearest->datacenters[k];
            auto it = std::find_if(loads.begin(), loads.end(), [&](const Load& l) {
                return l.link == link->id && l.aToB == aToB;
            });
            if (it == loads.end())
                it = loads.insert(loads.end(), Load{link->id, aToB, 0.0});
            it->bytes += bytes;
        }
    }
    if (unreachable) // no bytes: nothing crosses for the buildings that cannot copy
        return {0.0, kInfinity};
    double copyS = 0.0;
    for (const Load& l : loads) {
        const DciLink* link = topology.link(l.link);
        const double lineBytesPerS =
            std::max(0, link->wavelengths) * link->gbpsPerWavelength / 8.0 * 1e9;
        double trainingBytesPerS = 0.0;
        for (const LinkTraffic& t : ev.traffic)
            if (t.linkClass == LinkClass::Dci && t.dciLinkId == l.link && ev.iterationTimeS > 0.0)
                trainingBytesPerS = (l.aToB ? t.bytesAToB : t.bytesBToA) / ev.iterationTimeS;
        const double spare = lineBytesPerS - trainingBytesPerS;
        copyS = std::max(copyS, spare > 0.0 ? l.bytes / spare : kInfinity);
    }
    return {crossing, copyS};
}

// The most a job slows while `share` (< 1) of a tier's capacity is missing, when the tier's
// busiest link is busy `u` of the iteration: that link's traffic takes 1 / (1 - share) as
// long, and at worst none of it was hidden behind compute. An upper bound.
double slowdownBound(double u, double share)
{
    return u * share / (1.0 - share);
}

} // namespace

double modelParams(const Workload& w)
{
    Parallelism whole;
    int moeLayers = 0;
    for (int i = 0; i < w.layers; ++i)
        moeLayers += isMoeLayer(w, i) ? 1 : 0;
    const auto params = [&](bool moe) {
        const LayerParams p = layerParamsPerGpu(w, whole, moe);
        return p.dense + p.expert;
    };
    double total = static_cast<double>(w.layers - moeLayers) * params(false);
    if (moeLayers > 0)
        total += static_cast<double>(moeLayers) * params(true);
    return total + vocabParamsPerGpu(w, whole) * (w.tiedEmbeddings ? 1.0 : 2.0);
}

const ReliabilityAssumptions& reliabilityOf(const Catalog& catalog)
{
    static const ReliabilityAssumptions kNone{};
    return catalog.reliability ? *catalog.reliability : kNone;
}

double dalyIntervalS(double checkpointS, double mtbfS)
{
    if (!(mtbfS < kInfinity))
        return kInfinity;
    const double d = std::max(0.0, checkpointS);
    if (d >= 2.0 * mtbfS)
        return mtbfS;
    const double x = d / (2.0 * mtbfS);
    return std::sqrt(2.0 * d * mtbfS) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d;
}

double dalyWallTimeS(double solveS, double intervalS, double checkpointS, double restartS,
                     double mtbfS)
{
    if (!(mtbfS < kInfinity))
        return solveS + (intervalS < kInfinity ? solveS / intervalS * checkpointS : 0.0);
    const double m = mtbfS;
    // expm1 keeps the small-exponent case exact (tau + d << M).
    return m * std::exp(restartS / m) * std::expm1((intervalS + checkpointS) / m) * solveS /
           intervalS;
}

double communicatorInitS(const ReliabilityAssumptions& a, double gpus)
{
    return a.communicatorInitS + a.communicatorInitSPer1kGpus * std::max(0.0, gpus) / 1000.0;
}

namespace {

// failureExposures into `out` (cleared), with the GPUs the placement puts in each datacenter.
void exposuresInto(std::vector<FailureExposure>& out, const Scenario& s, const Evaluation& ev,
                   const ReliabilityAssumptions& a, const TopologyModel& topology,
                   const std::vector<std::int64_t>& placed)
{
    out.clear();
    if (a.causes.empty())
        return;
    // With DiLoCo the buildings train on their own between outer steps: an event that only
    // cuts them apart delays the outer step and stops no one.
    const DatacenterSyncResult& sync = ev.datacenterSync;
    const bool loose = sync.scheme != DatacenterSync::Synchronous && sync.replicas > 1;
    const std::vector<Datacenter>& dcs = s.topology.datacenters;
    // The DCI hops the job's traffic crosses (routed links: parallel links bundled). One
    // buffer per thread: no allocation once it has grown.
    thread_local std::vector<const DciLink*> hops;
    hops.clear();
    for (const LinkTraffic& t : ev.traffic)
        if (t.linkClass == LinkClass::Dci && t.dciLinkId >= 0 && t.bytesPerIteration > 0.0)
            if (const DciLink* hop = topology.link(t.dciLinkId))
                hops.push_back(hop);
    // A building with the job's GPUs, or one its traffic passes through (a hop's end).
    const auto inUse = [&](std::size_t i) {
        if (i < placed.size() && placed[i] > 0)
            return true;
        return std::any_of(hops.begin(), hops.end(), [&](const DciLink* h) {
            return h->a == dcs[i].id || h->b == dcs[i].id;
        });
    };

    for (std::size_t ci = 0; ci < a.causes.size(); ++ci) {
        const FailureCause& c = a.causes[ci];
        const double rate = c.perUnitPerDay();
        const double repairS = c.repairH * 3600.0;
        const auto add = [&](Id dc, Id link, double units, FailureEffect effect, bool absorbed,
                             double share, double u) {
            if (!(units > 0.0))
                return;
            const bool protectedRoute = c.unit == FailureUnit::DciKm && absorbed;
            FailureExposure e;
            e.cause = ci;
            e.datacenter = dc;
            e.link = link;
            e.units = units;
            e.perDay = rate * units;
            // A unit that is its tier's only path takes the tier down: the job stops.
            e.effect = effect == FailureEffect::Degrade && share >= 1.0 ? FailureEffect::Interrupt
                                                                        : effect;
            e.absorbed =
                absorbed || (loose && isDci(c.unit) && e.effect == FailureEffect::Interrupt);
            e.protectedRoute = protectedRoute;
            e.repairS = repairS;
            if (e.effect == FailureEffect::Degrade) {
                e.capacityShare = share;
                e.slowdown = slowdownBound(u, share);
            }
            out.push_back(e);
        };
        switch (c.unit) {
        case FailureUnit::Gpu:
        case FailureUnit::Host:
        case FailureUnit::Port:
        case FailureUnit::LeafSwitch:
        case FailureUnit::SpineSwitch:
        case FailureUnit::CoreSwitch:
            for (std::size_t i = 0; i < placed.size() && i < dcs.size(); ++i) {
                if (placed[i] <= 0)
                    continue;
                const auto gpus = static_cast<double>(placed[i]);
                const FabricDesign* f = topology.fabric(dcs[i].id);
                // The job's share of the building's fabric: its switches in proportion.
                const double fabricShare =
                    f && f->gpus > 0 ? std::min(1.0, gpus / static_cast<double>(f->gpus)) : 0.0;
                const auto switches = [&](std::int64_t n) {
                    return std::ceil(static_cast<double>(n) * fabricShare - 1e-9);
                };
                const Id id = dcs[i].id;
                switch (c.unit) {
                case FailureUnit::Gpu:
                    add(id, -1, gpus, FailureEffect::Interrupt, false, 1.0, 0.0);
                    break;
                case FailureUnit::Host:
                    add(id, -1, std::ceil(gpus / std::max(1, a.gpusPerHost)),
                        FailureEffect::Interrupt, false, 1.0, 0.0);
                    break;
                case FailureUnit::Port:
                    add(id, -1, gpus * static_cast<double>(f ? f->portsPerGpu : 1),
                        FailureEffect::Interrupt, false, 1.0, 0.0);
                    break;
                case FailureUnit::LeafSwitch:
                    if (f)
                        add(id, -1, switches(f->leaves), FailureEffect::Interrupt, false, 1.0, 0.0);
                    break;
                case FailureUnit::SpineSwitch:
                    // A leaf spreads its uplinks over its pod's spines (ECMP): one spine is
                    // 1 / (spines per pod) of every leaf's uplink capacity in that plane.
                    if (f && f->plane.spines > 0)
                        add(id, -1, switches(f->spines), c.effect, false,
                            static_cast<double>(std::max<std::int64_t>(1, f->plane.pods)) /
                                static_cast<double>(f->plane.spines),
                            std::max(utilisation(ev, LinkClass::Spine),
                                     utilisation(ev, LinkClass::Core)));
                    break;
                case FailureUnit::CoreSwitch:
                    if (f && f->plane.cores > 0)
                        add(id, -1, switches(f->cores), c.effect, false,
                            1.0 / static_cast<double>(f->plane.cores),
                            utilisation(ev, LinkClass::Core));
                    break;
                default:
                    break;
                }
            }
            break;
        case FailureUnit::Datacenter:
            for (std::size_t i = 0; i < dcs.size(); ++i)
                if (inUse(i)) // a transit building's outage only cuts the route, as a fibre would
                    add(dcs[i].id, -1, 1.0, FailureEffect::Interrupt,
                        loose && (i >= placed.size() || placed[i] <= 0), 1.0, 0.0);
            break;
        case FailureUnit::DciKm:
            // Each fibre route of the hop: a parallel link of a bundle is a route of its own.
            // Cutting the hop's only route stops the job until it is repaired; cutting one of
            // several takes its wavelengths away; a protected route switches over.
            for (const DciLink* hop : hops) {
                const auto routes = static_cast<std::size_t>(
                    std::count_if(s.topology.links.begin(), s.topology.links.end(),
                                  [&](const DciLink& l) { return bundleAlike(l, *hop); }));
                const double total = static_cast<double>(std::max(1, hop->wavelengths));
                for (const DciLink& r : s.topology.links)
                    if (bundleAlike(r, *hop))
                        add(-1, hop->id, r.distanceKm,
                            routes > 1 ? FailureEffect::Degrade : FailureEffect::Interrupt,
                            r.opticalProtection,
                            routes > 1 ? std::max(0, r.wavelengths) / total : 1.0,
                            utilisation(ev, LinkClass::Dci, hop->id));
            }
            break;
        case FailureUnit::Wavelength:
            for (const DciLink* hop : hops) {
                const int w = std::max(1, hop->wavelengths);
                add(-1, hop->id, static_cast<double>(w), FailureEffect::Degrade, false,
                    1.0 / static_cast<double>(w), utilisation(ev, LinkClass::Dci, hop->id));
            }
            break;
        }
    }
}

} // namespace

std::vector<FailureExposure> failureExposures(const Scenario& s, const Evaluation& ev,
                                              const ReliabilityAssumptions& a,
                                              const TopologyModel& topology)
{
    std::vector<FailureExposure> out;
    exposuresInto(out, s, ev, a, topology, placedGpusPerDatacenter(s));
    return out;
}

Goodput goodput(const Scenario& s, const Evaluation& ev, const ReliabilityAssumptions& a,
                const Catalog& catalog)
{
    const TopologyModel topology(s.topology, catalog, TopologyModel::Ownership::Borrow, false);
    return goodput(s, ev, a, topology);
}

Goodput goodput(const Scenario& s, const Evaluation& ev, const ReliabilityAssumptions& a,
                const TopologyModel& topology)
{
    Goodput g;
    const auto gpus = static_cast<double>(ev.gpus);

    // Every datacenter writes (and on restart reads) the state its GPUs hold to its own storage,
    // in proportion to its GPUs, at its own bandwidth (the catalog's unless the datacenter sets
    // one); the slowest decides.
    g.checkpointBytes = modelParams(s.workload) * a.checkpointBytesPerParam;
    const std::vector<std::int64_t> placed = placedGpusPerDatacenter(s);
    const double largestShare = largestDatacenterShare(placed, gpus);
    double readS = 0.0;
    const auto transfer = [&](double bytes, double ownGBps, double catalogGBps) {
        const double gbps = ownGBps > 0.0 ? ownGBps : catalogGBps;
        return gbps > 0.0 ? bytes / (gbps * 1e9) : 0.0;
    };
    const auto& dcs = s.topology.datacenters;
    bool anyPlaced = false;
    for (std::size_t i = 0; i < placed.size() && i < dcs.size() && gpus > 0.0; ++i) {
        if (placed[i] <= 0)
            continue;
        anyPlaced = true;
        const double bytes = g.checkpointBytes * static_cast<double>(placed[i]) / gpus;
        g.checkpointWriteS = std::max(g.checkpointWriteS,
                                      transfer(bytes, dcs[i].storageWriteGBps, a.storageWriteGBps));
        readS = std::max(readS, transfer(bytes, dcs[i].storageReadGBps, a.storageReadGBps));
    }
    if (!anyPlaced) { // nothing placed: the whole state at the catalog's bandwidth
        g.checkpointWriteS = transfer(g.checkpointBytes, 0.0, a.storageWriteGBps);
        readS = transfer(g.checkpointBytes, 0.0, a.storageReadGBps);
    }
    // Asynchronous: training waits only for each GPU's copy of its shard to host memory.
    const double shardBytes = gpus > 0.0 ? g.checkpointBytes / gpus : 0.0;
    g.checkpointBlockingS = s.workload.checkpointAsynchronous && a.deviceToHostGBps > 0.0
                                ? shardBytes / (a.deviceToHostGBps * 1e9)
                                : g.checkpointWriteS;
    const double baseRestartS = a.relaunchS + communicatorInitS(a, gpus) + readS;
    if (s.workload.checkpointRemoteReplica)
        std::tie(g.replicaBytes, g.replicaS) =
            remoteReplica(s, ev, topology, placed, gpus, g.checkpointBytes);

    // With DiLoCo each datacenter's replicas step on their own between outer steps, so an
    // interruption stops only its datacenter while the others go on (Douillard et al. 2023,
    // figure 8: training holds its loss when outer gradients of replicas are dropped): Daly's
    // process runs per datacenter, at its own failure rate; the most exposed decides. The
    // convergence cost of the missing replica's few outer steps is not counted.
    const DatacenterSyncResult& sync = ev.datacenterSync;
    const bool loose = sync.scheme != DatacenterSync::Synchronous && sync.replicas > 1;
    if (loose)
        g.stalledShare = largestShare;
    struct Stall
    {
        Id datacenter = -1;
        double perDay = 0.0;
        double restartWeightedS = 0.0; // sum of rate x restart
    };
    // Per datacenter under DiLoCo; one for the whole job otherwise.
    thread_local std::vector<Stall> stalls;
    stalls.clear();
    double degradedFraction = 0.0;
    // One buffer per thread: an evaluation allocates none once it has grown.
    thread_local std::vector<FailureExposure> exposures;
    exposuresInto(exposures, s, ev, a, topology, placed);
    for (const FailureExposure& e : exposures) {
        if (e.absorbed) {
            g.absorbedPerDay += e.perDay;
            continue;
        }
        if (e.effect == FailureEffect::Degrade) {
            // Expected units missing at a time (rate x repair), each slowing the job so much.
            g.degradationsPerDay += e.perDay;
            degradedFraction += e.perDay * e.repairS / kDayS * e.slowdown;
            continue;
        }
        g.interruptionsPerDay += e.perDay;
        switch (a.causes[e.cause].unit) {
        case FailureUnit::Gpu:
        case FailureUnit::Host:
            g.serverInterruptionsPerDay += e.perDay;
            break;
        case FailureUnit::DciKm:
        case FailureUnit::Wavelength:
            g.dciInterruptionsPerDay += e.perDay;
            break;
        case FailureUnit::Datacenter:
            g.buildingInterruptionsPerDay += e.perDay;
            break;
        default:
            g.fabricInterruptionsPerDay += e.perDay;
            break;
        }
        const Id key = loose ? e.datacenter : -1;
        auto it = std::find_if(stalls.begin(), stalls.end(),
                               [&](const Stall& st) { return st.datacenter == key; });
        if (it == stalls.end())
            it = stalls.insert(stalls.end(), Stall{key, 0.0, 0.0});
        it->perDay += e.perDay;
        it->restartWeightedS += e.perDay * (baseRestartS + e.repairS);
    }
    g.mtbfS = g.interruptionsPerDay > 0.0 ? kDayS / g.interruptionsPerDay : kInfinity;
    const auto worst =
        std::max_element(stalls.begin(), stalls.end(),
                         [](const Stall& x, const Stall& y) { return x.perDay < y.perDay; });
    const double stallPerDay = worst == stalls.end() ? 0.0 : worst->perDay;
    const double stallMtbfS = stallPerDay > 0.0 ? kDayS / stallPerDay : kInfinity;
    g.restartS = stallPerDay > 0.0 ? worst->restartWeightedS / stallPerDay : baseRestartS;

    // The user's interval, or Daly's optimum. A checkpoint is taken between iterations, and
    // the next cannot start before the last one is on storage, and copied to the other
    // building when asked (a copy that cannot be made is said, and not waited for).
    const double chosenS = s.workload.checkpointIntervalS > 0.0
                               ? s.workload.checkpointIntervalS
                               : dalyIntervalS(g.checkpointBlockingS, stallMtbfS);
    const double replicaS = std::isfinite(g.replicaS) ? g.replicaS : 0.0;
    g.checkpointIntervalS =
        std::max(chosenS, std::max(ev.iterationTimeS, g.checkpointWriteS + replicaS));

    // Loosely coupled training reaches synchronous training's loss in more steps
    // (evaluation/loosesync.h): the work to do grows by that factor, and by the time the job
    // runs slower while a degrading failure is repaired.
    g.usefulS = ev.timeToTrainS;
    const double trainS = ev.timeToTrainS * std::max(1.0, sync.computeMultiplier);
    g.convergenceS = trainS - g.usefulS;
    g.degradedS = trainS * degradedFraction;
    const double solveS = trainS + g.degradedS;
    if (!(solveS > 0.0) || !(g.checkpointIntervalS > 0.0)) {
        g.effectiveTimeToTrainS = solveS;
        g.effectiveGpuHours = solveS * gpus / 3600.0;
        return g;
    }
    const double wallS =
        dalyWallTimeS(solveS, g.checkpointIntervalS, g.checkpointBlockingS, g.restartS, stallMtbfS);
    g.effectiveTimeToTrainS = wallS;
    g.ettr = std::isfinite(wallS) && wallS > 0.0 ? trainS / wallS : 0.0;
    g.effectiveGpuHours = wallS * gpus / 3600.0;
    if (g.checkpointIntervalS < kInfinity)
        g.checkpointS = solveS / g.checkpointIntervalS * g.checkpointBlockingS;
    // What failures cost: each a restart and, on average, the half interval (and checkpoint)
    // since the last checkpoint (Daly 2006, section 3, to first order): the rest of the wall
    // time splits in that proportion.
    if (stallMtbfS < kInfinity && std::isfinite(wallS)) {
        const double rest = std::max(0.0, wallS - solveS - g.checkpointS);
        const double lostPerFailureS = (g.checkpointIntervalS + g.checkpointBlockingS) / 2.0;
        const double perFailureS = g.restartS + lostPerFailureS;
        g.restartTotalS = perFailureS > 0.0 ? rest * g.restartS / perFailureS : 0.0;
        g.lostWorkS = rest - g.restartTotalS;
    }
    return g;
}

} // namespace archipelago::core
