#include "propertyeditor.h"

#include "model/placementpresets.h"

#include "propertyeditordatacenter.h"
#include "propertyeditorlink.h"
#include "propertyeditorparallelism.h"
#include "propertyeditorplacement.h"
#include "propertyeditorscenario.h"
#include "propertyeditorschedule.h"
#include "propertyeditorvalidation.h"
#include "propertyeditorworkload.h"

#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <optional>

namespace archipelago::views {

PropertyEditor::PropertyEditor(QWidget* parent)
    : QWidget(parent)
    , m_stack(new QStackedWidget(this))
{
    auto* hint = new QLabel(tr("Select the workload, the parallelism, the schedule, datacenters, "
                               "pods or DCI links to edit their properties."));
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
    for (QWidget* page :
         {m_hint, static_cast<QWidget*>(m_scenarioPage), static_cast<QWidget*>(m_workload),
          static_cast<QWidget*>(m_parallelism), static_cast<QWidget*>(m_schedule),
          static_cast<QWidget*>(m_datacenter), static_cast<QWidget*>(m_link)})
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
    std::vector<core::Placement> options{proposal.candidate.placement};
    if (proposal.adaptPlacement)
        options = placementOptions(m_scenario, proposal.candidate);

    // When the edit changes the data-parallel degree without setting the global batch, the
    // batch follows DP (core::withFittedGlobalBatch), as the app's edit controller does. Each
    // placement's fitted batch comes right after it: the repaired placement (every GPU placed)
    // goes before the edit's own, which may now only leave GPUs idle (legal, a warning).
    const bool fitBatch = proposal.adaptPlacement && proposal.candidate.workload.globalBatch ==
                                                         m_scenario.workload.globalBatch;
    std::vector<core::Scenario> candidates;
    for (const core::Placement& placement : options) {
        candidates.push_back(proposal.candidate);
        candidates.back().placement = placement;
        if (!fitBatch)
            continue;
        core::Scenario fitted = core::withFittedGlobalBatch(candidates.back());
        if (fitted.workload.globalBatch != candidates.back().workload.globalBatch)
            candidates.push_back(std::move(fitted));
    }

    std::optional<EditVerdict> firstVerdict;
    for (const core::Scenario& candidate : candidates) {
        std::vector<core::Diagnostic> after = checkCandidate(candidate);
        EditVerdict verdict = judgeEdit(m_diagnostics, after, proposal.fields);
        if (!verdict.accepted()) {
            if (!firstVerdict)
                firstVerdict = std::move(verdict);
            continue;
        }
        // Optimistic: show the edit as done; the app confirms with setScenario().
        const bool placementChanged = candidate.placement != m_scenario.placement;
        m_scenario = candidate;
        m_diagnostics = std::move(after);
        emitIntent(proposal, candidate, placementChanged);
        reload();
        if (row)
            row->accept(verdict.warnings);
        return true;
    }
    const QStringList reasons = firstVerdict ? firstVerdict->errors : QStringList();
    if (row)
        row->refuse(reasons);
    emit editRefused(reasons.join(QLatin1Char('\n')));
    return false;
}

void PropertyEditor::emitIntent(const EditProposal& proposal, const core::Scenario& accepted,
                                bool placementChanged)
{
    using Intent = EditProposal::Intent;
    switch (proposal.intent) {
    case Intent::Workload:
        emit workloadEdited(accepted.workload);
        break;
    case Intent::Parallelism:
        if (placementChanged)
            emit parallelismAndPlacementEdited(accepted.parallelism, accepted.placement);
        else
            emit parallelismEdited(accepted.parallelism);
        break;
    case Intent::Placement:
        emit placementEdited(accepted.placement);
        break;
    case Intent::Schedule:
        emit scheduleEdited(accepted.schedule);
        break;
    case Intent::Datacenters: {
        QList<core::Datacenter> dcs;
        for (core::Id id : proposal.ids)
            if (const core::Datacenter* dc = core::findDatacenter(accepted.topology, id))
                dcs << *dc;
        if (placementChanged)
            emit datacentersAndPlacementEdited(dcs, accepted.placement);
        else
            emit datacentersEdited(dcs);
        break;
    }
    case Intent::Links: {
        QList<core::DciLink> links;
        for (core::Id id : proposal.ids)
            if (const core::DciLink* link = core::findLink(accepted.topology, id))
                links << *link;
        emit linksEdited(links);
        break;
    }
    case Intent::Scenario:
        emit scenarioInfoEdited(QString::fromStdString(accepted.name),
                                QString::fromStdString(accepted.description));
        break;
    }
}

} // namespace archipelago::views
