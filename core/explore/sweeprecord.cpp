#include "explore/sweeprecord.h"

#include "explore/sweepsave.h"

#include <utility>

namespace archipelago::core {

SweepRecord readSweepRecord(std::string section, const Scenario& base, const std::string& file)
{
    SweepRecord record;
    record.section = std::move(section);
    if (record.section.empty())
        return record;
    DiagnosticSink sink(file);
    if (std::optional<SavedSweep> saved = readSavedSweep(record.section, base, sink))
        record.sweep = std::make_shared<const SavedSweep>(std::move(*saved));
    else
        record.errors = sink.takeErrors();
    return record;
}

SweepRecord recordSweep(const SearchSpace& space, const SweepResult& result, const Scenario& base)
{
    return readSweepRecord(savedSweepText(space, result), base, {});
}

} // namespace archipelago::core
