// Undo and redo from anywhere in the main window. A focused QLineEdit or spin box claims
// Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y for its own text history (through ShortcutOverride), so the
// Edit menu's actions never fire while a property field has focus. This filter, installed on
// the application, takes those keys back for one-line editors of its window and routes them
// to the document's undo stack. A field holding half-typed, uncommitted text is reverted
// first (the keypress discards the typing, the next one undoes the document), so an undo
// never applies to a value the user has not committed. Multi-line text editors (QTextEdit,
// QPlainTextEdit) keep their own text undo.
#pragma once

#include <QObject>
#include <QPointer>

class QKeyEvent;
class QUndoStack;
class QWidget;

namespace archipelago::app {

class UndoRouting : public QObject
{
    Q_OBJECT

public:
    // Routes the keys of one-line editors inside `window` to `stack`.
    UndoRouting(QUndoStack* stack, QWidget* window);
    ~UndoRouting() override;

    enum class Key
    {
        None,
        Undo,
        Redo
    };
    // Which of the undo keys `event` is (Ctrl+Z; Ctrl+Shift+Z or Ctrl+Y).
    static Key undoKey(const QKeyEvent* event);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The one-line editor (a QLineEdit or the spin box around it) `watched` belongs to, when it
    // is inside the window; nullptr otherwise.
    QWidget* routedEditor(QObject* watched) const;

    QPointer<QUndoStack> m_stack;
    QPointer<QWidget> m_window;
};

} // namespace archipelago::app
