// One evaluated design point that fits and meets the constraints: its knobs and the lean
// Evaluation (no timeline, warnings, BOM or attribution), plus the figures the fronts rank on.
#pragma once

#include "explore/designpoint.h"
#include "model/evaluation.h"
#include "model/scenario.h"

namespace archipelago::core {

struct SweepPoint
{
    DesignPoint point;
    Evaluation evaluation;
    // The point's topology variant's (DCI transport, wavelengths, fabric kind), from its bill
    // of materials, made once per variant.
    double networkCapexUsd = 0.0;
    double networkPowerW = 0.0;
    // GPUs the point uses times the accelerator's catalog price, plus the network capex.
    double totalCostUsd = 0.0;
    std::int64_t dataParallel = 0;
    Placement placement; // made for the point's placement dimensions (explore/pointplacement.h)
};

} // namespace archipelago::core
