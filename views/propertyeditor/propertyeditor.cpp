#include "propertyeditor/propertyeditor.h"

#include "io/editcheck.h"

#include "propertyeditor/propertyeditordatacenter.h"
#include "propertyeditor/propertyeditorlink.h"
#include "propertyeditor/propertyeditorparallelism.h"
#include "propertyeditor/propertyeditorregion.h"
#include "propertyeditor/propertyeditorscenario.h"
#include "propertyeditor/propertyeditorschedule.h"
#include "propertyeditor/propertyeditorvalidation.h"
#include "propertyeditor/propertyeditorworkload.h"

#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <utility>

namespace archipelago::views {

PropertyEditor::PropertyEditor(QWidget* parent)
    : QWidget(parent)
    , m_stack(new QStackedWidget(this))
{
    auto* hint = new QLabel(tr("Select the workload, the parallelism, the schedule, a region, "
                               "datacenters, pods or DCI links to edit their properties."));
    hint->setWordWrap(true);
    hint->setAlignment(Qt::AlignCenter);
    hint->setContentsMargins(12, 12, 12, 12);
    hint->setEnabled(false);
    m_hint = hint;
    m_scenarioPage = new ScenarioEditor(this);
    m_workload = new WorkloadEditor(this);
    m_parallelism = new ParallelismEditor(this);
    m_schedule = new ScheduleEditor(this);
    m_datacenter = new DatacenterEditor(this);
    m_link = new LinkEditor(this);
    m_region = new RegionEditor(this);
    for (QWidget* page : {m_hint, static_cast<QWidget*>(m_scenarioPage),
                          static_cast<QWidget*>(m_workload), static_cast<QWidget*>(m_parallelism),
                          static_cast<QWidget*>(m_schedule), static_cast<QWidget*>(m_datacenter),
                          static_cast<QWidget*>(m_link), static_cast<QWidget*>(m_region)})
        m_stack->addWidget(page);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    setMinimumWidth(300);

    // A number typed out of range is refused by its row; the status bar hears it too.
    for (FieldRow* row : findChildren<FieldRow*>()) {
        if (auto* field = qobject_cast<IntField*>(row->editor()))
            connect(field, &IntField::outOfRange, this,
                    [this, row](int typed) { emit editRefused(row->rangeMessage(typed)); });
        else if (auto* number = qobject_cast<DoubleField*>(row->editor()))
            connect(number, &DoubleField::outOfRange, this,
                    [this, row](double typed) { emit editRefused(row->rangeMessage(typed)); });
    }
}

PropertyEditor::~PropertyEditor() = default;

void PropertyEditor::setScenario(const core::Scenario& scenario)
{
    if (m_hasScenario && scenario == m_scenario)
        return;
    m_hasScenario = true;
    m_scenario = scenario;
    m_diagnostics = checkCandidate(m_scenario);
    reload();
}

void PropertyEditor::setSelection(Kind kind, QList<core::Id> ids)
{
    m_kind = kind;
    m_ids = std::move(ids);
    reload();
}

PropertyEditorPage* PropertyEditor::currentPage() const
{
    return qobject_cast<PropertyEditorPage*>(m_stack->currentWidget());
}

void PropertyEditor::reload()
{
    const core::Topology& t = m_scenario.topology;
    QList<core::Id> ids;
    PropertyEditorPage* page = nullptr;
    switch (m_kind) {
    case Kind::Scenario:
        page = m_scenarioPage;
        break;
    case Kind::Workload:
        page = m_workload;
        break;
    case Kind::Parallelism:
    case Kind::Placement:
    case Kind::Shard:
        page = m_parallelism;
        break;
    case Kind::Schedule:
        page = m_schedule;
        break;
    case Kind::Region:
        for (core::Id id : m_ids)
            if (core::findRegion(t, id) && ids.isEmpty())
                ids << id;
        page = ids.isEmpty() ? nullptr : m_region;
        break;
    case Kind::Datacenter:
        for (core::Id id : m_ids)
            if (core::findDatacenter(t, id) && !ids.contains(id))
                ids << id;
        page = ids.isEmpty() ? nullptr : m_datacenter;
        break;
    case Kind::Pod:
        for (const core::Datacenter& dc : t.datacenters)
            for (const core::Pod& pod : dc.pods)
                if (m_ids.contains(pod.id))
                    ids << pod.id;
        page = ids.isEmpty() ? nullptr : m_datacenter;
        break;
    case Kind::Link:
    case Kind::Links:
        for (const core::DciLink& link : t.links)
            if (m_kind == Kind::Links || m_ids.contains(link.id))
                ids << link.id;
        page = ids.isEmpty() ? nullptr : m_link;
        break;
    default:
        break;
    }
    if (page)
        page->load(m_kind, ids, m_diagnostics);
    m_stack->setCurrentWidget(page ? static_cast<QWidget*>(page) : m_hint);
}

bool PropertyEditor::propose(const EditProposal& proposal)
{
    FieldRow* row = proposal.row;
    if (proposal.candidate == m_scenario) { // setters skip no-op edits
        if (row)
            row->showDiagnostics(m_diagnostics);
        return true;
    }
    ProposedEdit edit{proposal.candidate, {}, proposal.adaptPlacement};
    for (const QString& field : proposal.fields)
        edit.fields.push_back(field.toStdString());
    core::EditCheck check =
        core::checkEdit(m_scenario, edit.candidate, edit.fields,
                        edit.repairPlacement ? core::PlacementRepairMode::Repair
                                             : core::PlacementRepairMode::KeepPlacement);
    if (!check.accepted()) {
        const QStringList reasons = refusalReasons(check, edit.candidate);
        if (row)
            row->refuse(reasons);
        emit editRefused(reasons.join(QLatin1Char('\n')));
        return false;
    }
    // Optimistic: show the edit as done; the app applies it through the same check and
    // confirms with setScenario().
    m_scenario = std::move(*check.scenario);
    m_diagnostics = inUserWords(std::move(check.diagnostics), m_scenario);
    const QStringList warnings = messagesInUserWords(check.warnings, m_scenario);
    emit edited(edit);
    reload();
    if (row)
        row->accept(warnings);
    return true;
}

} // namespace archipelago::views
