#pragma once

namespace archipelago::app {

// Parses the command line (SCENARIO.json, --screenshot OUT.png) and runs the GUI.
int runApplication(int argc, char** argv);

} // namespace archipelago::app
