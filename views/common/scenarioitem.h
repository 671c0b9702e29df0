// A reference to one node of the scenario as the views show it: what kind of object and which
// one (by stable id). Views hold references, never pointers into the scenario, so a rebuilt
// scenario can be shown again with the same selection.
#pragma once

#include "model/scenario.h"

#include <QMetaType>

namespace archipelago::views {

struct ScenarioItem
{
    enum class Kind
    {
        None,
        Scenario,
        Topology,
        Region,
        Datacenter,
        Pod,
        Links,
        Link,
        Workload,
        Parallelism,
        Placement,
        Shard,
        Schedule
    };

    Kind kind = Kind::None;
    core::Id id = -1;       // region, datacenter, pod or link id; shard index
    core::Id parentId = -1; // the datacenter of a pod

    bool operator==(const ScenarioItem&) const = default;
};

} // namespace archipelago::views

Q_DECLARE_METATYPE(archipelago::views::ScenarioItem)
