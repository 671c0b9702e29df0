// libFuzzer target: the published-runs reader, and the conversion of each run to a scenario
// that `archipelago-cli validate` makes before it evaluates.
#include "io/scenarioio.h"
#include "validation/publishedruns.h"
#include "validation/unpublishedknobs.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

// The search of a run's unpublished knobs costs up to kMaxKnobSearchCells pipeline cells per
// run (twice), seconds per run under the sanitizers, and a file holds as many runs as fit in it:
// the fuzzer searches with a 64x smaller bound, so that a file of hostile runs stays within its
// timeout while the bound's narrowing is exercised on every seed run above it.
constexpr std::int64_t kFuzzSearchCells = archipelago::core::kMaxKnobSearchCells / 64;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace archipelago::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const PublishedRunsLoad load = parsePublishedRuns(text, "fuzz.json");
    if (load.ok()) {
        for (const PublishedRun& run : load.runs)
            (void)scenarioForRun(run, builtinCatalog(), kFuzzSearchCells);
    }
    return 0;
}
