// What the run costs: the cluster's cost per hour while the run holds it (owned hardware
// amortised over its service life, the building's colocation rate and its energy, or a rental
// rate per GPU-hour), times the run's wall time (model/economics.h holds the assumptions). A
// pure function of the scenario, the catalog, the network's bill of materials and the times.
#pragma once

#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/scenario.h"

namespace archipelago::core {

inline constexpr double kHoursPerYear = 365.25 * 24.0;

// The cost per hour of the GPUs the job is placed on, their servers, and a network of
// `networkCapexUsd` drawing `networkPowerW`; the run totals are left at zero. Unpriced
// (RunCost::priced false) when the catalog has no economics assumptions.
RunCost runCostPerHour(const Scenario& scenario, const Catalog& catalog, double networkCapexUsd,
                       double networkPowerW);

// The same, and its cost over `timeToTrainS` (failure-free) and `effectiveTimeToTrainS`.
RunCost runCost(const Scenario& scenario, const Catalog& catalog, double networkCapexUsd,
                double networkPowerW, double timeToTrainS, double effectiveTimeToTrainS);

} // namespace archipelago::core
