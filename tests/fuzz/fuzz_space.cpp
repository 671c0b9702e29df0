// libFuzzer target: the explorer's search-space reader (`sweep --space`), against the minimal
// scenario as the base whose defaults fill the absent keys.
#include "explore/spacejson.h"
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
    (void)parseSearchSpace(text, base, sink);
    return 0;
}
