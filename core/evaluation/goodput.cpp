#include "evaluation/goodput.h"

#include "compute/memorymodel.h"
#include "compute/modelflops.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

Goodput goodput(const Scenario& s, const Evaluation& ev, const ReliabilityAssumptions& a)
{
    Goodput g;
    const auto gpus = static_cast<double>(ev.gpus);
    const double hosts = std::ceil(gpus / std::max(1, a.gpusPerHost));
    for (const FailureCause& c : a.causes)
        g.interruptionsPerDay += c.perUnitPerDay() * (c.unit == FailureUnit::Gpu ? gpus : hosts);
    g.mtbfS = g.interruptionsPerDay > 0.0 ? kDayS / g.interruptionsPerDay : kInfinity;

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
    g.restartS = a.relaunchS + a.communicatorInitS + readS;

    // With DiLoCo each datacenter's replicas step on their own between outer steps, so an
    // interruption stops only its datacenter while the others go on (Douillard et al. 2023,
    // figure 8: training holds its loss when outer gradients of replicas are dropped): Daly's
    // process runs per datacenter, at its own failure rate; the largest decides. The convergence
    // cost of the missing replica's few outer steps is not counted.
    const DatacenterSyncResult& sync = ev.datacenterSync;
    if (sync.scheme != DatacenterSync::Synchronous && sync.replicas > 1)
        g.stalledShare = largestShare;
    const double stallMtbfS = g.mtbfS < kInfinity ? g.mtbfS / g.stalledShare : kInfinity;
    // The user's interval, or Daly's optimum. A checkpoint is taken between iterations, and
    // the next cannot start before the last one is on storage.
    const double chosenS = s.workload.checkpointIntervalS > 0.0
                               ? s.workload.checkpointIntervalS
                               : dalyIntervalS(g.checkpointBlockingS, stallMtbfS);
    g.checkpointIntervalS = std::max(chosenS, std::max(ev.iterationTimeS, g.checkpointWriteS));

    // Loosely coupled training reaches synchronous training's loss in more steps
    // (evaluation/loosesync.h): the work to do grows by that factor.
    g.usefulS = ev.timeToTrainS;
    const double solveS = ev.timeToTrainS * std::max(1.0, sync.computeMultiplier);
    g.convergenceS = solveS - g.usefulS;
    if (!(solveS > 0.0) || !(g.checkpointIntervalS > 0.0)) {
        g.effectiveTimeToTrainS = solveS;
        g.effectiveGpuHours = solveS * gpus / 3600.0;
        return g;
    }
    const double wallS =
        dalyWallTimeS(solveS, g.checkpointIntervalS, g.checkpointBlockingS, g.restartS, stallMtbfS);
    g.effectiveTimeToTrainS = wallS;
    g.ettr = std::isfinite(wallS) && wallS > 0.0 ? solveS / wallS : 0.0;
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
