#include "window/undorouting.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QSpinBox>
#include <QUndoStack>

namespace archipelago::app {

namespace {

// The line edit inside a spin box or an editable combo, or the line edit itself.
QLineEdit* lineEditOf(QWidget* editor)
{
    if (auto* edit = qobject_cast<QLineEdit*>(editor))
        return edit;
    return editor->findChild<QLineEdit*>(QString(), Qt::FindDirectChildrenOnly);
}

// Drops typing the user has not committed (Enter or focus-out commits). Returns whether there
// was any.
bool discardTyping(QWidget* editor)
{
    QLineEdit* edit = lineEditOf(editor);
    if (!edit)
        return false;
    // A spin box still holds its committed value (keyboard tracking is off in the property
    // editor); setting it again re-shows it and drops the typed text without emitting. There
    // was typing to drop when the text shown changes.
    const QString shown = edit->text();
    const auto reshow = [&](auto* spin) {
        spin->setValue(spin->value());
        edit->setModified(false);
        return edit->text() != shown;
    };
    if (auto* spin = qobject_cast<QSpinBox*>(editor))
        return reshow(spin);
    if (auto* spin = qobject_cast<QDoubleSpinBox*>(editor))
        return reshow(spin);
    if (!edit->isModified())
        return false;
    while (edit->isUndoAvailable())
        edit->undo();
    edit->setModified(false);
    return true;
}

} // namespace

UndoRouting::UndoRouting(QUndoStack* stack, QWidget* window)
    : QObject(window)
    , m_stack(stack)
    , m_window(window)
{
    qApp->installEventFilter(this);
}

UndoRouting::~UndoRouting()
{
    if (qApp)
        qApp->removeEventFilter(this);
}

UndoRouting::Key UndoRouting::undoKey(const QKeyEvent* event)
{
    const Qt::KeyboardModifiers mods =
        event->modifiers() &
        (Qt::ControlModifier | Qt::ShiftModifier | Qt::AltModifier | Qt::MetaModifier);
    if (event->key() == Qt::Key_Z && mods == Qt::ControlModifier)
        return Key::Undo;
    if (event->key() == Qt::Key_Z && mods == (Qt::ControlModifier | Qt::ShiftModifier))
        return Key::Redo;
    if (event->key() == Qt::Key_Y && mods == Qt::ControlModifier)
        return Key::Redo;
    if (event->matches(QKeySequence::Undo))
        return Key::Undo;
    if (event->matches(QKeySequence::Redo))
        return Key::Redo;
    return Key::None;
}

QWidget* UndoRouting::routedEditor(QObject* watched) const
{
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || !m_window || widget->window() != m_window)
        return nullptr;
    // A spin box's focus goes to the line edit inside it; route as the spin box.
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(widget->parentWidget()))
        return spin;
    if (auto* combo = qobject_cast<QComboBox*>(widget->parentWidget()))
        return combo->isEditable() ? combo : nullptr;
    if (qobject_cast<QLineEdit*>(widget) || qobject_cast<QAbstractSpinBox*>(widget))
        return widget;
    return nullptr; // multi-line text editors and everything else keep their keys
}

bool UndoRouting::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if (type != QEvent::ShortcutOverride && type != QEvent::KeyPress)
        return QObject::eventFilter(watched, event);
    auto* key = static_cast<QKeyEvent*>(event);
    const Key which = undoKey(key);
    if (which == Key::None || !m_stack)
        return QObject::eventFilter(watched, event);
    QWidget* editor = routedEditor(watched);
    if (!editor)
        return QObject::eventFilter(watched, event);
    if (type == QEvent::ShortcutOverride) {
        // Claim the key for the editor, so that it arrives here as a KeyPress (and the Edit
        // menu's shortcut does not fire a second time).
        event->accept();
        return true;
    }
    if (!discardTyping(editor)) {
        if (which == Key::Undo)
            m_stack->undo();
        else
            m_stack->redo();
    }
    event->accept();
    return true;
}

} // namespace archipelago::app
