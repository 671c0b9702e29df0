// What interrupts a synchronous training job, how often, and what a restart and a checkpoint
// cost: editable assumptions, each with its source. The goodput pass (evaluation/goodput.h)
// turns them into interruptions per day, a checkpoint interval and the effective training time.
#pragma once

#include <string>
#include <vector>

namespace archipelago::core {

// What a failure rate counts per: each GPU of the job, or each host (server) it runs on.
enum class FailureUnit
{
    Gpu,
    Host
};

// One cause of unexpected job interruptions, as a rate per unit and day.
struct FailureCause
{
    std::string name;
    FailureUnit unit = FailureUnit::Gpu;
    double perUnitPerDay = 0.0;
    std::string source;

    bool operator==(const FailureCause&) const = default;
};

struct ReliabilityAssumptions
{
    std::vector<FailureCause> causes;
    int gpusPerHost = 8; // servers of 8 GPUs (HGX / Grand Teton; Llama 3 report section 3.3.1)
    // Checkpoint storage, per datacenter: sustained write and read bandwidth (bytes/s in GB/s).
    double storageWriteGBps = 0.0;
    double storageReadGBps = 0.0;
    // Bytes per parameter a checkpoint holds: bf16 weights (2) and the fp32 master weights,
    // Adam momentum and variance (12) of mixed-precision Adam (Rajbhandari et al. 2020,
    // section 3.1: K = 12); gradients are not saved.
    double checkpointBytesPerParam = 14.0;
    // An asynchronous checkpoint (Workload::checkpointAsynchronous) blocks training only while
    // each GPU copies its shard to host memory over PCIe; the write to storage runs behind the
    // next iterations.
    double deviceToHostGBps = 0.0; // per GPU
    // Restart after an interruption: detect, drain, reschedule and relaunch the processes
    // (a fixed time), then initialise the communicators and read the checkpoint.
    double relaunchS = 0.0;
    double communicatorInitS = 0.0;
    std::string restartSource;

    bool operator==(const ReliabilityAssumptions&) const = default;
};

const char* toString(FailureUnit unit);

// The built-in assumptions (model/reliability.cpp gives each figure's source).
const ReliabilityAssumptions& builtinReliability();

} // namespace archipelago::core
