// Editable property panels for the selected part of the scenario: the scenario's name and
// description, workload,
// parallelism (with placement basics), schedule, datacenters (hardware, fabric, pods) and DCI
// links. A view: it shows a copy of the scenario and emits intents; the app turns each intent
// into one undo command (or macro) and calls setScenario() with the result.
//
// Every edit is validated before it leaves: the candidate scenario goes through the loader's
// checks (core::checkScenario with the effective catalog); an edit that causes an error is
// refused inline (red field, the reason under it) and emits nothing; warnings are shown and do
// not block. Edits apply to the whole selection; fields where the selected objects differ show
// "mixed". Loading values never emits (KDE/labplot XYCurveDock style).
#pragma once

#include "propertyeditorpage.h"
#include "scenarioitem.h"

#include <QList>
#include <QWidget>

class QStackedWidget;

namespace archipelago::views {

class DatacenterEditor;
class LinkEditor;
class ParallelismEditor;
class ScenarioEditor;
class ScheduleEditor;
class WorkloadEditor;

class PropertyEditor : public QWidget, private EditSink
{
    Q_OBJECT

public:
    // What is shown: Scenario its name and description; Workload; Parallelism, Placement and Shard
    // the parallelism page; Schedule; Datacenter (ids: datacenters); Pod (ids: pods, shown with
    // their datacenters); Link (ids: links); Links (all links). Anything else shows a hint.
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

signals:
    // Intents. Each is one undo command; the "...AndPlacement" ones one macro of two.
    void workloadEdited(const core::Workload& workload);
    void parallelismEdited(const core::Parallelism& parallelism);
    // TP, CP or PP changed and the placement had to follow (stage lists, dp_replicas).
    void parallelismAndPlacementEdited(const core::Parallelism& parallelism,
                                       const core::Placement& placement);
    void placementEdited(const core::Placement& placement);
    void scheduleEdited(const core::Schedule& schedule);
    // Every selected datacenter, edited at once (SetDatacenter per entry, in one macro).
    void datacentersEdited(const QList<core::Datacenter>& datacenters);
    // Pod sizes changed the GPU count and the placement had to follow.
    void datacentersAndPlacementEdited(const QList<core::Datacenter>& datacenters,
                                       const core::Placement& placement);
    void linksEdited(const QList<core::DciLink>& links);
    // The scenario's name and description (free text).
    void scenarioInfoEdited(const QString& name, const QString& description);
    // An edit was refused; `reason` is what the field shows (for a status bar).
    void editRefused(const QString& reason);

private:
    bool propose(const EditProposal& proposal) override;
    void emitIntent(const EditProposal& proposal, const core::Scenario& accepted,
                    bool placementChanged);
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
};

} // namespace archipelago::views
