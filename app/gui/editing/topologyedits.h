// The scenario after a canvas edit (add a datacenter or a pod, connect two datacenters, remove
// a selection), as pure functions: the EditController validates the result, repairs the
// placement and applies it as one undo step. Defaults come from the selected (or first)
// datacenter and from the catalog.
#pragma once

#include "model/catalog.h"
#include "model/scenario.h"

#include <QList>
#include <QStringList>

namespace archipelago::app {

class TopologyEdits
{
public:
    // A copy of datacenter `templateId` (or the first) at (x, y) with fresh ids, in its region,
    // connected by a default DCI link to its nearest datacenter on the canvas (in the same
    // region when there is one) so that the datacenter graph stays connected.
    static core::Scenario withDatacenterAdded(const core::Scenario& scenario, double x, double y,
                                              core::Id templateId);
    // A new region (core::newRegion) holding such a copy at (x, y), linked to the nearest
    // datacenter of the other regions at the canvas distance read as kilometres.
    static core::Scenario withRegionAdded(const core::Scenario& scenario, double x, double y,
                                          core::Id templateId);
    // A copy of the datacenter's last pod.
    static core::Scenario withPodAdded(const core::Scenario& scenario, core::Id datacenter);
    // A DCI link between a and b with the default technology.
    static core::Scenario withLinkAdded(const core::Scenario& scenario, core::Id a, core::Id b);
    // The datacenters (with their links), links and pods removed.
    static core::Scenario withRemoved(const core::Scenario& scenario,
                                      const QList<core::Id>& datacenters,
                                      const QList<core::Id>& links, const QList<core::Id>& pods);

    // The default DCI link: 400ZR on a metro line system, 16 x 400G; inside a region as long
    // as the region's links (10 km when it has none), otherwise the canvas distance read as
    // kilometres; optic and line system kept in reach (keptInReach).
    static core::DciLink defaultLink(const core::Scenario& scenario, core::Id a, core::Id b);
    // A link longer than its optic's or line system's reach takes the shortest-reaching one of
    // `catalog` that reaches (a coherent optic of the same rate, as its own); returns what
    // changed, in words ("line system Metro-DWDM-C-band → Long-haul-DWDM-C+L (…)"), one entry
    // per part changed.
    static QStringList keptInReach(core::DciLink& link, const core::Catalog& catalog);

private:
    static core::Scenario withCopyAdded(const core::Scenario& scenario, double x, double y,
                                        core::Id templateId, core::Id regionId);
};

} // namespace archipelago::app
