// Published model shapes offered as a pick list ("Model: GPT-3 175B") in the workload editor.
// Each entry fills the transformer's shape (layers, hidden, heads, KV heads, FFN, activation,
// vocabulary, sequence length, MoE block and its routing, latent attention) and leaves the batch,
// precision and training length to the scenario. Every figure is taken from a preset in presets/, a
// published run in the validation set (../shared/validation) or the model's own paper; the source
// is kept with it.
#pragma once

#include "model/scenario.h"

#include <span>
#include <string>

namespace archipelago::core {

struct ModelShape
{
    const char* name;   // shown in the pick list and written as workload.name
    const char* source; // where the figures come from
    int layers;
    int hidden;
    int heads;
    int kvHeads;
    int ffnHidden;
    FfnActivation activation;
    int vocab;
    int seqLen;
    MoeConfig moe; // experts = 0: dense
    MlaConfig mla; // disabled: standard attention
    // The output layer shares the input embedding (GPT-2/3 and Megatron's GPT default); the
    // Llama, Nemotron-4 and DeepSeek-V3 families untie them.
    bool tiedEmbeddings;
};

// The published shapes, smallest family first.
std::span<const ModelShape> publishedModelShapes();

// `workload` with the shape of `model` (name, dimensions, MoE, tied embeddings); batch, precision
// and the training length are kept.
Workload withModelShape(Workload workload, const ModelShape& model);

// The published shape `workload` has (name aside), or nullptr.
const ModelShape* matchingModelShape(const Workload& workload);

} // namespace archipelago::core
