#include "commands/macrocommand.h"

#include "document/document.h"

namespace archipelago::app {

MacroCommand::MacroCommand(Document* document, const QString& text, QUndoCommand* parent)
    : QUndoCommand(text, parent)
    , m_document(document)
{}

void MacroCommand::undo()
{
    const Document::ChangeBatch batch(m_document);
    QUndoCommand::undo();
}

void MacroCommand::redo()
{
    const Document::ChangeBatch batch(m_document);
    QUndoCommand::redo();
}

} // namespace archipelago::app
