#include "model/modelshapes.h"

#include <array>

namespace archipelago::core {

namespace {

constexpr MoeConfig kDense{};
constexpr MlaConfig kStandardAttention{};

// GPT-3 175B: Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1 (96 layers,
// d_model 12,288, 96 heads, n_ctx 2,048), with the vocabulary padded to 51,200 and FFN 4h as in
// Narayanan et al. 2021, Table 1 (presets/gpt3-175b-1024-a100.json).
//
// Llama 3: Llama Team 2024, The Llama 3 Herd of Models, Table 3; 8B and 70B as in the
// validation set's NVIDIA dgxc-benchmarking v24.11.1 runs (dgxc2411-llama31-8b-8gpu-cp2,
// dgxc2411-llama31-70b-64gpu-cp2), 405B as in presets/llama3-405b-16k-h100.json.
//
// Nemotron-4 15B: Parmar et al. 2024, Nemotron-4 15B Technical Report, Table 1, as in the
// validation set's dgxc2411-nemotron4-15b-16gpu run. Nemotron-4 340B: NVIDIA 2024, Nemotron-4
// 340B Technical Report, Table 1 (96 layers, hidden 18,432, 96 heads, 8 KV heads, sequence 4,096,
// vocabulary 256,000, FFN 4h). Their squared-ReLU MLP has two matrices, as the GeLU shape models
// it.
//
// DeepSeek-V3 671B: DeepSeek-AI 2024, DeepSeek-V3 Technical Report, section 4.2 (61 layers,
// hidden 7,168, 128 heads, 256 routed experts of 2,048, top-8, 1 shared, first 3 dense), as in
// presets/deepseek-v3-moe-2048-h800.json; each token sent to at most 4 nodes (ibid., section
// 4.2, "Hyper-Parameters"); multi-head latent attention with query rank 1,536, key-value rank
// 512, per head 128 + 64 rotary query/key dimensions and 128 value dimensions (ibid., section
// 4.2; deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json). kv_heads 128: every head
// has its own up-projected keys and values.
constexpr std::array<ModelShape, 8> kShapes{{
    {"Llama 3 8B", "Llama 3 Herd of Models, Table 3; validation dgxc2411-llama31-8b-8gpu-cp2", 32,
     4096, 32, 8, 14336, FfnActivation::Swiglu, 128256, 8192, kDense, kStandardAttention, false},
    {"Nemotron-4 15B",
     "Nemotron-4 15B Technical Report, Table 1; validation "
     "dgxc2411-nemotron4-15b-16gpu",
     32, 6144, 48, 8, 24576, FfnActivation::Gelu, 256000, 4096, kDense, kStandardAttention, false},
    {"Llama 3 70B", "Llama 3 Herd of Models, Table 3; validation dgxc2411-llama31-70b-64gpu-cp2",
     80, 8192, 64, 8, 28672, FfnActivation::Swiglu, 128256, 8192, kDense, kStandardAttention,
     false},
    {"GPT-3 175B",
     "Brown et al. 2020, Table 2.1; Narayanan et al. 2021, Table 1; "
     "presets/gpt3-175b-1024-a100.json",
     96, 12288, 96, 96, 49152, FfnActivation::Gelu, 51200, 2048, kDense, kStandardAttention, true},
    {"Nemotron-4 340B", "Nemotron-4 340B Technical Report, Table 1", 96, 18432, 96, 8, 73728,
     FfnActivation::Gelu, 256000, 4096, kDense, kStandardAttention, false},
    {"Llama 3 405B", "Llama 3 Herd of Models, Table 3; presets/llama3-405b-16k-h100.json", 126,
     16384, 128, 8, 53248, FfnActivation::Swiglu, 128256, 8192, kDense, kStandardAttention, false},
    {"DeepSeek-V3 671B",
     "DeepSeek-V3 Technical Report, section 4.2; "
     "presets/deepseek-v3-moe-2048-h800.json",
     61, 7168, 128, 128, 18432, FfnActivation::Swiglu, 129280, 4096,
     MoeConfig{256, 8, 2048, 1, 3, 4, Precision::Bf16}, MlaConfig{1536, 512, 128, 64, 128}, false},
    // Megatron-LM's 1T configuration (Narayanan et al. 2021, Table 1; validation
    // narayanan2021-t1-1008.0b).
    {"Megatron 1T", "Narayanan et al. 2021, Table 1; validation narayanan2021-t1-1008.0b", 128,
     25600, 160, 160, 102400, FfnActivation::Gelu, 51200, 2048, kDense, kStandardAttention, true},
}};

} // namespace

std::span<const ModelShape> publishedModelShapes()
{
    return kShapes;
}

Workload withModelShape(Workload workload, const ModelShape& model)
{
    workload.name = model.name;
    workload.layers = model.layers;
    workload.hidden = model.hidden;
    workload.heads = model.heads;
    workload.kvHeads = model.kvHeads;
    workload.ffnHidden = model.ffnHidden;
    workload.activation = model.activation;
    workload.vocab = model.vocab;
    workload.seqLen = model.seqLen;
    // The dispatch precision is the training stack's, like the workload's precision: kept.
    const Precision dispatch = workload.moe.dispatchPrecision;
    workload.moe = model.moe;
    workload.moe.dispatchPrecision = dispatch;
    workload.mla = model.mla;
    workload.tiedEmbeddings = model.tiedEmbeddings;
    return workload;
}

const ModelShape* matchingModelShape(const Workload& workload)
{
    for (const ModelShape& model : kShapes) {
        Workload shaped = withModelShape(workload, model);
        shaped.name = workload.name;
        if (shaped == workload)
            return &model;
    }
    return nullptr;
}

} // namespace archipelago::core
