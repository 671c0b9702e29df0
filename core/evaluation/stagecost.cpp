#include "evaluation/stagecost.h"

#include "compute/computemodel.h"
#include "compute/modelflops.h"
#include "network/collectives.h"

#include <algorithm>

namespace archipelago::core {

namespace {

// Communication of one pass of one layer, before deciding what overlaps. TP is split by the
// GEMMs it can hide under: all-gathers feed the column-parallel GEMMs, reduce-scatters and
// all-reduces follow the row-parallel ones.
struct LayerComm
{
    double tpGather = 0.0;
    double tpReduce = 0.0;
    double cp = 0.0;
    double ep = 0.0;
    double tp() const { return tpGather + tpReduce; }
};

// Runs the collective (from `memo` when given), tallies its traffic and returns its time.
double collective(CollectiveFn fn, double bytes, const GroupPath& path, const EfficiencyParams& eff,
                  double count, double* group, double times, TrafficTally* traffic,
                  CollectiveMemo* memo)
{
    if (path.size() <= 1 || bytes <= 0.0 || count <= 0.0)
        return 0.0;
    const CollectiveCost c = memo ? memo->get(fn, bytes, path, eff) : fn(bytes, path, eff);
    if (traffic)
        traffic->add(group, c.bytesPerLevel, c.levels, times * count);
    return c.timeS * count;
}

// Exposed part of `comm` overlapped (or not) with `window` seconds of compute, and the
// interference it causes: overlapped communication still slows the kernels it shares SMs
// and HBM with (Rashidi et al. 2021, ASTRA-sim 2.0 / Won et al. 2023, section 4.3, and
// Isaev et al. 2023, Calculon, section 3.4, model this as a slowdown of the overlapped
// compute; we charge commInterference x the hidden time).
void expose(double comm, bool overlap, double window, double interferenceFactor, double& exposed,
            double& interference)
{
    if (!overlap) {
        exposed += comm;
        return;
    }
    const double hidden = std::min(comm, std::max(0.0, window));
    exposed += comm - hidden;
    interference += interferenceFactor * hidden;
}

// Bytes per element of an FP8 dispatch: one byte, plus one FP32 scaling factor per 1 x 128
// tile of the activation (DeepSeek-V3 report section 3.3.2, fine-grained quantization).
constexpr double kFp8DispatchBytesPerElement = 1.0 + 4.0 / 128.0;

// Expert parallel, one pass of one layer: the dispatch of the routed tokens to their experts and
// the combine of the experts' outputs (Lepikhin et al. 2020, GShard, section 3.2); in backward
// the activation gradients take the same two routes. `copyBytes`: the GPU's tokens once, BF16.
// The dispatch runs at the routing's dispatch precision (forward activations and the
// gradients sent back to the experts' down projections), the combine in BF16 (DeepSeek-V3
// report section 3.3.3). Node-limited routing: the hierarchical dispatch of collectives.h
// nodeLimitedAllToAll; otherwise a flat all-to-all with one copy per token and expert.
double expertAllToAllS(const MoeConfig& moe, double copyBytes, const GroupPath& path,
                       const EfficiencyParams& eff, double* group, double times,
                       TrafficTally* traffic, CollectiveMemo* memo)
{
    if (path.size() <= 1 || copyBytes <= 0.0)
        return 0.0;
    const double dispatchScale =
        moe.dispatchPrecision == Precision::Fp8 ? kFp8DispatchBytesPerElement / 2.0 : 1.0;
    if (moe.nodeLimited()) {
        double seconds = 0.0;
        for (const double scale : {dispatchScale, 1.0}) {
            const CollectiveCost c =
                nodeLimitedAllToAll(copyBytes * scale, moe.topK, moe.maxNodesPerToken, path, eff);
            if (traffic)
                traffic->add(group, c.bytesPerLevel, c.levels, times);
            seconds += c.timeS;
        }
        return seconds;
    }
    const double routed = copyBytes * moe.topK;
    if (dispatchScale == 1.0)
        return collective(hierarchicalAllToAll, routed, path, eff, 2.0, group, times, traffic,
                          memo);
    return collective(hierarchicalAllToAll, routed * dispatchScale, path, eff, 1.0, group, times,
                      traffic, memo) +
           collective(hierarchicalAllToAll, routed, path, eff, 1.0, group, times, traffic, memo);
}

} // namespace

const LayerCompute& LayerComputeMemo::get(const Workload& workload, const Parallelism& par,
                                          bool moe, const AcceleratorSpec& accel)
{
    for (const Entry& e : entries)
        if (e.accel == &accel && e.moe == moe)
            return e.compute;
    entries.push_back({&accel, moe, layerCompute(workload, par, moe, accel)});
    return entries.back().compute;
}

ChunkParts chunkCost(const Workload& w, const Parallelism& par, const PlacementAnalysis& pl,
                     const AcceleratorSpec& accel, const ChunkSpec& chunk, double microBatches,
                     TrafficTally* traffic, bool pairedPasses, LayerComputeMemo* memo)
{
    const EfficiencyParams& eff = accel.efficiency;
    const double t = std::max(1, par.tp);
    const double tokens =
        std::max(1, par.microBatch) * static_cast<double>(w.seqLen) / std::max(1, par.cp);
    const double actBytes = tokens * w.hidden * 2.0; // bf16 activation of the TP group
    // K and V, bf16 (MLA: each head's keys of d_qk and values of d_v, up-projected)
    const double kvWidth =
        w.mla.enabled() ? w.heads * (qkHeadDim(w) + valueHeadDim(w)) : 2.0 * w.kvHeads * headDim(w);
    const double kvBytes = tokens * kvWidth / t * 2.0;
    const bool full = par.recompute == Recompute::Full;
    const OverlapOptions& ov = par.overlap;
    double* tpBytes = traffic ? &traffic->groups.tp : nullptr;
    double* cpBytes = traffic ? &traffic->groups.cp : nullptr;
    double* epBytes = traffic ? &traffic->groups.ep : nullptr;
    CollectiveMemo* collectives = memo ? &memo->collectives : nullptr;

    ChunkParts out;
    auto addLayers = [&](bool moe, int count) {
        if (count <= 0)
            return;
        const LayerCompute lc =
            memo ? memo->get(w, par, moe, accel) : layerCompute(w, par, moe, accel);
        const double n = count;
        const double passes = full ? 3.0 : 2.0; // forward passes' worth of collectives
        // Megatron TP (Shoeybi et al. 2019, section 3): two all-reduces per layer forward and
        // two backward; with sequence parallel each becomes an all-gather plus a
        // reduce-scatter of the same total volume (Korthikanti et al. 2022, section 4.2.2).
        // A parallel block sums the attention and MLP outputs before one reduction, behind one
        // shared input: one collective of each kind per pass (PaLM section 2).
        const double perPass = w.parallelBlock ? 1.0 : 2.0;
        LayerComm c;
        if (par.sequenceParallel) {
            c.tpGather = collective(hierarchicalAllGather, actBytes, pl.tp, eff, perPass, tpBytes,
                                    n * microBatches * passes, traffic, collectives);
            c.tpReduce = collective(hierarchicalReduceScatter, actBytes, pl.tp, eff, perPass,
                                    tpBytes, n * microBatches * passes, traffic, collectives);
        } else {
            c.tpReduce = collective(hierarchicalAllReduce, actBytes, pl.tp, eff, perPass, tpBytes,
                                    n * microBatches * passes, traffic, collectives);
        }
        // Context parallel: ring exchange of the K/V shards, cp-1 steps, the volume of an
        // all-gather of K and V (Liu et al. 2023, Ring Attention, section 3); backward moves
        // K/V again plus their gradients (2x).
        c.cp = collective(hierarchicalAllGather, kvBytes * std::max(1, par.cp), pl.cp, eff, 1.0,
                          cpBytes, n * microBatches * (passes + 1.0), traffic, collectives);
        if (moe)
            c.ep = expertAllToAllS(w.moe, actBytes / t, pl.ep, eff, epBytes,
                                   n * microBatches * passes, traffic, collectives);
        const double expertWindow = lc.forwardS - lc.attentionCoreS;
        // EP all-to-all: under the layer's own expert compute when overlapped (ep_comm); in a
        // paired schedule the dispatch and combine of one micro-batch's forward run under the
        // backward computation of another and the other way round, so the whole of the other
        // pass is the window (DeepSeek-AI 2024, DeepSeek-V3 section 3.2.1, Figure 4).
        const bool epOverlap = ov.epComm || pairedPasses;
        const double epForwardWindow = pairedPasses ? lc.backwardS : expertWindow;
        const double epBackwardWindow = pairedPasses ? lc.forwardS : 2.0 * expertWindow;
        // TP overlap (overlap.tpComm: Megatron --tp-comm-overlap, Transformer Engine's
        // userbuffers; MegaScale section 3.2): each collective is cut into chunks pipelined
        // with the GEMM it feeds or follows, so it hides under that GEMM's time and no more:
        // all-gathers under QKV and fc1, reduce-scatters and all-reduces under the projection
        // and fc2.
        auto exposeTp = [&](double times, bool overlap, double gemmScale, ChunkParts& into) {
            expose(c.tpGather * times, overlap, gemmScale * lc.columnGemmS, eff.commInterference,
                   into.tp, into.interference);
            expose(c.tpReduce * times, overlap, gemmScale * lc.rowGemmS, eff.commInterference,
                   into.tp, into.interference);
        };
        ChunkParts one;
        // Forward pass.
        exposeTp(1.0, ov.tpComm, 1.0, one);
        expose(c.cp, ov.cpComm, lc.attentionCoreS, eff.commInterference, one.cp, one.interference);
        expose(c.ep, epOverlap, epForwardWindow, eff.epCommInterference, one.ep, one.interference);
        const ChunkParts fwd = one;
        // Backward pass: the collectives of the column-parallel layers' input gradients (and,
        // with SP, the re-gather of their inputs) run asynchronously under the weight-gradient
        // GEMMs (Megatron-LM --async-tensor-model-parallel-allreduce, default since 2021;
        // Korthikanti et al. 2022 section 4.2.2): the only GEMMs they can hide under are the
        // weight gradients of those column-parallel layers (QKV and fc1: as many FLOPs as their
        // forward), so that is the window without overlap.tpComm; with it every backward
        // collective pipelines with its data- or weight-gradient GEMM (twice the forward
        // GEMMs; never less hidden than the asynchronous default). A recomputed forward
        // exposes its collectives like the first forward.
        ChunkParts backwardTp;
        expose(c.tp(), true, lc.columnGemmS, eff.commInterference, backwardTp.tp,
               backwardTp.interference);
        if (ov.tpComm) {
            ChunkParts pipelined;
            exposeTp(1.0, true, 2.0, pipelined);
            if (pipelined.tp < backwardTp.tp)
                backwardTp = pipelined;
        }
        one.tp += backwardTp.tp;
        one.interference += backwardTp.interference;
        exposeTp(passes - 2.0, ov.tpComm, 1.0, one);
        expose(c.cp * passes, ov.cpComm, 3.0 * lc.attentionCoreS, eff.commInterference, one.cp,
               one.interference);
        expose(c.ep * (passes - 1.0), epOverlap, epBackwardWindow, eff.epCommInterference, one.ep,
               one.interference);
        out.forward += n * lc.forwardS;
        out.backward += n * lc.backwardS;
        out.recompute += n * lc.recomputeS;
        out.tp += n * one.tp;
        out.cp += n * one.cp;
        out.ep += n * one.ep;
        out.interference += n * one.interference;
        out.forwardPass += n * (lc.forwardS + fwd.tp + fwd.cp + fwd.ep + fwd.interference);
        out.backwardPass +=
            n * (lc.backwardS + lc.recomputeS + (one.tp - fwd.tp) + (one.cp - fwd.cp) +
                 (one.ep - fwd.ep) + (one.interference - fwd.interference));
    };
    addLayers(false, chunk.denseLayers);
    addLayers(true, chunk.moeLayers);

    // Vocabulary-parallel embedding and output layer (Megatron): one TP collective of the
    // activation each way (all-reduce, or reduce-scatter / all-gather with SP).
    auto vocabComm = [&]() {
        const CollectiveFn fn =
            par.sequenceParallel ? hierarchicalAllGather : hierarchicalAllReduce;
        return collective(fn, actBytes, pl.tp, eff, 1.0, tpBytes, microBatches, traffic,
                          collectives);
    };
    if (chunk.first) {
        const double c = vocabComm();
        out.tp += c;
        out.forwardPass += c;
    }
    if (chunk.last) {
        const LogitsCompute lg = logitsCompute(w, par, accel);
        const double c = vocabComm();
        out.forward += lg.forwardS;
        out.backward += lg.backwardS;
        out.tp += c;
        out.forwardPass += lg.forwardS;
        out.backwardPass += lg.backwardS + c;
    }
    if (chunk.mtpModules > 0) {
        // Each multi-token prediction module (DeepSeek-V3 report section 2.2, eq. 21-22): the
        // projection M of [norm(h); norm(embedding)] (2h -> h, a Linear at the workload's
        // precision) and the shared output head with its loss again; its layer is counted
        // with the chunk's layers.
        const MtpCompute mtp = mtpCompute(w, par, accel);
        const double n = chunk.mtpModules;
        const double c = vocabComm();
        out.forward += n * mtp.forwardS;
        out.backward += n * mtp.backwardS;
        out.tp += n * c;
        out.forwardPass += n * mtp.forwardS;
        out.backwardPass += n * (mtp.backwardS + c);
    }
    return out;
}

} // namespace archipelago::core
