#include "compute/computemodel.h"

#include "compute/modelflops.h"

#include <algorithm>
#include <cmath>

namespace archipelago::core {

double peakFlopsPerS(const AcceleratorSpec& accel, Precision precision)
{
    const double tflops = precision == Precision::Fp8 && accel.peakTflopsFp8 > 0.0
                              ? accel.peakTflopsFp8
                              : accel.peakTflopsBf16;
    return std::max(tflops, 1e-6) * 1e12;
}

double tileEfficiency(double m, double n, double batch, int sms)
{
    if (m <= 0.0 || n <= 0.0)
        return 1.0;
    // cuBLAS / CUTLASS tile shapes for 16-bit tensor-core GEMMs on Ampere and Hopper (NVIDIA
    // Matrix Multiplication Background User's Guide, "Tile Quantization"); the heuristic picks
    // the one that wastes least.
    static constexpr double kTiles[][2] = {{256.0, 128.0}, {128.0, 256.0}, {128.0, 128.0}};
    const double groups = std::max(1.0, std::ceil(batch - 1e-9));
    double best = 0.0;
    for (const auto& tile : kTiles) {
        const double tm = std::ceil(m / tile[0]);
        const double tn = std::ceil(n / tile[1]);
        const double fill = m * n / (tm * tile[0] * tn * tile[1]);
        const double tiles = tm * tn * groups;
        // One tile per SM at a time; the last wave runs partly empty ("Wave Quantization").
        const double waves = sms > 0 ? std::ceil(tiles / sms) : 1.0;
        const double wave = sms > 0 ? tiles / (waves * sms) : 1.0;
        best = std::max(best, fill * wave);
    }
    return best;
}

namespace {

bool fp8Gemm(const AcceleratorSpec& accel, Precision precision)
{
    return precision == Precision::Fp8 && accel.peakTflopsFp8 > 0.0;
}

// Fraction of peak of a long-k GEMM and the k at which a tile reaches half of it: the FP8
// pair where the catalog gives one, else the BF16 pair.
double peakEfficiency(const EfficiencyParams& eff, bool fp8)
{
    return fp8 && eff.gemmPeakEfficiencyFp8 > 0.0 ? eff.gemmPeakEfficiencyFp8
                                                  : eff.gemmPeakEfficiency;
}

double kEfficiency(double k, const EfficiencyParams& eff, bool fp8)
{
    const double halfDim = fp8 && eff.gemmHalfDimFp8 >= 0.0 ? eff.gemmHalfDimFp8 : eff.gemmHalfDim;
    return k / (k + std::max(0.0, halfDim));
}

double hbmBytesPerS(const AcceleratorSpec& accel)
{
    return std::max(accel.hbmGBps, 1e-6) * 1e9 * accel.efficiency.memoryBoundEfficiency;
}

// Tensor-core time of `flops` on a GEMM of output m x n (batch of them), reduction k.
double tensorTimeS(double flops, double m, double n, double k, double batch,
                   const AcceleratorSpec& accel, Precision precision)
{
    const bool fp8 = fp8Gemm(accel, precision);
    const double e = peakEfficiency(accel.efficiency, fp8) *
                     tileEfficiency(m, n, batch, accel.sms) * kEfficiency(k, accel.efficiency, fp8);
    return flops / (peakFlopsPerS(accel, precision) * std::max(e, 1e-6));
}

} // namespace

double gemmTimeS(double m, double n, double k, double batch, const AcceleratorSpec& accel,
                 Precision precision)
{
    if (m <= 0.0 || n <= 0.0 || k <= 0.0 || batch <= 0.0)
        return 0.0;
    const double flops = 2.0 * m * n * k * batch;
    // Roofline (Williams et al. 2009): operands read once, output written once.
    const double inBytes = fp8Gemm(accel, precision) ? 1.0 : 2.0;
    const double bytes = (inBytes * (m * k + k * n) + 2.0 * m * n) * batch;
    return std::max(tensorTimeS(flops, m, n, k, batch, accel, precision),
                    bytes / hbmBytesPerS(accel));
}

double gemmEfficiency(double m, double n, double k, const AcceleratorSpec& accel)
{
    const double t = gemmTimeS(m, n, k, 1.0, accel, Precision::Bf16);
    return t > 0.0 ? 2.0 * m * n * k / (t * peakFlopsPerS(accel, Precision::Bf16)) : 0.0;
}

bool fusedAttention(const AcceleratorSpec& accel, const Kernels& kernels)
{
    // Unset: the software of the generation's published runs: Megatron-LM's fused softmax with
    // unfused Q K^T on Volta/Ampere (Narayanan et al. 2021, Korthikanti et al. 2022,
    // MegaScale's Megatron baseline); flash attention from Hopper on (Llama 3, DeepSeek-V3).
    return kernels.flashAttention.value_or(accel.generation != "ampere" &&
                                           accel.generation != "volta");
}

namespace {

// Accumulates GEMM time and FLOPs for one pass.
struct GemmClock
{
    const AcceleratorSpec& accel;
    Precision precision;
    double timeS = 0.0;
    double flops = 0.0;

