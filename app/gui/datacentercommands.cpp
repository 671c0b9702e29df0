#include "datacentercommands.h"

#include <QCoreApplication>

namespace archipelago::app {

AddDatacenter::AddDatacenter(Document* document, core::Datacenter datacenter, QUndoCommand* parent)
    : QUndoCommand(QCoreApplication::translate("Commands", "Add Datacenter"), parent)
    , m_document(document)
{
    if (datacenter.id < 0 || core::findDatacenter(document->scenario().topology, datacenter.id))
        datacenter.id = core::nextDatacenterId(document->scenario().topology);
    m_added.datacenter = std::move(datacenter);
    m_added.index = document->scenario().topology.datacenters.size();
}

void AddDatacenter::undo()
{
    m_document->removeDatacenter(m_added.datacenter.id);
}

void AddDatacenter::redo()
{
    m_document->restoreDatacenter(m_added);
}

RemoveDatacenter::RemoveDatacenter(Document* document, core::Id id, QUndoCommand* parent)
    : QUndoCommand(parent)
    , m_document(document)
    , m_id(id)
{
    const core::Datacenter* dc = core::findDatacenter(document->scenario().topology, id);
    setText(QCoreApplication::translate("Commands", "Remove Datacenter %1")
                .arg(dc ? QString::fromStdString(dc->name) : QString::number(id)));
    if (!dc)
        setObsolete(true);
}

void RemoveDatacenter::undo()
{
    if (m_removed)
        m_document->restoreDatacenter(*m_removed);
    m_removed.reset();
}

void RemoveDatacenter::redo()
{
    m_removed = m_document->removeDatacenter(m_id);
}

} // namespace archipelago::app
