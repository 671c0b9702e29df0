// Passes 5 to 8: breakdown and throughput, memory, network cost, warnings.
//
// Iteration time identity (tested): iterationTimeS = forward + backward + recompute + tp + cp
// + ep + pp + dp + optimizer + bubble + interference + variability + overhead, where the compute
// and per-micro-batch communication parts are those of the busiest pipeline rank, bubble is that
// rank's idle time in the pipeline period, and dp / optimizer are what runs after the pipeline
// drains.
#include "compute/computemodel.h"
#include "compute/modelflops.h"
#include "evaluation/evaluationfill.h"
#include "evaluation/goodput.h"
#include "evaluation/iterationoverhead.h"
#include "evaluation/loosesync.h"
#include "evaluation/passes.h"
#include "evaluation/runcost.h"
#include "network/linktraffic.h"

#include <algorithm>
#include <cmath>

namespace archipelago::core {

void breakdownPass(EvaluationContext& ctx)
{
    const int p = ctx.p;
    const int m = ctx.chunkMicroBatches; // through each chunk (DualPipe: half of ctx.m)
    const Workload& w = ctx.s.workload;
    Evaluation& ev = ctx.ev;
    int busiest = 0;
    double busiestS = -1.0;
    for (int r = 0; r < p; ++r) {
        double busy = 0.0;
        for (int c = 0; c < ctx.nChunks; ++c)
            if (ctx.chunkRank[static_cast<std::size_t>(c)] == r)
                busy += ctx.parts[static_cast<std::size_t>(c)].total() * m;
        if (busy > busiestS) {
            busiestS = busy;
            busiest = r;
        }
    }
    ctx.busiestS = busiestS;
    Breakdown& bd = ev.breakdown;
    for (int c = 0; c < ctx.nChunks; ++c) {
        if (ctx.chunkRank[static_cast<std::size_t>(c)] != busiest)
            continue;
        const ChunkParts& cp = ctx.parts[static_cast<std::size_t>(c)];
        bd.forwardS += cp.forward * m;
        bd.backwardS += cp.backward * m;
        bd.recomputeS += cp.recompute * m;
        bd.tpCommS += cp.tp * m;
        bd.cpCommS += cp.cp * m;
        bd.epCommS += cp.ep * m;
        bd.ppCommS += cp.pp * m;
        bd.interferenceS += cp.interference * m;
    }
    bd.ppCommS += ctx.ppExposedS;
    bd.bubbleS = std::max(0.0, ctx.pipeS - busiestS - ctx.ppExposedS);
    bd.dpCommS = ctx.dpc.exposedS;
    bd.interferenceS += ctx.dpc.interferenceS;
    bd.optimizerS = ctx.dpc.optimizerS;
    // Fixed per-iteration work and the wait for the slowest GPU (iterationoverhead.h).
    const AcceleratorSpec& acc = *ctx.accel[static_cast<std::size_t>(busiest)];
    const int perDomain = ctx.s.topology.datacenters.empty()
                              ? 1
                              : scaleUpDomainGpus(ctx.s.topology.datacenters.front());
    bd.overheadS =
        iterationOverhead(ctx.s, ctx.par, ctx.placement, acc.efficiency, ev.gpus, perDomain)
            .totalS();
    // With DiLoCo a step waits only for the slowest GPU of its own datacenter's replicas.
    const std::int64_t inStep = ev.gpus / std::max(1, ctx.dpc.replicas);
    bd.variabilityS =
        variabilityS(bd.forwardS + bd.backwardS + bd.recomputeS, inStep, acc.efficiency);
    ev.iterationTimeS = std::max(ctx.pipeS, busiestS) + ctx.dpc.exposedS + ctx.dpc.interferenceS +
                        ctx.dpc.optimizerS + bd.overheadS + bd.variabilityS;
    ev.bubbleRatio = ctx.pipe.bubbleRatio;
    ev.idleOverCompute = ctx.pipe.idleOverCompute;

    // Throughput and utilisation.
    const double gpusPerChunk = static_cast<double>(ctx.dp) * ctx.par.tp * ctx.par.cp;
    double peakSum = 0.0; // FLOP/s of every GPU of the job (mixed generations allowed)
    for (int r = 0; r < p; ++r)
        peakSum +=
            peakFlopsPerS(*ctx.accel[static_cast<std::size_t>(r)], w.precision) * gpusPerChunk;
    ev.modelFlopsPerIteration = modelFlopsPerIteration(w);
    ev.hardwareFlopsPerIteration = hardwareFlopsPerIteration(w, ctx.par.recompute);
    // MFU and HFU as defined by Chowdhery et al. 2022 (PaLM), Appendix B, and Korthikanti et
    // al. 2022 section 6.3: achieved FLOP/s over peak, without and with recompute. One FLOP
    // convention for both, the published runs' (Narayanan et al. 2021 eq. 3, Korthikanti,
    // PaLM, MegaScale's Megatron-based MFU): 2 FLOPs per multiply-add, backward = 2x forward,
    // the full s x s attention matrix (no causal halving; s x w with a sliding window), no
    // flash-attention backward recompute. HFU adds only what the recompute policy reruns. The
    // time, in contrast, comes from the FLOPs the kernels execute (computemodel.cpp: a causal
    // flash kernel skips the masked half), so MFU is comparable with the papers, not a count
    // of executed work.
    ev.mfu = ev.modelFlopsPerIteration / (ev.iterationTimeS * peakSum);
    ev.hfu = ev.hardwareFlopsPerIteration / (ev.iterationTimeS * peakSum);
    const double tokens = static_cast<double>(w.globalBatch) * w.seqLen;
    ev.tokensPerS = tokens / ev.iterationTimeS;
    ev.timeToTrainS = w.trainTokens / ev.tokensPerS;
    ev.gpuHoursToTrain = ev.timeToTrainS * static_cast<double>(ev.gpus) / 3600.0;
    if (ctx.dpc.replicas > 1) {
        const DatacenterSyncOptions& sync = ctx.par.datacenterSync;
        DatacenterSyncResult& r = ev.datacenterSync;
        r.scheme = sync.scheme;
        r.replicas = ctx.dpc.replicas;
        r.innerSteps = sync.innerSteps;
        r.fragments = syncFragments(w, sync);
        r.outerBytesPerGpu = ctx.dpc.outerBytesPerGpu;
        r.outerStepS = ctx.dpc.outerStepS;
        r.outerExposedS = ctx.dpc.outerExposedS;
        r.lossRatio = diLoCoLossRatio(modelParams(w), r.replicas, r.innerSteps);
        r.computeMultiplier = convergenceComputeMultiplier(r.lossRatio);
    }
}

void memoryPass(EvaluationContext& ctx)
{
    fillMemory(ctx.s, ctx.par, ctx.kind, ctx.accel, ctx.chunks, ctx.placement, ctx.ev,
               ctx.options.warnings);
}

void networkCostPass(EvaluationContext& ctx)
{
    // Per-GPU group bytes averaged over the pipeline ranks (boundaries are per boundary).
    GroupBytes& g = ctx.traffic.groups;
    for (double* bytes : {&g.tp, &g.cp, &g.ep, &g.dp, &g.expertDp, &g.dpAcrossInstances,
                          &g.expertDpAcrossInstances})
        *bytes /= ctx.p;
    ctx.ev.traffic =
        linkTraffic(ctx.s, ctx.placement, g, ctx.ev.iterationTimeS, &ctx.topology.routedTopology());
    // The run with failures: the failure domains are the fabric's switches and the DCI hops
    // the traffic above crosses.
    Evaluation& ev = ctx.ev;
    ev.goodput = goodput(ctx.s, ev, reliabilityOf(ctx.catalog), ctx.topology);
    const double askedS = ctx.s.workload.checkpointIntervalS;
    if (ctx.options.warnings && askedS > 0.0 && ev.goodput.checkpointIntervalS > askedS)
        ev.warnings.push_back(
            Warning{WarningCode::CheckpointInterval}
                .num("asked_s", askedS)
                .num("iteration_s", ev.iterationTimeS)
                .num("write_s",
                     ev.goodput.checkpointWriteS +
                         (std::isfinite(ev.goodput.replicaS) ? ev.goodput.replicaS : 0.0))
                .num("interval_s", ev.goodput.checkpointIntervalS));
    if (ctx.options.warnings && ctx.s.workload.checkpointRemoteReplica &&
        !std::isfinite(ev.goodput.replicaS))
        ev.warnings.push_back(Warning{WarningCode::CheckpointReplica}.name(
            "reason", ev.goodput.replicaBytes > 0.0
                          ? "training leaves nothing of a DCI link on the way"
                          : "no building with the job's GPUs reaches another over the DCI"));
    if (!ctx.options.billOfMaterials)
        return;
    const TopologyModel& t = ctx.topology;
    ctx.ev.bom = t.bom();
    ctx.ev.networkCapexUsd = t.bomTotals().capexUsd;
    ctx.ev.networkPowerW = t.bomTotals().powerW;
    ctx.ev.runCost = runCost(ctx.s, ctx.catalog, ctx.ev.networkCapexUsd, ctx.ev.networkPowerW,
                             ctx.ev.timeToTrainS, ctx.ev.goodput.effectiveTimeToTrainS);
    // The fabric's own warnings (an undersized fabric) came with the placement's layout
    // already: each is listed once.
    if (ctx.options.warnings)
        for (const Warning& w : t.bomWarnings())
            if (std::find(ctx.ev.warnings.begin(), ctx.ev.warnings.end(), w) ==
                ctx.ev.warnings.end())
                ctx.ev.warnings.push_back(w);
}

void warningsPass(EvaluationContext& ctx)
{
    if (ctx.options.warnings)
        addWarnings(ctx.s, ctx.par, ctx.ev);
}

} // namespace archipelago::core
