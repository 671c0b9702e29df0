#include "commands/scenarioedit.h"

#include "commands/datacentercommands.h"
#include "commands/linkcommands.h"
#include "commands/macrocommand.h"
#include "commands/valuecommands.h"
#include "document/document.h"

#include <algorithm>

namespace archipelago::app {

namespace {

// What the typed commands cannot express (name, description, catalog, calibration, regions).
bool sameOutsideCommands(const core::Scenario& a, const core::Scenario& b)
{
    return a.name == b.name && a.description == b.description &&
           a.catalogOverrides == b.catalogOverrides && a.calibration == b.calibration &&
           a.topology.regions == b.topology.regions;
}

// True when the objects kept keep their order and new ones come after them: then removing and
// appending reproduces `to` exactly.
template <typename Object>
bool appendsOnly(const std::vector<Object>& from, const std::vector<Object>& to)
{
    std::vector<core::Id> kept;
    for (const Object& o : from)
        if (std::any_of(to.begin(), to.end(), [&o](const Object& t) { return t.id == o.id; }))
            kept.push_back(o.id);
    std::size_t next = 0;
    for (const Object& o : to) {
        const bool old =
            std::any_of(from.begin(), from.end(), [&o](const Object& f) { return f.id == o.id; });
        if (old && (next >= kept.size() || kept[next++] != o.id))
            return false;
        if (!old && next < kept.size())
            return false; // a new object before a kept one
    }
    return true;
}

void addTopologyEdits(Document* document, const core::Topology& from, const core::Topology& to,
                      QUndoCommand* parent)
{
    for (const core::DciLink& link : from.links)
        if (!core::findLink(to, link.id))
            new RemoveLink(document, link.id, parent);
    for (const core::Datacenter& dc : from.datacenters)
        if (!core::findDatacenter(to, dc.id))
            new RemoveDatacenter(document, dc.id, parent);
    for (const core::Datacenter& dc : to.datacenters) {
        const core::Datacenter* old = core::findDatacenter(from, dc.id);
        if (!old)
            new AddDatacenter(document, dc, parent);
        else if (*old != dc)
            new SetDatacenter(document, dc, parent);
    }
    for (const core::DciLink& link : to.links) {
        const core::DciLink* old = core::findLink(from, link.id);
        if (!old)
            new AddLink(document, link, parent);
        else if (*old != link)
            new SetLink(document, link, parent);
    }
}

} // namespace

std::unique_ptr<QUndoCommand> makeScenarioEdit(Document* document, const core::Scenario& target,
                                               const QString& text)
{
    const core::Scenario& current = document->scenario();
    if (target == current)
        return nullptr;
    auto macro = std::make_unique<MacroCommand>(document, text);
    // Datacenters and links must keep their order for undo and redo to be exact; reordering
    // (never done by the views) falls back to replacing the whole scenario.
    if (!sameOutsideCommands(current, target) ||
        !appendsOnly(current.topology.datacenters, target.topology.datacenters) ||
        !appendsOnly(current.topology.links, target.topology.links)) {
        new SetScenario(document, target, text, macro.get());
        return macro;
    }
    if (current.topology != target.topology)
        addTopologyEdits(document, current.topology, target.topology, macro.get());
    if (current.workload != target.workload)
        new SetWorkload(document, target.workload, macro.get());
    if (current.parallelism != target.parallelism)
        new SetParallelism(document, target.parallelism, macro.get());
    if (current.placement != target.placement)
        new SetPlacement(document, target.placement, macro.get());
    if (current.schedule != target.schedule)
        new SetSchedule(document, target.schedule, macro.get());
    return macro;
}

} // namespace archipelago::app
