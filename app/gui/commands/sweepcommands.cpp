#include "commands/sweepcommands.h"

#include <QCoreApplication>

#include <utility>

namespace archipelago::app {

RecordSweep::RecordSweep(Document* document, std::string text, QUndoCommand* parent)
    : ChangeValue(
          document, QCoreApplication::translate("Commands", "Record Explore Sweep"),
          {ChangeEvent::Kind::Look}, [](core::Scenario& s) { return &s.explore; }, std::move(text),
          parent)
{}

} // namespace archipelago::app
