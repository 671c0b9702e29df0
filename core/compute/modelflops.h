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
    double qkv = 0.0;           // 2*s*h*(h + 2*kv*d): Q plus grouped K and V projections (MLA:
                                // the query and key-value down and up projections, rotary key)
    double scores = 0.0;        // 2*s*span*a*d_qk: Q K^T for all heads (span = s, or the window)
    double values = 0.0;        // 2*s*span*a*d_v: softmax(QK^T) V
    double projection = 0.0;    // 2*s*h*a*d_v (h^2 for standard attention)
    double mlp = 0.0;           // dense MLP: 2*s*h*f per matrix, 2 (GeLU) or 3 (SwiGLU) matrices
    double router = 0.0;        // MoE: 2*s*h*E
    double experts = 0.0;       // MoE: routed (top-k) plus shared experts
    double upProjections = 0.0; // MLA's up-projections, part of qkv (DeepSeek's recompute)

    double attentionCore() const { return scores + values; }
    double total() const { return qkv + scores + values + projection + mlp + router + experts; }
};

// Whether layer `index` (0-based) is a mixture-of-experts layer.
bool isMoeLayer(const Workload& workload, int index);
int moeLayerCount(const Workload& workload);

// Head dimension h / a.
double headDim(const Workload& workload);
// Query/key and value dimensions of one head: h / a for standard attention; for multi-head
// latent attention qk_nope + qk_rope (192 in DeepSeek-V3) and v_head_dim (128).
double qkHeadDim(const Workload& workload);
double valueHeadDim(const Workload& workload);

// The attention's projection GEMMs for `tokens` tokens on one GPU of a tensor-parallel group of
// `tp` (Megatron: input projections split by columns, the output projection by rows; Shoeybi
// et al. 2019, section 3). Standard attention: one QKV GEMM h x (h + 2*kv*d). Multi-head
// latent attention (DeepSeek-V3 report section 2.1.1, equations 1-9; deepseek-ai/DeepSeek-V3
// inference/model.py, class MLA): query down h x q_lora (replicated: a plain Linear) and up
// q_lora x a*d_qk (without a query rank, one h x a*d_qk), key-value down h x (kv_lora + d_rope)
// (the compressed latent and the shared rotary key, replicated), key-value up
// kv_lora x a*(d_nope + d_v); output a*d_v x h.
struct GemmShape
{
    double m = 0.0, n = 0.0, k = 0.0;
    bool upProjection = false; // an MLA up-projection (recomputed by DeepSeek-V3, section 3.2.3)
    double flops() const { return 2.0 * m * n * k; }
};
struct AttentionGemms
{
    GemmShape input[4];
    int inputs = 0;
    GemmShape output;
};
AttentionGemms attentionGemms(const Workload& workload, double tokens, double tp);

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
// (Korthikanti et al. 2022, section 5), or with latent attention the MLA up-projections
// (DeepSeek-V3 report section 3.2.3). Used for HFU.
double hardwareFlopsPerIteration(const Workload& workload, Recompute recompute);

} // namespace archipelago::core
