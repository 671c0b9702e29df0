// Pinned design points are part of the document (saved in its "pins" array), so pinning,
// unpinning and renaming are undo commands: the modified mark and Save include them. Pins are
// addressed by index; RemovePin owns the removed pin while it is done.
#pragma once

#include "document/document.h"

#include <QUndoCommand>

#include <optional>

namespace archipelago::app {

class AddPin : public QUndoCommand
{
public:
    // Appends `pin`.
    AddPin(Document* document, core::PinnedScenario pin, QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;

private:
    Document* m_document;
    core::PinnedScenario m_pin;
    std::size_t m_index;
};

class RemovePin : public QUndoCommand
{
public:
    RemovePin(Document* document, std::size_t index, QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;

private:
    Document* m_document;
    std::size_t m_index;
    std::optional<core::PinnedScenario> m_removed; // owned while done
};

class RenamePin : public QUndoCommand
{
public:
    RenamePin(Document* document, std::size_t index, std::string name,
              QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;

private:
    Document* m_document;
    std::size_t m_index;
    std::string m_oldName;
    std::string m_newName;
};

} // namespace archipelago::app