    void add(double m, double n, double k, double batch = 1.0) { addAt(precision, m, n, k, batch); }
    void addAt(Precision at, double m, double n, double k, double batch = 1.0)
    {
        if (m <= 0.0 || n <= 0.0 || k <= 0.0 || batch <= 0.0)
            return;
        flops += 2.0 * m * n * k * batch;
        timeS += gemmTimeS(m, n, k, batch, accel, at);
    }
};

// HBM bytes per element of the casts of blockwise-scaled FP8 GEMM operands (DeepSeek-V3
// report sections 3.3.2 and 3.5.2): a forward activation is read in BF16 (2 bytes) and written
// in FP8 (1) with one FP32 scale per 1 x 128 tile (4/128); for the weight gradient the cached
// FP8 tiles are read, transposed and re-quantised into 128 x 1 tiles (1 + 4/128 each way,
// "Support for Transposed GEMM Operations"); an output gradient is read once in BF16 and
// written in both layouts, row-wise for the input gradient and column-wise for the weight
// gradient. Weights need neither: a 128 x 128 block scale is its own transpose, and they are
// cast once per optimizer step (section 3.3.2), not per micro-batch.
constexpr double kScaleBytes = 4.0 / 128.0;
constexpr double kCastBytes = 2.0 + 1.0 + kScaleBytes;
constexpr double kRequantBytes = 2.0 * (1.0 + kScaleBytes);
constexpr double kCastBothBytes = 2.0 + 2.0 * (1.0 + kScaleBytes);

// The cast passes of one layer and pass (elements per GPU), with their launches.
struct Fp8Casts
{
    double forwardBytes = 0.0;
    double backwardBytes = 0.0;
    double forwardKernels = 0.0;
    double backwardKernels = 0.0;

