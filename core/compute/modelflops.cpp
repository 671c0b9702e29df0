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
    const double kvDim = static_cast<double>(w.kvHeads) * headDim(w);
    const double mats = mlpMatrices(w.activation);
    LayerFlops f;
    // Narayanan et al. 2021, Appendix: QKV 6*s*h^2 with as many K/V heads as Q heads; with
    // grouped-query attention K and V shrink to kv*d columns each (Ainslie et al. 2023).
    f.qkv = 2.0 * s * h * (h + 2.0 * kvDim);
    // Attention scores and their product with V: 2*s^2*h each (ibid.), the full matrix; a
    // sliding window spans w keys per query (MegaScale section 3.1: O(s*w)).
    const double span = attentionSpan(w);
    f.scores = 2.0 * s * span * h;
    f.values = 2.0 * s * span * h;
    f.projection = 2.0 * s * h * h;
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

double layersForwardFlops(const Workload& w, bool attentionCoreOnly)
{
    const int moeLayers = moeLayerCount(w);
    const int denseLayers = w.layers - moeLayers;
    const LayerFlops dense = layerForwardFlops(w, false);
    const LayerFlops moe = layerForwardFlops(w, true);
    if (attentionCoreOnly)
        return denseLayers * dense.attentionCore() + moeLayers * moe.attentionCore();
    return denseLayers * dense.total() + moeLayers * moe.total();
}

} // namespace

double modelFlopsPerIteration(const Workload& w)
{
    // Backward = 2x forward (one GEMM for the input gradient, one for the weight gradient).
    const double forward = layersForwardFlops(w, false) + logitsForwardFlops(w);
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
