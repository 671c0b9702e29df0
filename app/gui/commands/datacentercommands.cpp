#include "commands/datacentercommands.h"

#include "network/fabric.h"

#include <QCoreApplication>

#include <algorithm>

namespace archipelago::app {

core::Fabric fabricHoldingGpus(const core::Datacenter& dc, const core::Catalog& catalog)
{
    const auto holds = [&catalog, &dc](const core::Fabric& fabric) {
        core::Datacenter sized = dc;
        sized.fabric = fabric;
        return !core::designFabric(sized, catalog).overCapacity;
    };
    if (holds(dc.fabric))
        return dc.fabric;
    core::Fabric fabric = dc.fabric;
    fabric.tiers = 3;
    if (holds(fabric))
        return fabric;
    // Switches of at least the NIC's speed, the smallest radix that holds the GPUs.
    const double nicGbps = core::fabricNicGbps(dc, catalog);
    std::vector<const core::SwitchSpec*> switches;
    for (const core::SwitchSpec& spec : catalog.switches)
        if (spec.portGbps >= nicGbps)
            switches.push_back(&spec);
    std::sort(
        switches.begin(), switches.end(),
        [](const core::SwitchSpec* a, const core::SwitchSpec* b) { return a->radix < b->radix; });
    for (const core::SwitchSpec* spec : switches) {
        fabric.switchModel = spec->name;
        if (holds(fabric))
            return fabric;
    }
    return dc.fabric; // nothing in the catalog holds it: keep it, the warning says so
}

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
