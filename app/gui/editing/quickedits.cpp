#include "editing/quickedits.h"

#include "model/scheduletraits.h"

#include "common/scenariotext.h"
#include "document/document.h"
#include "editing/editcontroller.h"
#include "editing/editvalidation.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>

#include <set>

namespace archipelago::app {

QuickEdits::QuickEdits(EditController* edits, QMenu* editMenu, QObject* parent)
    : QObject(parent)
    , m_edits(edits)
{
    m_pipelineMenu = editMenu->addMenu(tr("&Pipeline Parallel"));
    connect(m_pipelineMenu, &QMenu::aboutToShow, this, &QuickEdits::fillPipelineMenu);

    QMenu* schedule = editMenu->addMenu(tr("Pipeline &Schedule"));
    m_scheduleGroup = new QActionGroup(this);
    for (const core::ScheduleTraits& traits : core::allScheduleTraits()) {
        const core::ScheduleKind kind = traits.kind;
        const int value = static_cast<int>(kind);
        QAction* action = schedule->addAction(views::scheduleName(kind), this,
                                              [this, value] { setSchedule(value); });
        action->setCheckable(true);
        action->setData(value);
        m_scheduleGroup->addAction(action);
    }

    QMenu* recompute = editMenu->addMenu(tr("Activation &Recompute"));
    m_recomputeGroup = new QActionGroup(this);
    for (core::Recompute r :
         {core::Recompute::None, core::Recompute::Selective, core::Recompute::Full}) {
        const int value = static_cast<int>(r);
        QAction* action = recompute->addAction(views::recomputeName(r), this,
                                               [this, value] { setRecompute(value); });
        action->setCheckable(true);
        action->setData(value);
        m_recomputeGroup->addAction(action);
    }
}

void QuickEdits::update()
{
    const core::Scenario& s = m_edits->document()->scenario();
    for (QAction* action : m_scheduleGroup->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(s.schedule.kind));
    for (QAction* action : m_recomputeGroup->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(s.parallelism.recompute));
}

void QuickEdits::fillPipelineMenu()
{
    // Built when shown: each candidate is validated as the controller would apply it (placement
    // repaired, batch following DP), so the menu only offers degrees it will accept.
    m_pipelineMenu->clear();
    const core::Scenario& s = m_edits->document()->scenario();
    std::set<int> candidates{1, 2, 4, 8, 16, 32, 64, s.parallelism.pp};
    for (int pp : candidates) {
        QAction* action = m_pipelineMenu->addAction(
            QString::number(pp), this, [this, pp] { m_edits->setPipelineParallel(pp); });
        action->setCheckable(true);
        action->setChecked(pp == s.parallelism.pp);
        if (pp == s.parallelism.pp)
            continue;
        core::Scenario next = s;
        next.parallelism.pp = pp;
        const ValidatedEdit edit = validateEdit(next, s, true);
        action->setEnabled(edit.scenario.has_value());
        action->setToolTip(edit.scenario ? edit.note : edit.reason);
    }
    m_pipelineMenu->setToolTipsVisible(true);
}

void QuickEdits::setSchedule(int kind)
{
    core::Schedule schedule = m_edits->document()->scenario().schedule;
    schedule.kind = static_cast<core::ScheduleKind>(kind);
    m_edits->setSchedule(schedule);
}

void QuickEdits::setRecompute(int recompute)
{
    core::Parallelism parallelism = m_edits->document()->scenario().parallelism;
    parallelism.recompute = static_cast<core::Recompute>(recompute);
    m_edits->setParallelism(parallelism);
}

} // namespace archipelago::app
