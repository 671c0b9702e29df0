#include "compute/modelflops.h"

#include <algorithm>

namespace archipelago::core {

bool isMoeLayer(const Workload& workload, int index)
{
    return workload.moe.enabled() && index >= workload.moe.firstDenseLayers;
}

int moeLayerCount(const Workload& workload)
{
    if (!workload.moe.enabled())
        return 0;
    return std::max(0, workload.layers - std::max(0, workload.moe.firstDenseLayers));
}

double headDim(const Workload& workload)
{
    return static_cast<double>(workload.hidden) / std::max(1, workload.heads);
}

double qkHeadDim(const Workload& w)
{
    return w.mla.enabled() ? static_cast<double>(w.mla.qkHeadDim()) : headDim(w);
}

double valueHeadDim(const Workload& w)
{
    return w.mla.enabled() ? static_cast<double>(w.mla.vHeadDim) : headDim(w);
}

AttentionGemms attentionGemms(const Workload& w, double tokens, double tp)
{
    const double t = std::max(1.0, tp);
    const double h = w.hidden;
    AttentionGemms g;
    auto add = [&g](double m, double n, double k, bool up) {
        g.input[g.inputs++] = GemmShape{m, n, k, up};
    };
    if (!w.mla.enabled()) {
        // Narayanan et al. 2021, Appendix: QKV h x 3h with as many K/V heads as Q heads;
        // grouped-query attention shrinks K and V to kv*d columns each (Ainslie et al. 2023).
        const double kvDim = static_cast<double>(w.kvHeads) * headDim(w);
        add(tokens, (h + 2.0 * kvDim) / t, h, false);
        g.output = GemmShape{tokens, h, h / t, false};
        return g;
    }
    const MlaConfig& mla = w.mla;
    const double a = w.heads;
    const double qk = mla.qkHeadDim();
    if (mla.qLoraRank > 0) {
        add(tokens, mla.qLoraRank, h, false);         // W^{DQ}, eq. 6
        add(tokens, a * qk / t, mla.qLoraRank, true); // W^{UQ} and W^{QR}, eqs. 7-8
    } else {
        add(tokens, a * qk / t, h, false); // DeepSeek-V2-Lite: queries projected directly
    }
    add(tokens, mla.kvLoraRank + mla.qkRopeHeadDim, h, false); // W^{DKV}, W^{KR}
    add(tokens, a * (mla.qkNopeHeadDim + mla.vHeadDim) / t, mla.kvLoraRank, true); // W^{UK}, W^{UV}
    g.output = GemmShape{tokens, h, a * mla.vHeadDim / t, false};                  // W^O, eq. 11
    return g;
}

double attentionSpan(const Workload& w)
{
    const double s = w.seqLen;
    return w.attentionWindow > 0 ? std::min(s, static_cast<double>(w.attentionWindow)) : s;
}

double causalScoreFraction(const Workload& w)
{
    const double s = std::max(1, w.seqLen);
    const double span = attentionSpan(w);
    // Query i attends to min(i, w) keys: sum over i = s*w - w^2/2 (w = s: s^2/2).
    return (s * span - 0.5 * span * span) / (s * s);
}

int mlpMatrices(FfnActivation activation)
{
    return activation == FfnActivation::Swiglu ? 3 : 2;
}

LayerFlops layerForwardFlops(const Workload& w, bool moeLayer)
{
    const double s = w.seqLen;
    const double h = w.hidden;
    const double mats = mlpMatrices(w.activation);
    LayerFlops f;
    // Projections of the whole layer (tp = 1): QKV (or MLA's down and up projections) and the
    // output projection, from the shapes of attentionGemms.
    const AttentionGemms g = attentionGemms(w, s, 1.0);
    for (int i = 0; i < g.inputs; ++i) {
        f.qkv += g.input[i].flops();
        if (g.input[i].upProjection)
            f.upProjections += g.input[i].flops();
    }
    f.projection = g.output.flops();
    // Attention scores and their product with V: 2*s^2*h each (Narayanan et al. 2021,
    // Appendix), the full matrix, a*d_qk and a*d_v wide (h for standard attention; MLA:
    // 128 heads x 192 and x 128 in DeepSeek-V3, report section 2.1.1); a sliding window spans
    // w keys per query (MegaScale section 3.1: O(s*w)).
    const double span = attentionSpan(w);
    const double heads = w.mla.enabled() ? static_cast<double>(w.heads) : 1.0;
    const double qkWidth = w.mla.enabled() ? heads * qkHeadDim(w) : h;
    const double vWidth = w.mla.enabled() ? heads * valueHeadDim(w) : h;
    f.scores = 2.0 * s * span * qkWidth;
    f.values = 2.0 * s * span * vWidth;
    if (moeLayer) {
        const MoeConfig& moe = w.moe;
        // Router: one h x E GEMM per token (Fedus et al. 2021, Switch Transformer, section 2).
        f.router = 2.0 * s * h * moe.experts;
        // Each token runs top-k routed experts plus the shared experts (DeepSeek-V3 report,
        // section 2.1.2), each an MLP of expertFfnHidden.
        const double expertsPerToken = static_cast<double>(moe.topK + moe.sharedExperts);
        f.experts = 2.0 * s * h * static_cast<double>(moe.expertFfnHidden) * mats * expertsPerToken;
    } else {
        // Two matrices h x f (GeLU) or three (SwiGLU: gate, up, down; Shazeer 2020).
        f.mlp = 2.0 * s * h * static_cast<double>(w.ffnHidden) * mats;
    }
    return f;
}

double logitsForwardFlops(const Workload& w)
{
    // Narayanan et al. 2021, Appendix: the output layer is 2*s*h*V per sequence.
    return 2.0 * w.seqLen * static_cast<double>(w.hidden) * w.vocab;
}

namespace {

// What selective recompute runs again: the attention core (Korthikanti et al. 2022 section 5)
// or, with latent attention, the up-projections (DeepSeek-V3 report section 3.2.3).
double selectiveFlops(const Workload& w, const LayerFlops& f)
{
    return w.mla.enabled() ? f.upProjections : f.attentionCore();
}

// The transformer layers, with the multi-token prediction modules' (DeepSeek-V3 report section
// 2.2: one layer each, of the kind of the model's last layer).
double layersForwardFlops(const Workload& w, bool selectiveOnly)
{
    const int mtp = std::max(0, w.mtpDepth);
    const bool mtpMoe = mtp > 0 && isMoeLayer(w, w.layers - 1);
    const int moeLayers = moeLayerCount(w) + (mtpMoe ? mtp : 0);
    const int denseLayers = w.layers + mtp - moeLayers;
    const LayerFlops dense = layerForwardFlops(w, false);
    const LayerFlops moe = layerForwardFlops(w, true);
    if (selectiveOnly)
        return denseLayers * selectiveFlops(w, dense) + moeLayers * selectiveFlops(w, moe);
    return denseLayers * dense.total() + moeLayers * moe.total();
}

// Beyond their layers, each multi-token prediction module projects [h; embedding] (2h -> h,
// eq. 21) and runs the shared output head again (eq. 22), per sequence.
double mtpHeadFlops(const Workload& w)
{
    const double h = w.hidden;
    return std::max(0, w.mtpDepth) * (2.0 * w.seqLen * 2.0 * h * h + logitsForwardFlops(w));
}

} // namespace

double modelFlopsPerIteration(const Workload& w)
{
    // Backward = 2x forward (one GEMM for the input gradient, one for the weight gradient).
    const double forward = layersForwardFlops(w, false) + logitsForwardFlops(w) + mtpHeadFlops(w);
    return 3.0 * forward * w.globalBatch;
}

double hardwareFlopsPerIteration(const Workload& w, Recompute recompute)
{
    double extra = 0.0;
    if (recompute == Recompute::Full)
        extra = layersForwardFlops(w, false);
    else if (recompute == Recompute::Selective)
        extra = layersForwardFlops(w, true);
    return modelFlopsPerIteration(w) + extra * w.globalBatch;
}

} // namespace archipelago::core
