// Scale-out fabric builders per datacenter: folded Clos with 2 or 3 tiers,
// rail-optimized Clos, rail-only; scale-up domains of any size. Everything is counts: a fabric
// is switches and links per tier, never one object per GPU or per switch.
#pragma once

#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace archipelago::core {

// Per-step latencies (the alpha of the alpha-beta model) from NCCL's own latency model, the
// figures its tuner measured and ships (NVIDIA/nccl src/graph/tuning.cc,
// ncclTunerConstantsDefaults, Simple protocol, the one bandwidth-bound messages use):
// hwLatencies 3.4 us per ring step over NVLink and 14 us per step between nodes (NET), and
// baseLatencies 8.4 us once per collective (Ring, Simple). NCCL's NET figure is one for every
// fabric: a tier above the leaf adds its two extra switch hops (~1 us each for a 51.2T switch
// port to port plus cable, Tomahawk-5 / Spectrum-4 data).
inline constexpr double kScaleUpStepLatencyS = 3.4e-6;
inline constexpr double kNetStepLatencyS = 14e-6;
inline constexpr double kSwitchHopLatencyS = 1e-6;
inline constexpr double kCollectiveBaseLatencyS = 8.4e-6;
// Small messages (a gradient norm, a loss) take NCCL's tree with the LL protocol: 6.8 us once,
// 0.6 us per NVLink step and 5 us per step between nodes (same table, Tree LL).
inline constexpr double kSmallBaseLatencyS = 6.8e-6;
inline constexpr double kSmallScaleUpStepLatencyS = 0.6e-6;
inline constexpr double kSmallNetStepLatencyS = 5e-6;

// Flows per NIC port that ECMP hashes independently: NCCL opens one connection per channel
// and one queue pair per connection (NCCL_IB_QPS_PER_CONNECTION defaults to 1), with about two
// channels per NIC port it uses; a GPU with several NICs (or a NIC split over several ports)
// gets channels on each, so a GPU pair's flows grow with its ports. Llama 3 scaled this to 16
// flows per GPU pair plus E-ECMP hashing (arXiv 2407.21783 section 3.3.1;
// ../shared/network-physics.md A5).
inline constexpr double kFlowsPerNicPort = 2.0;

// Typical cable lengths per tier, used to choose optics by reach for the bill of materials:
// servers to a top-of-rack leaf ~3 m (DAC), to rail leaves in the row ~30 m (AOC/DR),
// leaf to spine across the hall ~150 m (DR, 500 m), spine to core across the building ~1 km (FR).
inline constexpr double kHostLeafTorM = 3.0;
inline constexpr double kHostLeafRailM = 30.0;
inline constexpr double kLeafSpineM = 150.0;
inline constexpr double kSpineCoreM = 1000.0;

// Folded-Clos counts for one plane (one fabric). Textbook (Al-Fares et al., SIGCOMM 2008,
// section 3.2; Leiserson 1985): with radix k and full bisection a 3-tier fat-tree holds k^3/4
// hosts on 5k^2/4 switches, a 2-tier leaf-spine k^2/2 hosts on 3k/2 switches.
struct ClosCounts
{
    int tiers = 0; // tiers built: 1 (one switch), 2 or 3
    std::int64_t hostPorts = 0;
    int leafDown = 0, leafUp = 0;   // port split at the leaf (oversubscription down:up)
    int spineDown = 0, spineUp = 0; // at the spine of a 3-tier fabric
    std::int64_t leaves = 0, spines = 0, cores = 0;
    std::int64_t hostLinks = 0, leafSpineLinks = 0, spineCoreLinks = 0;
    std::int64_t leavesPerPod = 0; // leaves under one spine block (all leaves for 2 tiers)
    std::int64_t pods = 0;
    std::int64_t capacityHosts = 0; // hosts the built tiers can hold at this radix
    bool overCapacity = false;      // more hosts than `maxTiers` tiers of radix k can hold

    std::int64_t switches() const { return leaves + spines + cores; }
};

// Split k ports into down:up = oversubscription:1 (1 = full bisection, k/2 each way).
int downPorts(int radix, double oversubscription);

// Build what `hostPorts` need with `maxTiers` tiers (ceil at every tier): one switch when the
// hosts fit its ports, no core when they fit one pod.
ClosCounts closCounts(std::int64_t hostPorts, int radix, int maxTiers, double leafOversubscription,
                      double spineOversubscription);
// The same, from a given number of leaves with `leafDown` host ports each (rail-optimized
// fabrics need whole leaves per rail).
ClosCounts closFromLeaves(std::int64_t leaves, std::int64_t hostPorts, int radix, int maxTiers,
                          double leafOversubscription, double spineOversubscription);
