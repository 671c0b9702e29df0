// libFuzzer target: the reader of the sweep saved in a scenario file (its "explore" section,
// explore/sweepsave.h), which the window, `report` and `check` run on a file's saved sweep,
// against the minimal scenario as the base whose space the points index.
#include "explore/sweepsave.h"
#include "model/scenariotemplates.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace archipelago::core;
    static const Scenario base = minimalScenario();
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    DiagnosticSink sink("fuzz.json");
    (void)readSavedSweep(text, base, sink);
    return 0;
}
