#include "network/fabric.h"

#include "model/checkedmath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace archipelago::core {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return b <= 0 ? 0 : (a + b - 1) / b;
}

void warn(std::vector<Warning>* warnings, Warning warning)
{
    if (warnings)
        warnings->push_back(std::move(warning));
}

// Default radix when the catalog has no switch: a 51.2 Tb/s ASIC at 64 x 800G.
constexpr int kDefaultRadix = 64;
constexpr double kDefaultNicGbps = 400.0;
// A capacity past 2^63 hosts (a radix of millions at breakout) is reported as this: the fabric
// holds any job that fits in memory.
constexpr std::int64_t kMaxHosts = std::numeric_limits<std::int64_t>::max();

int leafDownPorts(int radix, double oversubscription)
{
    // A leaf keeps the hosts it holds at full bisection, half its ports, and takes
    // oversubscription by cabling fewer uplinks: the hosts under a leaf are a rack (or, rail-
    // optimized, a scalable unit) fixed by power and cabling, not by the uplinks (NVIDIA DGX
    // SuperPOD reference architecture: 32-node scalable units per leaf group; Meta's Llama 3
    // cluster keeps its racks and pods and oversubscribes the uplinks above them, arXiv
    // 2407.21783 section 3.3.1). More oversubscription then never regroups the GPUs.
    if (oversubscription >= 1.0)
        return std::max(1, radix / 2);
    return downPorts(radix, oversubscription); // more uplinks than hosts: ports split k*o/(1+o)
}

int leafUpPorts(int radix, double oversubscription)
{
    const int down = leafDownPorts(radix, oversubscription);
    const int spare = std::max(1, radix - down);
    if (oversubscription < 1.0)
        return spare;
    const auto up = saturatingCast<int>(std::round(down / std::max(1.0, oversubscription)));
    return std::clamp(up, 1, spare);
}

} // namespace

int downPorts(int radix, double oversubscription)
{
    // Oversubscription o = down/up with down + up = k  =>  down = k * o / (1 + o).
    const double o = std::max(1e-9, oversubscription);
    const auto down = saturatingCast<int>(std::round(radix * o / (1.0 + o)));
    return std::clamp(down, 1, std::max(1, radix - 1));
}

ClosCounts closCounts(std::int64_t hostPorts, int radix, int maxTiers, double leafOversubscription,
                      double spineOversubscription)
{
    if (hostPorts <= radix)
        return closFromLeaves(hostPorts > 0 ? 1 : 0, hostPorts, radix, maxTiers,
                              leafOversubscription, spineOversubscription);
    const std::int64_t leaves = ceilDiv(hostPorts, leafDownPorts(radix, leafOversubscription));
    return closFromLeaves(leaves, hostPorts, radix, maxTiers, leafOversubscription,
                          spineOversubscription);
}

ClosCounts closFromLeaves(std::int64_t leaves, std::int64_t hostPorts, int radix, int maxTiers,
                          double leafOversubscription, double spineOversubscription)
{
    ClosCounts c;
    c.hostPorts = hostPorts;
    c.hostLinks = hostPorts;
    if (leaves <= 0 || radix <= 1)
        return c;
    if (leaves == 1 && hostPorts <= radix) {
        // One switch, every port down.
        c.tiers = 1;
        c.leafDown = radix;
        c.leaves = 1;
        c.leavesPerPod = 1;
        c.pods = 1;
        c.capacityHosts = radix;
        return c;
    }
    c.leafDown = leafDownPorts(radix, leafOversubscription);
    c.leafUp = leafUpPorts(radix, leafOversubscription);
    c.leaves = leaves;
    c.leafSpineLinks = leaves * c.leafUp;
    // A 3-tier fabric is built as asked (the core is the growth path), except that a single
    // pod needs no core: it is a leaf-spine.
    if (maxTiers <= 2 || leaves <= downPorts(radix, spineOversubscription)) {
        // Leaf-spine: every spine has one port to each leaf, so at most k leaves
        // (k * leafDown hosts; k^2/2 at full bisection) on leafUp spines (3k/2 switches).
        c.tiers = 2;
        c.spines = ceilDiv(c.leafSpineLinks, radix);
        c.leavesPerPod = leaves;
        c.pods = 1;
        c.capacityHosts = checkedProduct(radix, c.leafDown).value_or(kMaxHosts);
        c.overCapacity = leaves > radix;
        return c;
    }
    // Fat-tree (Al-Fares et al. 2008, section 3.2): a pod is spineDown leaves and leafUp spines;
    // spines send spineUp links to the core; a core switch reaches k pods. With k = 64 and full
    // bisection: 64 pods x 32 leaves x 32 hosts = 65,536 hosts; 2,048 + 2,048 + 1,024 switches.
    c.tiers = 3;
    c.spineDown = downPorts(radix, spineOversubscription);
    c.spineUp = radix - c.spineDown;
    c.leavesPerPod = c.spineDown;
    c.pods = ceilDiv(leaves, c.spineDown);
    const std::int64_t fullPods = leaves / c.spineDown;
    const std::int64_t rest = leaves % c.spineDown;
    c.spines = fullPods * c.leafUp + ceilDiv(rest * c.leafUp, c.spineDown);
    c.spineCoreLinks = c.spines * c.spineUp;
    c.cores = ceilDiv(c.spineCoreLinks, radix);
    c.capacityHosts = checkedProduct(radix, c.spineDown, c.leafDown).value_or(kMaxHosts);
    c.overCapacity = c.pods > radix;
    return c;
}

