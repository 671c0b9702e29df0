// `archipelago [SCENARIO.json]` and `archipelago --screenshot OUT.png [SCENARIO.json]`
// (ARCHITECTURE.md section 6).
#pragma once

namespace archipelago::app {

// Parses the command line and runs the GUI; returns the process exit code.
int runApplication(int argc, char** argv);

} // namespace archipelago::app
