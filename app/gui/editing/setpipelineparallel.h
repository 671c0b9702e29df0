// Changing the pipeline-parallel degree is one user action but several edits: the degree, the
// placement that must match it (core::repairPlacement: the shards rescaled, else a preset of
// the same shape) and, when DP changes with it, the global batch. The command is the parent of
// a SetParallelism, a SetPlacement and maybe a SetWorkload, so it undoes as one step. The app's
// edits go through EditController::setPipelineParallel, which validates and pushes the same
// result; this command is for callers that push onto the stack directly.
#pragma once

#include "document/document.h"

#include "commands/macrocommand.h"

namespace archipelago::app {

class SetPipelineParallel : public MacroCommand
{
public:
    SetPipelineParallel(Document* document, int pp, QUndoCommand* parent = nullptr);

    // The scenario as it would be after the edit, placement repaired (for validating a value
    // before offering it); with the placement unrepaired when no valid placement exists.
    static core::Scenario withPipelineParallel(const core::Scenario& scenario, int pp);
};

} // namespace archipelago::app
