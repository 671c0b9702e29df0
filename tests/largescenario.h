// A very large document built in code (tens of MB once saved), for the tests that need a save
// to take long enough to be interrupted. Built from a preset rather than committed as a file.
#pragma once

#include "io/scenarioio.h"

#include <algorithm>
#include <string>
#include <vector>

namespace archipelago::tests {

struct LargeDocument
{
    core::Scenario scenario;
    std::vector<core::PinnedScenario> pins;
};

// The two-buildings preset with `links` more DCI links in parallel to its first (a file holds
// at most kMaxPins pins, so the size comes from the topology) and kMaxPins pinned design
// points of the preset, each with its own name and link distance; `variant` changes every name
// and distance, so that two variants differ throughout.
inline LargeDocument largeDocument(int links, int variant)
{
    using namespace core;
    LoadResult base =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    LargeDocument d;
    d.scenario = *base.scenario;
    d.scenario.name += " (variant " + std::to_string(variant) + ")";
    for (std::size_t i = 0; i < kMaxPins; ++i) {
        PinnedScenario pin;
        pin.name = "pin " + std::to_string(variant) + "-" + std::to_string(i);
        pin.scenario = d.scenario;
        pin.scenario.name = pin.name;
        pin.scenario.topology.links.front().distanceKm =
            1.0 + static_cast<double>(i % 100 + static_cast<std::size_t>(variant));
        d.pins.push_back(std::move(pin));
    }
    const DciLink first = d.scenario.topology.links.front();
    Id next = 0;
    for (const DciLink& l : d.scenario.topology.links)
        next = std::max(next, l.id + 1);
    for (int i = 0; i < links; ++i) {
        DciLink copy = first;
        copy.id = next++;
        copy.distanceKm = 1.0 + i % 100 + variant;
        d.scenario.topology.links.push_back(copy);
    }
    return d;
}

} // namespace archipelago::tests
