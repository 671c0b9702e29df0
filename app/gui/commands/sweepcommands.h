// The Explore panel's sweep recorded in the document (its "explore" section): one undo step,
// a look-only change (the model never re-runs for it), so that the modified mark and Save
// include the sweep.
#pragma once

#include "commands/changevalue.h"

#include <string>

namespace archipelago::app {

class RecordSweep : public ChangeValue<std::string>
{
public:
    // `text` is the section as core::savedSweepText writes it.
    RecordSweep(Document* document, std::string text, QUndoCommand* parent = nullptr);
};

} // namespace archipelago::app
