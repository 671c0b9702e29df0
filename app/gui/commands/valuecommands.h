// Whole-part edits of a scenario, each a ChangeValue on one field. Editing a part as a whole
// (all of Parallelism, one Datacenter) keeps the commands few and the merges simple; the
// property panels build the new value and push one of these.
#pragma once

#include "commands/changevalue.h"

namespace archipelago::app {

class SetParallelism : public ChangeValue<core::Parallelism>
{
public:
    SetParallelism(Document* document, core::Parallelism parallelism,
                   QUndoCommand* parent = nullptr);
};

class SetWorkload : public ChangeValue<core::Workload>
{
public:
    SetWorkload(Document* document, core::Workload workload, QUndoCommand* parent = nullptr);
};

class SetSchedule : public ChangeValue<core::Schedule>
{
public:
    SetSchedule(Document* document, core::Schedule schedule, QUndoCommand* parent = nullptr);
};

class SetPlacement : public ChangeValue<core::Placement>
{
public:
    SetPlacement(Document* document, core::Placement placement, QUndoCommand* parent = nullptr);
};

// Replaces the datacenter with the same id. The change kind follows what differs: position only
// is a look change, accelerator or fabric is hardware, anything else (pods, region) structure.
class SetDatacenter : public ChangeValue<core::Datacenter>
{
public:
    SetDatacenter(Document* document, core::Datacenter datacenter, QUndoCommand* parent = nullptr);
};

// Replaces the whole scenario (restoring a pinned design point): a structural change.
class SetScenario : public ChangeValue<core::Scenario>
{
public:
    SetScenario(Document* document, core::Scenario scenario, const QString& text,
                QUndoCommand* parent = nullptr);
};

// Replaces the DCI link with the same id (capacity, distance, technology: hardware).
class SetLink : public ChangeValue<core::DciLink>
{
public:
    SetLink(Document* document, core::DciLink link, QUndoCommand* parent = nullptr);
};

} // namespace archipelago::app
