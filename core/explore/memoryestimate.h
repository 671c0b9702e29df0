// A cheap lower bound on a point's memory peak, to prune before evaluating: the model states
// alone (weights, gradients, optimizer) of the layers the average stage holds, with the
// framework reserve, never activations, embeddings or a heavier stage. Never more than the
// cost model's peak (compute/memorymodel.h), so a pruned point cannot fit.
#pragma once

#include "model/scenario.h"

#include <cstdint>

namespace archipelago::core {

double memoryLowerBoundGib(const Scenario& scenario, std::int64_t dataParallel);

} // namespace archipelago::core
