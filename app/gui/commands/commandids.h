// QUndoCommand::id() values of the commands that merge (a drag becomes one undo step).
#pragma once

namespace archipelago::app {

enum CommandId : int
{
    MoveDatacentersId = 1,
};

} // namespace archipelago::app
