#include "compute/memorymodel.h"

#include "compute/modelflops.h"

#include <algorithm>
#include <cmath>

namespace archipelago::core {

LayerParams layerParamsPerGpu(const Workload& w, const Parallelism& par, bool moeLayer)
{
    const double t = std::max(1, par.tp);
    const double h = w.hidden;
    const double mats = mlpMatrices(w.activation);
    LayerParams p;
    // Attention: the weights of its GEMMs per GPU (modelflops.h attentionGemms: QKV h x
    // (h + 2 kv d) and projection h x h split by TP; MLA's down projections replicated, its up
    // and output projections split), two norms replicated (one in a parallel block, PaLM
    // section 2), and MLA's two latent norms (model.py q_norm, kv_norm).
    const AttentionGemms attn = attentionGemms(w, 1.0, t);
    for (int i = 0; i < attn.inputs; ++i)
        p.dense += attn.input[i].n * attn.input[i].k;
    p.dense += attn.output.n * attn.output.k + (w.parallelBlock ? 1.0 : 2.0) * h;
    if (w.mla.enabled())
        p.dense += w.mla.qLoraRank + w.mla.kvLoraRank;
    if (moeLayer) {
        const MoeConfig& moe = w.moe;
        const double expert = mats * h * moe.expertFfnHidden / t;
        p.dense += h * moe.experts + expert * moe.sharedExperts; // router + shared experts
        p.expert = expert * moe.experts / std::max(1, par.ep);
    } else {
        p.dense += mats * h * w.ffnHidden / t;
    }
    return p;
}

double vocabParamsPerGpu(const Workload& w, const Parallelism& par)
{
    return static_cast<double>(w.vocab) * w.hidden / std::max(1, par.tp);
}

StateBytes stateBytesPerParam(const Parallelism& par, double shardGroup)
{
    StateBytes s;
    const int zero = std::max(par.zeroStage, par.distributedOptimizer ? 1 : 0);
    // Distributed-optimizer instances shard the optimizer state over one instance, not the
    // whole data-parallel group (Megatron-Core num_distributed_optimizer_instances: the
    // optimizer shards over the intra-instance group, parallel_state.py).
    const int instances = optimizerInstances(par);
    const double d = std::max(1.0, shardGroup / instances);
    // The gradient buffer holds the reduction dtype (Megatron-Core DDP: main_grad in fp32 with
    // grad_reduce_in_fp32, else in the parameters' bf16).
    if (par.gradReduceDtype == GradReduceDtype::Bf16)
        s.gradients = 2.0;
    if (zero >= 1)
        s.optimizer /= d;
    if (zero >= 2)
        s.gradients /= d;
    if (zero >= 3)
        s.weights /= d;
    return s;
}

double activationBytesPerLayer(const Workload& w, const Parallelism& par, bool moeLayer,
                               bool fusedAttention)
{
    const double t = std::max(1, par.tp);
    const double cp = std::max(1, par.cp);
    const double b = std::max(1, par.microBatch);
    const double s = w.seqLen / cp; // CP splits the sequence (Megatron context parallel)
    const double h = w.hidden;
    const double a = w.heads;
    const double kvDim = static_cast<double>(w.kvHeads) * headDim(w);
    const double sp = par.sequenceParallel ? t : 1.0;
    const bool selective = par.recompute == Recompute::Selective;
    const double sbh = s * b * h;
    // Full recompute keeps only each layer's input (Korthikanti et al. 2022 section 4.3).
    if (par.recompute == Recompute::Full)
        return 2.0 * sbh / sp;
    // GEMM inputs saved for the weight gradient: bf16 (2 bytes), or FP8 (1 byte) when the
    // GEMMs run in FP8 (Transformer Engine saves the FP8 cast of the input; DeepSeek-V3 report
    // section 3.3.4 caches activations in FP8). Norm, attention and activation-function inputs
    // stay bf16.
    const double g = w.precision == Precision::Fp8 ? 1.0 : 2.0;
    // Korthikanti et al. 2022 section 4.1, per layer: outside the TP regions (replicated
    // without SP, split by t with SP): two norm inputs 4sbh, QKV input 2sbh, fc1 input 2sbh,
    // two dropout masks 2sbh = 10sbh. A parallel block has one norm input and one input shared
    // by QKV and fc1 (PaLM section 2): 6sbh.
    double outside = w.parallelBlock ? (4.0 + g) * sbh : (6.0 + 2.0 * g) * sbh;
    // Inside the TP regions (split by t): Q 2sbh, K and V 2*s*b*kv*d each (GQA shrinks them),
    // projection input 2sbh; = 8sbh with kv = a.
    double inside = (2.0 + g) * sbh + 4.0 * s * b * kvDim;
    if (w.mla.enabled()) {
        // Multi-head latent attention (DeepSeek-V3 report section 2.1.1): the query latent and
        // the key-value latent with the rotary key (bf16), the up-projections' inputs (the
        // normalised latents), Q and K of a*d_qk and V of a*d_v per token, and the output
        // projection's input of a*d_v. DeepSeek-V3 (section 3.2.3) recomputes the norms and the
        // up-projections in backward: only the latents and the attention output stay.
        const MlaConfig& mla = w.mla;
        const double latents = 2.0 * s * b * (mla.qLoraRank + mla.kvLoraRank + mla.qkRopeHeadDim);
        const double normed = g * s * b * (mla.qLoraRank + mla.kvLoraRank);
        const double qkv = 2.0 * s * b * a * (2.0 * mla.qkHeadDim() + mla.vHeadDim);
        const double output = g * s * b * a * mla.vHeadDim;
        // The latents are replicated over TP (their down projections are plain Linears).
        outside += latents * sp;
        inside = output + (selective ? 0.0 : normed * t + qkv);
    }
    // MLP: activation input and fc2 input, 2*s*b*f each (GeLU: 16sbh with f = 4h); SwiGLU
    // keeps gate and up outputs (4*s*b*f) and the fc2 input (2*s*b*f).
    const double mats = mlpMatrices(w.activation);
    const double perFfn = (mats == 3.0 ? 4.0 : 2.0) + g;
    if (moeLayer) {
        const MoeConfig& moe = w.moe;
        // Router logits in fp32; each routed copy of a token keeps its dispatched input and
        // the expert's activations; shared experts as a dense MLP.
        outside += 4.0 * s * b * moe.experts;
        inside += moe.topK * (g * sbh + perFfn * s * b * moe.expertFfnHidden);
        inside += perFfn * s * b * moe.expertFfnHidden * moe.sharedExperts;
    } else {
        inside += perFfn * s * b * w.ffnHidden;
    }
    // Attention core: softmax output 2as^2b, dropout mask as^2b, dropout output 2as^2b;
    // selective recompute drops exactly these (Korthikanti et al. 2022 section 5). With CP
    // each GPU holds its s/cp queries against all s keys. With latent attention selective
    // recompute is DeepSeek's (up-projections and norms, not the core): the core stays stored.
    double core = selective && !w.mla.enabled() ? 0.0 : 5.0 * a * s * (s * cp) * b;
    if (fusedAttention) // flash: fp32 log-sum-exp per query and head (Dao 2023, Algorithm 1)
        core = 4.0 * a * s * b;
    return outside / sp + inside / t + core / t;
}

LayerMemoryTerms layerMemoryTerms(const Workload& w, const Parallelism& par, bool fusedAttention)
{
    LayerMemoryTerms t;
    t.dense = layerParamsPerGpu(w, par, false);
    t.moe = layerParamsPerGpu(w, par, true);
    t.vocabParams = vocabParamsPerGpu(w, par);
    t.denseActivationBytes = activationBytesPerLayer(w, par, false, fusedAttention);
    t.moeActivationBytes = activationBytesPerLayer(w, par, true, fusedAttention);
    if (par.recompute == Recompute::Full) {
        Parallelism none = par;
        none.recompute = Recompute::None;
        t.denseFullBytes = activationBytesPerLayer(w, none, false, fusedAttention);
        t.moeFullBytes = activationBytesPerLayer(w, none, true, fusedAttention);
    }
    return t;
}

MemoryBreakdown stageMemory(const Workload& w, const Parallelism& par, const StageMemoryInput& in)
{
    return stageMemory(w, par, in, layerMemoryTerms(w, par, in.fusedAttention));
}

MemoryBreakdown stageMemory(const Workload& w, const Parallelism& par, const StageMemoryInput& in,
                            const LayerMemoryTerms& terms)
{
    const double denseLayers = in.layers - in.moeLayers;
    const LayerParams& dense = terms.dense;
    const LayerParams& moe = terms.moe;
    double denseParams = denseLayers * dense.dense + in.moeLayers * moe.dense;
    const double expertParams = in.moeLayers * moe.expert;
    if (in.first)
        denseParams += terms.vocabParams;
    if (in.last)
        denseParams += terms.vocabParams;
    const StateBytes ds = stateBytesPerParam(par, in.denseShardGroup);
    const StateBytes es = stateBytesPerParam(par, in.expertShardGroup);

    MemoryBreakdown mem;
    mem.weightsGib = (denseParams * ds.weights + expertParams * es.weights) / kGib;
    mem.gradientsGib = (denseParams * ds.gradients + expertParams * es.gradients) / kGib;
    mem.optimizerGib = (denseParams * ds.optimizer + expertParams * es.optimizer) / kGib;
    if (in.outerStateBytesPerParam > 0.0) {
        // Sharded as the optimizer state is (its ratio to the unsharded 12 bytes).
        constexpr double kAdamBytes = StateBytes{}.optimizer;
        mem.optimizerGib += in.outerStateBytesPerParam *
                            (denseParams * ds.optimizer + expertParams * es.optimizer) /
                            kAdamBytes / kGib;
    }

    const double perMb =
        denseLayers * terms.denseActivationBytes + in.moeLayers * terms.moeActivationBytes;
    double act = perMb * in.inFlight;
    if (par.recompute == Recompute::Full) {
        // Recomputing one layer before its backward needs that layer's full activations once
        // (Korthikanti et al. 2022 section 4.3).
        act += in.moeLayers > 0.0 && denseLayers <= 0.0 ? terms.moeFullBytes : terms.denseFullBytes;
    }
    const double t = std::max(1, par.tp);
    const double b = std::max(1, par.microBatch);
    const double s = static_cast<double>(w.seqLen) / std::max(1, par.cp);
    if (in.first) // embedding dropout mask per micro-batch in flight (ibid. section 4.3)
        act += s * b * w.hidden / (par.sequenceParallel ? t : 1.0) * in.inFlight;
    if (in.last) // fp32 logits of the micro-batch in its loss (ibid. section 4.3: 4sbv/t)
        act += 4.0 * s * b * w.vocab / t;
    mem.activationsGib = act / kGib;
    mem.inFlightMicroBatches = static_cast<int>(std::ceil(in.inFlight - 1e-9));
    mem.worstStage = in.rank;
    const double allocated =
        mem.weightsGib + mem.gradientsGib + mem.optimizerGib + mem.activationsGib;
    mem.otherGib = reserveGib(allocated);
    return mem;
}

double reserveGib(double allocatedGib)
{
    return 2.0 + 0.05 * allocatedGib;
}

double fragmentationThatFits(double allocatedGib, double hbmGib)
{
    return (hbmGib - 2.0) / std::max(allocatedGib, 1e-9) - 1.0;
}

} // namespace archipelago::core
