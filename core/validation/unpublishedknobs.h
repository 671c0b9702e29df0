// The knobs a published run leaves unpublished (micro-batch, virtual stages, sequence
// parallelism, the distributed optimizer), chosen with the design-space search
// (explore/sweep.h) as the team that tuned the run would have: the fastest setting that fits in
// HBM, jointly over every unpublished knob (unpublishedknobs.cpp says how).
#pragma once

#include "model/catalog.h"
#include "model/scenario.h"
#include "validation/publishedruns.h"

#include <cstdint>
#include <string>
#include <vector>

namespace archipelago::core {

// Whether `run` leaves a knob to choose. The distributed optimizer is not in the format: it is
// unpublished whenever there is something to shard (dp * cp > 1). A knob the run's stack release
// did not have (format version 2, validation/stackfeatures.h) takes its off value.
bool hasUnpublishedKnobs(const PublishedRun& run);

// The pipeline cells (stages x chunks x micro-batches, summed over the settings it evaluates)
// one run's search may simulate in each of its two sweeps (the second, with the HBM lifted, only
// when some setting does not fit): 2.8x what the heaviest published run needs (Narayanan et al.
// 2021's 1T: 64 stages, 512 micro-batches per replica at micro-batch 1, 1 or 2 chunks, about
// 753,000 cells a sweep). Over it, the longest pipelines are not tried (unpublishedknobs.cpp).
inline constexpr std::int64_t kMaxKnobSearchCells = std::int64_t{1} << 21;

// Sets the unpublished knobs of `scenario`, the run's scenario with every published knob and
// the training stack's switches set, to the fastest setting that fits; when none fits, to the
// one that needs the least memory. One assumption line per unpublished knob, naming what the
// choice beat. `catalog` is the one the run is evaluated with (its HBM is the bound). Returns the
// pipeline cells the search simulated, at most 2 * maxSearchCells plus the two bases.
std::int64_t chooseUnpublishedKnobs(const PublishedRun& run, const Catalog& catalog,
                                    Scenario& scenario, std::vector<std::string>& assumptions,
                                    std::int64_t maxSearchCells = kMaxKnobSearchCells);

} // namespace archipelago::core
