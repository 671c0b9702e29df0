#include "model/scenariotemplates.h"

#include <algorithm>
#include <string>

namespace archipelago::core {

Scenario minimalScenario()
{
    Scenario s;
    s.name = "Empty";
    s.description = "A minimal scenario to build a design from: one 8-GPU domain.";

    s.topology.regions.push_back({0, "region-1"});
    Datacenter dc;
    dc.id = 0;
    dc.name = "dc-1";
    dc.regionId = 0;
    dc.accelerator = "H100-SXM5-80GB";
    dc.fabric.kind = FabricKind::Clos;
    dc.fabric.tiers = 2;
    dc.fabric.switchModel = "64x400G-25.6T";
    dc.fabric.nicModel = "ConnectX-7-400G";
    dc.pods.push_back({0, "pod-1", 1, 1, 8});
    s.topology.datacenters.push_back(dc);

    Workload& w = s.workload;
    w.name = "tiny";
    w.layers = 4;
    w.hidden = 1024;
    w.heads = 8;
    w.kvHeads = 8;
    w.ffnHidden = 4096;
    w.vocab = 32000;
    w.seqLen = 2048;
    w.globalBatch = 8; // micro_batch 1 * dp 8
    w.trainTokens = 1e9;

    s.placement.shards.push_back({8, {0}});
    return s;
}

Region newRegion(const Topology& topology)
{
    Region region;
    region.id = nextRegionId(topology);
    for (std::size_t n = topology.regions.size() + 1;; ++n) {
        region.name = "region-" + std::to_string(n);
        if (std::none_of(topology.regions.begin(), topology.regions.end(),
                         [&region](const Region& r) { return r.name == region.name; }))
            return region;
    }
}

} // namespace archipelago::core
