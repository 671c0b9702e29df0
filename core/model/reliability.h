// What interrupts a synchronous training job, how often, and what a restart and a checkpoint
// cost: editable assumptions of the catalog (resources/catalog.json, "reliability"), each with
// its source. The goodput pass (evaluation/goodput.h) turns them into interruptions per day, a
// checkpoint interval and the effective training time.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

// What a failure rate counts per: a failure domain of the job's topology. A cause's rate is per
// unit of it, and the goodput pass (evaluation/goodput.cpp, failureExposures) counts the units
// the job uses: its GPUs and their hosts; its GPUs' NIC ports to the leaves (cable, optics and
// the leaf's share); the leaf, spine and core switches of the fabrics it is placed on, in
// proportion to its share of each datacenter; the buildings it is placed in; and the DCI links
// its traffic crosses, per km of fibre route and per wavelength.
enum class FailureUnit
{
    Gpu,
    Host,
    Port,
    LeafSwitch,
    SpineSwitch,
    CoreSwitch,
    Datacenter,
    DciKm,
    Wavelength
};

// What one failure does to a synchronous job. Interrupt: the job stops and restarts from its
// last checkpoint (after `repairH` when nothing can stand in for the unit: a fibre, a building).
// Degrade: the job runs on with the unit's share of its tier's capacity missing for `repairH`
// (a spine among many, one wavelength of several, under ECMP); a unit that is its tier's only
// path interrupts instead.
enum class FailureEffect
{
    Interrupt,
    Degrade
};

// One cause of failures, as observed: `events` over `unitDays` unit-days (a fleet's record,
// e.g. 148 faulty GPUs in 54 days on 16,384 GPUs; fibre cuts per km-day of route).
struct FailureCause
{
    std::string name;
    FailureUnit unit = FailureUnit::Gpu;
    double events = 0.0;
    double unitDays = 0.0;
    std::string source;
    FailureEffect effect = FailureEffect::Interrupt;
    // Interrupt: hours before the job can restart (0: spares stand in at once). Degrade: hours
    // the capacity is missing.
    double repairH = 0.0;

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
    // (a fixed time), then initialise the communicators (a fixed time and a time per thousand
    // GPUs) and read the checkpoint.
    double relaunchS = 0.0;
    double communicatorInitS = 0.0;
    double communicatorInitSPer1kGpus = 0.0;
    std::string restartSource;

    bool operator==(const ReliabilityAssumptions&) const = default;
};

// "gpu", "host", "port", "leaf", "spine", "core", "datacenter", "dci-km", "wavelength"
const char* toString(FailureUnit unit);
std::optional<FailureUnit> failureUnitFromString(const std::string& s);
inline constexpr const char* kFailureUnitNames =
    "gpu | host | port | leaf | spine | core | datacenter | dci-km | wavelength";
const char* toString(FailureEffect effect); // "interrupt", "degrade"
std::optional<FailureEffect> failureEffectFromString(const std::string& s);

} // namespace archipelago::core
