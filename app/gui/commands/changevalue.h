// A property edit as an undo command (after mapeditor/tiled src/tiled/changevalue.h): the
// command keeps the old and the new value of one field of the scenario and swaps them. A
// concrete edit is a few lines that say which field and which kind of change it is.
#pragma once

#include "document/document.h"

#include <QUndoCommand>

#include <utility>

namespace archipelago::app {

template <typename Value> class ChangeValue : public QUndoCommand
{
public:
    ChangeValue(Document* document, const QString& text, ChangeEvent event,
                FieldAccessor<Value> field, Value newValue, QUndoCommand* parent = nullptr)
        : QUndoCommand(text, parent)
        , m_document(document)
        , m_event(event)
        , m_field(std::move(field))
        , m_newValue(std::move(newValue))
    {
        if (std::optional<Value> old = m_document->value(m_field))
            m_oldValue = std::move(*old);
        else
            setObsolete(true); // the object is gone: nothing to edit
    }

    void undo() override { m_document->setValue(m_field, m_oldValue, m_event); }

    void redo() override
    {
        const bool changed = m_document->setValue(m_field, m_newValue, m_event);
        // A no-op edit never reaches the stack: QUndoStack::push drops obsolete commands.
        if (m_firstRedo && !changed)
            setObsolete(true);
        m_firstRedo = false;
    }

    const Value& oldValue() const { return m_oldValue; }
    const Value& newValue() const { return m_newValue; }
    ChangeEvent event() const { return m_event; }

protected:
    Document* document() const { return m_document; }

private:
    Document* m_document;
    ChangeEvent m_event;
    FieldAccessor<Value> m_field;
    Value m_oldValue{};
    Value m_newValue;
    bool m_firstRedo = true;
};

} // namespace archipelago::app
