// libFuzzer target: the published-runs reader, and the conversion of each run to a scenario
// that `archipelago-cli validate` makes before it evaluates.
#include "io/scenarioio.h"
#include "validation/publishedruns.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace archipelago::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const PublishedRunsLoad load = parsePublishedRuns(text, "fuzz.json");
    if (load.ok()) {
        for (const PublishedRun& run : load.runs)
            (void)scenarioForRun(run, builtinCatalog());
    }
    return 0;
}