ClosCounts closFromPods(const std::vector<PodLeaves>& pods, std::int64_t hostPorts, int radix,
                        double leafOversubscription, double spineOversubscription)
{
    ClosCounts c;
    c.hostPorts = hostPorts;
    c.hostLinks = hostPorts;
    if (radix <= 1)
        return c;
    c.tiers = 3;
    c.leafDown = leafDownPorts(radix, leafOversubscription);
    c.leafUp = leafUpPorts(radix, leafOversubscription);
    c.spineDown = downPorts(radix, spineOversubscription);
    c.spineUp = radix - c.spineDown;
    for (const PodLeaves& pod : pods) {
        if (pod.count <= 0 || pod.leaves <= 0)
            continue;
        c.pods += pod.count;
        c.leaves += pod.count * pod.leaves;
        c.spines += pod.count * ceilDiv(pod.leaves * c.leafUp, c.spineDown);
        c.leavesPerPod = std::max(c.leavesPerPod, pod.leaves);
    }
    c.leafSpineLinks = c.leaves * c.leafUp;
    c.spineCoreLinks = c.spines * c.spineUp;
    c.cores = ceilDiv(c.spineCoreLinks, radix);
    // A core switch reaches k pods (one port each), of the largest declared size.
    c.capacityHosts = checkedProduct(std::int64_t{radix}, c.leavesPerPod, std::int64_t{c.leafDown})
                          .value_or(kMaxHosts);
    c.overCapacity = c.pods > radix;
    return c;
}

std::int64_t FabricDesign::gpusUnder(LinkClass level) const
{
    switch (level) {
    case LinkClass::Spine:
        return gpusPerLeafSwitch;
    case LinkClass::Core:
        return domainsPerPod * gpusPerDomain;
    default:
        return 0;
    }
}

bool FabricDesign::samePod(std::int64_t first, std::int64_t last) const
{
    if (declaredPods) {
        for (const PodRun& run : podRuns) {
            const std::int64_t end = run.startGpu + run.podGpus * run.count;
            if (first < run.startGpu || first >= end)
                continue;
            return last < end &&
                   (first - run.startGpu) / run.podGpus == (last - run.startGpu) / run.podGpus;
        }
        return false;
    }
    const std::int64_t span = domainsPerPod * gpusPerDomain;
    return span > 0 && first / span == last / span;
}

double FabricDesign::levelGBps(LinkClass level) const
{
    // Traffic that climbs past an oversubscribed tier gets 1/oversubscription of the NIC rate.
    switch (level) {
    case LinkClass::Spine:
        return gpuGBps / leafOversubscription;
    case LinkClass::Core:
        return gpuGBps / (leafOversubscription * spineOversubscription);
    default:
        return gpuGBps;
    }
}

