#include "propertyeditor/propertyeditorscenario.h"

#include "common/format.h"
#include "model/scenariolimits.h"

#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>

namespace archipelago::views {

NotesField::NotesField(QWidget* parent)
    : QPlainTextEdit(parent)
{
    setTabChangesFocus(true);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    // About ten lines: room to read a paragraph with its sources.
    setFixedHeight(fontMetrics().lineSpacing() * 10 + 12);
}

void NotesField::load(const QString& text)
{
    const QSignalBlocker blocker(this);
    m_loaded = text;
    if (toPlainText() != text)
        setPlainText(text);
}

void NotesField::focusOutEvent(QFocusEvent* event)
{
    QPlainTextEdit::focusOutEvent(event);
    if (toPlainText() == m_loaded)
        return;
    m_loaded = toPlainText();
    emit committed(m_loaded);
}

ScenarioEditor::ScenarioEditor(EditSink* sink, QWidget* parent)
    : PropertyEditorPage(sink, tr("Scenario"), parent)
{
    QFormLayout* form = addSection(tr("Scenario"));
    m_name = new TextField;
    m_name->setMaxLength(core::kMaxNameChars); // what the reader takes back
    m_nameRow = addField(form, tr("Name"), m_name,
                         tr("Name of the scenario, shown in the title bar, reports and pins."));
    m_nameRow->setPointers({QStringLiteral("/name")});
    connect(m_name, &TextField::committed, this, [this](const QString& name) {
        propose(name.trimmed(), QString::fromStdString(scenario().description), m_nameRow);
    });
    m_description = new NotesField;
    m_descriptionRow = addField(form, tr("Description"), m_description,
                                tr("What the scenario studies, its sources and assumptions "
                                   "(free text, saved with the file)."));
    m_descriptionRow->setPointers({QStringLiteral("/description")});
    connect(m_description, &NotesField::committed, this, [this](const QString& description) {
        propose(QString::fromStdString(scenario().name), description, m_descriptionRow);
    });
    m_summary = addNote(form, tr("Contents"),
                        tr("The datacenters, GPUs and model of the scenario; select them in the "
                           "Scenario tree to edit them."));
}

void ScenarioEditor::propose(const QString& name, const QString& description, FieldRow* row)
{
    EditProposal proposal;
    proposal.candidate = scenario();
    proposal.candidate.name = name.toStdString();
    proposal.candidate.description = description.toStdString();
    proposal.fields = row->pointers();
    proposal.row = row;
    sink()->propose(proposal);
}

void ScenarioEditor::loadValues()
{
    const core::Scenario& s = scenario();
    const QString name = QString::fromStdString(s.name);
    setTitle(name.isEmpty() ? tr("Scenario") : tr("Scenario: %1").arg(name));
    m_name->load(name, tr("untitled"));
    m_description->load(QString::fromStdString(s.description));
    const std::size_t count = s.topology.datacenters.size();
    const QString datacenters =
        count == 1 ? tr("1 datacenter")
                   : tr("%1 datacenters").arg(formatCount(static_cast<std::int64_t>(count)));
    const QString model =
        s.workload.name.empty() ? tr("unnamed") : QString::fromStdString(s.workload.name);
    m_summary->setText(tr("%1, %2 GPUs; model %3")
                           .arg(datacenters, formatCount(core::totalGpus(s.topology)), model));
}

} // namespace archipelago::views