    // A GEMM input cast in forward and re-quantised transposed in backward.
    void input(double elements)
    {
        forwardBytes += kCastBytes * elements;
        backwardBytes += kRequantBytes * elements;
        forwardKernels += 1.0;
        backwardKernels += 1.0;
    }
    // An input that arrives in FP8 (the dispatched tokens): its transposed copy only.
    void receivedInput(double elements)
    {
        backwardBytes += kRequantBytes * elements;
        backwardKernels += 1.0;
    }
    // The gradient of a GEMM's output, cast in both layouts.
    void outputGradient(double elements)
    {
        backwardBytes += kCastBothBytes * elements;
        backwardKernels += 1.0;
    }
};

} // namespace

LayerCompute layerCompute(const Workload& w, const Parallelism& par, bool moeLayer,
                          const AcceleratorSpec& accel)
{
    const EfficiencyParams& eff = accel.efficiency;
    const double t = std::max(1, par.tp);
    const double cp = std::max(1, par.cp);
    const double b = std::max(1, par.microBatch);
    const double s = w.seqLen;
    const double h = w.hidden;
    const double dqk = qkHeadDim(w); // h / a, or MLA's 192 (DeepSeek-V3)
    const double dv = valueHeadDim(w);
    const double tokens = b * s / cp;                       // T: tokens on this GPU's TP group
    const double seqShard = par.sequenceParallel ? t : 1.0; // SP shards norm/dropout regions
    const double headsPerGpu = std::max(1.0, w.heads / t);
    const double mats = mlpMatrices(w.activation);
    const bool fused = fusedAttention(accel, par.kernels);
    const bool fuseElementwise = par.kernels.fusedElementwise;
    const bool mla = w.mla.enabled();
    // Parallel block (PaLM section 2): QKV and a dense fc1 share their input, one GEMM.
    const bool fusedInput = w.parallelBlock && !moeLayer && !mla;
    // Blockwise-scaled FP8: every GEMM activation and output gradient goes through a cast pass
    // of its own (Fp8Casts above); per-tensor (delayed) scaling casts in the producing kernel.
    const bool blockwise = fp8Gemm(accel, w.precision) && w.fp8Recipe == Fp8Recipe::Blockwise;
    Fp8Casts casts;
    if (blockwise) // the normalised layer input, one cast shared by the GEMMs that read it
        casts.input(tokens * h / seqShard);

    // Column-parallel GEMMs (TP all-gather side) and row-parallel ones (reduce side), timed
    // apart for the TP overlap windows (stagecost.cpp).
    GemmClock column{accel, w.precision};
    GemmClock row{accel, w.precision};
    // Shapes per GPU, Megatron tensor parallelism (Shoeybi et al. 2019, section 3): QKV and
    // fc1 split by columns, projection and fc2 by rows. With CP each GPU holds s/cp queries
    // against all s keys (ring attention, Liu et al. 2023).
    const double f = w.ffnHidden;
    const AttentionGemms attn = attentionGemms(w, tokens, t);
    GemmClock upProjections{accel, w.precision}; // MLA's, recomputed (DeepSeek-V3 sec. 3.2.3)
    for (int i = 0; i < attn.inputs; ++i) {
        const GemmShape& g = attn.input[i];
        if (fusedInput) // [QKV | fc1]
            column.add(g.m, g.n + (mats - 1.0) * f / t, g.k);
        else
            column.add(g.m, g.n, g.k); // QKV, or MLA's down and up projections
        if (g.upProjection)
            upProjections.add(g.m, g.n, g.k);
        if (blockwise) {
            if (g.k != h) // an MLA latent, normalised (the k = h inputs share the cast above)
                casts.input(g.m * g.k);
            casts.outputGradient(g.m * (g.n + (fusedInput ? (mats - 1.0) * f / t : 0.0)));
        }
    }
    row.add(attn.output.m, attn.output.n, attn.output.k); // output projection
    if (blockwise) {
        casts.input(attn.output.m * attn.output.k);
        casts.outputGradient(attn.output.m * attn.output.n);
    }
    // Attention core. Unfused: scores Q K^T and probabilities x V as batched GEMMs through HBM,
    // softmax with mask and dropout over a*s^2 scores reading and writing them twice plus the
    // mask (9 bytes per score, the tensors Korthikanti et al. 2022 section 4.1 stores).
    // Fused (flash): the same two GEMM shapes on chip, half of them under a causal mask
    // (Dao 2023 section 3.1.1 skips fully masked blocks), bf16 attention kernels (FP8 GEMMs
    // elsewhere: DeepSeek-V3 report section 3.3 keeps attention in BF16).
    const double heads = b * headsPerGpu;
    double attnForwardS = 0.0;
    double attnBackwardS = 0.0;
    double scoreBytes = 0.0;
    double attnFlops = 0.0;
    if (fused) {
        // Score elements computed: the causal (or windowed) part only; Megatron's context
        // parallelism balances it over the cp ranks.
        const double scores = (s / cp) * s * heads * causalScoreFraction(w);
        const double f1 = 2.0 * scores * dqk; // Q K^T
        const double f2 = 2.0 * scores * dv;  // P V
        attnFlops = f1 + f2;
        // The online softmax runs on the CUDA cores between the two GEMMs and, in
        // FlashAttention-2 style kernels, is not overlapped with them (Shah et al. 2024,
        // FlashAttention-3, sections 1 and 3.1: H100 SXM5 has 989 TFLOP/s of BF16 matmul but
        // 3.9 TFLOP/s of exp; FA2 reaches 35% of peak). Per score: one exp on the
        // special-function units, 16 per SM per clock (CUDA C Programming Guide, arithmetic
        // instruction throughput, cc 8.x/9.0), about 4 FP32 ops (scale, max, subtract, sum)
        // on 128 FP32 lanes per SM; the backward pass recomputes P = exp(S - L) (1 exp) and
        // forms dS = P * (dP - D) (about 4 ops). Clock per SM from the tensor peak: dense BF16
        // tensor FLOP per clock per SM is 2048 on Ampere, 4096 on Hopper, 8192 on Blackwell
        // (NVIDIA A100, H100, Blackwell architecture whitepapers).
        const double perClk = accel.generation == "blackwell" ? 8192.0
                              : accel.generation == "ampere"  ? 2048.0
                                                              : 4096.0;
        const double clockSms = peakFlopsPerS(accel, Precision::Bf16) / perClk; // SM x Hz
        const double softmaxS = scores * (1.0 / (16.0 * clockSms) + 4.0 / (128.0 * clockSms));
        attnForwardS = tensorTimeS(f1, s / cp, s, dqk, heads, accel, Precision::Bf16) +
                       tensorTimeS(f2, s / cp, dv, s, heads, accel, Precision::Bf16) + softmaxS;
        // Backward: 5 GEMMs for the forward's 2 (Dao 2023 section 3.1.2).
        attnBackwardS = 2.5 * (attnForwardS - softmaxS) + softmaxS;
    } else {
        GemmClock core{accel, Precision::Bf16};
        core.add(s / cp, s, dqk, heads); // scores Q K^T
        core.add(s / cp, dv, s, heads);  // probabilities x V
        scoreBytes = 9.0 * heads * (s / cp) * s;
        attnFlops = core.flops;
        attnForwardS = core.timeS + scoreBytes / hbmBytesPerS(accel);
        attnBackwardS = 2.0 * attnForwardS;
    }
    // Memory-bound bytes, forward (bf16 = 2 bytes). Two norms read and write T*h
    // (4 bytes per element); two fused bias-dropout-residual adds read two inputs, write the
    // output and a 1-byte mask (7). Without SP these regions run replicated on every TP rank.
    // Parallel block: one norm, one add of both branches (reads three, writes one, two masks:
    // 10). Fused element-wise: each norm takes its input from the add before it (2 per norm).
    const double norms = w.parallelBlock ? 1.0 : 2.0;
    const double normBytes = fuseElementwise ? 2.0 : 4.0;
    const double addBytes = w.parallelBlock ? 10.0 : 2.0 * 7.0;
    double bytes = (norms * normBytes + addBytes) * tokens * h / seqShard;
    // MLA normalises its two latents (q_norm, kv_norm in model.py): read and write each.
    const double latentNormBytes = mla ? 4.0 * tokens * (w.mla.qLoraRank + w.mla.kvLoraRank) : 0.0;
    bytes += latentNormBytes;
    // Launches: 4 GEMMs (3 with the fused input), 3 attention kernels, norms, residual adds,
    // the activation function (Megatron-LM's fused bias-GeLU); fused norms and activation
    // ride on the adds and on fc1.
    double kernels = (fusedInput ? 3.0 : 4.0) + 3.0 + norms * (fuseElementwise ? 0.0 : 1.0) +
                     (w.parallelBlock ? 1.0 : 2.0) + (fuseElementwise ? 0.0 : 1.0);
    if (mla) // its further input GEMMs and the two latent norms
        kernels += (attn.inputs - 1.0) + 2.0;
    if (moeLayer) {
        const MoeConfig& moe = w.moe;
        const double ep = std::max(1, par.ep);
        const double fe = moe.expertFfnHidden;
        const double routed = tokens * moe.topK; // token-expert pairs on this GPU
        const double localExperts = std::max(1.0, moe.experts / ep);
        const double perExpert = routed / localExperts; // balanced routing
        // Router in BF16: DeepSeek-V3 keeps the MoE gating out of FP8 (report section 3.3.1).
        column.addAt(Precision::Bf16, tokens, moe.experts, h);
        column.add(perExpert, (mats - 1.0) * fe / t, h, localExperts); // expert fc1 (grouped)
        row.add(perExpert, h, fe / t, localExperts);                   // expert fc2
        if (moe.sharedExperts > 0) {
            const double fs = fe * moe.sharedExperts;
            column.add(tokens, (mats - 1.0) * fs / t, h);
            row.add(tokens, h, fs / t);
        }
        if (blockwise) {
            // The MLP's normalised input, cast once, read by the shared experts and, with an
            // FP8 dispatch, sent to the routed ones in FP8 (report section 3.3.4); a BF16
            // dispatch is cast on arrival.
            const bool fp8Dispatch = moe.dispatchPrecision == Precision::Fp8;
            const double fs = fe * moe.sharedExperts;
            casts.input(tokens * h / seqShard);
            if (fp8Dispatch)
                casts.receivedInput(routed * h);
            else
                casts.input(routed * h);
            casts.outputGradient((routed + tokens * moe.sharedExperts) * (mats - 1.0) * fe / t);
            casts.input((routed + tokens * moe.sharedExperts) * fe / t); // fc2 inputs
            // fc2's output gradient: the combined output's, cast once for the shared experts
            // and the backward dispatch, and on arrival re-quantised (FP8) or cast (BF16).
            casts.outputGradient(tokens * h * (fs > 0.0 || fp8Dispatch ? 1.0 : 0.0));
            if (fp8Dispatch)
                casts.receivedInput(routed * h);
            else
                casts.outputGradient(routed * h);
        }
        // Permute and unpermute the routed tokens (read + write, twice), activation function
        // (in the expert fc1's epilogue when fused).
        bytes += 8.0 * routed * h / t;
        if (!fuseElementwise)
            bytes += (mats == 3.0 ? 6.0 : 4.0) * (routed + tokens * moe.sharedExperts) * fe / t;
        kernels += 10.0;
    } else {
        if (!fusedInput)
            column.add(tokens, (mats - 1.0) * f / t, h); // fc1 (gate and up for SwiGLU)
        row.add(tokens, h, f / t);                       // fc2
        if (blockwise) {
            if (!fusedInput) { // the MLP's normalised input and fc1's output gradient
                casts.input(tokens * h / seqShard);
                casts.outputGradient(tokens * (mats - 1.0) * f / t);
            }
            casts.input(tokens * f / t);
            casts.outputGradient(tokens * h);
        }
        // GeLU reads and writes T*f; SwiGLU reads two T*f streams and writes one. Fused into
        // fc1's epilogue the pass is gone (its output is written by the GEMM anyway).
        if (!fuseElementwise)
            bytes += (mats == 3.0 ? 6.0 : 4.0) * tokens * f / t;
    }
    const double rate = hbmBytesPerS(accel);
    const double overhead = kernels * eff.kernelOverheadS;
    const double gemmS = column.timeS + row.timeS;
    const double other = gemmS + bytes / rate + overhead; // everything but attention core
    const double castForwardS =
        casts.forwardBytes / rate + casts.forwardKernels * eff.kernelOverheadS;
    const double castBackwardS =
        casts.backwardBytes / rate + casts.backwardKernels * eff.kernelOverheadS;

    LayerCompute out;
    out.memoryBoundS = (bytes + scoreBytes + casts.forwardBytes) / rate;
    out.fp8CastS = castForwardS + castBackwardS;
    out.attentionCoreS = attnForwardS;
    out.columnGemmS = column.timeS;
    out.rowGemmS = row.timeS;
    out.forwardFlops = attnFlops + column.flops + row.flops;
    out.forwardS = other + attnForwardS + castForwardS;
    // Backward: the input-gradient and weight-gradient GEMMs have the same shapes permuted
    // (2x FLOPs, Narayanan et al. 2021 Appendix); element-wise backward reads the saved input
    // and the incoming gradient and writes a gradient (2x bytes).
    out.backwardS = 2.0 * other + attnBackwardS + castBackwardS;
    if (par.recompute == Recompute::Full)
        out.recomputeS = out.forwardS;
    else if (par.recompute == Recompute::Selective && mla)
        // DeepSeek-V3 report section 3.2.3: recompute all RMSNorm operations and the MLA
        // up-projections in backward, store neither their outputs nor the attention's Q, K, V.
        // Blockwise FP8 casts the recomputed latents again for the up-projections.
        out.recomputeS =
            upProjections.timeS +
            (latentNormBytes + norms * normBytes * tokens * h / seqShard +
             (blockwise ? kCastBytes * tokens * (w.mla.qLoraRank + w.mla.kvLoraRank) : 0.0)) /
                rate +
            (attn.inputs + norms) * eff.kernelOverheadS;
    else if (par.recompute == Recompute::Selective)
        out.recomputeS = attnForwardS + 3.0 * eff.kernelOverheadS; // Korthikanti sec. 5
    return out;
}

LogitsCompute logitsCompute(const Workload& w, const Parallelism& par, const AcceleratorSpec& accel)
{
    const double t = std::max(1, par.tp);
    const double tokens =
        std::max(1, par.microBatch) * static_cast<double>(w.seqLen) / std::max(1, par.cp);
    // The output head stays in BF16 under FP8 training (DeepSeek-V3 report section 3.3.1; as
    // Transformer Engine, which runs only the transformer layers' Linears in FP8).
    GemmClock clock{accel, Precision::Bf16};
    clock.add(tokens, w.vocab / t, w.hidden);
    // Vocabulary-parallel cross-entropy in fp32 (Megatron): upcast, max, exp-sum and loss
    // passes over T*V/t logits, about 12 bytes per logit forward.
    const double bytes = 12.0 * tokens * w.vocab / t;
    LogitsCompute out;
    out.forwardS =
        clock.timeS + bytes / hbmBytesPerS(accel) + 4.0 * accel.efficiency.kernelOverheadS;
    out.backwardS = 2.0 * out.forwardS;
    return out;
}

MtpCompute mtpCompute(const Workload& w, const Parallelism& par, const AcceleratorSpec& accel)
{
    const double t = std::max(1, par.tp);
    const double tokens =
        std::max(1, par.microBatch) * static_cast<double>(w.seqLen) / std::max(1, par.cp);
    const double h = w.hidden;
    GemmClock projection{accel, w.precision};
    projection.add(tokens, h / t, 2.0 * h); // M_k, eq. 21 (column-parallel over TP)
    // Two RMSNorms read and write T*h each, the concatenation writes T*2h (bf16).
    const double bytes = (2.0 * 4.0 + 4.0) * tokens * h;
    const LogitsCompute head = logitsCompute(w, par, accel);
    MtpCompute out;
    out.forwardS = projection.timeS + bytes / hbmBytesPerS(accel) +
                   3.0 * accel.efficiency.kernelOverheadS + head.forwardS;
    out.backwardS = 2.0 * (out.forwardS - head.forwardS) + head.backwardS;
    return out;
}

double optimizerStepS(double localParams, double shardParams, const AcceleratorSpec& accel)
{
    // Mixed-precision Adam (Micikevicius et al. 2018; Rajbhandari et al. 2020, ZeRO,
    // section 3.1): per updated parameter read the fp32 gradient (4), read and write the fp32
    // master weight, momentum and variance (24) and write the bf16 weight (2) = 30 bytes; per
    // local parameter the gradient-norm pass reads and the zeroing pass writes the fp32
    // gradient (8 bytes).
    const double bytes = 30.0 * shardParams + 8.0 * localParams;
    return bytes / hbmBytesPerS(accel) + 10.0 * accel.efficiency.kernelOverheadS;
}

} // namespace archipelago::core
