// Phase 1 of the semantic checks: every value on its own. Pointers follow the JSON layout of
// docs/scenario-format.md, whose arrays are in the order of the Scenario's vectors.
#include "io/scenariocheck.h"
#include "io/jsondocument.h"

#include <algorithm>
#include <unordered_set>

namespace archipelago::core {

namespace {

using namespace limits;

// Reports a second object of a kind with an id already seen.
class IdSet
{
public:
    explicit IdSet(const char* kind)
        : m_kind(kind)
    {}
    void add(DiagnosticSink& sink, const std::string& pointer, Id id)
    {
        if (!m_ids.insert(id).second)
            sink.error(pointer, std::string("duplicate ") + m_kind + " id " + std::to_string(id));
    }

private:
    const char* m_kind;
    std::unordered_set<Id> m_ids;
};

// A name that must be in the catalog; `optional` names may be "" (= the default).
template <typename Lookup>
void checkCatalogName(DiagnosticSink& sink, const std::string& pointer, const std::string& name,
                      const char* kind, bool optional, Lookup&& lookup)
{
    const bool known = !name.empty() && lookup(name);
    if (auto problem = catalogNameProblem(name, kind, optional, known))
        sink.error(pointer, std::move(*problem));
}

void checkFabric(DiagnosticSink& sink, const std::string& ptr, const Fabric& f,
                 const Catalog& catalog)
{
    checkInt(sink, ptr + "/tiers", f.tiers, kTiers);
    checkNumber(sink, ptr + "/leaf_oversubscription", f.leafOversubscription, kOversubscription);
    checkNumber(sink, ptr + "/spine_oversubscription", f.spineOversubscription, kOversubscription);
    checkInt(sink, ptr + "/nics_per_gpu", f.nicsPerGpu, kNicsPerGpu);
    checkCatalogName(sink, ptr + "/switch", f.switchModel, "switch", true,
                     [&](const std::string& n) { return catalog.switchSpec(n); });
    checkCatalogName(sink, ptr + "/nic", f.nicModel, "NIC", true,
                     [&](const std::string& n) { return catalog.nic(n); });
}

// Sums GPUs with saturation, so that count x domains x GPUs of a hostile file cannot overflow,
// and reports the pod at which the total passes kMaxGpus.
void checkGpuTotal(DiagnosticSink& sink, const Topology& t)
{
    std::int64_t total = 0;
    for (std::size_t d = 0; d < t.datacenters.size(); ++d) {
        const auto& pods = t.datacenters[d].pods;
        for (std::size_t p = 0; p < pods.size(); ++p) {
            const Pod& pod = pods[p];
            if (pod.count <= 0 || pod.domainsPerPod <= 0 || pod.gpusPerDomain <= 0)
                continue; // reported as a range error
            std::int64_t gpus = 0;
            // Each factor < 2^31: the first product fits, the second is checked.
            const bool overflow =
                __builtin_mul_overflow(std::int64_t{pod.count} * pod.domainsPerPod,
                                       std::int64_t{pod.gpusPerDomain}, &gpus);
            total += overflow ? kMaxGpus + 1 : std::min<std::int64_t>(gpus, kMaxGpus + 1);
            if (total > kMaxGpus) {
                sink.error("/topology/datacenters/" + std::to_string(d) + "/pods/" +
                               std::to_string(p) + "/count",
                           "the topology holds more than " + std::to_string(kMaxGpus) +
                               " GPUs (the largest supported); this pod brings it past that");
                return;
            }
        }
    }
}

void checkDatacenters(DiagnosticSink& sink, const Topology& t, const Catalog& catalog)
{
    ShapeFindings present;
    checkDatacentersPresent(t, present);
    addFindings(sink, present);
    std::unordered_set<Id> regionIds;
    for (const Region& r : t.regions)
        regionIds.insert(r.id);
    IdSet dcIds("datacenter");
    for (std::size_t d = 0; d < t.datacenters.size(); ++d) {
        const Datacenter& dc = t.datacenters[d];
        const std::string ptr = "/topology/datacenters/" + std::to_string(d);
        checkInt(sink, ptr + "/id", dc.id, kId);
        dcIds.add(sink, ptr + "/id", dc.id);
        // Without regions the field is unused; with them it must name one.
        if (!t.regions.empty() && !regionIds.contains(dc.regionId))
            sink.error(ptr + "/region", "no region with id " + std::to_string(dc.regionId));
        ShapeFindings accelerator;
        checkAccelerator(dc, d, catalog, accelerator);
        addFindings(sink, accelerator);
        checkNumber(sink, ptr + "/position/0", dc.x, kAnyNumber);
        checkNumber(sink, ptr + "/position/1", dc.y, kAnyNumber);
        checkFabric(sink, ptr + "/fabric", dc.fabric, catalog);
        checkNumber(sink, ptr + "/storage_write_GBps", dc.storageWriteGBps, kDatacenterStorageGBps);
        checkNumber(sink, ptr + "/storage_read_GBps", dc.storageReadGBps, kDatacenterStorageGBps);
        checkNumber(sink, ptr + "/electricity_usd_per_kwh", dc.electricityUsdPerKwh,
                    kDatacenterElectricityUsdPerKwh);
        checkNumber(sink, ptr + "/pue", dc.pue, kDatacenterPue);
        // A facility never draws less than its IT load: a PUE is 1 or more (0: the catalog's).
        if (dc.pue > 0.0 && dc.pue < 1.0)
            sink.error(ptr + "/pue", "expected " + std::string(kDatacenterPue.expected) + ", got " +
                                         formatNumber(dc.pue));
        checkNumber(sink, ptr + "/facility_usd_per_kw_month", dc.facilityUsdPerKwMonth,
                    kDatacenterFacilityUsdPerKwMonth);
        if (dc.pods.empty())
            sink.error(ptr + "/pods", "expected at least one pod, got none");
        IdSet podIds("pod");
        for (std::size_t p = 0; p < dc.pods.size(); ++p) {
            const Pod& pod = dc.pods[p];
            const std::string podPtr = ptr + "/pods/" + std::to_string(p);
            checkInt(sink, podPtr + "/id", pod.id, kId);
            podIds.add(sink, podPtr + "/id", pod.id);
            checkInt(sink, podPtr + "/count", pod.count, kPositive);
            checkInt(sink, podPtr + "/domains_per_pod", pod.domainsPerPod, kPositive);
            checkInt(sink, podPtr + "/gpus_per_domain", pod.gpusPerDomain, kPositive);
        }
    }
    checkGpuTotal(sink, t);
}

void checkLinks(DiagnosticSink& sink, const Topology& t, const Catalog& catalog)
{
    std::unordered_set<Id> dcIds;
    for (const Datacenter& dc : t.datacenters)
        dcIds.insert(dc.id);
    IdSet linkIds("DCI link");
    for (std::size_t l = 0; l < t.links.size(); ++l) {
        const DciLink& link = t.links[l];
        const std::string ptr = "/topology/dci_links/" + std::to_string(l);
        checkInt(sink, ptr + "/id", link.id, kId);
        linkIds.add(sink, ptr + "/id", link.id);
        if (!dcIds.contains(link.a))
            sink.error(ptr + "/a", "no datacenter with id " + std::to_string(link.a));
        if (!dcIds.contains(link.b))
            sink.error(ptr + "/b", "no datacenter with id " + std::to_string(link.b));
        else if (link.a == link.b)
            sink.error(ptr + "/b", "a DCI link must join two different datacenters, got a "
                                   "self-loop on datacenter " +
                                       std::to_string(link.b));
        checkNumber(sink, ptr + "/distance_km", link.distanceKm, kDistanceKm);
        checkInt(sink, ptr + "/wavelengths", link.wavelengths, kWavelengths);
        checkNumber(sink, ptr + "/Gbps_per_wavelength", link.gbpsPerWavelength, kGbpsPerWavelength);
        checkNumber(sink, ptr + "/equipment_latency_s", link.equipmentLatencyS, kLatencyS);
        checkNumber(sink, ptr + "/packet_loss_rate", link.packetLossRate, kProbability);
        checkNumber(sink, ptr + "/window_bytes", link.windowBytes, kPositiveNumber);
        const std::string nccl = ptr + "/nccl";
        checkNumber(sink, nccl + "/buffsize_bytes", link.nccl.buffsizeBytes, kNcclBufferBytes);
        checkInt(sink, nccl + "/channels", link.nccl.channels, kNcclChannels);
        checkInt(sink, nccl + "/p2p_channels_per_peer", link.nccl.p2pChannelsPerPeer,
                 kNcclChannels);
        checkNumber(sink, nccl + "/p2p_chunk_bytes", link.nccl.p2pChunkBytes, kNcclBufferBytes);
        checkInt(sink, nccl + "/qps_per_connection", link.nccl.qpsPerConnection, kQpsPerConnection);
        checkNumber(sink, ptr + "/headroom_bytes", link.headroomBytes, kHeadroomBytes);
        checkNumber(sink, ptr + "/mss_bytes", link.mssBytes, kMssBytes);
        checkCatalogName(sink, ptr + "/optic", link.optic, "optic", true,
                         [&](const std::string& n) { return catalog.optic(n); });
        checkCatalogName(sink, ptr + "/line_system", link.lineSystem, "line system", true,
                         [&](const std::string& n) { return catalog.lineSystem(n); });
        // Plausibility: legal, but most likely not what was meant.
        if (const OpticSpec* optic = catalog.optic(link.optic)) {
            if (!optic->coherent)
                sink.warning(ptr + "/optic", "optic \"" + link.optic +
                                                 "\" is not coherent; DCI spans need ZR/ZR+ "
                                                 "optics");
            if (optic->maxReachM > 0 && link.distanceKm * 1000.0 > optic->maxReachM)
                sink.warning(ptr + "/distance_km",
                             formatNumber(link.distanceKm) + " km exceeds the " +
                                 formatNumber(optic->maxReachM / 1000.0) + " km reach of optic \"" +
                                 optic->name + "\"");
        }
        if (const LineSystemSpec* ls = catalog.lineSystem(link.lineSystem)) {
            if (ls->maxReachKm > 0 && link.distanceKm > ls->maxReachKm)
                sink.warning(ptr + "/distance_km",
                             formatNumber(link.distanceKm) + " km exceeds the " +
                                 formatNumber(ls->maxReachKm) + " km reach of line system \"" +
                                 ls->name + "\"");
            if (link.wavelengths > ls->maxWavelengths)
                sink.warning(ptr + "/wavelengths", std::to_string(link.wavelengths) +
                                                       " wavelengths exceed the " +
                                                       std::to_string(ls->maxWavelengths) +
                                                       " of line system \"" + ls->name + "\"");
        }
        if (link.transport == DciTransport::RdmaOtn && link.packetLossRate > 0)
            sink.warning(ptr + "/packet_loss_rate",
                         "packet_loss_rate applies to lossy-ip and roce-pfc only; rdma-otn "
                         "is lossless and ignores it");
    }
}

void checkTopologyFields(DiagnosticSink& sink, const Topology& t, const Catalog& catalog)
{
    IdSet regionIds("region");
    for (std::size_t r = 0; r < t.regions.size(); ++r) {
        const std::string ptr = "/topology/regions/" + std::to_string(r) + "/id";
        checkInt(sink, ptr, t.regions[r].id, kId);
        regionIds.add(sink, ptr, t.regions[r].id);
    }
    checkDatacenters(sink, t, catalog);
    checkLinks(sink, t, catalog);
}

void checkWorkload(DiagnosticSink& sink, const Workload& w)
{
    ShapeFindings dimensions;
    checkWorkloadDimensions(w, ShapeRules::Scenario, dimensions);
    addFindings(sink, dimensions);
    checkNumber(sink, "/workload/train_tokens", w.trainTokens, kPositiveNumber);
    checkInt(sink, "/workload/attention_window", w.attentionWindow, kNonNegative);
    checkNumber(sink, "/workload/checkpoint_interval_s", w.checkpointIntervalS, kNonNegativeNumber);
    ShapeFindings moe;
    checkMoeFields(w, moe);
    addFindings(sink, moe);
    ShapeFindings mla;
    checkMlaFields(w, mla);
    addFindings(sink, mla);
}

} // namespace

void checkNumber(DiagnosticSink& sink, const std::string& pointer, double value,
                 const limits::NumberLimit& limit)
{
    if (!limit.contains(value))
        sink.error(pointer, expectedGot(limit.expected, formatNumber(value)));
}

void checkScenarioFields(const Scenario& scenario, const Catalog& catalog, DiagnosticSink& sink,
                         TopologyRules topology)
{
    if (topology == TopologyRules::Run)
        checkTopologyFields(sink, scenario.topology, catalog);
    checkWorkload(sink, scenario.workload);
    ShapeFindings parallelism(findingsFor(sink));
    checkParallelismFields(scenario, ShapeRules::Scenario, parallelism);
    addFindings(sink, parallelism);
}

namespace {

std::vector<Diagnostic> errorsThenWarnings(DiagnosticSink& sink)
{
    std::vector<Diagnostic> all = sink.takeErrors();
    for (Diagnostic& d : sink.takeWarnings())
        all.push_back(std::move(d));
    return all;
}

// Both phases into `sink`: the consistency rules only on fields that passed.
void checkScenarioInto(const Scenario& scenario, const Catalog& catalog, DiagnosticSink& sink,
                       TopologyRules topology)
{
    checkScenarioFields(scenario, catalog, sink, topology);
    if (!sink.hasErrors())
        checkScenarioConsistency(scenario, sink, topology);
}

std::vector<Diagnostic> checkScenarioWith(const Scenario& scenario, const Catalog& catalog,
                                          const std::string& fileName, TopologyRules topology)
{
    DiagnosticSink sink(fileName);
    checkScenarioInto(scenario, catalog, sink, topology);
    return errorsThenWarnings(sink);
}

} // namespace

std::vector<Diagnostic> checkScenario(const Scenario& scenario, const Catalog& catalog,
                                      const std::string& fileName)
{
    return checkScenarioWith(scenario, catalog, fileName, TopologyRules::Run);
}

std::vector<Diagnostic> checkScenario(const Scenario& scenario, const Catalog& catalog,
                                      TopologyRules topology)
{
    return checkScenarioWith(scenario, catalog, {}, topology);
}

bool scenarioRefused(const Scenario& scenario, const Catalog& catalog, TopologyRules topology)
{
    DiagnosticSink sink({}, DiagnosticSink::Keep::ErrorsOnly);
    checkScenarioInto(scenario, catalog, sink, topology);
    return sink.hasErrors();
}

std::vector<Diagnostic> checkTopology(const Topology& topology, const Catalog& catalog)
{
    DiagnosticSink sink({});
    checkTopologyFields(sink, topology, catalog);
    if (!sink.hasErrors()) {
        ShapeFindings connectivity;
        checkConnectivity(topology, connectivity);
        addFindings(sink, connectivity);
    }
    return errorsThenWarnings(sink);
}

} // namespace archipelago::core
