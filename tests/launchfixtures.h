// The rows of the launch tests: every preset, alone or with each framework.
#pragma once

#include "launch/launchplan.h"

#include <QString>
#include <QTest>

namespace archipelago::tests {

inline constexpr const char* kLaunchPresets[] = {
    "deepseek-v3-moe-2048-h800.json",  "gpt3-175b-1024-a100.json", "llama3-405b-16k-h100.json",
    "llama3-405b-two-buildings.json",  "rail-only-32k.json",       "rail-optimized-32k.json",
    "scale-across-100k-3-regions.json"};

// Columns "preset" (QString) and "framework" (int, a core::Framework), a row per pair.
inline void addPresetFrameworkRows()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<int>("framework");
    for (const char* preset : kLaunchPresets)
        for (core::Framework f :
             {core::Framework::MegatronLm, core::Framework::Nemo, core::Framework::TorchTitan})
            QTest::addRow("%s %s", preset, core::toString(f)) << preset << static_cast<int>(f);
}

} // namespace archipelago::tests
