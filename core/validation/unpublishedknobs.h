// The knobs a published run leaves unpublished (micro-batch, virtual stages, sequence
// parallelism, the distributed optimizer), chosen with the design-space search
// (explore/sweep.h) as the team that tuned the run would have: the fastest setting that fits in
// HBM, jointly over every unpublished knob (unpublishedknobs.cpp says how).
#pragma once

#include "model/catalog.h"
#include "model/scenario.h"
#include "validation/publishedruns.h"

#include <string>
#include <vector>

namespace archipelago::core {

// Whether `run` leaves a knob to choose. The distributed optimizer is not in format v1: it is
// unpublished whenever there is something to shard (dp * cp > 1).
bool hasUnpublishedKnobs(const PublishedRun& run);

// Sets the unpublished knobs of `scenario`, the run's scenario with every published knob and
// the training stack's switches set, to the fastest setting that fits; when none fits, to the
// one that needs the least memory. One assumption line per unpublished knob, naming what the
// choice beat. `catalog` is the one the run is evaluated with (its HBM is the bound).
void chooseUnpublishedKnobs(const PublishedRun& run, const Catalog& catalog, Scenario& scenario,
                            std::vector<std::string>& assumptions);

} // namespace archipelago::core
