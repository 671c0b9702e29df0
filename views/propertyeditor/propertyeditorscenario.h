// Scenario page of the property editor: the scenario's name and description (free text, saved
// in the file), with a summary of what it holds. Proposes through the EditSink; the
// description is a multi-line editor that commits on focus-out and keeps
// its own text undo while it has focus.
#pragma once

#include "propertyeditor/propertyeditorpage.h"

#include <QPlainTextEdit>

namespace archipelago::views {

// A multi-line text editor that emits committed() when it loses focus with changed text.
class NotesField : public QPlainTextEdit
{
    Q_OBJECT

public:
    explicit NotesField(QWidget* parent = nullptr);
    void load(const QString& text);

signals:
    void committed(const QString& text);

protected:
    void focusOutEvent(QFocusEvent* event) override;

private:
    QString m_loaded;
};

class ScenarioEditor : public PropertyEditorPage
{
    Q_OBJECT

public:
    explicit ScenarioEditor(EditSink* sink, QWidget* parent = nullptr);

    // For tests and tools.
    TextField* nameField() const { return m_name; }
    NotesField* descriptionField() const { return m_description; }

protected:
    void loadValues() override;

private:
    void propose(const QString& name, const QString& description, FieldRow* row);

    TextField* m_name = nullptr;
    FieldRow* m_nameRow = nullptr;
    NotesField* m_description = nullptr;
    FieldRow* m_descriptionRow = nullptr;
    QLabel* m_summary = nullptr;
};

} // namespace archipelago::views
