// One page of the property editor (workload, parallelism, schedule, datacenters, links) and the
// narrow interface it proposes edits through. A page builds the candidate scenario for an edit
// and hands it to the EditSink (the PropertyEditor), which checks it (core::checkEdit) and emits
// it; pages never emit edits themselves and never write to the scenario they show.
#pragma once

#include "common/scenarioitem.h"
#include "propertyeditor/propertyeditorfields.h"

#include <QList>
#include <QWidget>

class QFormLayout;
class QLabel;
class QVBoxLayout;

namespace archipelago::views {

// What a page proposes: the scenario as its edit makes it, and which values it set.
struct EditProposal
{
    core::Scenario candidate;
    QStringList fields;          // JSON pointers of the edited values, for the verdict
    FieldRow* row = nullptr;     // where the verdict is shown
    bool adaptPlacement = false; // the placement may be re-made to fit the edit
};

class EditSink
{
public:
    virtual ~EditSink() = default;
    virtual const core::Scenario& scenario() const = 0;
    // Checks the edit and, when accepted, emits it. Returns whether it was accepted.
    virtual bool propose(const EditProposal& proposal) = 0;
};

class PropertyEditorPage : public QWidget
{
    Q_OBJECT

public:
    using Kind = ScenarioItem::Kind;

    PropertyEditorPage(EditSink* sink, const QString& title, QWidget* parent = nullptr);

    // Shows the values of `ids` (datacenters, pods or links; ignored by the singleton pages)
    // of the sink's scenario, without emitting anything, then the scenario's diagnostics.
    void load(Kind kind, const QList<core::Id>& ids,
              const std::vector<core::Diagnostic>& diagnostics);
    Kind kind() const { return m_kind; }
    const QList<core::Id>& ids() const { return m_ids; }
    QString title() const;

protected:
    virtual void loadValues() = 0;
    // Caps the form labels at about half the width, so that the fields never clip.
    void resizeEvent(QResizeEvent* event) override;
    const core::Scenario& scenario() const { return m_sink->scenario(); }
    EditSink* sink() const { return m_sink; }
    void setTitle(const QString& title);
    // A titled group of form rows.
    QFormLayout* addSection(const QString& title);
    // A free text line in a section (derived values, summaries).
    QLabel* addNote(QFormLayout* form, const QString& label, const QString& toolTip);

private:
    EditSink* m_sink;
    QLabel* m_title;
    QVBoxLayout* m_sections;
    Kind m_kind = Kind::None;
    QList<core::Id> m_ids;
};

// "/topology/datacenters/3" + suffix for each id's index; ids not found are skipped.
QStringList datacenterPointers(const core::Scenario& scenario, const QList<core::Id>& ids,
                               const QString& suffix);
QStringList linkPointers(const core::Scenario& scenario, const QList<core::Id>& ids,
                         const QString& suffix);

} // namespace archipelago::views
