// Scenarios and objects the window starts from. minimalScenario() is File > New Empty Document: the
// smallest valid scenario (it passes checkScenario), from which a design is built up edit by
// edit from an empty document").
#pragma once

#include "model/scenario.h"

namespace archipelago::core {

// One region, one datacenter "dc-1" holding one 8-GPU H100 scale-up domain on a Clos fabric, a
// tiny dense workload (4 layers, global batch 8) at TP 1, PP 1, DP 8, plain 1F1B.
Scenario minimalScenario();

// A region to add to `topology`: the next free id and the first free name "region-N" (N from
// one more than the regions there are). A name a region already has is never given twice.
Region newRegion(const Topology& topology);

} // namespace archipelago::core
