#include "commands/valuecommands.h"

#include <QCoreApplication>

#include <algorithm>

namespace archipelago::app {

namespace {

using Kind = ChangeEvent::Kind;

QString tr(const char* text)
{
    return QCoreApplication::translate("Commands", text);
}

template <typename Object> FieldAccessor<Object> member(Object core::Scenario::*field)
{
    return [field](core::Scenario& s) { return &(s.*field); };
}

template <typename Object>
FieldAccessor<Object> byId(std::vector<Object> core::Topology::*objects, core::Id id)
{
    return [objects, id](core::Scenario& s) -> Object* {
        auto& list = s.topology.*objects;
        auto it =
            std::find_if(list.begin(), list.end(), [id](const Object& o) { return o.id == id; });
        return it == list.end() ? nullptr : &*it;
    };
}

Kind datacenterChangeKind(const Document* document, const core::Datacenter& next)
{
    const core::Datacenter* current = core::findDatacenter(document->scenario().topology, next.id);
    if (!current)
        return Kind::Structure;
    core::Datacenter moved = *current;
    moved.x = next.x;
    moved.y = next.y;
    if (moved == next)
        return Kind::Look;
    moved.accelerator = next.accelerator;
    moved.fabric = next.fabric;
    return moved == next ? Kind::Hardware : Kind::Structure;
}

} // namespace

SetParallelism::SetParallelism(Document* document, core::Parallelism parallelism,
                               QUndoCommand* parent)
    : ChangeValue(document, tr("Change Parallelism"), {Kind::Parallelism},
                  member(&core::Scenario::parallelism), std::move(parallelism), parent)
{}

SetWorkload::SetWorkload(Document* document, core::Workload workload, QUndoCommand* parent)
    : ChangeValue(document, tr("Change Workload"), {Kind::Workload},
                  member(&core::Scenario::workload), std::move(workload), parent)
{}

SetSchedule::SetSchedule(Document* document, core::Schedule schedule, QUndoCommand* parent)
    : ChangeValue(document, tr("Change Schedule"), {Kind::Schedule},
                  member(&core::Scenario::schedule), std::move(schedule), parent)
{}

SetPlacement::SetPlacement(Document* document, core::Placement placement, QUndoCommand* parent)
    : ChangeValue(document, tr("Change Placement"), {Kind::Placement},
                  member(&core::Scenario::placement), std::move(placement), parent)
{}

SetDatacenter::SetDatacenter(Document* document, core::Datacenter datacenter, QUndoCommand* parent)
    : ChangeValue(document, tr("Change Datacenter"),
                  {datacenterChangeKind(document, datacenter), datacenter.id},
                  byId(&core::Topology::datacenters, datacenter.id), datacenter, parent)
{}

SetScenario::SetScenario(Document* document, core::Scenario scenario, const QString& text,
                         QUndoCommand* parent)
    : ChangeValue(
          document, text, {Kind::Structure}, [](core::Scenario& s) { return &s; },
          std::move(scenario), parent)
{}

SetLink::SetLink(Document* document, core::DciLink link, QUndoCommand* parent)
    : ChangeValue(document, tr("Change DCI Link"), {Kind::Hardware, link.id},
                  byId(&core::Topology::links, link.id), link, parent)
{}

} // namespace archipelago::app
