#include "commands/linkcommands.h"

#include <QCoreApplication>

namespace archipelago::app {

AddLink::AddLink(Document* document, core::DciLink link, QUndoCommand* parent)
    : QUndoCommand(QCoreApplication::translate("Commands", "Add DCI Link"), parent)
    , m_document(document)
    , m_link(std::move(link))
    , m_index(document->scenario().topology.links.size())
{
    if (m_link.id < 0 || core::findLink(document->scenario().topology, m_link.id))
        m_link.id = core::nextLinkId(document->scenario().topology);
}

void AddLink::undo()
{
    m_document->removeLink(m_link.id);
}

void AddLink::redo()
{
    m_document->insertLink(m_index, m_link);
}

RemoveLink::RemoveLink(Document* document, core::Id id, QUndoCommand* parent)
    : QUndoCommand(QCoreApplication::translate("Commands", "Remove DCI Link"), parent)
    , m_document(document)
    , m_id(id)
{
    if (!core::findLink(document->scenario().topology, id))
        setObsolete(true);
}

void RemoveLink::undo()
{
    if (m_removed)
        m_document->insertLink(m_removed->first, m_removed->second);
    m_removed.reset();
}

void RemoveLink::redo()
{
    m_removed = m_document->removeLink(m_id);
}

} // namespace archipelago::app
