#include "commands/sweepcommands.h"

#include <QCoreApplication>

#include <utility>

namespace archipelago::app {

RecordSweep::RecordSweep(Document* document, core::SweepRecord sweep, QUndoCommand* parent)
    : QUndoCommand(QCoreApplication::translate("Commands", "Record Explore Sweep"), parent)
    , m_document(document)
    , m_before(document->sweep())
    , m_after(std::move(sweep))
{}

void RecordSweep::undo()
{
    m_document->setSweep(m_before);
}

void RecordSweep::redo()
{
    const bool changed = m_document->setSweep(m_after);
    // The same sweep again never reaches the stack: QUndoStack::push drops obsolete commands.
    if (m_firstRedo && !changed)
        setObsolete(true);
    m_firstRedo = false;
}

} // namespace archipelago::app
