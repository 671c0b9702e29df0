#include "model/reliability.h"

namespace archipelago::core {

namespace {

// Llama 3 405B pre-training: 419 unexpected interruptions in a 54-day snapshot on 16,384 H100
// GPUs in 2,048 servers, by root cause (Dubey et al. 2024, "The Llama 3 Herd of Models",
// section 3.3.4, Table 5). Each count is spread over the units it belongs to: 16,384 x 54
// GPU-days, or 2,048 x 54 host-days. Network, NIC, NCCL and software causes are counted per GPU
// (one NIC and one cable per GPU on that RoCE fabric; a job's software runs a process per GPU).
constexpr double kLlama3GpuDays = 16384.0 * 54.0;
constexpr double kLlama3HostDays = 2048.0 * 54.0;
constexpr const char* kLlama3 = "Dubey et al. 2024 (Llama 3), Table 5: ";

FailureCause gpuCause(const char* name, double count)
{
    return {name, FailureUnit::Gpu, count / kLlama3GpuDays,
            std::string(kLlama3) + std::to_string(static_cast<int>(count)) +
                " in 54 days on 16,384 GPUs"};
}

FailureCause hostCause(const char* name, double count)
{
    return {name, FailureUnit::Host, count / kLlama3HostDays,
            std::string(kLlama3) + std::to_string(static_cast<int>(count)) +
                " in 54 days on 2,048 hosts"};
}

ReliabilityAssumptions makeBuiltin()
{
    ReliabilityAssumptions r;
    r.causes = {
        gpuCause("faulty GPU", 148),
        gpuCause("GPU HBM3 memory", 72),
        gpuCause("software bug", 54),
        gpuCause("network switch or cable", 35),
        gpuCause("GPU SRAM memory", 19),
        gpuCause("GPU system processor", 17),
        gpuCause("NIC", 7),
        gpuCause("NCCL watchdog timeout", 7),
        gpuCause("silent data corruption", 6),
        gpuCause("GPU thermal interface and sensor", 6),
        gpuCause("dependency", 2),
        hostCause("host maintenance", 32),
        hostCause("SSD", 3),
        hostCause("power supply", 3),
        hostCause("server chassis", 2),
        hostCause("IO expansion board", 2),
        hostCause("CPU", 2),
        hostCause("system memory", 2),
    };
    // Tectonic, the storage of Llama 3's cluster: 2 TB/s sustained, 7 TB/s peak (Llama 3 report
    // section 3.3.1, "Storage"). The sustained figure both ways.
    r.storageWriteGBps = 2000.0;
    r.storageReadGBps = 2000.0;
    // PCIe 5.0 x16 carries about 63 GB/s per direction (PCI-SIG); eight GPUs of a server copy at
    // once into one host's memory, so half of it is assumed (an editable assumption).
    r.deviceToHostGBps = 32.0;
    // Not published as one figure: ten minutes to detect, drain, reschedule and relaunch, one
    // minute to initialise the communicators (editable assumptions).
    r.relaunchS = 600.0;
    r.communicatorInitS = 60.0;
    r.restartSource = "assumption: relaunch 10 min, communicator initialisation 1 min";
    return r;
}

} // namespace

const char* toString(FailureUnit unit)
{
    return unit == FailureUnit::Gpu ? "gpu" : "host";
}

const ReliabilityAssumptions& builtinReliability()
{
    static const ReliabilityAssumptions r = makeBuiltin();
    return r;
}

} // namespace archipelago::core
