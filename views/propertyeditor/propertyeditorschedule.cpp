#include "propertyeditor/propertyeditorschedule.h"

#include "common/format.h"
#include "common/scenariotext.h"

#include "model/scheduletraits.h"

#include <QFormLayout>
#include <QLabel>

#include <algorithm>

namespace archipelago::views {

ScheduleEditor::ScheduleEditor(EditSink* sink, QWidget* parent)
    : PropertyEditorPage(sink, tr("Pipeline schedule"), parent)
{
    QFormLayout* form = addSection(tr("Schedule"));
    m_kind = new ChoiceField;
    std::vector<std::pair<QString, QString>> choices;
    for (const core::ScheduleTraits& t : core::allScheduleTraits())
        choices.emplace_back(scheduleName(t.kind), core::toString(t.kind));
    m_kind->setChoices(choices);
    FieldRow* kindRow = addField(form, tr("Schedule"), m_kind,
                                 tr("Order of forward and backward passes on each stage. "
                                    "Interleaved 1F1B needs virtual stages > 1."));
    kindRow->setPointers({QStringLiteral("/schedule/kind")});
    connect(m_kind, &ChoiceField::committed, this, [this, kindRow](const QString& value) {
        core::Schedule s = scenario().schedule;
        s.kind = core::scheduleKindFromString(value.toStdString()).value_or(s.kind);
        propose(s, kindRow);
    });
    m_extraInFlight = new IntField(0, 1'024);
    FieldRow* extraRow = addField(
        form, tr("Extra in flight at DCI (micro-batches)"), m_extraInFlight,
        tr("Cross-DC-aware variant: extra micro-batches in flight before a slow datacenter "
           "interconnect boundary, bounded by HBM; 0 = plain schedule."));
    extraRow->setPointers({QStringLiteral("/schedule/extra_in_flight_at_dci")});
    connect(m_extraInFlight, &IntField::committed, this, [this, extraRow](int value) {
        core::Schedule s = scenario().schedule;
        s.extraInFlightAtDci = value;
        propose(s, extraRow);
    });
    m_bubble = addNote(form, tr("Ideal bubble (% of compute)"),
                       tr("(p − 1) / (v · m) idle over compute with uniform stages and free "
                          "transfers (Narayanan et al. 2021, section 2.2); the timeline shows "
                          "the simulated one."));
}

void ScheduleEditor::propose(const core::Schedule& schedule, FieldRow* row)
{
    EditProposal proposal;
    proposal.candidate = scenario();
    proposal.candidate.schedule = schedule;
    proposal.fields = row->pointers();
    proposal.row = row;
    sink()->propose(proposal);
}

void ScheduleEditor::loadValues()
{
    const core::Scenario& s = scenario();
    m_kind->load(QString::fromLatin1(core::toString(s.schedule.kind)));
    m_extraInFlight->load(s.schedule.extraInFlightAtDci);
    const std::int64_t m = core::dataParallel(s) > 0 ? core::microBatchesPerIteration(s) : 0;
    const core::ScheduleTraits& traits = core::scheduleTraits(s.schedule.kind);
    const int v = traits.interleaved ? std::max(1, s.parallelism.virtualStages) : 1;
    const bool zeroBubble = traits.splitsWeightGrad;
    if (zeroBubble)
        m_bubble->setText(tr("below 1F1B's; see the pipeline timeline"));
    else if (m > 0)
        m_bubble->setText(
            formatPercent(static_cast<double>(s.parallelism.pp - 1) / static_cast<double>(v * m)));
    else
        m_bubble->setText(QStringLiteral("—"));
}

} // namespace archipelago::views
