// Turns "the scenario as it should be after this user action" into one undo step made of the
// document's typed commands (RemoveLink, RemoveDatacenter, SetDatacenter, AddDatacenter,
// AddLink, SetLink, SetWorkload, SetParallelism, SetPlacement, SetSchedule), so that each
// command keeps its change kind (look-only or cost-affecting) and undo restores exactly.
#pragma once

#include "model/scenario.h"

#include <QString>

#include <memory>

class QUndoCommand;

namespace archipelago::app {

class Document;

// nullptr when `target` equals the document's scenario. New objects in `target` must use ids
// not in use in the document (core::nextDatacenterId, nextLinkId, nextPodId).
std::unique_ptr<QUndoCommand> makeScenarioEdit(Document* document, const core::Scenario& target,
                                               const QString& text);

} // namespace archipelago::app
