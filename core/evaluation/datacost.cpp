#include "evaluation/datacost.h"

#include "compute/computemodel.h"
#include "compute/memorymodel.h"
#include "evaluation/loosesync.h"
#include "network/collectives.h"

#include <algorithm>
#include <cmath>

namespace archipelago::core {

namespace {

// rankParams with the per-layer and vocabulary figures given (the same for every rank).
RankParams rankParamsOf(const LayerParams& dense, const LayerParams& moe, double vocab,
                        const std::vector<ChunkSpec>& chunks, int rank)
{
    RankParams out;
    for (const ChunkSpec& ch : chunks) {
        if (ch.rank != rank) // DualPipe holds chunks r and 2p - 1 - r
            continue;
        out.dense += ch.denseLayers * dense.dense + ch.moeLayers * moe.dense;
        out.expert += ch.moeLayers * moe.expert;
        if (ch.first)
            out.dense += vocab;
        if (ch.last)
            out.dense += vocab;
    }
    return out;
}

} // namespace

RankParams rankParams(const Workload& w, const Parallelism& par,
                      const std::vector<ChunkSpec>& chunks, int, int rank)
{
    return rankParamsOf(layerParamsPerGpu(w, par, false), layerParamsPerGpu(w, par, true),
                        vocabParamsPerGpu(w, par), chunks, rank);
}

namespace {

// Megatron-LM DDP bucket: gradients are reduced in buckets of max(40M, 1M x dp) parameters
// (megatron/core/distributed, bucket_size); the same buckets carry the distributed
// optimizer's weight all-gather.
double bucketParams(double dp)
{
    return std::max(40e6, 1e6 * dp);
}

// When each model chunk of one pipeline rank has its gradients and needs its weights.
struct ChunkWindow
{
    double params = 0.0;      // parameters of the chunk on one GPU
    double readyStartS = 0.0; // the last micro-batch's gradient op of the chunk starts ...
    double readyEndS = 0.0;   // ... and ends: its gradients become final over that span
    double needStartS = 0.0;  // the first micro-batch's forward of the chunk starts ...
    double needEndS = 0.0;    // ... and ends: it needs its weights over that span
};

// The sum over t = 0 .. n - 1 of clamp(computeEndS - (firstS + t * stepS), 0, eachS), stepS
// >= 0: the part of n back-to-back or evenly spaced collectives of eachS each, the t-th
// starting at firstS + t * stepS, that runs before computeEndS. Closed form: the terms are
// eachS while the start is at least eachS before computeEndS, then fall linearly to 0.
double busyBefore(double computeEndS, double firstS, double stepS, double n, double eachS)
{
    if (n <= 0.0)
        return 0.0;
    if (stepS <= 0.0)
        return n * std::clamp(computeEndS - firstS, 0.0, eachS);
    // Terms t < full are eachS; terms t >= zero are 0; in between C - start.
    const double full =
        std::clamp(std::floor((computeEndS - eachS - firstS) / stepS) + 1.0, 0.0, n);
    const double zero = std::clamp(std::ceil((computeEndS - firstS) / stepS), full, n);
    const double between = zero - full;
    // sum over t in [full, zero) of (C - firstS - t stepS)
    const double partial =
        between * (computeEndS - firstS) - stepS * (full + zero - 1.0) * between / 2.0;
    return eachS * full + std::max(0.0, partial);
}

// Serial reduction of buckets as they become ready (Megatron --overlap-grad-reduce: a
// bucket's collective is launched when the last micro-batch's backward has produced all of
// its gradients, and the collectives of one data-parallel group run one after another on its
// stream). Gradients of a chunk become ready uniformly over its last backward, layer by
// layer in reverse. Returns when the last bucket is reduced; `busyBeforeS` gets the
// communication time spent before `computeEndS` (what overlaps the rank's compute).
// `windows` is sorted in a copy, `sorted` (scratch kept between calls: no allocation).
//
// A chunk's B buckets, ready at r_k = rs + d k / B (k = 1 .. B) and each served for e after
// the link is free (free F before the first): bucket k starts at max(F + (k - 1) e,
// max over j <= k of r_j + (k - j) e), a queue with even arrivals and equal service, so the
// inner maximum is at j = k when the arrivals are slower than the service (d / B > e) and at
// j = 1 otherwise. The first case starts back to back behind the backlog until the arrivals
// overtake it, then at each arrival; the second back to back from max(F, r_1). So a chunk
// costs O(1), not O(B).
double reduceAsReady(const std::vector<ChunkWindow>& chunkWindows,
                     std::vector<ChunkWindow>& windows, double totalS, double totalParams,
                     double bucket, double computeEndS, double& busyBeforeS)
{
    windows.assign(chunkWindows.begin(), chunkWindows.end());
    std::sort(windows.begin(), windows.end(),
              [](const ChunkWindow& a, const ChunkWindow& b) { return a.readyEndS < b.readyEndS; });
    double freeAt = 0.0;
    busyBeforeS = 0.0;
    for (const ChunkWindow& w : windows) {
        if (w.params <= 0.0)
            continue;
        const double chunkS = totalS * w.params / totalParams;
        const double buckets = std::clamp(std::ceil(w.params / bucket), 1.0, 4096.0);
        const double each = chunkS / buckets;
        const double spacing = (w.readyEndS - w.readyStartS) / buckets;
        const double firstReady = w.readyStartS + spacing;
        if (spacing <= each) { // service-bound: back to back from the first start
            const double first = std::max(freeAt, firstReady);
            busyBeforeS += busyBefore(computeEndS, first, each, buckets, each);
            freeAt = first + buckets * each;
            continue;
        }
        // Buckets 1 .. backlog start behind the queue (F + (k - 1) e >= r_k), the rest on
        // arrival.
        const double backlog = std::clamp(
            std::floor((freeAt - each - w.readyStartS) / (spacing - each)), 0.0, buckets);
        busyBeforeS += busyBefore(computeEndS, freeAt, each, backlog, each);
        busyBeforeS += busyBefore(computeEndS, w.readyStartS + spacing * (backlog + 1.0), spacing,
                                  buckets - backlog, each);
        freeAt = backlog >= buckets ? freeAt + buckets * each : w.readyEndS + each;
    }
    return freeAt;
}

// Weight all-gather ahead of use (Megatron --overlap-param-gather with the distributed
// optimizer): launched bucket by bucket in the order the forward needs them, from the start
// of the iteration, on one stream. A bucket needed before it arrives delays the rank by the
// difference; returns the largest such delay, and in `hiddenS` the gather time hidden.
// Bucket k of a chunk (k = 0 .. B - 1) arrives at F + (k + 1) e and is needed at
// ns + (ne - ns) k / B: the difference is linear in k, largest at the first or the last.
double gatherBeforeUse(const std::vector<ChunkWindow>& chunkWindows,
                       std::vector<ChunkWindow>& windows, double totalS, double totalParams,
                       double bucket, double& hiddenS)
{
    windows.assign(chunkWindows.begin(), chunkWindows.end()); // sorted in a copy, as above
    std::sort(windows.begin(), windows.end(), [](const ChunkWindow& a, const ChunkWindow& b) {
        return a.needStartS < b.needStartS;
    });
    double freeAt = 0.0;
    double delay = 0.0;
    for (const ChunkWindow& w : windows) {
        if (w.params <= 0.0)
            continue;
        const double chunkS = totalS * w.params / totalParams;
        const double buckets = std::clamp(std::ceil(w.params / bucket), 1.0, 4096.0);
        const double each = chunkS / buckets;
        const double last = buckets - 1.0;
        delay = std::max({delay, freeAt + each - w.needStartS,
                          freeAt + buckets * each -
                              (w.needStartS + (w.needEndS - w.needStartS) * last / buckets)});
        freeAt += buckets * each;
    }
    hiddenS = std::max(0.0, totalS - delay);
    return delay;
}

// Time the pipeline's transfers keep a DCI link busy from `fromS` to the end of the pipeline,
// in the busier direction (the gradient collective needs both).
double pipelineLinkBusyAfter(const PipelineResult& pipe, Id dciLinkId, double fromS)
{
    double busy = 0.0;
    for (std::size_t i = 0; i < pipe.resources.size(); ++i)
        if (pipe.resources[i].dciLinkId == dciLinkId)
            busy = std::max(busy, pipe.resourceBusyAfterS(i, fromS));
    return busy;
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
    const double bucket = bucketParams(dp);
    const LayerParams denseLayer = layerParamsPerGpu(s.workload, par, false);
    const LayerParams moeLayer = layerParamsPerGpu(s.workload, par, true);
    const double vocab = vocabParamsPerGpu(s.workload, par);
    DataParallelCost out;
    double worst = -1.0;
    // Per rank, its chunks' windows in chunk order, and a copy to sort: kept across the ranks.
    std::vector<ChunkWindow> windows;
    std::vector<ChunkWindow> sorted;
    windows.reserve(chunks.size());
    sorted.reserve(chunks.size());
    CollectiveMemo memo; // ranks holding the same parameters run the same collectives
    // Gradient bytes per parameter on the wire: fp32 unless reduced in bf16 (Megatron-LM
    // --grad-reduce-in-bf16; by default bf16 models accumulate and all-reduce in fp32,
    // --accumulate-allreduce-grads-in-fp32, Megatron-Core grad_reduce_in_fp32).
    const double gradBytes = par.gradReduceDtype == GradReduceDtype::Bf16 ? 2.0 : 4.0;
    // Distributed-optimizer instances (Megatron-Core num_distributed_optimizer_instances,
    // param_and_grad_buffer.py start_grad_sync / start_param_sync): reduce-scatter inside an
    // instance, all-reduce of each shard across the instances, all-gather inside. The groups'
    // paths cut at the instance (network/placement.h splitGroupPath).
    const int instances = optimizerInstances(par);
    GroupPath dpInner;
    GroupPath dpOuter;
    GroupPath edpInner;
    GroupPath edpOuter;
    if (instances > 1) {
        splitGroupPath(pl.dp, instances, dpInner, dpOuter);
        splitGroupPath(pl.expertDp, instances, edpInner, edpOuter);
    }
    // DiLoCo and Streaming DiLoCo (evaluation/loosesync.h): each step's collectives stay inside
    // each datacenter, and the datacenters all-reduce the pseudo-gradient every H steps. They
    // take the place of the instances: the optimizer shards over the datacenter's replicas.
    const int replicas = looseSyncReplicas(par, pl.dp);
    const bool loose = replicas > 1;
    GroupPath dpAcross;
    GroupPath edpAcross;
    if (loose) {
        splitAtDatacenters(pl.dp, dpInner, dpAcross);
        splitAtDatacenters(pl.expertDp, edpInner, edpAcross);
    }
    // Every step's whole-group collectives (all-reduce without sharding, ZeRO-3's gathers).
    const GroupPath& dpStep = loose ? dpInner : pl.dp;
    const GroupPath& edpStep = loose ? edpInner : pl.expertDp;
    const bool cut = instances > 1 || loose;
    const GroupPath& dpShard = cut ? dpInner : pl.dp;
    const GroupPath& edpShard = cut ? edpInner : pl.expertDp;
    const DatacenterSyncOptions& sync = par.datacenterSync;
    const int fragments = syncFragments(s.workload, sync);
    const double outerBytesPerParam = sync.outerGradientBits / 8.0;
    for (int r = 0; r < p; ++r) {
        const auto ri = static_cast<std::size_t>(r);
        const AcceleratorSpec& a = *accel[ri];
        const EfficiencyParams& eff = a.efficiency;
        const RankParams rp = rankParamsOf(denseLayer, moeLayer, vocab, chunks, r);
        // The data-parallel collectives' time on the DCI level, if they cross one.
        double dciS = 0.0;
        Id dciLink = -1;
        auto run = [&](CollectiveFn fn, double bytes, const GroupPath& path, double* tally,
                       double times) {
            if (path.size() <= 1 || bytes <= 0.0)
                return 0.0;
            const CollectiveCost& c = memo.get(fn, bytes, path, eff);
            if (traffic)
                traffic->add(tally, c.bytesPerLevel, c.levels, times);
            for (int l = 0; l < c.levels; ++l) {
                const LevelLink& level = path.levels[static_cast<std::size_t>(l)];
                if (level.linkClass == LinkClass::Dci) {
                    dciS += times * c.bytesPerLevel[l] / std::max(levelBytesPerS(level, eff), 1.0);
                    dciLink = level.dciLinkId;
                }
            }
            return c.timeS * times;
        };
        double* dpTally = traffic ? &traffic->groups.dp : nullptr;
        double* edpTally = traffic ? &traffic->groups.expertDp : nullptr;
        // Without sharding: an all-reduce; with the distributed optimizer / ZeRO:
        // reduce-scatter of the gradients and all-gather of the updated bf16 weights
        // (Rajbhandari et al. 2020, section 7), inside the instance when there are several.
        double grad = 0.0;
        double gather = 0.0;
        const double denseGrad = gradBytes * rp.dense;
        const double expertGrad = gradBytes * rp.expert;
        if (zero == 0) {
            grad = run(hierarchicalAllReduce, denseGrad, dpStep, dpTally, 1.0) +
                   run(hierarchicalAllReduce, expertGrad, edpStep, edpTally, 1.0);
        } else {
            grad = run(hierarchicalReduceScatter, denseGrad, dpShard, dpTally, 1.0) +
                   run(hierarchicalReduceScatter, expertGrad, edpShard, edpTally, 1.0);
        }
        if (instances > 1 && !loose) {
            // Each GPU's shard (1/instance size of its gradients) is all-reduced with the
            // GPUs holding the same shard in the other instances, after its reduce-scatter on
            // the same stream (param_and_grad_buffer.py: the inter-instance all-reduce follows
            // the intra-instance reduce-scatter bucket by bucket).
            double* across = traffic ? &traffic->groups.dpAcrossInstances : nullptr;
            double* expertAcross = traffic ? &traffic->groups.expertDpAcrossInstances : nullptr;
            grad += run(hierarchicalAllReduce, denseGrad / std::max(1, dpInner.size()), dpOuter,
                        across, 1.0) +
                    run(hierarchicalAllReduce, expertGrad / std::max(1, edpInner.size()), edpOuter,
                        expertAcross, 1.0);
        }
        const double gradDciS = dciS;
        if (zero != 0)
            gather = run(hierarchicalAllGather, 2.0 * rp.dense, dpShard, dpTally, 1.0) +
                     run(hierarchicalAllGather, 2.0 * rp.expert, edpShard, edpTally, 1.0);
        // The outer step: the datacenter's replicas hold the same pseudo-gradient, so each GPU
        // all-reduces its 1/(replicas in its datacenter) of it with the GPUs holding the same
        // part in the other datacenters (Charles et al. 2025, appendix A: 2N(1 - 1/M)/W per
        // outer step), every H steps; its bytes are counted once per H steps on the links.
        double outerS = 0.0;
        double outerBytes = 0.0;
        const double dciBeforeOuterS = dciS;
        if (loose) {
            const double h = std::max(1, sync.innerSteps);
            double* across = traffic ? &traffic->groups.dpAcrossInstances : nullptr;
            double* expertAcross = traffic ? &traffic->groups.expertDpAcrossInstances : nullptr;
            const double denseOuter = outerBytesPerParam * rp.dense / std::max(1, dpInner.size());
            const double expertOuter =
                outerBytesPerParam * rp.expert / std::max(1, edpInner.size());
            outerBytes = denseOuter + expertOuter;
            outerS = (run(hierarchicalAllReduce, denseOuter, dpAcross, across, 1.0 / h) +
                      run(hierarchicalAllReduce, expertOuter, edpAcross, expertAcross, 1.0 / h)) *
                     h;
        }
        // The outer steps' share of the link is in outerExposedPerStepS, not in the capacity
        // bound below.
        const double outerDciS = dciS - dciBeforeOuterS;

        // The rank's chunks: when their gradients become final and when they first need their
        // weights, from the simulated schedule (pipelinesimulator.h).
        const double params = rp.dense + rp.expert;
        windows.clear();
        for (std::size_t c = 0; c < parts.size(); ++c) {
            const ChunkSpec& ch = chunks[c];
            if (ch.rank != r)
                continue;
            ChunkWindow w;
            w.params = ch.denseLayers * (denseLayer.dense + denseLayer.expert) +
                       ch.moeLayers * (moeLayer.dense + moeLayer.expert) +
                       (ch.first ? vocab : 0.0) + (ch.last ? vocab : 0.0);
            // A result without the per-chunk windows (a failed simulation) gives the rank's
            // end for both: no overlap claimed.
            const bool known = pipe.gradReadyEndS.size() == parts.size() &&
                               pipe.gradReadyStartS.size() == parts.size() &&
                               pipe.firstForwardStartS.size() == parts.size();
            w.readyStartS = known ? pipe.gradReadyStartS[c] : pipe.finishS[ri];
            w.readyEndS = known ? pipe.gradReadyEndS[c] : pipe.finishS[ri];
            w.needStartS = known ? pipe.firstForwardStartS[c] : 0.0;
            w.needEndS = w.needStartS + parts[c].forwardPass;
            windows.push_back(w);
        }
        const double finish = pipe.finishS[ri];
        double exposed = 0.0;
        double hidden = 0.0; // communication time that runs while the rank computes
        if (par.overlap.dpGradReduce && params > 0.0) {
            double busyBefore = 0.0;
            double done = reduceAsReady(windows, sorted, grad, params, bucket, finish, busyBefore);
            // Capacity: over a DCI link the gradient collective only gets what the pipeline's
            // transfers leave of the link from the first ready bucket on (both share it).
            if (gradDciS > 0.0 && !windows.empty()) {
                double first = windows.front().readyStartS;
                for (const ChunkWindow& w : windows)
                    first = std::min(first, w.readyStartS);
                done =
                    std::max(done, first + gradDciS + pipelineLinkBusyAfter(pipe, dciLink, first));
            }
            exposed += std::max(0.0, done - pipe.makespanS);
            hidden += busyBefore;
        } else {
            // Reduced after the rank's own last backward (finalize_model_grads): only the
            // pipeline's drain on the other ranks hides it.
            double start = finish;
            if (gradDciS > 0.0)
                start += pipelineLinkBusyAfter(pipe, dciLink, finish);
            exposed += std::max(0.0, start + grad - pipe.makespanS);
        }
        if (par.overlap.dpParamGather && params > 0.0) {
            double gatherHidden = 0.0;
            exposed += gatherBeforeUse(windows, sorted, gather, params, bucket, gatherHidden);
            hidden += gatherHidden;
        } else {
            exposed += gather;
        }
        if (zero >= 3) {
            // ZeRO-3 gathers weights before each micro-batch's forward and backward,
            // prefetched under the compute of that pass (Rajbhandari et al. 2020, section 5.3).
            double forwardWindow = 0.0;
            double backwardWindow = 0.0;
            for (std::size_t c = 0; c < parts.size(); ++c) {
                if (chunks[c].rank != r)
                    continue;
                forwardWindow += parts[c].forwardPass;
                backwardWindow += parts[c].backwardPass;
            }
            const double z3 =
                run(hierarchicalAllGather, 2.0 * (rp.dense + rp.expert), dpStep, dpTally, 2.0 * m);
            const double busy = m * (forwardWindow + backwardWindow);
            exposed += std::max(0.0, z3 - busy);
            hidden += std::min(z3, busy);
        }
        if (dciS - outerDciS > 0.0) {
            // Capacity per direction over the whole iteration: the pipeline's transfers and
            // the data-parallel collectives share the DCI link (every group crossing it runs at
            // once, so dciS is the link's time), and no overlap makes the link carry more than
            // its capacity: the pipeline's span plus what is exposed covers both.
            const double linkS = pipelineLinkBusyAfter(pipe, dciLink, 0.0) + dciS - outerDciS;
            exposed = std::max(exposed, linkS - pipe.makespanS);
        }
        double outerExposed = 0.0;
        if (loose) {
            // The DCI link is idle over the step but for the pipeline's transfers on it.
            const double linkFree =
                pipe.makespanS - (dciLink >= 0 ? pipelineLinkBusyAfter(pipe, dciLink, 0.0) : 0.0);
            outerExposed = outerExposedPerStepS(sync, fragments, outerS, pipe.makespanS, linkFree);
            exposed += outerExposed;
        }
        const double interference = eff.dpCommInterference * hidden;
        if (exposed + interference > worst) {
            worst = exposed + interference;
            out.exposedS = exposed;
            out.interferenceS = interference;
            out.gradientS = grad + gather;
            out.outerStepS = outerS;
            out.outerExposedS = outerExposed;
            out.outerBytesPerGpu = outerBytes;
        }
        // Adam over the optimizer shard; every rank waits for the slowest (global grad norm).
        // With instances the optimizer state is sharded over one instance, with DiLoCo over
        // one datacenter's replicas, not the whole group.
        const int zeroOpt = zero >= 1 ? 1 : 0;
        const double shardGroups = loose ? replicas : instances;
        const double shard = zeroOpt
                                 ? (rp.dense / denseGroup + rp.expert / expertGroup) * shardGroups
                                 : rp.dense + rp.expert;
        out.optimizerS = std::max(out.optimizerS, optimizerStepS(rp.dense + rp.expert, shard, a));
    }
    out.replicas = replicas;
    return out;
}

} // namespace archipelago::core
