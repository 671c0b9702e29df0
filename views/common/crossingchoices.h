// The layouts the window offers for "which dimension crosses each datacenter boundary", shared
// by the layout view's header and the parallelism page: PP across every boundary, DP across
// every boundary, PP inside each region with DP between the regions, and, for a few
// datacenters, every mix chosen per boundary, written as the chain it makes
// ("a ─PP─ b ─DP─ c"). Each is a grouping of the datacenters (core::pipelinesPerGroup).
#pragma once

#include "model/scenario.h"

#include <QString>

#include <vector>

namespace archipelago::views {

struct CrossingChoice
{
    QString label;
    QString toolTip;
    std::vector<int> groups; // core::pipelinesPerGroup's group of each datacenter
};

// Every per-boundary mix is listed up to this many datacenters (2^(n-1) chains); past it, the
// uniform choices and the one by region.
inline constexpr std::size_t kMaxDatacentersForChains = 5;

// Empty with fewer than two datacenters.
std::vector<CrossingChoice> crossingChoices(const core::Scenario& scenario);
// The choice whose boundaries the scenario's placement has (core::boundaryDims), or -1 (a
// boundary with no stage on one side, a split shard, a hand-made placement).
int currentCrossingChoice(const core::Scenario& scenario,
                          const std::vector<CrossingChoice>& choices);
// "building-a ─PP─ building-b ─DP─ dc-3": what crosses each boundary of the placement in effect
// ("─?─" where nothing does); empty with one datacenter.
QString crossingChain(const core::Scenario& scenario);

} // namespace archipelago::views
