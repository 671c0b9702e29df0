// Editable property panels for the selected part of the scenario: the scenario's name and
// description, workload, parallelism (with placement basics), schedule, datacenters (hardware,
// fabric, pods) and DCI links. A view: it shows a copy of the scenario and emits one intent,
// edited(); the app turns it into one undo step and calls setScenario() with the result.
//
// Every edit is checked before it leaves, by the check the app applies it with
// (core::checkEdit: placement repair, the batch fitted to DP, the loader's checks); an edit that
// causes an error is refused inline (red field, the reason under it) and emits nothing;
// warnings are shown and do not block. Edits apply to the whole selection; fields where the
// selected objects differ show "mixed". Loading values never emits (KDE/labplot XYCurveDock
// style).
#pragma once

#include "common/scenarioitem.h"
#include "propertyeditor/propertyeditorpage.h"

#include <QList>
#include <QMetaType>
#include <QWidget>

#include <string>
#include <vector>

class QStackedWidget;

namespace archipelago::views {

class DatacenterEditor;
class LinkEditor;
class RegionEditor;
class ParallelismEditor;
class ScenarioEditor;
class ScheduleEditor;
class WorkloadEditor;

// An edit as the property editor hands it to the app: the scenario as the user's edit makes it
// (placement and global batch as they were: core::checkEdit re-makes them for the app exactly
// as it did for the editor), the JSON pointers of the values it set, and whether the placement
// may be re-made to fit it.
struct ProposedEdit
{
    core::Scenario candidate;
    std::vector<std::string> fields;
    bool repairPlacement = false;
};

class PropertyEditor : public QWidget, private EditSink
{
    Q_OBJECT

public:
    // What is shown: Scenario its name and description; Workload; Parallelism, Placement and Shard
    // the parallelism page; Schedule; Region (ids: the region); Datacenter (ids: datacenters); Pod
    // (ids: pods, shown with their datacenters); Link (ids: links); Links (all links). Anything
    // else shows a hint.
    using Kind = ScenarioItem::Kind;

    explicit PropertyEditor(QWidget* parent = nullptr);
    ~PropertyEditor() override;

    // Reloads the values shown (emits nothing). A scenario equal to the one shown is a no-op,
    // so a refused edit stays marked until the scenario really changes.
    void setScenario(const core::Scenario& scenario);
    void setSelection(Kind kind, QList<core::Id> ids = {});
    const core::Scenario& scenario() const override { return m_scenario; }
    Kind selectionKind() const { return m_kind; }
    QList<core::Id> selectionIds() const { return m_ids; }

    // For tests and tools: the page shown (nullptr for the hint) and the pages themselves.
    PropertyEditorPage* currentPage() const;
    ScenarioEditor* scenarioEditor() const { return m_scenarioPage; }
    WorkloadEditor* workloadEditor() const { return m_workload; }
    ParallelismEditor* parallelismEditor() const { return m_parallelism; }
    ScheduleEditor* scheduleEditor() const { return m_schedule; }
    DatacenterEditor* datacenterEditor() const { return m_datacenter; }
    LinkEditor* linkEditor() const { return m_link; }
    RegionEditor* regionEditor() const { return m_region; }

signals:
    // The one intent: an accepted edit, which the app applies as one undo step.
    void edited(const archipelago::views::ProposedEdit& edit);
    // An edit was refused; `reason` is what the field shows (for a status bar).
    void editRefused(const QString& reason);

private:
    bool propose(const EditProposal& proposal) override;
    void reload();

    core::Scenario m_scenario;
    std::vector<core::Diagnostic> m_diagnostics; // of m_scenario
    bool m_hasScenario = false;
    Kind m_kind = Kind::None;
    QList<core::Id> m_ids;

    QStackedWidget* m_stack = nullptr;
    QWidget* m_hint = nullptr;
    ScenarioEditor* m_scenarioPage = nullptr;
    WorkloadEditor* m_workload = nullptr;
    ParallelismEditor* m_parallelism = nullptr;
    ScheduleEditor* m_schedule = nullptr;
    DatacenterEditor* m_datacenter = nullptr;
    LinkEditor* m_link = nullptr;
    RegionEditor* m_region = nullptr;
};

} // namespace archipelago::views

Q_DECLARE_METATYPE(archipelago::views::ProposedEdit)
