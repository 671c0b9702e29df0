// libFuzzer target: the catalog reader (the schema of resources/catalog.json).
#include "io/scenarioio.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace archipelago::core;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<Diagnostic> errors;
    (void)parseCatalog(text, "fuzz.json", errors);
    return 0;
}
