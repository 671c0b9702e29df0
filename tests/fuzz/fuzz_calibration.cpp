// libFuzzer target: the readers of calibration (`archipelago-cli calibrate` and `measure`, File >
// Calibrate from Measured Runs…): the first byte picks the calibration file reader or the
// training-log reader of Megatron-LM, NeMo or TorchTitan; the rest is the file. A log's
// argument dump is also compared with the minimal scenario.
#include "io/calibrationio.h"
#include "model/scenariotemplates.h"
#include "validation/measuredrun.h"
#include "validation/runlog.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace archipelago::core;
    static const Scenario base = minimalScenario();
    if (size == 0)
        return 0;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    const int reader = data[0] % 4;
    if (reader == 0) {
        const CalibrationLoad load = parseCalibration(text, "fuzz.json");
        if (load.ok())
            (void)serializeCalibration(*load.calibration, load.rows, load.command);
        return 0;
    }
    const IterationLog log =
        readIterationLog(static_cast<Framework>(reader - 1), text, 1048576.0, 8);
    (void)argumentMismatches(log.arguments, base);
    return 0;
}