double FabricDesign::levelLatencyS(LinkClass level)
{
    // NCCL's step between nodes, measured through a leaf; up-and-down through 3
    // (leaf-spine-leaf) or 5 (via the core) switches adds the hops beyond the leaf's one.
    const int hops = level == LinkClass::Leaf ? 1 : level == LinkClass::Spine ? 3 : 5;
    return kNetStepLatencyS + (hops - 1) * kSwitchHopLatencyS;
}

NicPorts nicPorts(double nicGbps, double portGbps)
{
    NicPorts p;
    if (!(nicGbps > 0.0) || !(portGbps > 0.0))
        return p;
    // Both ends of a link run one rate they share (IEEE 802.3 Clause 73 auto-negotiation picks
    // the highest common mode; InfiniBand link training likewise), so a link carries whole
    // port or lane rates, never a NIC's nominal surplus. A NIC at least as fast as a port takes
    // the whole ports it fills, at the port rate: an 800G ConnectX-8 on 400G switches runs as
    // 2 x 400G (NVIDIA's port split), an 800.00001G NIC the same; a third port would carry
    // nothing and no deployment cables one. A slower NIC takes one breakout lane of a port:
    // 800G OSFP cages split into 2 x 400G, 4 x 200G or 8 x 100G (IEEE 802.3ck 100G lanes;
    // NVIDIA SN5600 and Quantum-2 split cables), so the lane is port / 2^j, the fastest the NIC
    // fills (a 403G NIC on an 800G port: one 400G lane).
    if (nicGbps >= portGbps * (1.0 - 1e-9)) {
        p.linkGbps = portGbps;
        p.portsPerNic = std::max(1, saturatingCast<int>(std::floor(nicGbps / portGbps + 1e-9)));
        return p;
    }
    while (portGbps / p.breakout > nicGbps * (1.0 + 1e-9) && p.breakout < (1 << 20))
        p.breakout *= 2;
    p.linkGbps = portGbps / p.breakout;
    return p;
}

const SwitchSpec* fabricSwitch(const Fabric& fabric, double nicGbps, const Catalog& catalog)
{
    if (!fabric.switchModel.empty())
        if (const SwitchSpec* named = catalog.switchSpec(fabric.switchModel))
            return named;
    for (const SwitchSpec& sw : catalog.switches)
        if (sw.portGbps >= nicGbps && sw.radix > 1)
            return &sw;
    return nullptr;
}

double fabricNicGbps(const Datacenter& dc, const Catalog& catalog)
{
    if (const NicSpec* nic = catalog.nic(dc.fabric.nicModel); nic && nic->gbps > 0.0)
        return nic->gbps;
    if (const AcceleratorSpec* acc = catalog.accelerator(dc.accelerator); acc && acc->nicGbps > 0)
        return acc->nicGbps;
    return kDefaultNicGbps;
}

