// Scenarios for the canvas and layout view tests: hierarchical topologies with multiplicities
// (a 100,000-GPU cluster is 19 objects), built in code so each test states what it needs.
#pragma once

#include "model/scenario.h"

#include <string>
#include <vector>

namespace canvasfixtures {

using namespace archipelago;

inline core::Pod pod(core::Id id, int count, int domains, int gpusPerDomain = 8)
{
    core::Pod p;
    p.id = id;
    p.name = "pod-" + std::to_string(id);
    p.count = count;
    p.domainsPerPod = domains;
    p.gpusPerDomain = gpusPerDomain;
    return p;
}

inline core::Datacenter datacenter(core::Id id, core::Id region, double x, double y,
                                   std::vector<core::Pod> pods)
{
    core::Datacenter dc;
    dc.id = id;
    dc.name = "dc-" + std::to_string(id);
    dc.regionId = region;
    dc.accelerator = "H100-SXM";
    dc.pods = std::move(pods);
    dc.x = x;
    dc.y = y;
    return dc;
}

inline core::DciLink link(core::Id id, core::Id a, core::Id b, int wavelengths = 64)
{
    core::DciLink l;
    l.id = id;
    l.a = a;
    l.b = b;
    l.wavelengths = wavelengths;
    l.gbpsPerWavelength = 400;
    l.distanceKm = 10.0 * (id + 1);
    return l;
}

// Four buildings in two regions, 25,088 GPUs each: 100,352 GPUs in 19 objects.
inline core::Topology largeTopology()
{
    core::Topology t;
    t.regions = {{0, "us-east"}, {1, "us-central"}};
    for (core::Id i = 0; i < 4; ++i)
        t.datacenters.push_back(datacenter(i, i / 2, 420.0 * i, (i % 2) * 260.0,
                                           {pod(2 * i, 12, 256), pod(2 * i + 1, 1, 64)}));
    t.links = {link(0, 0, 1), link(1, 1, 2, 16), link(2, 2, 3), link(3, 3, 0, 8),
               link(4, 0, 2, 128)};
    return t;
}

inline core::Scenario scenarioWith(std::vector<std::int64_t> domainsPerDc, int tp, int pp,
                                   int layers)
{
    core::Scenario s;
    for (std::size_t i = 0; i < domainsPerDc.size(); ++i)
        s.topology.datacenters.push_back(
            datacenter(static_cast<core::Id>(i), 0, 0, 0,
                       {pod(static_cast<core::Id>(i), 1, static_cast<int>(domainsPerDc[i]))}));
    s.topology.regions = {{0, "region"}};
    for (std::size_t i = 0; i + 1 < domainsPerDc.size(); ++i)
        s.topology.links.push_back(
            link(static_cast<core::Id>(i), static_cast<core::Id>(i), static_cast<core::Id>(i + 1)));
    s.parallelism.tp = tp;
    s.parallelism.pp = pp;
    s.workload.layers = layers;
    s.workload.globalBatch = 4096;
    return s;
}

} // namespace canvasfixtures
