// What the search makes once and shares between points (docs/explore.md): the placement of each
// value of the placement dimensions (tp, cp, pp, ep, boundary, stage split, rank order, dp) and
// the network figures of each topology variant (DCI transport, wavelengths, fabric kind).
#pragma once

#include "explore/designpoint.h"
#include "explore/searchspace.h"
#include "model/catalog.h"
#include "model/scenario.h"
#include "model/shapecheck.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace archipelago::core {

// Why a point was not evaluated (each counted).
enum class PruneReason
{
    Redundant,      // the same design as another point (v without interleaving, extra without DCI)
    Placement,      // no valid placement of the point's placement dimensions (pointplacement.h)
    GlobalBatch,    // no batch in the allowed range is a multiple of micro_batch * dp
    Shape,          // a divisibility rule (model/shapecheck.h, Megatron's m % p for interleaving)
    Check,          // its scenario is one `check` refuses (core::checkScenario)
    TooLarge,       // more pipeline cells than the search simulates
    Memory,         // the memory lower bound exceeds HBM (explore/memoryestimate.h)
    DciCapacity,    // a DCI link of the topology variant carries less than the floor
    DatacenterGpus, // the placement puts more GPUs in a datacenter than the cap allows
    Bound,          // its lower bounds cannot enter any result (explore/lowerbound.h)
    Count
};
const char* toString(PruneReason reason);

// The placement made for one value of the placement dimensions, or why there is none.
struct PointPlacement
{
    std::optional<Placement> placement;
    PruneReason reason = PruneReason::Placement;
    // The same placement as an earlier boundary or stage split of the same shape: its points
    // are pruned as redundant (the placement is kept to compare later ones with).
    bool redundant = false;
    std::int64_t dataParallel = 0;
    bool pipelineCrossesDatacenter = false;
    bool dataParallelCrossesDatacenters = false; // model/scenario.h
};

// The placement of `point`'s placement dimensions (its other knobs are ignored):
//  - boundary Base: the base's placement, with the point's rank order, re-made for the shape by
//    core::repairPlacement (refused when the repair had to move the batch and `batchFixed`);
//  - Pp / Dp: core::ppAcrossDatacentersWithin (with the stage split: one offset for every
//    boundary, or one per boundary) / dpAcrossDatacentersWithin, within the datacenter caps;
// then the DP degree cut to the point's (replicas taken from the shards in proportion), and the
// result checked as a scenario (core::checkScenario, the batch fitted to DP). `topology`
// Checked: the base's topology has no error under core::checkTopology, and its rules are not
// run again for every placement.
PointPlacement makePointPlacement(const Scenario& base, const Catalog& catalog,
                                  const DesignPoint& point, const SearchSpace& space,
                                  bool batchFixed, TopologyRules topology = TopologyRules::Run);

// The GPU cap of each datacenter, in topology order (the topology's GPUs without a cap).
std::vector<std::int64_t> datacenterCaps(const Scenario& base, const SearchSpace& space);

// One topology variant's figures, from its bill of materials (network/topologymodel.h).
struct TopologyVariant
{
    double networkCapexUsd = 0.0;
    double networkPowerW = 0.0;
    // The smallest DCI link capacity (wavelengths x rate); infinite without links.
    double minDciCapacityGbps = std::numeric_limits<double>::infinity();
    // The same topology as an earlier variant (e.g. a transport on a topology without DCI).
    bool redundant = false;
    // `check` finds on it a problem the base's topology does not have (topologyRefused).
    bool refused = false;
};

// The variant's topology and figures; `redundant` and `refused` are the caller's to set.
TopologyVariant makeTopologyVariant(const Topology& topology, const Catalog& catalog);

// Whether `check` (core::checkScenario) finds on `base` with `topology` an error, or a finding
// under /topology that `base` itself does not draw: the search made it (e.g. more wavelengths
// than a link's line system carries), so no point on that topology is a design to propose.
bool topologyRefused(const Scenario& base, const Topology& topology, const Catalog& catalog);

} // namespace archipelago::core
