// Loosely coupled training across datacenters (docs/loose-sync.md): where the data-parallel
// group crosses a datacenter boundary, DiLoCo and Streaming DiLoCo synchronise the datacenters'
// replicas every H steps instead of every step. This file holds the pieces the passes share:
// which replicas a scheme couples, the outer step's exposure, and the convergence cost from
// the published scaling laws.
#pragma once

#include "model/scenario.h"
#include "network/placement.h"

namespace archipelago::core {

// M, the datacenter replicas the scheme synchronises: the participants of the DP path's levels
// from its first DCI level on; 1 when the scheme is synchronous or DP stays in one datacenter
// (then the scheme changes nothing).
int looseSyncReplicas(const Parallelism& par, const GroupPath& dp);

// Streaming DiLoCo's fragments: the user's count, or one per three layers (Douillard et al.
// 2025, section 3.3.1), at least 1 and at most the layers; 1 for plain DiLoCo.
int syncFragments(const Workload& w, const DatacenterSyncOptions& d);

// What the outer steps add to each inner step on average, for an outer all-reduce of the
// whole model taking `outerS` over the DCI, every H inner steps of `stepS`, of which
// `linkFreeS` leave the DCI link idle (the pipeline's transfers use the rest).
// DiLoCo blocks for the whole all-reduce (Douillard et al. 2025, Algorithm 1: the workers
// wait to receive the outer weights): outerS / H. Streaming DiLoCo sends F fragments of
// outerS / F, one every H / F steps, each applied tau steps later (ibid. Algorithm 2), so each
// fragment is exposed by what its transfer exceeds tau steps of idle link; and the link
// cannot carry more than H steps' idle time per H steps.
double outerExposedPerStepS(const DatacenterSyncOptions& d, int fragments, double outerS,
                            double stepS, double linkFreeS);

// Charles et al. 2025 (arXiv 2503.09799), Table 7: evaluation loss of DiLoCo with M replicas
// over that of data-parallel training at N parameters, equal tokens (20 N) and H = 30,
// L_M(N) = A_M N^alpha_M per M in {1, 2, 4, 8}, N held within the 35M-2.4B they were fitted
// on; between the M interpolated in log2 M, beyond 8 extrapolated (docs/loose-sync.md). Then H: the
// loss grows by (1 - 1/M) c ln(H / 30) for H > 30, c fitted once on Streaming DiLoCo's Table 6
// (Douillard et al. 2025, M = 2 and 4, H = 30 and 100, 35M-1B). Never below 1: no published run
// shows DiLoCo ahead of data-parallel training past the 10B the laws were checked at, so none is
// credited.
double diLoCoLossRatio(double params, int replicas, int innerSteps);

// The compute that reaches a loss `ratio` times lower along data-parallel training's
// compute-optimal frontier: L_DP = A N^alpha (Charles et al. 2025, Table 7: alpha = -0.0953)
// at D = 20 N (Hoffmann et al. 2022), so C = 6 N D = 120 N^2 and L_DP ~ C^(alpha / 2):
// ratio^(-2 / alpha). Applied as extra steps of the same job: a lower bound for a model of
// fixed size (more tokens lower its loss more slowly than a larger model would).
double convergenceComputeMultiplier(double lossRatio);

} // namespace archipelago::core
