#include "model/evaluation.h"

#include <array>
#include <utility>

namespace archipelago::core {

namespace {

constexpr std::array<std::pair<WarningCode, std::string_view>, 31> kWarningKeys{{
    {WarningCode::Invalid, "invalid"},
    {WarningCode::UnknownAccelerator, "unknown-accelerator"},
    {WarningCode::DegreesDoNotDivide, "degrees-do-not-divide"},
    {WarningCode::Pipeline, "pipeline"},
    {WarningCode::VirtualStagesIgnored, "virtual-stages-ignored"},
    {WarningCode::InterleavingFallback, "interleaving-fallback"},
    {WarningCode::PlacementInvalid, "placement-invalid"},
    {WarningCode::CatalogMissing, "catalog-missing"},
    {WarningCode::FabricOverCapacity, "fabric-over-capacity"},
    {WarningCode::TpExceedsScaleUp, "tp-exceeds-scale-up"},
    {WarningCode::TpCrossesDc, "tp-crosses-dc"},
    {WarningCode::CpCrossesDc, "cp-crosses-dc"},
    {WarningCode::EpCrossesDc, "ep-crosses-dc"},
    {WarningCode::PpCrossesDc, "pp-crosses-dc"},
    {WarningCode::DciUnreachable, "dci-unreachable"},
    {WarningCode::DciShared, "dci-shared"},
    {WarningCode::DciTransportBound, "dci-transport-bound"},
    {WarningCode::DciReach, "dci-reach"},
    {WarningCode::RailOnlyForwarding, "rail-only-forwarding"},
    {WarningCode::DciExposed, "dci-exposed"},
    {WarningCode::OutOfMemory, "oom"},
    {WarningCode::Bubble, "bubble"},
    {WarningCode::DpExposed, "dp-exposed"},
    {WarningCode::TpExposed, "tp-exposed"},
    {WarningCode::InternalError, "internal-error"},
    {WarningCode::NonFinite, "non-finite"},
    {WarningCode::SpareGpus, "spare-gpus"},
    {WarningCode::ParallelDciLinks, "parallel-dci-links"},
    {WarningCode::CheckpointInterval, "checkpoint-interval"},
    {WarningCode::MemoryHeadroom, "memory-headroom"},
    {WarningCode::CheckpointReplica, "checkpoint-replica"},
}};

} // namespace

std::string_view toString(WarningCode code)
{
    for (const auto& [c, key] : kWarningKeys)
        if (c == code)
            return key;
    return "?";
}

std::optional<WarningCode> warningCodeFromString(std::string_view key)
{
    for (const auto& [c, k] : kWarningKeys)
        if (k == key)
            return c;
    return std::nullopt;
}

const char* toString(LinkClass c)
{
    switch (c) {
    case LinkClass::ScaleUp:
        return "scale-up";
    case LinkClass::Leaf:
        return "leaf";
    case LinkClass::Spine:
        return "spine";
    case LinkClass::Core:
        return "core";
    case LinkClass::Dci:
        return "dci";
    }
    return "?";
}

} // namespace archipelago::core
