// The parts of an Evaluation that follow from the timed model: memory per stage and the
// warnings that name a cause (used by costmodel.cpp).
#pragma once

#include "evaluation/stagecost.h"
#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"
#include "network/placement.h"
#include "pipeline/pipelinesimulator.h"

#include <vector>

namespace archipelago::core {

// Memory of every pipeline rank; the worst (highest use over its HBM) goes into ev.memory.
void fillMemory(const Scenario& scenario, const Parallelism& par, ScheduleKind kind,
                const std::vector<const AcceleratorSpec*>& accel,
                const std::vector<ChunkSpec>& chunks, const PlacementAnalysis& placement,
                Evaluation& ev, bool warnings = true);

void addWarnings(const Scenario& scenario, const Parallelism& par, Evaluation& ev);

} // namespace archipelago::core