FabricDesign designFabric(const Datacenter& dc, const Catalog& catalog,
                          std::vector<Warning>* warnings)
{
    FabricDesign f;
    const Fabric& spec = dc.fabric;
    f.kind = spec.kind;
    f.nicName = spec.nicModel;
    if (!spec.nicModel.empty() && !catalog.nic(spec.nicModel))
        warn(warnings,
             Warning{WarningCode::CatalogMissing, WarningForm::Nic}
                 .name("nic", spec.nicModel)
                 .name("datacenter", dc.name)
                 .count("nic_gbps", saturatingCast<std::int64_t>(fabricNicGbps(dc, catalog))));
    const double nicGbps = fabricNicGbps(dc, catalog);
    const SwitchSpec* sw = fabricSwitch(spec, nicGbps, catalog);
    if (!spec.switchModel.empty() && (!sw || sw->name != spec.switchModel))
        warn(warnings, Warning{WarningCode::CatalogMissing, WarningForm::Switch}
                           .name("switch", spec.switchModel)
                           .name("datacenter", dc.name)
                           .name("using", sw ? sw->name : "a 64-port switch at the NIC speed"));
    const int swRadix = sw ? sw->radix : kDefaultRadix;
    const double portGbps = sw && sw->portGbps > 0.0 ? sw->portGbps : nicGbps;
    f.switchName = sw ? sw->name : spec.switchModel;

    const NicPorts ports = nicPorts(nicGbps, portGbps);
    f.linkGbps = ports.linkGbps;
    f.breakout = ports.breakout;
    f.portsPerNic = ports.portsPerNic;
    // Saturated: the catalog reader bounds port and NIC speeds to [1, 10000] Gb/s
    // (model/scenariolimits.h), so only a catalog built in code gets here with a ratio beyond
    // an int, and then a saturated fabric is still a finite, bounded one.
    f.radix = saturatingCast<int>(static_cast<double>(swRadix) * f.breakout);
    f.nicsPerGpu = std::max(1, spec.nicsPerGpu);
    f.portsPerGpu = std::int64_t{f.nicsPerGpu} * f.portsPerNic;
    // What the links deliver, not the NIC's nominal rate: a NIC rate between two port
    // multiples buys nothing the links can carry.
    f.gpuGBps = f.linkGbps * static_cast<double>(f.portsPerGpu) / 8.0;
    f.leafOversubscription = std::max(1e-9, spec.leafOversubscription);
    f.spineOversubscription = std::max(1e-9, spec.spineOversubscription);

    f.gpus = gpusInDatacenter(dc);
    f.gpusPerDomain = std::max(1, scaleUpDomainGpus(dc));
    for (const Pod& pod : dc.pods)
        f.domains += std::int64_t{pod.count} * pod.domainsPerPod;
    const int maxTiers = std::clamp(spec.tiers, 2, 3);
    const double lo = f.leafOversubscription;
    const double so = f.spineOversubscription;
    // A GPU's ports (several NICs, or a NIC split over several ports) each join their own
    // plane, a copy of the fabric: the multi-plane designs of Alibaba HPN (SIGCOMM 2024,
    // section 4: dual-plane, each NIC port to its own ToR) and NVIDIA's rail-optimized fabrics
    // (NIC k of every server on rail k). A leaf then holds as many GPUs whatever their ports,
    // and another NIC adds bandwidth without regrouping them. Ports that all fit one switch
    // stay on it.
    const std::int64_t portPlanes = f.gpus * f.portsPerGpu > f.radix ? f.portsPerGpu : 1;
    const std::int64_t portsPerGpu = f.portsPerGpu / portPlanes;

    if (f.kind == FabricKind::RailOnly) {
        // Wang et al. 2023, section 4: one fabric per rail (rails = GPUs per scale-up domain),
        // joining the same local rank of every domain; no switch joins two rails.
        f.planes = f.gpusPerDomain * portPlanes;
        f.plane = closCounts(f.domains * portsPerGpu, f.radix, maxTiers, lo, so);
        f.hostLinkReachM = kHostLeafRailM;
        const std::int64_t perLeaf = std::max<std::int64_t>(1, f.plane.leafDown / portsPerGpu);
        f.domainsPerLeaf = f.plane.tiers <= 1 ? f.domains : perLeaf;
        f.domainsPerPod = f.plane.tiers <= 2 ? f.domains : f.plane.leavesPerPod * perLeaf;
    } else if (f.kind == FabricKind::RailOptimized && f.gpus * portsPerGpu > f.radix) {
        f.planes = portPlanes;
        // Rail-optimized Clos (NVIDIA DGX SuperPOD reference architecture): leaf r of a rail
        // group joins local rank r of leafDown domains; spines join the rails.
        const std::int64_t perLeaf =
            std::max<std::int64_t>(1, leafDownPorts(f.radix, lo) / portsPerGpu);
        const std::int64_t leavesPerRail = ceilDiv(f.domains, perLeaf);
        f.plane = closFromLeaves(leavesPerRail * f.gpusPerDomain, f.gpus * portsPerGpu, f.radix,
                                 maxTiers, lo, so);
        f.hostLinkReachM = kHostLeafRailM;
        f.domainsPerLeaf = perLeaf;
        f.domainsPerPod =
            f.plane.tiers <= 2
                ? f.domains
                : perLeaf * std::max<std::int64_t>(1, f.plane.leavesPerPod / f.gpusPerDomain);
    } else {
        // Plain folded Clos: consecutive GPUs fill a leaf (top of rack).
        f.planes = portPlanes;
        f.plane = closCounts(f.gpus * portsPerGpu, f.radix, maxTiers, lo, so);
        const std::int64_t gpusPerLeaf =
            f.plane.tiers <= 1 ? f.gpus : std::max<std::int64_t>(1, f.plane.leafDown / portsPerGpu);
        f.domainsPerLeaf = gpusPerLeaf / f.gpusPerDomain;
        f.domainsPerPod =
            f.plane.tiers <= 2 ? f.domains : f.plane.leavesPerPod * gpusPerLeaf / f.gpusPerDomain;
    }
    // Declared pods (Meta's Llama 3 cluster: 3,072-GPU pods at full bisection, 1:7 above them;
    // arXiv 2407.21783 section 3.3.1) replace the spine blocks the radix would build: the
    // layout's pod boundaries and the spine block of each pod follow the scenario. Kept as built
    // when the datacenter is one pod or the fabric has no core tier.
    std::int64_t declaredPods = 0;
    for (const Pod& pod : dc.pods)
        declaredPods += std::max(0, pod.count);
    const std::int64_t planeHostPorts =
        (f.kind == FabricKind::RailOnly ? f.domains : f.gpus) * portsPerGpu;
    if (maxTiers >= 3 && declaredPods >= 2 && planeHostPorts > f.radix) {
        std::vector<PodLeaves> pods;
        std::int64_t smallest = 0;
        std::int64_t podStart = 0;
        for (const Pod& pod : dc.pods) {
            if (pod.count <= 0 || pod.domainsPerPod <= 0)
                continue;
            const std::int64_t podDomains = pod.domainsPerPod;
            const std::int64_t g = std::max(1, pod.gpusPerDomain);
            const int leafDown = leafDownPorts(f.radix, lo);
            const std::int64_t perRailLeaf = std::max<std::int64_t>(1, leafDown / portsPerGpu);
            const std::int64_t leaves = f.kind == FabricKind::RailOnly
                                            ? ceilDiv(podDomains * portsPerGpu, leafDown)
                                        : f.kind == FabricKind::RailOptimized
                                            ? ceilDiv(podDomains, perRailLeaf) * g
                                            : ceilDiv(podDomains * g * portsPerGpu, leafDown);
            pods.push_back({pod.count, leaves});
            f.podRuns.push_back({podStart, podDomains * g, pod.count});
            podStart += pod.count * podDomains * g;
            smallest = smallest == 0 ? podDomains : std::min(smallest, podDomains);
        }
        f.plane = closFromPods(pods, planeHostPorts, f.radix, lo, so);
        f.domainsPerPod = smallest;
        f.declaredPods = true;
    }
    f.domainsPerLeaf = std::min(f.domainsPerLeaf, f.domains);
    f.domainsPerPod = std::min(std::max(f.domainsPerPod, f.domainsPerLeaf), f.domains);
    // One leaf switch's hosts: a rail leaf holds one GPU per domain.
    f.gpusPerLeafSwitch = std::max<std::int64_t>(
        1, (f.plane.tiers <= 1 ? f.plane.hostPorts : f.plane.leafDown) / portsPerGpu);

    f.tiers = f.plane.tiers;
    f.leaves = f.plane.leaves * f.planes;
    f.spines = f.plane.spines * f.planes;
    f.cores = f.plane.cores * f.planes;
    f.hostLinks = f.plane.hostLinks * f.planes;
    f.leafSpineLinks = f.plane.leafSpineLinks * f.planes;
    f.spineCoreLinks = f.plane.spineCoreLinks * f.planes;
    f.overCapacity = f.plane.overCapacity;
    if (f.overCapacity)
        warn(warnings, Warning{WarningCode::FabricOverCapacity}
                           .name("datacenter", dc.name)
                           .count("host_ports", f.plane.hostPorts)
                           .count("capacity_hosts", f.plane.capacityHosts)
                           .count("tiers", maxTiers)
                           .count("radix", f.radix));
    // Bisection: half the GPUs send across a cut between domains, through every tier above
    // the leaf (full bisection = N/2 x NIC rate, Leiserson 1985).
    const double divisor = f.tiers >= 3 ? lo * so : f.tiers == 2 ? lo : 1.0;
    f.bisectionGBps = static_cast<double>(f.gpus) / 2.0 * f.gpuGBps / divisor;
    return f;
}

} // namespace archipelago::core
