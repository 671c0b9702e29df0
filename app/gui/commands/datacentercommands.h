// Adding and removing a datacenter. The remove command owns the removed datacenter and the DCI
// links that touched it for as long as it is done, and puts them back in place on undo (after
// qt/qtbase examples/widgets/tools/undoframework/commands.cpp). The placement is left as it is:
// a shard that still names the removed datacenter is reported by the model's checks.
#pragma once

#include "document/document.h"

#include <QUndoCommand>

#include <optional>

namespace archipelago::app {

// The scale-out fabric of `dc` sized to hold its GPUs: the fabric as it is when it does;
// otherwise 3 tiers instead of 2, then the catalog's switches of the NIC's speed or faster,
// smallest radix first, until the fabric's switches hold every GPU's NICs (designFabric without
// overCapacity). For a datacenter just added, so that it starts without an undersized fabric.
core::Fabric fabricHoldingGpus(const core::Datacenter& dc, const core::Catalog& catalog);

class AddDatacenter : public QUndoCommand
{
public:
    // The datacenter is appended; an id < 0 gets the next free id.
    AddDatacenter(Document* document, core::Datacenter datacenter, QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;
    core::Id datacenterId() const { return m_added.datacenter.id; }

private:
    Document* m_document;
    RemovedDatacenter m_added; // what undo takes out again
};

class RemoveDatacenter : public QUndoCommand
{
public:
    RemoveDatacenter(Document* document, core::Id id, QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;

private:
    Document* m_document;
    core::Id m_id;
    std::optional<RemovedDatacenter> m_removed; // owned while the command is done
};

} // namespace archipelago::app