// A 3-tier fabric whose pods are given: `count` pods of `leaves` leaves each, per entry. Each
// pod gets the spines its own leaves' uplinks need (ceil(leaves x leafUp / spineDown)); the
// core joins the pods' spine uplinks.
struct PodLeaves
{
    std::int64_t count = 0;
    std::int64_t leaves = 0;
};
ClosCounts closFromPods(const std::vector<PodLeaves>& pods, std::int64_t hostPorts, int radix,
                        double leafOversubscription, double spineOversubscription);

// One datacenter's fabric: the Clos counts of one plane times the number of planes, plus the
// geometry that placement needs.
struct FabricDesign
{
    FabricKind kind = FabricKind::Clos;
    std::string switchName;
    std::string nicName;
    std::int64_t gpus = 0;
    std::int64_t domains = 0;
    int gpusPerDomain = 1;
    int nicsPerGpu = 1;
    int radix = 0;                // effective radix at the link speed (after breakout)
    double linkGbps = 0.0;        // speed of every fabric link
    int breakout = 1;             // links per switch port (nicPorts)
    int portsPerNic = 1;          // switch ports (links) per NIC (nicPorts)
    std::int64_t portsPerGpu = 1; // nicsPerGpu x portsPerNic: links (and ECMP flows) per GPU
    std::int64_t planes = 1;      // independent fabrics: rails (rail-only) x ports per GPU
    ClosCounts plane;             // one plane's counts
    // Totals over all planes.
    int tiers = 0;
    std::int64_t leaves = 0, spines = 0, cores = 0;
    std::int64_t hostLinks = 0, leafSpineLinks = 0, spineCoreLinks = 0;
    double hostLinkReachM = kHostLeafTorM;
    // Placement geometry for traffic between GPUs of the same local rank in different domains
    // (what a hierarchical collective sends): domains that share one leaf (0 when a domain spans
    // several leaves) and one spine block (all domains for 2 tiers).
    std::int64_t domainsPerLeaf = 0;
    std::int64_t domainsPerPod = 0;
    // GPUs whose NIC ports land on one leaf switch (one per domain on a rail leaf): what shares
    // a leaf's uplinks.
    std::int64_t gpusPerLeafSwitch = 1;
    // The pods are the scenario's (several pods declared on a 3-tier fabric): domainsPerPod is
    // the smallest declared pod, and each pod's spine block is sized for its own GPUs. Otherwise
    // pods are the spine blocks the radix allows (closCounts).
    bool declaredPods = false;
    // With declared pods, one run per Pod entry: `count` pods of `podGpus` GPUs from GPU
    // `startGpu` on (ranks fill the pods in the order the scenario lists them).
    struct PodRun
    {
        std::int64_t startGpu = 0;
        std::int64_t podGpus = 0;
        std::int64_t count = 0;
    };
    std::vector<PodRun> podRuns;
    double gpuGBps = 0.0; // NIC GB/s per GPU per direction
    double leafOversubscription = 1.0;
    double spineOversubscription = 1.0;
    // Bandwidth across a cut that halves the domains, per direction (GB/s).
    double bisectionGBps = 0.0;
    bool overCapacity = false;

    std::int64_t switches() const { return leaves + spines + cores; }
    // Per-GPU bandwidth of traffic that climbs to `level` (Leaf, Spine or Core) when every GPU
    // below sends across it: the uplinks' capacity over the GPUs under them.
    double levelGBps(LinkClass level) const;
    // GPUs under the uplinks that traffic climbing to `level` leaves through: one leaf switch
    // (Spine), one pod (Core); 0 for Leaf (no uplink).
    std::int64_t gpusUnder(LinkClass level) const;
    // Whether GPUs `first` and `last` (datacenter-local, in rank layout order) share a pod.
    bool samePod(std::int64_t first, std::int64_t last) const;
    // Per-step latency of a transfer turning at `level`: NIC + switch hops (1, 3 or 5).
    static double levelLatencyS(LinkClass level);
};

// Designs the fabric for all GPUs installed in `dc`. Missing catalog names get a warning
// (code "catalog-missing") and defaults: radix 64 at the NIC speed, NIC at the accelerator's.
FabricDesign designFabric(const Datacenter& dc, const Catalog& catalog,
                          std::vector<Warning>* warnings = nullptr);

// How a NIC of `nicGbps` attaches to switch ports of `portGbps`: the link rate, the ports per
// NIC (NIC at least as fast as the port) or the lanes per port (slower NIC). The links carry
// portsPerNic x linkGbps, at most the NIC's rate.
struct NicPorts
{
    double linkGbps = 0.0;
    int portsPerNic = 1;
    int breakout = 1;
};
NicPorts nicPorts(double nicGbps, double portGbps);

// The switch a fabric uses: the named one, else the catalog's first switch whose port speed
// is at least the NIC's, else nullptr.
const SwitchSpec* fabricSwitch(const Fabric& fabric, double nicGbps, const Catalog& catalog);
// NIC Gb/s per NIC: the named NIC, else the accelerator's nicGbps, else 400.
double fabricNicGbps(const Datacenter& dc, const Catalog& catalog);

} // namespace archipelago::core
