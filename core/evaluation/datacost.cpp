#include "evaluation/datacost.h"

#include "network/collectives.h"
#include "compute/computemodel.h"
#include "compute/memorymodel.h"

#include <algorithm>

namespace archipelago::core {

RankParams rankParams(const Workload& w, const Parallelism& par,
                      const std::vector<ChunkSpec>& chunks, int pp, int rank)
{
    const LayerParams dense = layerParamsPerGpu(w, par, false);
    const LayerParams moe = layerParamsPerGpu(w, par, true);
    RankParams out;
    for (std::size_t c = static_cast<std::size_t>(rank); c < chunks.size();
         c += static_cast<std::size_t>(pp)) {
        const ChunkSpec& ch = chunks[c];
        out.dense += ch.denseLayers * dense.dense + ch.moeLayers * moe.dense;
        out.expert += ch.moeLayers * moe.expert;
        if (ch.first)
            out.dense += vocabParamsPerGpu(w, par);
        if (ch.last)
            out.dense += vocabParamsPerGpu(w, par);
    }
    return out;
}

namespace {

// Megatron-LM DDP bucket: gradients are reduced in buckets of max(40M, 1M x dp) parameters
// as backward produces them (megatron/core/distributed, bucket_size); the last bucket can only
// start when backward ends, so at least its reduction is exposed.
double lastBucketFraction(double params, double dp)
{
    const double bucket = std::max(40e6, 1e6 * dp);
    return params > 0.0 ? std::min(1.0, bucket / params) : 0.0;
}

} // namespace

DataParallelCost dataParallelCost(const Scenario& s, const Parallelism& par,
                                  const PlacementAnalysis& pl,
                                  const std::vector<const AcceleratorSpec*>& accel,
                                  const std::vector<ChunkSpec>& chunks,
                                  const std::vector<ChunkParts>& parts, const PipelineResult& pipe,
                                  TrafficTally* traffic)
{
    const int p = par.pp;
    const double dp = static_cast<double>(dataParallel(s));
    const double m = static_cast<double>(microBatchesPerIteration(s));
    const double denseGroup = dp * par.cp;
    const double expertGroup = std::max(1.0, denseGroup / par.ep);
    const int zero = std::max(par.zeroStage, par.distributedOptimizer ? 1 : 0);
    DataParallelCost out;
    double worst = -1.0;
    for (int r = 0; r < p; ++r) {
        const AcceleratorSpec& a = *accel[static_cast<std::size_t>(r)];
        const EfficiencyParams& eff = a.efficiency;
        const RankParams rp = rankParams(s.workload, par, chunks, p, r);
        auto run = [&](auto fn, double bytes, const GroupPath& path, double times) {
            if (path.size() <= 1 || bytes <= 0.0)
                return 0.0;
            const CollectiveCost c = fn(bytes, path, eff);
            if (traffic)
                traffic->add(&path == &pl.dp ? &traffic->groups.dp : &traffic->groups.expertDp,
                             c.bytesPerLevel, c.levels, times);
            return c.timeS * times;
        };
        // Gradients are reduced in fp32 (Megatron accumulates and all-reduces bf16 models'
        // gradients in fp32, --accumulate-allreduce-grads-in-fp32). Without sharding: an
        // all-reduce; with the distributed optimizer / ZeRO: reduce-scatter of the gradients
        // and all-gather of the updated bf16 weights (Rajbhandari et al. 2020, section 7).
        double grad = 0.0;
        double gather = 0.0;
        if (zero == 0) {
            grad = run(hierarchicalAllReduce, 4.0 * rp.dense, pl.dp, 1.0) +
                   run(hierarchicalAllReduce, 4.0 * rp.expert, pl.expertDp, 1.0);
        } else {
            grad = run(hierarchicalReduceScatter, 4.0 * rp.dense, pl.dp, 1.0) +
                   run(hierarchicalReduceScatter, 4.0 * rp.expert, pl.expertDp, 1.0);
            gather = run(hierarchicalAllGather, 2.0 * rp.dense, pl.dp, 1.0) +
                     run(hierarchicalAllGather, 2.0 * rp.expert, pl.expertDp, 1.0);
        }
        double forwardWindow = 0.0;
        double backwardWindow = 0.0;
        for (std::size_t c = static_cast<std::size_t>(r); c < parts.size();
             c += static_cast<std::size_t>(p)) {
            forwardWindow += parts[c].forwardPass;
            backwardWindow += parts[c].backwardPass;
        }
        double exposed = 0.0;
        double hidden = 0.0;
        const double tail = lastBucketFraction(rp.dense + rp.expert, dp);
        // Overlap with the last micro-batch's backward (gradients of earlier micro-batches are
        // accumulated, not reduced; Megatron --overlap-grad-reduce), except the last bucket.
        if (par.overlap.dpGradReduce) {
            const double e = std::max(tail * grad, grad - backwardWindow);
            exposed += e;
            hidden += grad - e;
        } else {
            exposed += grad;
        }
        // Weight all-gather under the next iteration's first forward (--overlap-param-gather).
        if (par.overlap.dpParamGather) {
            const double e = std::max(tail * gather, gather - forwardWindow);
            exposed += e;
            hidden += gather - e;
        } else {
            exposed += gather;
        }
        if (zero >= 3) {
            // ZeRO-3 gathers weights before each micro-batch's forward and backward,
            // prefetched under the compute of that pass (Rajbhandari et al. 2020, section 5.3).
            const double z3 =
                run(hierarchicalAllGather, 2.0 * (rp.dense + rp.expert), pl.dp, 2.0 * m);
            const double busy = m * (forwardWindow + backwardWindow);
            exposed += std::max(0.0, z3 - busy);
            hidden += std::min(z3, busy);
        }
        // Later ranks finish the pipeline early (1F1B drains towards rank 0): their
        // reduction starts while earlier ranks still compute.
        const double slack =
            std::max(0.0, pipe.makespanS - pipe.finishS[static_cast<std::size_t>(r)]);
        const double rankExposed = std::max(0.0, exposed - slack);
        const double interference = eff.commInterference * hidden;
        if (rankExposed + interference > worst) {
            worst = rankExposed + interference;
            out.exposedS = rankExposed;
            out.interferenceS = interference;
            out.gradientS = grad + gather;
        }
        // Adam over the optimizer shard; every rank waits for the slowest (global grad norm).
        const int zeroOpt = zero >= 1 ? 1 : 0;
        const double shard =
            zeroOpt ? rp.dense / denseGroup + rp.expert / expertGroup : rp.dense + rp.expert;
        out.optimizerS = std::max(out.optimizerS, optimizerStepS(rp.dense + rp.expert, shard, a));
    }
    return out;
}

} // namespace archipelago::core
