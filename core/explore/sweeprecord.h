// The last sweep saved with a document, as the document holds it: read once, when the file is
// loaded (LoadResult::explore), or made once, when a sweep is recorded. The typed sweep is what
// the Explore panel and the report show; the section's text is what a save writes, unchanged,
// so that a section that cannot be read is kept (with why) rather than dropped.
#pragma once

#include "model/diagnostic.h"

#include <memory>
#include <string>
#include <vector>

namespace archipelago::core {

struct Scenario;
struct SearchSpace;
struct SweepResult;
struct SavedSweep;

struct SweepRecord
{
    // The sweep; null when there is none or the section cannot be read. Shared and immutable:
    // undo commands and views hold the same one, and compare it by identity.
    std::shared_ptr<const SavedSweep> sweep;
    // The file's "explore" section as compact JSON; "" when there is none.
    std::string section;
    // Why the section cannot be read (pointers under /explore); empty when it can.
    std::vector<Diagnostic> errors;

    bool empty() const { return section.empty(); }
};

// The record of a file's section (LoadResult::explore) for the scenario `base`, named `file`.
SweepRecord readSweepRecord(std::string section, const Scenario& base, const std::string& file);
// The record of `result`, a run over `space` around `base`: its sweep is what reading the
// section back gives, so a recorded sweep and the same file reopened show the same points.
SweepRecord recordSweep(const SearchSpace& space, const SweepResult& result, const Scenario& base);

} // namespace archipelago::core
