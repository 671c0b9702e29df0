// The DCI capacity a design needs: the fewest wavelengths on one link with which the design runs
// as fast as with that link at any capacity, within a tolerance. The capacity planner's
// question ("what DCI capacity do we need?") asked of the cost model itself.
#pragma once

#include "model/catalog.h"
#include "model/scenario.h"

namespace archipelago::core {

struct LinkSizing
{
    bool ok = false;         // false: the link is unknown or the design cannot be evaluated
    int wavelengths = 0;     // the fewest that keep the iteration within the tolerance
    double gbps = 0.0;       // wavelengths x the link's rate per wavelength, each way
    double iterationS = 0.0; // the iteration time at that many
    double unlimitedS = 0.0; // the iteration time at the most a link may carry
    double currentS = 0.0;   // the iteration time at the link's own wavelengths
    int evaluations = 0;     // cost-model runs the search took
};

// The fewest wavelengths `link` needs, at its own rate per wavelength, for the iteration time
// to stay within `tolerance` (a fraction) of the same design with that link at the most
// wavelengths a scenario allows (limits::kWavelengths), every other link as it is. A link's
// capacity never slows a design down, so the iteration time does not grow with the wavelengths and
// a bisection finds the count. A link the design sends nothing over needs one.
LinkSizing wavelengthsNeeded(const Scenario& scenario, const Catalog& catalog, Id link,
                             double tolerance = 0.01);

} // namespace archipelago::core
