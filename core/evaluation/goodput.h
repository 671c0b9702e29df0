// The run, not the iteration: how long training takes once interruptions, checkpoints and
// restarts are counted (model/reliability.h holds the assumptions). A pure function of the
// scenario, its evaluation and the assumptions.
#pragma once

#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/reliability.h"
#include "model/scenario.h"

namespace archipelago::core {

// Daly's higher-order optimum interval between checkpoints of cost `checkpointS` for a mean
// time between failures `mtbfS` (J. T. Daly, "A higher order estimate of the optimum
// checkpoint interval for restart dumps", FGCS 22(3), 2006, eq. 37): sqrt(2 d M) [1 +
// sqrt(d / 2M) / 3 + (d / 2M) / 9] - d for d < 2M, else M. Young (1974) is its first term.
double dalyIntervalS(double checkpointS, double mtbfS);
// Daly's expected wall time (eq. 13) of `solveS` of work checkpointed every `intervalS` at
// `checkpointS` each, restarting in `restartS` after exponentially distributed failures of mean
// `mtbfS`: M e^(R/M) (e^((tau + d)/M) - 1) T_s / tau.
double dalyWallTimeS(double solveS, double intervalS, double checkpointS, double restartS,
                     double mtbfS);

// Parameters of the whole model (no TP or EP split): every layer, the input embedding and,
// unless tied, the output layer.
double modelParams(const Workload& w);

Goodput goodput(const Scenario& scenario, const Evaluation& evaluation,
                const ReliabilityAssumptions& assumptions);

// The catalog's reliability assumptions, or none (no failure counted) when it has none.
const ReliabilityAssumptions& reliabilityOf(const Catalog& catalog);

} // namespace archipelago::core
