// Changing the pipeline-parallel degree is one user action but two edits: the degree and the
// placement that must match it (one datacenter per stage). The command is the parent of a
// SetParallelism and a SetPlacement, so it undoes as one step. The new placement keeps the
// current style: stages split across datacenters, data parallel across them, or implicit.
#pragma once

#include "document.h"

#include "macrocommand.h"

namespace archipelago::app {

class SetPipelineParallel : public MacroCommand
{
public:
    SetPipelineParallel(Document* document, int pp, QUndoCommand* parent = nullptr);

    // The scenario as it would be after the edit (for validating a value before offering it).
    static core::Scenario withPipelineParallel(const core::Scenario& scenario, int pp);
};

} // namespace archipelago::app
