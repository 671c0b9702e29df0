#include "network/bom.h"

#include "model/checkedmath.h"

#include <algorithm>
#include <cmath>

namespace archipelago::core {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return b <= 0 ? 0 : (a + b - 1) / b;
}

// A figure rounded for a label; saturated, since a label must not be undefined behaviour
// whatever the catalog holds.
std::string whole(double v)
{
    return std::to_string(saturatingCast<long long>(std::round(v)));
}

std::string gbpsName(double gbps)
{
    return whole(gbps) + "G";
}

std::string metres(double m)
{
    return whole(m) + " m";
}

// Cheapest non-coherent optic (or DAC/AOC cable when `cable`) of exactly `gbps` that reaches
// `reachM`; failing that, the cheapest faster one.
const OpticSpec* cheapestMedia(const Catalog& catalog, double gbps, double reachM, bool cable)
{
    const OpticSpec* best = nullptr;
    for (int exact = 1; exact >= 0 && !best; --exact)
        for (const OpticSpec& o : catalog.optics) {
            const bool isCable = o.reach == OpticReach::Dac || o.reach == OpticReach::Aoc;
            if (o.coherent || isCable != cable || o.maxReachM < reachM)
                continue;
            if (exact ? std::fabs(o.gbps - gbps) > 1e-6 : o.gbps < gbps)
                continue;
            if (!best || o.priceUsd < best->priceUsd)
                best = &o;
        }
    return best;
}

BomItem item(const OpticSpec& o, const std::string& scope, std::int64_t count,
             const std::string& detail)
{
    const bool isCable = o.reach == OpticReach::Dac || o.reach == OpticReach::Aoc;
    return {o.name, isCable ? "cable" : "optic", scope, count, o.priceUsd, o.watts, detail};
}

void unpriced(std::vector<BomItem>& out, std::vector<Warning>* warnings, const std::string& scope,
              double gbps, double reachM, std::int64_t links, const std::string& detail)
{
    const std::string what = gbpsName(gbps) + " link reaching " + metres(reachM);
    if (warnings)
        warnings->push_back(Warning{WarningCode::CatalogMissing, WarningForm::UnpricedLink}
                                .num("gbps", gbps)
                                .num("reach_m", reachM));
    out.push_back({"unpriced " + what, "optic", scope, links, 0.0, 0.0, detail});
}

// Switch-to-switch links: `laneLinks` NIC-speed lanes ride ceil(lanes / breakout) physical
// links at the port speed; each takes one cable (DAC/AOC) or two transceivers, whichever
// costs less.
void switchLinks(std::vector<BomItem>& out, std::vector<Warning>* warnings, const Catalog& catalog,
                 const std::string& scope, std::int64_t laneLinks, int breakout, double portGbps,
                 double reachM, const std::string& tier)
{
    if (laneLinks <= 0)
        return;
    const std::int64_t links = ceilDiv(laneLinks, breakout);
    const std::string detail = tier + ", " + metres(reachM);
    const OpticSpec* cable = cheapestMedia(catalog, portGbps, reachM, true);
    const OpticSpec* xcvr = cheapestMedia(catalog, portGbps, reachM, false);
    if (cable && (!xcvr || cable->priceUsd <= 2.0 * xcvr->priceUsd))
        out.push_back(item(*cable, scope, links, detail));
    else if (xcvr)
        out.push_back(item(*xcvr, scope, 2 * links, detail)); // two per optical link
    else
        unpriced(out, warnings, scope, portGbps, reachM, links, detail);
}

// Host-to-leaf links: one per NIC port. The NIC end runs at the link speed; the switch end may
// break one port out to several NICs (an 800G port to 2 x 400G).
void hostLinks(std::vector<BomItem>& out, std::vector<Warning>* warnings, const Catalog& catalog,
               const std::string& scope, std::int64_t links, int breakout, double linkGbps,
               double portGbps, double reachM)
{
    if (links <= 0)
        return;
    const std::string detail = "host-leaf, " + metres(reachM);
    const std::int64_t switchEnds = ceilDiv(links, breakout);
    // Option A: cables (a breakout cable serves `breakout` NICs).
    const OpticSpec* cable =
        cheapestMedia(catalog, breakout > 1 ? portGbps : linkGbps, reachM, true);
    const double cableCost =
        cable ? static_cast<double>(breakout > 1 ? switchEnds : links) * cable->priceUsd : -1.0;
    // Option B: a transceiver at each NIC and one per switch port.
    const OpticSpec* nicEnd = cheapestMedia(catalog, linkGbps, reachM, false);
    const OpticSpec* swEnd =
        breakout > 1 ? cheapestMedia(catalog, portGbps, reachM, false) : nicEnd;
    const double xcvrCost = nicEnd && swEnd ? static_cast<double>(links) * nicEnd->priceUsd +
                                                  static_cast<double>(switchEnds) * swEnd->priceUsd
                                            : -1.0;
    if (cable && (xcvrCost < 0.0 || cableCost <= xcvrCost)) {
        out.push_back(item(*cable, scope, breakout > 1 ? switchEnds : links, detail));
    } else if (xcvrCost >= 0.0) {
        if (nicEnd == swEnd) {
            out.push_back(item(*nicEnd, scope, links + switchEnds, detail));
        } else {
            out.push_back(item(*nicEnd, scope, links, detail + ", NIC end"));
            out.push_back(item(*swEnd, scope, switchEnds, detail + ", switch end"));
        }
    } else {
        unpriced(out, warnings, scope, linkGbps, reachM, links, detail);
    }
}

