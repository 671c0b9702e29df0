#include "quickedits.h"

#include "evaluation/costmodel.h"
#include "document.h"
#include "scenariotext.h"
#include "setpipelineparallel.h"
#include "valuecommands.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QUndoStack>

#include <set>

namespace archipelago::app {

namespace {

bool hasErrors(const std::vector<core::Diagnostic>& diagnostics)
{
    for (const core::Diagnostic& d : diagnostics)
        if (d.severity == core::Diagnostic::Severity::Error)
            return true;
    return false;
}

} // namespace

QuickEdits::QuickEdits(Document* document, QMenu* editMenu, QObject* parent)
    : QObject(parent)
    , m_document(document)
{
    m_pipelineMenu = editMenu->addMenu(tr("&Pipeline Parallel"));
    connect(m_pipelineMenu, &QMenu::aboutToShow, this, &QuickEdits::fillPipelineMenu);

    QMenu* schedule = editMenu->addMenu(tr("Pipeline &Schedule"));
    m_scheduleGroup = new QActionGroup(this);
    for (core::ScheduleKind kind :
         {core::ScheduleKind::GPipe, core::ScheduleKind::OneFOneB,
          core::ScheduleKind::Interleaved1F1B, core::ScheduleKind::ZeroBubbleH1,
          core::ScheduleKind::ZeroBubbleH2}) {
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
    const core::Scenario& s = m_document->scenario();
    for (QAction* action : m_scheduleGroup->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(s.schedule.kind));
    for (QAction* action : m_recomputeGroup->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(s.parallelism.recompute));
}

void QuickEdits::fillPipelineMenu()
{
    // Built when shown: each candidate is checked with the loader's validation, so the menu
    // only offers degrees that give a consistent scenario.
    m_pipelineMenu->clear();
    const core::Scenario& s = m_document->scenario();
    const core::Catalog catalog = core::effectiveCatalog(s);
    std::set<int> candidates{1, 2, 4, 8, 16, 32, 64, s.parallelism.pp};
    for (int pp : candidates) {
        QAction* action = m_pipelineMenu->addAction(QString::number(pp), this, [this, pp] {
            m_document->undoStack()->push(new SetPipelineParallel(m_document, pp));
        });
        action->setCheckable(true);
        action->setChecked(pp == s.parallelism.pp);
        if (pp == s.parallelism.pp)
            continue;
        const std::vector<core::Diagnostic> problems =
            core::checkScenario(SetPipelineParallel::withPipelineParallel(s, pp), catalog);
        if (hasErrors(problems)) {
            action->setEnabled(false);
            for (const core::Diagnostic& d : problems)
                if (d.severity == core::Diagnostic::Severity::Error) {
                    action->setToolTip(QString::fromStdString(d.message));
                    break;
                }
        }
    }
    m_pipelineMenu->setToolTipsVisible(true);
}

void QuickEdits::setSchedule(int kind)
{
    core::Schedule schedule = m_document->scenario().schedule;
    schedule.kind = static_cast<core::ScheduleKind>(kind);
    m_document->undoStack()->push(new SetSchedule(m_document, schedule));
}

void QuickEdits::setRecompute(int recompute)
{
    core::Parallelism parallelism = m_document->scenario().parallelism;
    parallelism.recompute = static_cast<core::Recompute>(recompute);
    m_document->undoStack()->push(new SetParallelism(m_document, parallelism));
}

} // namespace archipelago::app
