// A preset of presets/ loaded for a test; a preset that does not load stops the test program.
#pragma once

#include "io/scenarioio.h"

#include <QtGlobal>

#include <string>

namespace archipelago::tests {

inline core::Scenario loadPreset(const char* name)
{
    const core::LoadResult r =
        core::loadScenarioFile(std::string(ARCHIPELAGO_SOURCE_DIR "/presets/") + name);
    if (!r.ok())
        qFatal("cannot load preset %s", name);
    return *r.scenario;
}

} // namespace archipelago::tests
