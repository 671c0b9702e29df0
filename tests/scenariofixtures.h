// Scenarios built in code for the tests. The I/O ones are valid without the built-in catalog
// (they carry their own catalog entries) and have every field away from its default, so that a
// field the reader or writer forgets breaks the round trip.
#pragma once

#include "model/scenario.h"

namespace archipelago::tests {

inline core::Catalog fixtureCatalog()
{
    using namespace core;
    Catalog c;
    AcceleratorSpec gpu;
    gpu.name = "TEST-GPU-80GB";
    gpu.generation = "test";
    gpu.peakTflopsBf16 = 989.5;
    gpu.peakTflopsFp8 = 1979;
    gpu.hbmGib = 80;
    gpu.hbmGBps = 3350;
    gpu.scaleUpGBpsPerDirection = 450;
    gpu.scaleUpDomainGpus = 8;
    gpu.sms = 132;
    gpu.nicGbps = 400;
    gpu.watts = 700;
    gpu.priceUsd = 25000;
    gpu.efficiency.gemmPeakEfficiency = 0.75;
    gpu.efficiency.gemmHalfDim = 640.0;
    gpu.efficiency.memoryBoundEfficiency = 0.65;
    gpu.efficiency.commInterference = 0.07;
    gpu.efficiency.kernelOverheadS = 4e-6;
    gpu.efficiency.scaleUpBusEfficiency = 0.8;
    gpu.efficiency.scaleOutBusEfficiency = 0.9;
    gpu.source = "test fixture";
    c.accelerators.push_back(gpu);
    c.nics.push_back({"TEST-NIC-400G", 400, 25, 1500, "test fixture"});
    c.switches.push_back({"TEST-SW-64x800G", 64, 800, 2200, 40000, "test fixture"});
    c.optics.push_back({"TEST-400ZR", OpticReach::Zr, 400, 120000, 20, 6000, true, "fixture"});
    c.lineSystems.push_back({"TEST-DWDM", 80, 30000, 150, 120000, 800, 64, 1000, "test fixture"});
    ReliabilityAssumptions r;
    r.causes = {{"faulty GPU", FailureUnit::Gpu, 3.0, 1000.0, "test fixture"},
                {"host maintenance", FailureUnit::Host, 1.5, 250.0, "test fixture"}};
    r.gpusPerHost = 4;
    r.storageWriteGBps = 900.0;
    r.storageReadGBps = 1100.0;
    r.storageSource = "test storage";
    r.checkpointBytesPerParam = 16.0;
    r.checkpointSource = "test checkpoint";
    r.deviceToHostGBps = 20.0;
    r.deviceToHostSource = "test copy";
    r.relaunchS = 120.0;
    r.communicatorInitS = 30.0;
    r.restartSource = "test restart";
    c.reliability = r;
    return c;
}

// Two datacenters (256 + 256 GPUs) joined by one DCI link; a MoE workload; TP 8 x CP 2 x PP 4
// x DP 8 with two shards that split their pipelines across the buildings.
inline core::Scenario multiDcScenario()
{
    using namespace core;
    Scenario s;
    s.name = "Fixture: MoE on 2 buildings";
    s.description = "Every field away from its default. \"Quoted\", unicode: Zürich ✓";
    s.catalogOverrides = fixtureCatalog();

    s.topology.regions = {{0, "us-east"}, {1, "us-west"}};
    Datacenter a;
    a.id = 0;
    a.name = "dc-a";
    a.regionId = 0;
    a.accelerator = "TEST-GPU-80GB";
    a.fabric = {FabricKind::Clos, 2, 2.0, 1.5, "TEST-SW-64x800G", "TEST-NIC-400G", 2};
    a.pods = {{3, "pod-a", 2, 16, 8}};
    a.x = 10.5;
    a.y = -20.25;
    Datacenter b;
    b.id = 4;
    b.name = "dc-b";
    b.regionId = 1;
    b.accelerator = "TEST-GPU-80GB";
    b.fabric = {FabricKind::RailOnly, 3, 1.25, 3.0, "", "", 1};
    b.pods = {{0, "pod-b1", 1, 16, 8}, {1, "pod-b2", 2, 8, 8}};
    b.x = 300.0;
    b.y = 1.0 / 3.0;
    s.topology.datacenters = {a, b};

    DciLink link;
    link.id = 7;
    link.a = 0;
    link.b = 4;
    link.distanceKm = 50.5;
    link.wavelengths = 32;
    link.gbpsPerWavelength = 800;
    link.optic = "TEST-400ZR";
    link.lineSystem = "TEST-DWDM";
    link.transport = DciTransport::LossyIp;
    link.equipmentLatencyS = 3.5e-5;
    link.packetLossRate = 1e-6;
    link.windowBytes = 33554432;
    link.nccl.buffsizeBytes = 8388608;
    link.nccl.channels = 8;
    link.nccl.p2pChannelsPerPeer = 4;
    link.nccl.p2pChunkBytes = 262144;
    link.nccl.qpsPerConnection = 4;
    link.headroomBytes = 33554432;
    link.mssBytes = 8948;
    s.topology.links = {link};

    Workload& w = s.workload;
    w.name = "moe-fixture";
    w.layers = 32;
    w.hidden = 4096;
    w.heads = 32;
    w.kvHeads = 8;
    w.ffnHidden = 14336;
    w.activation = FfnActivation::Swiglu;
    w.vocab = 128256;
    w.seqLen = 8192;
    w.moe = {8, 2, 14336, 1, 1};
    w.globalBatch = 512;
    w.precision = Precision::Fp8;
    w.trainTokens = 2.5e12;
    w.checkpointIntervalS = 1800.0;
    w.checkpointAsynchronous = false;

    Parallelism& p = s.parallelism;
    p.tp = 8;
    p.cp = 2;
    p.pp = 4;
    p.ep = 2;
    p.virtualStages = 2;
    p.microBatch = 1;
    p.sequenceParallel = true;
    p.zeroStage = 1;
    p.distributedOptimizer = true;
    p.recompute = Recompute::Selective;
    p.overlap = {false, false, true, false, true, false};

    // Each entry places tp * cp * 4 = 64 GPUs: dc-a 3 + 1 entries, dc-b 1 + 3 entries.
    s.placement.rankOrder = {ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Dp, ParallelDim::Ep,
                             ParallelDim::Pp};
    s.placement.shards = {{4, {0, 0, 0, 4}}, {4, {0, 4, 4, 4}}};
    s.placement.layersPerStage = {9, 7, 8, 8};

    s.schedule.kind = ScheduleKind::Interleaved1F1B;
    s.schedule.extraInFlightAtDci = 2;
    return s;
}

// A GPT-style 24-layer model (hidden 4096, 32 heads, FFN 16384, sequence 2048) on one
// datacenter of `domains` 8-GPU A100 domains (built-in catalog); the caller sets the batch and
// the parallelism.
inline core::Scenario a100GptScenario(int domains)
{
    using namespace core;
    Scenario s;
    Datacenter dc;
    dc.id = 0;
    dc.name = "dc";
    dc.accelerator = "A100-SXM4-80GB";
    dc.fabric.kind = FabricKind::Clos;
    Pod pod;
    pod.count = 1;
    pod.domainsPerPod = domains;
    pod.gpusPerDomain = 8;
    dc.pods.push_back(pod);
    s.topology.datacenters.push_back(dc);
    Workload& w = s.workload;
    w.layers = 24;
    w.hidden = 4096;
    w.heads = 32;
    w.kvHeads = 32;
    w.ffnHidden = 16384;
    w.vocab = 51200;
    w.seqLen = 2048;
    return s;
}

} // namespace archipelago::tests
