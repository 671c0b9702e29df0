// Adding and removing a DCI link between two datacenters. The remove command owns the removed
// link while it is done and puts it back at its old position on undo.
#pragma once

#include "document/document.h"

#include <QUndoCommand>

#include <optional>
#include <utility>

namespace archipelago::app {

class AddLink : public QUndoCommand
{
public:
    // The link is appended; an id < 0 (or one in use) gets the next free id.
    AddLink(Document* document, core::DciLink link, QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;
    core::Id linkId() const { return m_link.id; }

private:
    Document* m_document;
    core::DciLink m_link;
    std::size_t m_index = 0;
};

class RemoveLink : public QUndoCommand
{
public:
    RemoveLink(Document* document, core::Id id, QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;

private:
    Document* m_document;
    core::Id m_id;
    std::optional<std::pair<std::size_t, core::DciLink>> m_removed; // owned while done
};

} // namespace archipelago::app
