#include "editing/topologyedits.h"

#include "commands/datacentercommands.h"

#include "io/scenarioio.h"
#include "model/scenariotemplates.h"

#include <algorithm>
#include <cmath>

namespace archipelago::app {

namespace {

constexpr double kCampusKm = 10.0;

template <typename Object>
std::string uniqueName(const std::vector<Object>& objects, const std::string& stem)
{
    for (std::size_t n = objects.size() + 1;; ++n) {
        const std::string name = stem + std::to_string(n);
        if (std::none_of(objects.begin(), objects.end(),
                         [&name](const Object& o) { return o.name == name; }))
            return name;
    }
}

const core::Datacenter* datacenterOrFirst(const core::Topology& t, core::Id id)
{
    if (const core::Datacenter* dc = core::findDatacenter(t, id))
        return dc;
    return t.datacenters.empty() ? nullptr : &t.datacenters.front();
}

// A new link inside a region is as long as that region's links already are: those touching `a`
// or `b` first, then any other; 0 when the region has none.
double regionLinkKm(const core::Topology& t, core::Id region, core::Id a, core::Id b)
{
    double touching = 0.0;
    double other = 0.0;
    for (const core::DciLink& l : t.links) {
        const core::Datacenter* la = core::findDatacenter(t, l.a);
        const core::Datacenter* lb = core::findDatacenter(t, l.b);
        if (!la || !lb || la->regionId != region || lb->regionId != region)
            continue;
        double& slot = (l.a == a || l.b == a || l.a == b || l.b == b) ? touching : other;
        slot = slot > 0.0 ? std::min(slot, l.distanceKm) : l.distanceKm;
    }
    return touching > 0.0 ? touching : other;
}

} // namespace

core::DciLink TopologyEdits::defaultLink(const core::Scenario& scenario, core::Id a, core::Id b)
{
    core::DciLink link;
    link.id = core::nextLinkId(scenario.topology);
    link.a = a;
    link.b = b;
    link.wavelengths = 16;
    link.gbpsPerWavelength = 400.0;
    link.optic = "400ZR";
    link.lineSystem = "Metro-DWDM-C-band";
    link.distanceKm = kCampusKm;
    const core::Datacenter* da = core::findDatacenter(scenario.topology, a);
    const core::Datacenter* db = core::findDatacenter(scenario.topology, b);
    // Between regions the canvas distance reads as km; inside one, the region's own link length
    // (a campus's 10 km when it has none: the canvas draws a region's buildings side by side).
    if (da && db && da->regionId != db->regionId)
        link.distanceKm = std::max(kCampusKm, std::round(std::hypot(da->x - db->x, da->y - db->y)));
    else if (da && db)
        if (const double km = regionLinkKm(scenario.topology, da->regionId, a, b); km > 0.0)
            link.distanceKm = km;
    keptInReach(link, core::effectiveCatalog(scenario));
    return link;
}

QStringList TopologyEdits::keptInReach(core::DciLink& link, const core::Catalog& catalog)
{
    QStringList changed;
    const QString length = QStringLiteral("%1 km").arg(link.distanceKm);
    if (const core::OpticSpec* optic = catalog.optic(link.optic);
        optic && link.distanceKm * 1000.0 > optic->maxReachM) {
        const core::OpticSpec* best = nullptr;
        for (const core::OpticSpec& o : catalog.optics)
            if (o.coherent == optic->coherent && o.gbps == optic->gbps &&
                o.maxReachM >= link.distanceKm * 1000.0 && (!best || o.maxReachM < best->maxReachM))
                best = &o;
        if (best) {
            changed << QObject::tr("optic %1 → %2 (%3 is past its %4 km reach)")
                           .arg(QString::fromStdString(link.optic),
                                QString::fromStdString(best->name), length)
                           .arg(optic->maxReachM / 1000.0);
            link.optic = best->name;
        }
    }
    if (const core::LineSystemSpec* line = catalog.lineSystem(link.lineSystem);
        line && link.distanceKm > line->maxReachKm) {
        const core::LineSystemSpec* best = nullptr;
        for (const core::LineSystemSpec& l : catalog.lineSystems)
            if (l.maxReachKm >= link.distanceKm && (!best || l.maxReachKm < best->maxReachKm))
                best = &l;
        if (best) {
            changed << QObject::tr("line system %1 → %2 (%3 is past its %4 km reach)")
                           .arg(QString::fromStdString(link.lineSystem),
                                QString::fromStdString(best->name), length)
                           .arg(line->maxReachKm);
            link.lineSystem = best->name;
        }
    }
    return changed;
}

core::Scenario TopologyEdits::withDatacenterAdded(const core::Scenario& scenario, double x,
                                                  double y, core::Id templateId)
{
    const core::Datacenter* source = datacenterOrFirst(scenario.topology, templateId);
    return withCopyAdded(scenario, x, y, templateId, source ? source->regionId : 0);
}

core::Scenario TopologyEdits::withRegionAdded(const core::Scenario& scenario, double x, double y,
                                              core::Id templateId)
{
    core::Scenario next = scenario;
    const core::Region region = core::newRegion(next.topology);
    next.topology.regions.push_back(region);
    return withCopyAdded(next, x, y, templateId, region.id);
}

core::Scenario TopologyEdits::withCopyAdded(const core::Scenario& scenario, double x, double y,
                                            core::Id templateId, core::Id regionId)
{
    core::Scenario next = scenario;
    core::Topology& t = next.topology;
    const core::Datacenter* source = datacenterOrFirst(scenario.topology, templateId);
    core::Datacenter dc = source ? *source : core::Datacenter{};
    dc.id = core::nextDatacenterId(t);
    dc.name = uniqueName(t.datacenters, "dc-");
    dc.regionId = regionId;
    dc.x = x;
    dc.y = y;
    core::Id podId = core::nextPodId(t);
    for (core::Pod& pod : dc.pods)
        pod.id = podId++;
    // The copy starts with a fabric whose switches hold its GPUs (no undersized-fabric
    // warning on a datacenter just added).
    dc.fabric = fabricHoldingGpus(dc, core::effectiveCatalog(scenario));
    // Linked to its nearest neighbour on the canvas, in its own region when it has one there,
    // so that the link is drawn to the card beside it, not through the cards in between.
    const core::Datacenter* nearest = nullptr;
    double nearestDistance = 0.0;
    bool nearestSameRegion = false;
    for (const core::Datacenter& other : scenario.topology.datacenters) {
        const double distance = std::hypot(other.x - x, other.y - y);
        const bool sameRegion = other.regionId == regionId;
        if (!nearest || (sameRegion && !nearestSameRegion) ||
            (sameRegion == nearestSameRegion && distance < nearestDistance)) {
            nearest = &other;
            nearestDistance = distance;
            nearestSameRegion = sameRegion;
        }
    }
    const core::Id neighbour = nearest ? nearest->id : core::Id{-1};
    t.datacenters.push_back(dc);
    if (neighbour >= 0)
        t.links.push_back(defaultLink(next, neighbour, dc.id));
    return next;
}

core::Scenario TopologyEdits::withPodAdded(const core::Scenario& scenario, core::Id datacenter)
{
    core::Scenario next = scenario;
    auto& dcs = next.topology.datacenters;
    auto it = std::find_if(dcs.begin(), dcs.end(), [datacenter](const core::Datacenter& dc) {
        return dc.id == datacenter;
    });
    if (it == dcs.end())
        return next;
    core::Pod pod = it->pods.empty() ? core::Pod{} : it->pods.back();
    pod.id = core::nextPodId(next.topology);
    pod.name = uniqueName(it->pods, "pod-");
    it->pods.push_back(pod);
    return next;
}

core::Scenario TopologyEdits::withLinkAdded(const core::Scenario& scenario, core::Id a, core::Id b)
{
    core::Scenario next = scenario;
    if (a != b && core::findDatacenter(scenario.topology, a) &&
        core::findDatacenter(scenario.topology, b))
        next.topology.links.push_back(defaultLink(scenario, a, b));
    return next;
}

core::Scenario TopologyEdits::withRemoved(const core::Scenario& scenario,
                                          const QList<core::Id>& datacenters,
                                          const QList<core::Id>& links, const QList<core::Id>& pods)
{
    core::Scenario next = scenario;
    core::Topology& t = next.topology;
    std::erase_if(t.datacenters,
                  [&](const core::Datacenter& dc) { return datacenters.contains(dc.id); });
    std::erase_if(t.links, [&](const core::DciLink& link) {
        return links.contains(link.id) || datacenters.contains(link.a) ||
               datacenters.contains(link.b);
    });
    for (core::Datacenter& dc : t.datacenters)
        std::erase_if(dc.pods, [&](const core::Pod& pod) { return pods.contains(pod.id); });
    return next;
}

} // namespace archipelago::app
