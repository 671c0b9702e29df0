// Floating-point work of a transformer, from its matrix shapes (ARCHITECTURE.md section 3,
// "Compute"). Counts multiply-accumulates as 2 FLOPs, as Megatron-LM and PaLM do, and counts
// the full s x s attention score matrix (no causal halving), which is what Megatron's
// 96*B*s*L*h^2*(1 + s/6h + V/16Lh) reports (Narayanan et al. 2021, Appendix, eq. 3).
#pragma once

#include "model/scenario.h"

namespace archipelago::core {

// Forward FLOPs of one transformer layer for ONE sequence (all ranks of the model-parallel
// group together), split by operator.
struct LayerFlops
{
    double qkv = 0.0;        // 2*s*h*(h + 2*kv*d): Q plus grouped K and V projections
    double scores = 0.0;     // 2*s^2*h: Q K^T for all heads
    double values = 0.0;     // 2*s^2*h: softmax(QK^T) V
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
// Matrices of the (expert) MLP: 2 for GeLU, 3 for SwiGLU (gate, up, down).
int mlpMatrices(FfnActivation activation);

LayerFlops layerForwardFlops(const Workload& workload, bool moeLayer);
// Output layer (logits) forward FLOPs per sequence: 2*s*h*V.
double logitsForwardFlops(const Workload& workload);

// Model FLOPs per iteration: forward + backward (= 2x forward, Narayanan et al. 2021 eq. 3
// derivation) over all layers and the logits, for the whole global batch. Used for MFU.
double modelFlopsPerIteration(const Workload& workload);
// Hardware FLOPs per iteration: model FLOPs plus what recompute runs again. Full recompute
// reruns every layer's forward (not the logits); selective reruns the attention core
// (Korthikanti et al. 2022, section 5). Used for HFU.
double hardwareFlopsPerIteration(const Workload& workload, Recompute recompute);

} // namespace archipelago::core
