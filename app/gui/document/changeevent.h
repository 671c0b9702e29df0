// What a document change touched (after mapeditor/tiled src/tiled/changeevents.h): one signal,
// typed payload. Only cost-affecting changes re-run the model; look-only changes (positions,
// colours) just repaint.
#pragma once

#include "model/scenario.h"

#include <QMetaType>

namespace archipelago::app {

struct ChangeEvent
{
    enum class Kind
    {
        Structure,   // objects added or removed, or the whole scenario replaced
        Parallelism, // degrees, micro-batch, memory options
        Workload,    // the model and the batch
        Hardware,    // accelerator, fabric, link technology or capacity
        Placement,   // shards, rank order, layers per stage
        Schedule,    // pipeline schedule
        Look,        // canvas positions and other presentation: never affects cost
        Pins,        // pinned design points added, removed or renamed: never affects cost
        Sweep        // the sweep saved with the document recorded or undone: never affects cost
    };

    Kind kind = Kind::Structure;
    core::Id objectId = -1; // the datacenter or link touched, when there is one

    bool affectsCost() const
    {
        return kind != Kind::Look && kind != Kind::Pins && kind != Kind::Sweep;
    }
    // The event for two changes made as one step (a macro): the same kind when they agree,
    // otherwise Structure (or Look + Look); the object only when both name the same one.
    ChangeEvent mergedWith(const ChangeEvent& other) const
    {
        ChangeEvent merged;
        merged.kind = kind == other.kind ? kind : Kind::Structure;
        merged.objectId = objectId == other.objectId ? objectId : -1;
        return merged;
    }
    bool operator==(const ChangeEvent&) const = default;
};

} // namespace archipelago::app

Q_DECLARE_METATYPE(archipelago::app::ChangeEvent)
