// A user action made of several edits (after qt/qtbase undoframework: a parent command whose
// children run in order on redo and in reverse on undo). The children's changes are batched so
// that the document emits one change signal per step and the views never see a half-done
// action (a placement naming a datacenter that is already gone).
#pragma once

#include <QUndoCommand>

namespace archipelago::app {

class Document;

class MacroCommand : public QUndoCommand
{
public:
    MacroCommand(Document* document, const QString& text, QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;

protected:
    Document* document() const { return m_document; }

private:
    Document* m_document;
};

} // namespace archipelago::app
