// The Explore panel's sweep recorded in the document (its "explore" section): one undo step,
// a Sweep change (the model never re-runs for it), so that the modified mark and Save include
// the sweep, and undo brings back the sweep saved before.
#pragma once

#include "document/document.h"
#include "explore/sweeprecord.h"

#include <QUndoCommand>

namespace archipelago::app {

class RecordSweep : public QUndoCommand
{
public:
    // `sweep` as core::recordSweep makes it.
    RecordSweep(Document* document, core::SweepRecord sweep, QUndoCommand* parent = nullptr);

    void undo() override;
    void redo() override;

private:
    Document* m_document;
    core::SweepRecord m_before;
    core::SweepRecord m_after;
    bool m_firstRedo = true;
};

} // namespace archipelago::app
