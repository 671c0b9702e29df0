// The run, not the iteration: how long training takes once interruptions, checkpoints and
// restarts are counted (model/reliability.h holds the assumptions). A pure function of the
// scenario, its evaluation and the assumptions.
#pragma once

#include "model/catalog.h"
#include "model/evaluation.h"
#include "model/reliability.h"
#include "model/scenario.h"
#include "network/topologymodel.h"

#include <vector>

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

// One failure cause on one part of the job: a datacenter's GPUs, hosts and fabric, a building,
// or one DCI hop its traffic crosses. What the topology makes of the catalog's cause.
struct FailureExposure
{
    std::size_t cause = 0; // index into ReliabilityAssumptions::causes
    Id datacenter = -1;    // the building the units are in, or -1 for a DCI hop
    Id link = -1;          // the DCI hop (routed link id), or -1
    double units = 0.0;    // of the cause's unit the job uses here
    double perDay = 0.0;   // events a day on them
    // What an event does here: stop the job (Interrupt), slow it (Degrade), or neither
    // (`absorbed`: a protected fibre's cut, or a DCI event under DiLoCo, where the buildings
    // train on and the outer step waits).
    FailureEffect effect = FailureEffect::Interrupt;
    bool absorbed = false;
    bool protectedRoute = false; // absorbed: a fibre cut on a protected route
    double repairS = 0.0;        // Interrupt: the wait before the restart; Degrade: the time slowed
    // Degrade: the share of the tier's capacity one event takes away, and the most the job can
    // slow while it is missing: the busiest such link's utilisation x share / (1 - share).
    double capacityShare = 0.0;
    double slowdown = 0.0;
};

// The job's exposure to every cause of the assumptions, from its placement (GPUs per
// datacenter), the fabric of each datacenter (ports per GPU, switches per tier and pod) and
// the DCI hops its traffic crosses (evaluation.traffic).
std::vector<FailureExposure> failureExposures(const Scenario& scenario,
                                              const Evaluation& evaluation,
                                              const ReliabilityAssumptions& assumptions,
                                              const TopologyModel& topology);

// Communicator initialisation of a job on `gpus` GPUs: a fixed part and a part per thousand.
double communicatorInitS(const ReliabilityAssumptions& assumptions, double gpus);

Goodput goodput(const Scenario& scenario, const Evaluation& evaluation,
                const ReliabilityAssumptions& assumptions, const TopologyModel& topology);
// The same, with the scenario's topology modelled under `catalog` (tests and tools).
Goodput goodput(const Scenario& scenario, const Evaluation& evaluation,
                const ReliabilityAssumptions& assumptions, const Catalog& catalog);

// The catalog's reliability assumptions, or none (no failure counted) when it has none.
const ReliabilityAssumptions& reliabilityOf(const Catalog& catalog);

} // namespace archipelago::core
