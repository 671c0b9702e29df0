// libFuzzer target: the scenario reader, and what the GUI runs on every file it opens (the
// semantic checks against the built-in catalog, and the serializer for a save).
#include "io/scenarioio.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace archipelago::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const LoadResult load = parseScenario(text, "fuzz.json");
    if (load.ok()) {
        (void)checkScenario(*load.scenario, builtinCatalog(), "fuzz.json");
        (void)serializeScenario(*load.scenario, load.pins);
    }
    return 0;
}
