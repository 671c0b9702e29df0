// The run, not the iteration: how long training takes once interruptions, checkpoints and
// restarts are counted (model/reliability.h holds the assumptions). A pure function of the
// scenario, its evaluation and the assumptions.
#pragma once

#include "model/evaluation.h"
#include "model/reliability.h"
#include "model/scenario.h"

namespace archipelago::core {

struct Goodput
{
    double interruptionsPerDay = 0.0; // unexpected, of the whole job
    double mtbfS = 0.0;               // mean time between them (infinite without any)
    double checkpointBytes = 0.0;     // weights and optimizer state of the whole model
    double checkpointBlockingS = 0.0; // training stops this long for each checkpoint
    double checkpointWriteS = 0.0;    // the slowest datacenter's write to its storage
    double checkpointIntervalS = 0.0; // compute between checkpoints (infinite without failures)
    double restartS = 0.0;            // relaunch, communicators, reading the checkpoint
    double ettr = 1.0;                // effective training time ratio: useful / wall time
    double effectiveTimeToTrainS = 0.0;
    double effectiveGpuHours = 0.0;
    // The wall time split by what it does; the four sum to effectiveTimeToTrainS.
    double usefulS = 0.0;
    double checkpointS = 0.0;
    double restartTotalS = 0.0;
    double lostWorkS = 0.0;
};

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

Goodput goodput(const Scenario& scenario, const Evaluation& evaluation,
                const ReliabilityAssumptions& assumptions);

} // namespace archipelago::core
