// The last sweep saved with a document (docs/explore.md, "The explore section of a scenario
// file"): the space it searched, written in the --space file's form with every key (so that
// it reads back the same whatever the defaults), its counts, and its fronts and top lists,
// each point by its odometer index in that space and its figures. The point's knobs follow
// from the index (explore/spaceodometer.h) and its placement is re-made when it is previewed
// (sweepPointScenario), so the section stays small. io keeps the section as text
// (LoadResult::explore); reading it here names the JSON pointer under /explore, and a document
// holds what it read (explore/sweeprecord.h).
#pragma once

#include "explore/spacejson.h"
#include "explore/sweep.h"
#include "io/diagnosticsink.h"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace archipelago::core {

struct SavedSweep
{
    SearchSpace space;
    SweepCounts counts;
    bool cancelled = false;
    std::uint64_t baseRank = 0;
    // Each point's knobs (DesignPoint, from the index), dataParallel and figures: its
    // evaluation holds only iterationTimeS, timeToTrainS, memoryPeakGib and mfu.
    std::vector<SweepPoint> timeVsCapex;
    std::vector<SweepPoint> timeVsMemory;
    std::vector<SweepPoint> trainTimeVsCost;
    std::array<std::vector<SweepPoint>, kSweepObjectives> topBy;
};

// The section for `result`, a run over `space`.
nlohmann::ordered_json savedSweepToJson(const SearchSpace& space, const SweepResult& result);
// The same as the compact text LoadResult::explore holds.
std::string savedSweepText(const SearchSpace& space, const SweepResult& result);
// The section in `text` (LoadResult::explore) for the scenario `base`; nullopt after reporting
// every problem to `sink` with pointers under `pointer`.
std::optional<SavedSweep> readSavedSweep(std::string_view text, const Scenario& base,
                                         DiagnosticSink& sink,
                                         const std::string& pointer = "/explore");
// The result a saved sweep stands for (what the Explore panel shows after a load): its fronts,
// top lists and counts; `top` is the top list by iteration time, as runSweep gives it.
SweepResult sweepResultOf(const SavedSweep& saved);

} // namespace archipelago::core
