// libFuzzer target: `archipelago-cli merge`'s reader of a sweep shard's JSON output
// (explore/sweepmerge.h). The input is parsed as readSweepJson parses a file, then merged alone
// (a shard of 1, or one of N with the others missing) and twice (the same shard given twice),
// and a merged result is printed as `merge --csv` prints it.
#include "explore/sweepcsv.h"
#include "explore/sweepmerge.h"
#include "io/jsondocument.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace archipelago::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    DiagnosticSink sink("fuzz.json");
    Json parsed;
    if (!parseJsonDocument(text, parsed, sink))
        return 0;
    const nlohmann::json shard(parsed);
    for (int copies : {1, 2}) {
        SweepMerger merger;
        for (int i = 0; i < copies; ++i)
            merger.add(i == 0 ? "a.json" : "b.json", shard);
        const SweepMergeResult r = merger.finish();
        if (r.merged)
            (void)sweepJsonToCsv(*r.merged);
    }
    return 0;
}
