// Floating-point work of a transformer, from its matrix shapes (ARCHITECTURE.md section 3,
// "Compute"). Counts multiply-accumulates as 2 FLOPs, as Megatron-LM and PaLM do, and counts
// the full s x s attention score matrix (no causal halving), which is what Megatron's
// 96*B*s*L*h^2*(1 + s/6h + V/16Lh) reports (Narayanan et al. 2021, Appendix, eq. 3), what
// Korthikanti et al. 2022 (section 6.3) and PaLM's 6N + 12*L*H*Q*T (Chowdhery et al. 2022,
// Appendix B) count: the convention of every published MFU and HFU we compare with. With a
// sliding window each query spans w keys instead of s (s*w, MegaScale section 3.1).
// These are the MODEL FLOPs behind MFU and HFU; the time of a kernel comes from the FLOPs it
// executes (computemodel.cpp: a causal flash kernel skips the masked half, causalScoreFraction).
#pragma once

#include "model/scenario.h"

namespace archipelago::core {

// Forward FLOPs of one transformer layer for ONE sequence (all ranks of the model-parallel
// group together), split by operator.
struct LayerFlops
{
    double qkv = 0.0;        // 2*s*h*(h + 2*kv*d): Q plus grouped K and V projections
    double scores = 0.0;     // 2*s*span*h: Q K^T for all heads (span = s, or the window)
    double values = 0.0;     // 2*s*span*h: softmax(QK^T) V
    double projection = 0.0; // 2*s*h^2
    double mlp = 0.0;        // dense MLP: 2*s*h*f per matrix, 2 (GeLU) or 3 (SwiGLU) matrices
    double router = 0.0;     // MoE: 2*s*h*E
    double experts = 0.0;    // MoE: routed (top-k) plus shared experts

    double attentionCore() const { return scores + values; }
    double total() const { return qkv + scores + values + projection + mlp + router + experts; }
};

// Whether layer `index` (0-based) is a mixture-of-experts layer.
bool isMoeLayer(const Workload& workload, int index);
int moeLayerCount(const Workload& workload);

// Head dimension h / a.
double headDim(const Workload& workload);
// Keys each query spans in the model-FLOPs convention: s, or the sliding window when shorter.
double attentionSpan(const Workload& workload);
// Fraction of the s x s score matrix a causal kernel that skips masked blocks computes
// (FlashAttention-2, Dao 2023 section 3.1.1; windowed: Mistral's sliding window, Jiang et al.
// 2023): 1/2 for full causal attention, (s*w - w^2/2) / s^2 for a window w < s.
double causalScoreFraction(const Workload& workload);
// Matrices of the (expert) MLP: 2 for GeLU, 3 for SwiGLU (gate, up, down).
int mlpMatrices(FfnActivation activation);

LayerFlops layerForwardFlops(const Workload& workload, bool moeLayer);
// Output layer (logits) forward FLOPs per sequence: 2*s*h*V.
double logitsForwardFlops(const Workload& workload);

// Model FLOPs per iteration: forward + backward (= 2x forward, Narayanan et al. 2021 eq. 3
// derivation) over all layers and the logits, for the whole global batch, in the convention
// above (full s x s attention). Used for MFU.
double modelFlopsPerIteration(const Workload& workload);
// Hardware FLOPs per iteration: model FLOPs plus what recompute runs again. Full recompute
// reruns every layer's forward (not the logits); selective reruns the attention core
// (Korthikanti et al. 2022, section 5). Used for HFU.
double hardwareFlopsPerIteration(const Workload& workload, Recompute recompute);

} // namespace archipelago::core
