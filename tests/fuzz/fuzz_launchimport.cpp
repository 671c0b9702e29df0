// libFuzzer target: the launch-settings readers (`archipelago-cli import`, File > Import Launch
// Settings…): the first byte picks Megatron-LM, NeMo or TorchTitan, the rest is the pasted text,
// imported over the minimal scenario (its placement repaired for whatever degrees it names).
#include "launch/launchimport.h"
#include "model/scenariotemplates.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace archipelago::core;
    static const Scenario base = minimalScenario();
    if (size == 0)
        return 0;
    const auto framework = static_cast<Framework>(data[0] % 3);
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    (void)importLaunchSettings(framework, text, base, "fuzz.sh");
    (void)parsePipelineLayout(text);
    return 0;
}
