#include "evaluation/linksizing.h"

#include "evaluation/costmodel.h"
#include "model/scenariolimits.h"

#include <cmath>
#include <limits>
#include <map>

namespace archipelago::core {

LinkSizing wavelengthsNeeded(const Scenario& scenario, const Catalog& catalog, Id link,
                             double tolerance)
{
    LinkSizing out;
    const DciLink* sized = findLink(scenario.topology, link);
    if (!sized)
        return out;
    // Only the iteration time is read: no timeline, warnings, bill of materials or attribution.
    EvaluateOptions lean;
    lean.timeline = false;
    lean.warnings = false;
    lean.billOfMaterials = false;
    lean.attribution = false;
    std::map<int, double> seen;
    const auto iterationAt = [&](int wavelengths) {
        if (const auto it = seen.find(wavelengths); it != seen.end())
            return it->second;
        Scenario s = scenario;
        for (DciLink& l : s.topology.links)
            if (l.id == link)
                l.wavelengths = wavelengths;
        const Evaluation ev = evaluate(s, catalog, lean);
        ++out.evaluations;
        const double t = ev.ok && std::isfinite(ev.iterationTimeS)
                             ? ev.iterationTimeS
                             : std::numeric_limits<double>::infinity();
        seen.emplace(wavelengths, t);
        return t;
    };
    out.unlimitedS = iterationAt(limits::kWavelengths.max);
    out.currentS = iterationAt(sized->wavelengths);
    if (!std::isfinite(out.unlimitedS))
        return out;
    const double target = out.unlimitedS * (1.0 + tolerance);
    // Invariant: iterationAt(high) is within the target; iterationAt(low) is not (or low is 0).
    int low = 0;
    int high = limits::kWavelengths.max;
    if (out.currentS <= target)
        high = sized->wavelengths;
    else
        low = sized->wavelengths;
    while (high - low > 1) {
        const int middle = low + (high - low) / 2;
        if (iterationAt(middle) <= target)
            high = middle;
        else
            low = middle;
    }
    out.ok = true;
    out.wavelengths = high;
    out.gbps = high * sized->gbpsPerWavelength;
    out.iterationS = iterationAt(high);
    return out;
}

} // namespace archipelago::core
