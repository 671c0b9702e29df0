// A very large document built in code (tens of MB once saved), for the tests that need a save
// to take long enough to be interrupted. Built from a preset rather than committed as a file.
#pragma once

#include "io/scenarioio.h"

#include <string>
#include <vector>

namespace archipelago::tests {

struct LargeDocument
{
    core::Scenario scenario;
    std::vector<core::PinnedScenario> pins;
};

// The two-buildings preset and `pins` pinned design points of it, each with its own name and
// link distance; `variant` changes every name, so that two variants differ throughout. (The
// topology itself cannot grow without changing the GPU count the parallelism must cover.)
inline LargeDocument largeDocument(int pins, int variant)
{
    using namespace core;
    LoadResult base =
        loadScenarioFile(ARCHIPELAGO_SOURCE_DIR "/presets/llama3-405b-two-buildings.json");
    LargeDocument d;
    d.scenario = *base.scenario;
    d.scenario.name += " (variant " + std::to_string(variant) + ")";
    for (int i = 0; i < pins; ++i) {
        PinnedScenario pin;
        pin.name = "pin " + std::to_string(variant) + "-" + std::to_string(i);
        pin.scenario = d.scenario;
        pin.scenario.name = pin.name;
        pin.scenario.topology.links.front().distanceKm = 1.0 + i % 100 + variant;
        d.pins.push_back(std::move(pin));
    }
    return d;
}

} // namespace archipelago::tests
