#include "network/linktraffic.h"

#include "model/dcilink.h"

#include <algorithm>
#include <map>

namespace archipelago::core {

std::vector<double> levelShares(const GroupPath& path, bool allToAll)
{
    std::vector<double> shares;
    double total = 0.0;
    double inner = 1.0; // product of participants of the levels inside this one
    for (const LevelLink& l : path.levels) {
        const double p = std::max(1, l.participants);
        // all-to-all: peers first reached at this level = inner * (p - 1);
        // ring: (p - 1)/p of the 1/inner data left.
        const double w = allToAll ? inner * (p - 1.0) : (p - 1.0) / p / inner;
        shares.push_back(w);
        total += w;
        inner *= p;
    }
    for (double& s : shares)
        s = total > 0.0 ? s / total : 0.0;
    return shares;
}

namespace {

struct Accumulator
{
    std::map<int, LinkTraffic> classes; // by LinkClass
    std::map<Id, LinkTraffic> dci;      // by link id
    bool exactPipelineDci = false;      // stage boundaries' DCI bytes come per direction

    void add(const LevelLink& l, double bytesPerGpu, double gpus, bool boundary = false,
             const DciSpread* spread = nullptr)
    {
        if (bytesPerGpu <= 0.0)
            return;
        if (l.linkClass == LinkClass::Dci && spread && !spread->empty()) {
            // Every link of every route the group's rings take (placement.h DciSpread).
            const double total = bytesPerGpu * gpus;
            for (const DciLinkShare& d : *spread) {
                LinkTraffic& t = dciLink(d.dciLinkId);
                t.bytesPerIteration += total * d.share;
                (d.fromA ? t.bytesAToB : t.bytesBToA) += total * d.share;
            }
            return;
        }
        if (l.linkClass == LinkClass::Dci && l.dciLinkId >= 0) {
            if (boundary && exactPipelineDci)
                return;
            LinkTraffic& t = dciLink(l.dciLinkId);
            const double total = bytesPerGpu * gpus;
            if (boundary || l.participants <= 2) {
                // A boundary's forward + backward, or a ring over two sites (A->B and B->A on
                // the same link), move as much each way.
                t.bytesPerIteration += total;
                t.bytesAToB += total / 2.0;
                t.bytesBToA += total / 2.0;
            } else {
                // A ring over k sites has k edges, each carrying total / k one way (the
                // placement's DCI level shares each edge's link among that edge's flows,
                // placementlayout.cpp addRingLoads); the bottleneck link carries one of them,
                // counted a -> b.
                const double edge = total / l.participants;
                t.bytesPerIteration += edge;
                t.bytesAToB += edge;
            }
            if (l.bandwidthGBps > 0.0) // without a capacity: the per-GPU share's time
                t.busyS += bytesPerGpu / (l.bandwidthGBps * 1e9);
            return;
        }
        LinkTraffic& t = classes[static_cast<int>(l.linkClass)];
        t.linkClass = l.linkClass;
        t.bytesPerIteration += bytesPerGpu * gpus;
        if (l.bandwidthGBps > 0.0)
            t.busyS += bytesPerGpu / (l.bandwidthGBps * 1e9);
    }
    void addPath(const GroupPath& path, double bytesPerGpu, double gpus, bool allToAll,
                 const DciSpread& spread)
    {
        const auto shares = levelShares(path, allToAll);
        for (std::size_t i = 0; i < shares.size(); ++i)
            add(path.levels[i], bytesPerGpu * shares[i], gpus, false, &spread);
    }
    LinkTraffic& dciLink(Id id)
    {
        LinkTraffic& t = dci[id];
        t.linkClass = LinkClass::Dci;
        t.dciLinkId = id;
        return t;
    }
};

} // namespace

std::vector<LinkTraffic> linkTraffic(const Scenario& scenario, const PlacementAnalysis& placement,
                                     const GroupBytes& bytesPerGpu, double iterationTimeS,
                                     const Topology* routed)
{
    const Parallelism& par = scenario.parallelism;
    const auto dp = static_cast<double>(dataParallel(scenario));
    const double stageGpus = static_cast<double>(par.tp) * par.cp * dp; // GPUs of one stage
    const double gpus = stageGpus * std::max(1, par.pp);
    Accumulator acc;
    acc.exactPipelineDci = !bytesPerGpu.pipelineDci.empty();
    for (const DirectedLinkBytes& d : bytesPerGpu.pipelineDci) {
        LinkTraffic& t = acc.dciLink(d.dciLinkId);
        t.bytesPerIteration += d.bytes;
        (d.fromA ? t.bytesAToB : t.bytesBToA) += d.bytes;
    }
    acc.addPath(placement.tp, bytesPerGpu.tp, gpus, false, placement.tpDci);
    acc.addPath(placement.cp, bytesPerGpu.cp, gpus, false, placement.cpDci);
    acc.addPath(placement.ep, bytesPerGpu.ep, gpus, true, placement.epDci);
    const int instances = optimizerInstances(par);
    // DiLoCo (evaluation/loosesync.h): each step's collectives inside the datacenters, the
    // outer all-reduce (tallied as across instances) over the DCI.
    const bool loose =
        par.datacenterSync.scheme != DatacenterSync::Synchronous && placement.dp.crossesDci();
    if (loose) {
        GroupPath inner;
        GroupPath outer;
        splitAtDatacenters(placement.dp, inner, outer);
        acc.addPath(inner, bytesPerGpu.dp, gpus, false, placement.dpDci);
        acc.addPath(outer, bytesPerGpu.dpAcrossInstances, gpus, false, placement.dpDci);
        splitAtDatacenters(placement.expertDp, inner, outer);
        acc.addPath(inner, bytesPerGpu.expertDp, gpus, false, placement.dpDci);
        acc.addPath(outer, bytesPerGpu.expertDpAcrossInstances, gpus, false, placement.dpDci);
    } else if (instances > 1) {
        GroupPath inner;
        GroupPath outer;
        splitGroupPath(placement.dp, instances, inner, outer);
        acc.addPath(inner, bytesPerGpu.dp, gpus, false, placement.dpDci);
        acc.addPath(outer, bytesPerGpu.dpAcrossInstances, gpus, false, placement.dpDci);
        splitGroupPath(placement.expertDp, instances, inner, outer);
        acc.addPath(inner, bytesPerGpu.expertDp, gpus, false, placement.dpDci);
        acc.addPath(outer, bytesPerGpu.expertDpAcrossInstances, gpus, false, placement.dpDci);
    } else {
        acc.addPath(placement.dp, bytesPerGpu.dp, gpus, false, placement.dpDci);
        acc.addPath(placement.expertDp, bytesPerGpu.expertDp, gpus, false, placement.dpDci);
    }
    const std::size_t n =
        std::min(placement.stageBoundaries.size(), bytesPerGpu.stageBoundary.size());
    for (std::size_t i = 0; i < n; ++i)
        acc.add(placement.stageBoundaries[i], bytesPerGpu.stageBoundary[i], stageGpus, true);
    acc.add(placement.wrapBoundary, bytesPerGpu.wrapBoundary, stageGpus, true);

    std::vector<LinkTraffic> out;
    for (auto& [cls, t] : acc.classes)
        out.push_back(t);
    for (auto& [id, t] : acc.dci) {
        // A DCI link's two directions each carry its capacity: busy = bytes /
        // capacity per direction, the busier one counts.
        const DciLink* link = findLink(routed ? *routed : scenario.topology, id);
        const double capacity = link ? dciCapacityGBps(*link) * 1e9 : 0.0;
        if (capacity > 0.0) {
            t.busyAToBS = t.bytesAToB / capacity;
            t.busyBToAS = t.bytesBToA / capacity;
            t.busyS = std::max(t.busyAToBS, t.busyBToAS);
        }
        out.push_back(t);
    }
    for (LinkTraffic& t : out)
        t.utilisation = iterationTimeS > 0.0 ? std::min(1.0, t.busyS / iterationTimeS) : 0.0;
    return out;
}

} // namespace archipelago::core
