// Compute time per GPU (ARCHITECTURE.md section 3, "Compute"): GEMMs at a shape-dependent
// fraction of peak, memory-bound work (norms, softmax, dropout, residual adds, activation
// functions, optimizer step) on HBM bandwidth, plus a fixed overhead per kernel.
//
// GEMM time: a roofline (Williams, Waterman and Patterson 2009, "Roofline") of tensor-core
// time and HBM time, time = max(FLOPs / (peak * e), bytes / (HBM * memory_bound)), with
//     e = gemm_peak * e_tile(m, n) * k / (k + gemm_half_dim).
//  - e_tile: tile and wave quantisation (NVIDIA, "Matrix Multiplication Background User's
//    Guide", sections "Tile Quantization" and "Wave Quantization"): the output is cut into
//    256x128, 128x256 or 128x128 tiles (cuBLAS picks per shape; we take the best), padded
//    tiles compute zeros, and tiles run in waves of one per SM (AcceleratorSpec::sms), the
//    last wave partly idle. Thin TP shards and few tokens per expert lose here.
//  - k / (k + gemm_half_dim): each tile's main loop has a fixed prologue/epilogue (pipeline
//    fill of the shared-memory stages, writing the output tile) worth gemm_half_dim elements
//    of k, so head-dim-sized reductions (k = 64..128) run below peak but not at a fraction
//    of it; gemm_half_dim is the k at which a tile reaches half of gemm_peak.
//  - bytes = each operand read once and the output written once (bf16; FP8 inputs 1 byte).
// Attention: the A100-era Megatron runs compute Q K^T and the softmax unfused (the s x s
// scores go through HBM; a sliding-window mask saves nothing there); Hopper and later train
// with fused flash attention (Dao 2023, FlashAttention-2; cuDNN fused attention in Transformer
// Engine, Megatron-core's default), which skips the masked part of a causal (or windowed)
// score matrix, keeps scores on chip, and recomputes Q K^T in its backward pass (5 GEMMs
// backward for 2 forward, Dao 2023 section 3.1). Parallelism::kernels.flashAttention turns it
// on for an A100 stack that had it (MegaScale section 3.3 used FlashAttention-2 on A100).
// Parallel block (Workload::parallelBlock; Chowdhery et al. 2022, PaLM, section 2): QKV and
// fc1 read the same normalised input and run as one GEMM; one layer norm and one residual add
// per layer. Fused element-wise kernels (Kernels::fusedElementwise; MegaScale section 3.3):
// each LayerNorm fused with the residual add before it (no separate read of its input) and
// the activation function in fc1's epilogue (no pass over T*f), fewer kernel launches.
//
// Calibration: gemm_peak, gemm_half_dim, memory_bound and comm_interference per accelerator
// generation, jointly over ALL published runs of that generation, one set, no per-run terms:
//   cmake --build BUILD --target calibrate_efficiency
//   BUILD/tests/calibrate_efficiency ../shared/validation/v2/published-runs.json A100-SXM4-80GB
//   BUILD/tests/calibrate_efficiency tests/data/hopper-runs.json H100-SXM5-80GB
//       --set 0.8,64,0.82,0.45 --gemm-only   (one command line)
// Results (resources/catalog.json, with the method in each `source`): ampere gemm_peak 0.78,
// gemm_half_dim 156, memory_bound 0.82, comm_interference 0.45 (14 runs: mean 2.74%, largest
// 5.95%); hopper gemm_peak 0.72, gemm_half_dim 0 fitted with --gemm-only on the 3 Llama 3
// runs, memory_bound and comm_interference carried over (mean 2.17%, largest 5.84%).
// FP8 GEMMs take their own pair where the catalog gives one (gemm_peak_fp8, gemm_half_dim_fp8),
// grounded in kernel measurements because no published FP8 training run calibrates them:
// Hopper's from DeepGEMM's H800 table (block-scaled FP8, the shapes of DeepSeek-V3 training;
// tests/test_fp8.cpp reproduces every row within 3%). With the blockwise recipe
// (Workload::fp8Recipe) each GEMM input and output gradient is cast in a memory-bound pass of
// its own (DeepSeek-V3 report sections 3.3.2 and 3.5.2); the output head and the MoE router
// stay BF16 (section 3.3.1).
#pragma once

#include "model/catalog.h"
#include "model/scenario.h"

namespace archipelago::core {

// Fraction of a GEMM's tile area and SM-waves doing useful work (tile and wave quantisation).
double tileEfficiency(double m, double n, double batch, int sms);
// Seconds of `batch` GEMMs m x k by k x n on one accelerator (roofline above).
double gemmTimeS(double m, double n, double k, double batch, const AcceleratorSpec& accel,
                 Precision precision);
// Achieved fraction of peak of that GEMM (diagnostics, tests).
double gemmEfficiency(double m, double n, double k, const AcceleratorSpec& accel);
// Whether attention runs as one fused (flash) kernel: the stack's choice when set, else the
// accelerator generation's published software (see above).
bool fusedAttention(const AcceleratorSpec& accel, const Kernels& kernels);

// Peak dense FLOP/s of the accelerator for the workload's precision (FP8 falls back to BF16
// when the accelerator has none).
double peakFlopsPerS(const AcceleratorSpec& accel, Precision precision);

// One transformer layer, one micro-batch, on one GPU of the model-parallel group
// (tokens b*s/cp, weights sharded by TP and, for experts, by EP).
struct LayerCompute
{
    double forwardS = 0.0;       // GEMMs + memory-bound work + kernel overheads
    double backwardS = 0.0;      // input and weight gradients: 2x the forward work
    double recomputeS = 0.0;     // what the recompute policy runs again before backward
    double attentionCoreS = 0.0; // forward scores, softmax, dropout, values (CP overlap window)
    double columnGemmS = 0.0;    // forward column-parallel GEMMs (QKV, fc1): TP all-gather window
    double rowGemmS = 0.0;       // forward row-parallel GEMMs (projection, fc2): TP reduce window
    double forwardFlops = 0.0;   // per GPU, GEMMs only, as executed (causal flash: masked skipped)
    double memoryBoundS = 0.0;   // forward memory-bound part (diagnostics)
    double fp8CastS = 0.0;       // blockwise FP8 cast passes, forward + backward (diagnostics)
};

LayerCompute layerCompute(const Workload& workload, const Parallelism& par, bool moeLayer,
                          const AcceleratorSpec& accel);

// Output layer (logits GEMM and fp32 cross-entropy) on the last stage, one micro-batch.
struct LogitsCompute
{
    double forwardS = 0.0;
    double backwardS = 0.0;
};
LogitsCompute logitsCompute(const Workload& workload, const Parallelism& par,
                            const AcceleratorSpec& accel);

// One multi-token prediction module beyond its transformer layer (DeepSeek-V3 report section
// 2.2): two RMSNorms, the 2h -> h projection and the shared output head with its loss.
using MtpCompute = LogitsCompute;
MtpCompute mtpCompute(const Workload& workload, const Parallelism& par,
                      const AcceleratorSpec& accel);

// Adam step (memory-bound). `shardParams` are the parameters whose optimizer state this GPU
// updates; `localParams` the parameters it holds gradients for (norm and zeroing pass).
double optimizerStepS(double localParams, double shardParams, const AcceleratorSpec& accel);

} // namespace archipelago::core