const NicSpec* fabricNic(const Datacenter& dc, const Catalog& catalog)
{
    if (const NicSpec* named = catalog.nic(dc.fabric.nicModel))
        return named;
    const double gbps = fabricNicGbps(dc, catalog);
    for (const NicSpec& nic : catalog.nics)
        if (std::fabs(nic.gbps - gbps) < 1e-6)
            return &nic;
    return nullptr;
}

} // namespace

std::vector<BomItem> fabricBillOfMaterials(const Datacenter& dc, const FabricDesign& f,
                                           const Catalog& catalog, std::vector<Warning>* warnings)
{
    std::vector<BomItem> out;
    const std::string& scope = dc.name;
    const std::int64_t nics = f.gpus * f.nicsPerGpu;
    if (const NicSpec* nic = fabricNic(dc, catalog))
        out.push_back({nic->name, "nic", scope, nics, nic->priceUsd, nic->watts, "per GPU"});
    else
        out.push_back({"NIC " + gbpsName(fabricNicGbps(dc, catalog)), "nic", scope, nics, 0.0, 0.0,
                       "not in the catalog"});

    const SwitchSpec* sw = fabricSwitch(dc.fabric, fabricNicGbps(dc, catalog), catalog);
    if (!sw && warnings)
        warnings->push_back(Warning{WarningCode::CatalogMissing, WarningForm::NoSwitch}.name(
            "datacenter", dc.name));
    const std::string swName = sw ? sw->name : (f.switchName.empty() ? "switch" : f.switchName);
    const double swPrice = sw ? sw->priceUsd : 0.0;
    const double swWatts = sw ? sw->watts : 0.0;
    const char* tiers[] = {"leaf", "spine", "core"};
    const std::int64_t counts[] = {f.leaves, f.spines, f.cores};
    for (int t = 0; t < 3; ++t)
        if (counts[t] > 0)
            out.push_back({swName, "switch", scope, counts[t], swPrice, swWatts, tiers[t]});

    const double portGbps = sw && sw->portGbps > 0.0 ? sw->portGbps : f.linkGbps;
    const int breakout = std::max(1, f.breakout);
    hostLinks(out, warnings, catalog, scope, f.hostLinks, breakout, f.linkGbps, portGbps,
              f.hostLinkReachM);
    switchLinks(out, warnings, catalog, scope, f.leafSpineLinks, breakout, portGbps, kLeafSpineM,
                "leaf-spine");
    switchLinks(out, warnings, catalog, scope, f.spineCoreLinks, breakout, portGbps, kSpineCoreM,
                "spine-core");
    return out;
}

std::int64_t amplifiersPerFibrePair(double distanceKm, double spacingKm)
{
    if (spacingKm <= 0.0 || distanceKm <= spacingKm)
        return 0;
    // Spans of at most `spacingKm` (C-band EDFA spacing, ~80 km): ceil(d/s) spans, one in-line
    // amplifier between consecutive spans; terminals amplify at both ends.
    // Saturated: a count this large is refused by dciBillOfMaterials, which checks the ratio.
    return saturatingCast<std::int64_t>(std::ceil(distanceKm / spacingKm - 1e-9)) - 1;
}

