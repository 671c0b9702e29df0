#include "evaluation/iterationoverhead.h"

#include "evaluation/loosesync.h"

#include "compute/memorymodel.h"
#include "network/collectives.h"
#include "network/fabric.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace archipelago::core {

double normalQuantile(double p)
{
    if (!(p > 0.0))
        return -HUGE_VAL;
    if (!(p < 1.0))
        return HUGE_VAL;
    // Acklam (2003), "An algorithm for computing the inverse normal cumulative distribution
    // function": rational approximations, relative error 1.15e-9.
    static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                   -2.759285104469687e+02, 1.383577518672690e+02,
                                   -3.066479806614716e+01, 2.506628277459239e+00};
    static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                   -1.556989798598866e+02, 6.680131188771972e+01,
                                   -1.328068155288572e+01};
    static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                   -2.400758277161838e+00, -2.549732539343734e+00,
                                   4.374664141464968e+00,  2.938163982698783e+00};
    static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                   2.445134137142996e+00, 3.754408661907416e+00};
    constexpr double pLow = 0.02425;
    auto tail = [&](double q) {
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    };
    double x = 0.0;
    if (p < pLow) {
        x = tail(std::sqrt(-2.0 * std::log(p)));
    } else if (p > 1.0 - pLow) {
        x = -tail(std::sqrt(-2.0 * std::log1p(-p)));
    } else {
        const double q = p - 0.5;
        const double r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
    }
    // One step of Halley's method on Phi(x) - p, Phi from std::erfc (Acklam, ibid.).
    const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
    const double u = e * std::sqrt(2.0 * std::numbers::pi) * std::exp(0.5 * x * x);
    return x - u / (1.0 + 0.5 * x * u);
}

double expectedMaxStandardNormal(double n)
{
    if (!(n > 1.0))
        return 0.0;
    // Blom (1958), "Statistical estimates and transformed beta-variables": the expected i-th
    // order statistic of n normals is close to Phi^-1((i - 3/8) / (n + 1/4)); the maximum is
    // i = n.
    return normalQuantile((n - 0.375) / (n + 0.25));
}

double variabilityS(double computeS, std::int64_t gpus, const EfficiencyParams& eff)
{
    // The slowest of `gpus` sustains (1 - cv z_max) of the mean speed, so the job's compute
    // stretches by cv z_max / (1 - cv z_max); to first order cv z_max.
    const double slow =
        std::clamp(eff.gpuSpeedCv, 0.0, 0.2) * expectedMaxStandardNormal(static_cast<double>(gpus));
    return std::max(0.0, computeS) * slow / std::max(0.5, 1.0 - slow);
}

namespace {

// The largest one-way latency of a DCI level among the group's levels and the boundaries.
double widestDciOneWayS(const PlacementAnalysis& pl, bool wholeJob)
{
    double worst = 0.0;
    auto see = [&](const LevelLink& l) {
        if (l.linkClass == LinkClass::Dci)
            worst = std::max(worst, l.latencyS);
    };
    for (const LevelLink& l : pl.stageBoundaries)
        see(l);
    see(pl.wrapBoundary);
    if (wholeJob)
        for (const LevelLink& l : pl.dp.levels)
            see(l);
    return worst;
}

// NCCL's tree all-reduce of a few bytes over `ranks` GPUs in domains of `perDomain`
// (NVIDIA/nccl src/graph/tuning.cc: base + 2 ((ranks per node - 1) intra + log2(nodes) inter)),
// plus the round trip of the widest DCI route crossed (up and down the tree).
double smallAllReduceS(std::int64_t ranks, int perDomain, double dciOneWayS)
{
    if (ranks <= 1)
        return 0.0;
    const double perNode = static_cast<double>(std::min<std::int64_t>(ranks, perDomain));
    const double nodes = std::ceil(static_cast<double>(ranks) / std::max(1.0, perNode));
    return kSmallBaseLatencyS +
           2.0 * ((perNode - 1.0) * kSmallScaleUpStepLatencyS +
                  std::log2(std::max(1.0, nodes)) * kSmallNetStepLatencyS) +
           2.0 * dciOneWayS;
}

} // namespace

IterationOverhead iterationOverhead(const Scenario& s, const Parallelism& par,
                                    const PlacementAnalysis& pl, const EfficiencyParams& eff,
                                    std::int64_t gpus, int gpusPerDomain)
{
    IterationOverhead out;
    if (s.workload.tiedEmbeddings && par.pp > 1) {
        // Two members (the first and the last stage's GPU of each TP rank): a ring all-reduce
        // of n = 2 sends the buffer once each way, S/B + 2 alpha, one launch.
        const double bytes = 4.0 * vocabParamsPerGpu(s.workload, par);
        const LevelLink& wrap = pl.wrapBoundary;
        out.tiedEmbeddingS = kCollectiveBaseLatencyS +
                             ringAllReduceS(bytes, 2, levelBytesPerS(wrap, eff), wrap.latencyS);
    }
    // Megatron's norm group: tensor x pipeline (x context x expert) ranks, and the data-parallel
    // ranks too when each holds a shard of the optimizer state.
    // With DiLoCo each datacenter clips its own replicas' gradients: its share of the GPUs,
    // and the data-parallel DCI is not crossed (evaluation/loosesync.h).
    const bool sharded = par.distributedOptimizer || par.zeroStage >= 1;
    const int replicas = looseSyncReplicas(par, pl.dp);
    const std::int64_t modelParallel = std::int64_t{par.tp} * par.cp * par.pp;
    const std::int64_t group = sharded ? gpus / replicas : modelParallel;
    out.gradNormS =
        smallAllReduceS(group, gpusPerDomain, widestDciOneWayS(pl, sharded && replicas == 1));
    return out;
}

} // namespace archipelago::core
