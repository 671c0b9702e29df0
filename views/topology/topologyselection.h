// What the topology canvas has selected, by kind (views emit ids, never objects).
#pragma once

#include "model/scenario.h"

#include <QList>
#include <QMetaType>

namespace archipelago::views {

enum class TopologyItemKind
{
    Region,
    Datacenter,
    Pod,
    Link
};

struct TopologySelection
{
    QList<core::Id> datacenters;
    QList<core::Id> pods;
    QList<core::Id> links;

    bool isEmpty() const { return datacenters.isEmpty() && pods.isEmpty() && links.isEmpty(); }
    bool operator==(const TopologySelection&) const = default;
};

} // namespace archipelago::views

Q_DECLARE_METATYPE(archipelago::views::TopologySelection)
Q_DECLARE_METATYPE(archipelago::views::TopologyItemKind)
