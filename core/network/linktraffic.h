// Traffic and utilisation per link class and per DCI link, from the placement
// and the bytes the cost model says each group moves per iteration. A pure function: the cost
// model calls it after it has the iteration time.
#pragma once

#include "model/evaluation.h"
#include "model/scenario.h"
#include "network/placement.h"

#include <vector>

namespace archipelago::core {

// Bytes ONE GPU sends per iteration in each group's collectives, summed over the whole
// hierarchical collective (all levels), e.g. for a ring all-reduce of S bytes over n GPUs,
// 2(n-1)/n * S per call times calls per iteration. linkTraffic() splits it over the levels.
// Bytes one direction of a DCI link carries (from its end `a` to `b`, or back).
struct DirectedLinkBytes
{
    Id dciLinkId = -1;
    bool fromA = true;
    double bytes = 0.0;
};

struct GroupBytes
{
    double tp = 0.0;
    double cp = 0.0;
    double ep = 0.0; // all-to-all
    double dp = 0.0;
    double expertDp = 0.0;
    // With distributed-optimizer instances: dp and expertDp hold what runs inside an instance,
    // these the all-reduce of the shards across instances (network/placement.h splitGroupPath).
    double dpAcrossInstances = 0.0;
    double expertDpAcrossInstances = 0.0;
    std::vector<double> stageBoundary; // per boundary i -> i+1, forward + backward (size pp-1)
    double wrapBoundary = 0.0;         // interleaved schedules only
    // Pipeline transfers per DCI link direction, summed over all GPUs, per iteration, from each
    // shard's route (the stage pass fills it). When not empty it replaces the stage
    // boundaries' DCI levels (which assume every replica crosses, split evenly each way).
    std::vector<DirectedLinkBytes> pipelineDci;
};

// One LinkTraffic per link class that carries traffic (ScaleUp, Leaf, Spine, Core) and one per
// DCI link (dciLinkId >= 0), in that order. bytesPerIteration sums over all GPUs; busyS is the
// time the busiest link of the class is busy (per-GPU bytes at a level / the level's per-GPU
// bandwidth, which already includes sharing); utilisation = busyS / iterationTimeS, at most 1.
// A collective's DCI bytes go to every link of every route its rings take, one way per ring
// edge (PlacementAnalysis::tpDci ... dpDci); a placement without them (built by hand) charges
// its level's bottleneck link. A DCI link gets its bytes and busy time per direction (bytes /
// capacity per direction, busyS the busier one), with the pipeline's transfers taken per
// direction from GroupBytes::pipelineDci.
//
// `routed`: the topology the routes ran on (TopologyModel::routedTopology), whose DCI links
// (parallel ones bundled) the traffic is on; the scenario's own topology when it has no bundle.
//
//   std::vector<LinkTraffic> linkTraffic(const Scenario&, const PlacementAnalysis&,
//                                        const GroupBytes& bytesPerGpu, double iterationTimeS);
std::vector<LinkTraffic> linkTraffic(const Scenario& scenario, const PlacementAnalysis& placement,
                                     const GroupBytes& bytesPerGpu, double iterationTimeS,
                                     const Topology* routed = nullptr);

// Fraction of a GPU's collective bytes sent at each level of `path` (sums to 1): hierarchical
// ring collectives move (p_i - 1)/p_i of the data left at level i, which shrinks by p_i per
// level (Thakur, Rabenseifner, Gropp 2005, section 4); an all-to-all sends to each peer equally,
// so level i carries the share of peers first reached there.
std::vector<double> levelShares(const GroupPath& path, bool allToAll);

} // namespace archipelago::core
