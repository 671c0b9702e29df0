// What interrupts a synchronous training job, how often, and what a restart and a checkpoint
// cost: editable assumptions of the catalog (resources/catalog.json, "reliability"), each with
// its source. The goodput pass (evaluation/goodput.h) turns them into interruptions per day, a
// checkpoint interval and the effective training time.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

// What a failure rate counts per: each GPU of the job, or each host (server) it runs on.
enum class FailureUnit
{
    Gpu,
    Host
};

// One cause of unexpected job interruptions, as observed: `events` over `unitDays` GPU-days
// or host-days (a fleet's record, e.g. 148 faulty GPUs in 54 days on 16,384 GPUs).
struct FailureCause
{
    std::string name;
    FailureUnit unit = FailureUnit::Gpu;
    double events = 0.0;
    double unitDays = 0.0;
    std::string source;

    double perUnitPerDay() const { return unitDays > 0.0 ? events / unitDays : 0.0; }
    bool operator==(const FailureCause&) const = default;
};

struct ReliabilityAssumptions
{
    std::vector<FailureCause> causes;
    int gpusPerHost = 8;
    // Checkpoint storage, per datacenter: sustained write and read bandwidth in GB/s.
    double storageWriteGBps = 0.0;
    double storageReadGBps = 0.0;
    std::string storageSource;
    // Bytes per parameter a checkpoint holds (weights and optimizer state).
    double checkpointBytesPerParam = 14.0;
    std::string checkpointSource;
    // An asynchronous checkpoint (Workload::checkpointAsynchronous) blocks training only while
    // each GPU copies its shard to host memory; the write to storage runs behind the next
    // iterations. Per GPU, in GB/s.
    double deviceToHostGBps = 0.0;
    std::string deviceToHostSource;
    // Restart after an interruption: detect, drain, reschedule and relaunch the processes
    // (a fixed time), then initialise the communicators and read the checkpoint.
    double relaunchS = 0.0;
    double communicatorInitS = 0.0;
    std::string restartSource;

    bool operator==(const ReliabilityAssumptions&) const = default;
};

const char* toString(FailureUnit unit); // "gpu", "host"
std::optional<FailureUnit> failureUnitFromString(const std::string& s);

} // namespace archipelago::core
