#include "commands/pincommands.h"

#include <QCoreApplication>

namespace archipelago::app {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("Commands", text);
}

QString pinName(const Document* document, std::size_t index)
{
    return index < document->pins().size() ? QString::fromStdString(document->pins()[index].name)
                                           : QString();
}

} // namespace

AddPin::AddPin(Document* document, core::PinnedScenario pin, QUndoCommand* parent)
    : QUndoCommand(tr("Pin “%1”").arg(QString::fromStdString(pin.name)), parent)
    , m_document(document)
    , m_pin(std::move(pin))
    , m_index(document->pins().size())
{}

void AddPin::undo()
{
    m_document->removePin(m_index);
}

void AddPin::redo()
{
    m_document->insertPin(m_index, m_pin);
}

RemovePin::RemovePin(Document* document, std::size_t index, QUndoCommand* parent)
    : QUndoCommand(tr("Remove Pin “%1”").arg(pinName(document, index)), parent)
    , m_document(document)
    , m_index(index)
{
    if (index >= document->pins().size())
        setObsolete(true);
}

void RemovePin::undo()
{
    if (m_removed)
        m_document->insertPin(m_index, *m_removed);
    m_removed.reset();
}

void RemovePin::redo()
{
    m_removed = m_document->removePin(m_index);
}

RenamePin::RenamePin(Document* document, std::size_t index, std::string name, QUndoCommand* parent)
    : QUndoCommand(tr("Rename Pin “%1”").arg(pinName(document, index)), parent)
    , m_document(document)
    , m_index(index)
    , m_newName(std::move(name))
{
    if (index < document->pins().size())
        m_oldName = document->pins()[index].name;
    if (index >= document->pins().size() || m_oldName == m_newName)
        setObsolete(true);
}

void RenamePin::undo()
{
    m_document->setPinName(m_index, m_oldName);
}

void RenamePin::redo()
{
    m_document->setPinName(m_index, m_newName);
}

} // namespace archipelago::app
