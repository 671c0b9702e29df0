#include "editing/setpipelineparallel.h"

#include "commands/valuecommands.h"
#include "editing/editvalidation.h"

#include <QCoreApplication>

namespace archipelago::app {

core::Scenario SetPipelineParallel::withPipelineParallel(const core::Scenario& scenario, int pp)
{
    core::Scenario next = scenario;
    next.parallelism.pp = pp;
    ValidatedEdit edit = validateEdit(next, scenario, true);
    return edit.scenario ? std::move(*edit.scenario) : next;
}

SetPipelineParallel::SetPipelineParallel(Document* document, int pp, QUndoCommand* parent)
    : MacroCommand(document,
                   QCoreApplication::translate("Commands", "Set Pipeline Parallel to %1").arg(pp),
                   parent)
{
    const core::Scenario& current = document->scenario();
    const core::Scenario next = withPipelineParallel(current, pp);
    // Children run in order on redo and in reverse on undo.
    new SetParallelism(document, next.parallelism, this);
    new SetPlacement(document, next.placement, this);
    if (!(next.workload == current.workload))
        new SetWorkload(document, next.workload, this);
    if (next == current)
        setObsolete(true);
}

} // namespace archipelago::app
