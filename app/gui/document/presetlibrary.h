// The bundled presets: compiled in as Qt resources (:/presets/, so they work without the
// source tree), plus any found in share/archipelago/presets beside the program or in the
// user's data folders.
#pragma once

#include <QList>
#include <QString>

namespace archipelago::app {

class PresetLibrary
{
public:
    struct Preset
    {
        QString title; // the scenario's name, or the file's base name
        QString path;  // a resource path or a file path
    };

    // Registers the resources of the static app library (call once before using them).
    static void initResources();
    // The built-in default scenario.
    static QString defaultScenarioPath();
    // Sorted by title.
    static QList<Preset> presets();
};

} // namespace archipelago::app