std::vector<BomItem> dciBillOfMaterials(const DciLink& link, const Topology& topology,
                                        const Catalog& catalog, std::vector<Warning>* warnings)
{
    std::vector<BomItem> out;
    const Datacenter* a = findDatacenter(topology, link.a);
    const Datacenter* b = findDatacenter(topology, link.b);
    const std::string name = (a ? a->name : "?") + " ↔ " + (b ? b->name : "?");
    const std::string scope = "dci " + name;
    const auto warn = [&](Warning w) {
        if (warnings)
            warnings->push_back(std::move(w).count("link_id", link.id).name("link", name));
    };
    const int wavelengths = std::max(0, link.wavelengths);

    const OpticSpec* optic = catalog.optic(link.optic);
    if (!optic) {
        for (const OpticSpec& o : catalog.optics)
            if (o.coherent && o.gbps >= link.gbpsPerWavelength &&
                o.maxReachM >= link.distanceKm * 1000.0 && (!optic || o.priceUsd < optic->priceUsd))
                optic = &o;
        warn(Warning{WarningCode::CatalogMissing, WarningForm::DciOptic}
                 .name("optic", link.optic)
                 .name("using", optic ? optic->name : "an unpriced optic"));
    }
    if (optic) {
        // One coherent transceiver per wavelength per end.
        const auto perWavelength = toInteger<std::int64_t>(
            std::ceil(link.gbpsPerWavelength / std::max(1.0, optic->gbps) - 1e-9));
        const auto optics =
            perWavelength ? checkedProduct(2, wavelengths, *perWavelength) : std::nullopt;
        if (optics)
            out.push_back({optic->name, "dci-optic", scope, *optics, optic->priceUsd, optic->watts,
                           "one per wavelength per end"});
        else
            warn(Warning{WarningCode::NonFinite, WarningForm::OpticCount}
                     .count("wavelengths", wavelengths)
                     .num("gbps_per_wavelength", link.gbpsPerWavelength)
                     .name("optic", optic->name)
                     .num("optic_gbps", optic->gbps));
        if (link.distanceKm * 1000.0 > optic->maxReachM)
            warn(Warning{WarningCode::DciReach, WarningForm::DciOptic}
                     .name("optic", optic->name)
                     .num("reach_km", optic->maxReachM / 1000.0)
                     .num("distance_km", link.distanceKm));
    }

    const LineSystemSpec* ls = catalog.lineSystem(link.lineSystem);
    if (!ls) {
        for (const LineSystemSpec& l : catalog.lineSystems)
            if (l.maxReachKm >= link.distanceKm &&
                (!ls || l.terminalPriceUsd < ls->terminalPriceUsd))
                ls = &l;
        warn(Warning{WarningCode::CatalogMissing, WarningForm::LineSystem}
                 .name("line_system", link.lineSystem)
                 .name("using", ls ? ls->name : "none (unpriced)"));
    }
    if (ls) {
        const std::int64_t pairs = ceilDiv(wavelengths, std::max(1, ls->maxWavelengths));
        out.push_back({ls->name, "line-terminal", scope, 2 * pairs, ls->terminalPriceUsd,
                       ls->terminalWatts, "one per fibre pair per end"});
        const std::int64_t amps = amplifiersPerFibrePair(link.distanceKm, ls->amplifierSpacingKm);
        // Spans beyond 2^53 are no longer counted exactly (nor is any such line system real).
        const bool countable = amps == 0 || link.distanceKm / ls->amplifierSpacingKm < 0x1p53;
        const auto total = countable ? checkedMul(amps, pairs) : std::nullopt;
        if (!total)
            warn(Warning{WarningCode::NonFinite, WarningForm::AmplifierCount}
                     .num("distance_km", link.distanceKm)
                     .num("spacing_km", ls->amplifierSpacingKm)
                     .name("line_system", ls->name));
        else if (amps > 0) {
            out.push_back({ls->name, "amplifier", scope, *total, ls->amplifierPriceUsd,
                           ls->amplifierWatts, "every " + whole(ls->amplifierSpacingKm) + " km"});
            // 1+1 protection: a second, diverse route of the same length, amplified alike. Its
            // fibre and the protection switches are not priced.
            if (link.opticalProtection)
                out.push_back({ls->name, "amplifier", scope, *total, ls->amplifierPriceUsd,
                               ls->amplifierWatts,
                               "protection route, every " + whole(ls->amplifierSpacingKm) + " km"});
        }
        if (ls->maxReachKm > 0.0 && link.distanceKm > ls->maxReachKm)
            warn(Warning{WarningCode::DciReach, WarningForm::LineSystem}
                     .name("line_system", ls->name)
                     .num("reach_km", ls->maxReachKm)
                     .num("distance_km", link.distanceKm));
    }
    return out;
}

std::vector<BomItem> billOfMaterials(const Scenario& scenario, const Catalog& catalog,
                                     std::vector<Warning>& warnings)
{
    std::vector<BomItem> out;
    for (const Datacenter& dc : scenario.topology.datacenters) {
        const FabricDesign f = designFabric(dc, catalog, &warnings);
        auto items = fabricBillOfMaterials(dc, f, catalog, &warnings);
        out.insert(out.end(), items.begin(), items.end());
    }
    for (const DciLink& link : scenario.topology.links) {
        auto items = dciBillOfMaterials(link, scenario.topology, catalog, &warnings);
        out.insert(out.end(), items.begin(), items.end());
    }
    return out;
}

std::vector<BomItem> billOfMaterials(const Scenario& scenario, const Catalog& catalog)
{
    std::vector<Warning> ignored;
    return billOfMaterials(scenario, catalog, ignored);
}

BomTotals bomTotal(const std::vector<BomItem>& items,
                   const std::vector<std::string>& excludeCategories)
{
    BomTotals t;
    for (const BomItem& i : items) {
        if (std::find(excludeCategories.begin(), excludeCategories.end(), i.category) !=
            excludeCategories.end())
            continue;
        t.capexUsd += i.capexUsd();
        t.powerW += i.powerW();
    }
    return t;
}

std::vector<BomTotals> bomTotalsByScope(const std::vector<BomItem>& items)
{
    std::vector<BomTotals> out;
    for (const BomItem& i : items) {
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const BomTotals& t) { return t.scope == i.scope; });
        if (it == out.end())
            it = out.insert(out.end(), BomTotals{i.scope, 0.0, 0.0});
        it->capexUsd += i.capexUsd();
        it->powerW += i.powerW();
    }
    return out;
}

} // namespace archipelago::core
