#include "commands/movedatacenters.h"

#include "commands/commandids.h"

#include <QCoreApplication>

namespace archipelago::app {

MoveDatacenters::MoveDatacenters(Document* document, std::vector<Move> moves, int dragId,
                                 QUndoCommand* parent)
    : QUndoCommand(parent)
    , m_document(document)
    , m_dragId(dragId)
{
    setText(moves.size() == 1
                ? QCoreApplication::translate("Commands", "Move Datacenter")
                : QCoreApplication::translate("Commands", "Move %n Datacenters", nullptr,
                                              static_cast<int>(moves.size())));
    for (const Move& move : moves) {
        const core::Datacenter* dc = core::findDatacenter(document->scenario().topology, move.id);
        if (!dc)
            continue;
        m_from.push_back({move.id, {dc->x, dc->y}});
        m_to.push_back({move.id, {move.x, move.y}});
    }
    if (m_from == m_to)
        setObsolete(true); // nothing moves: QUndoStack::push drops it
}

void MoveDatacenters::undo()
{
    m_document->setDatacenterPositions(m_from);
}

void MoveDatacenters::redo()
{
    m_document->setDatacenterPositions(m_to);
}

int MoveDatacenters::id() const
{
    return MoveDatacentersId;
}

bool MoveDatacenters::mergeWith(const QUndoCommand* other)
{
    // Only the same selection merges: a drag of the same datacenters, step after step.
    const auto* next = static_cast<const MoveDatacenters*>(other);
    if (next->m_document != m_document || next->m_dragId != m_dragId ||
        next->m_to.size() != m_to.size())
        return false;
    for (std::size_t i = 0; i < m_to.size(); ++i)
        if (next->m_to[i].first != m_to[i].first)
            return false;
    m_to = next->m_to;
    setObsolete(m_from == m_to); // dragged back to where it started
    return true;
}

} // namespace archipelago::app
