// Import: each framework's settings onto a scenario, the inverse of megatronlaunch.cpp,
// nemolaunch.cpp and torchtitanlaunch.cpp.
#include "launch/importreader.h"
#include "launch/launchbuilders.h"

#include "io/placementrepair.h"
#include "io/scenarioio.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace archipelago::core {

namespace {

using launch::leadingDenseLayers;
using launch::Reader;
using launch::setInt;
using launch::windowLeft;

// Layers per pipeline rank from a layout's chunks (chunk (vpp, rank) at vpp * pp + rank).
std::optional<std::vector<int>> layersFromLayout(const std::vector<std::string>& chunks, int pp,
                                                 int& virtualStages, int& mtpDepth)
{
    if (pp <= 0 || chunks.size() % static_cast<std::size_t>(pp) != 0)
        return std::nullopt;
    virtualStages = static_cast<int>(chunks.size()) / pp;
    std::vector<int> perRank(static_cast<std::size_t>(pp), 0);
    mtpDepth = 0;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        perRank[i % static_cast<std::size_t>(pp)] +=
            static_cast<int>(std::count(chunks[i].begin(), chunks[i].end(), 't'));
        mtpDepth += static_cast<int>(std::count(chunks[i].begin(), chunks[i].end(), 'm'));
    }
    return perRank;
}

// The model's shape, as a Megatron-LM command that describes a model gives it.
void importModelShape(Reader& r, Workload& w)
{
    setInt(r, "--hidden-size", w.hidden);
    setInt(r, "--num-attention-heads", w.heads);
    w.kvHeads = w.heads;
    if (r.boolean("--group-query-attention").value_or(false))
        setInt(r, "--num-query-groups", w.kvHeads);
    setInt(r, "--ffn-hidden-size", w.ffnHidden);
    w.activation =
        r.boolean("--swiglu").value_or(false) ? FfnActivation::Swiglu : FfnActivation::Gelu;
    setInt(r, "--seq-length", w.seqLen);
    r.text("--max-position-embeddings");
    setInt(r, "--vocab-size", w.vocab);
    w.tiedEmbeddings = !r.boolean("--untie-embeddings-and-output-weights").value_or(false);
    w.attentionWindow = 0;
    if (const auto window = r.text("--window-size")) {
        if (const auto left = windowLeft(*window))
            w.attentionWindow = *left;
        else
            r.fail("--window-size", "expected LEFT,RIGHT, found '" + *window + "'");
    }
    r.boolean("--bf16");
    const std::string fp8 = r.text("--fp8-format").value_or("");
    w.precision = fp8.empty() ? Precision::Bf16 : Precision::Fp8;
    w.fp8Recipe = r.text("--fp8-recipe").value_or("delayed") == "blockwise" ? Fp8Recipe::Blockwise
                                                                            : Fp8Recipe::Delayed;
    MoeConfig& m = w.moe;
    const MoeConfig before = m;
    m = MoeConfig{};
    m.dispatchPrecision = before.dispatchPrecision; // not expressible: kept
    setInt(r, "--num-experts", m.experts);
    if (m.enabled()) {
        setInt(r, "--moe-router-topk", m.topK);
        setInt(r, "--moe-ffn-hidden-size", m.expertFfnHidden);
        if (const auto shared = r.integer("--moe-shared-expert-intermediate-size"))
            m.sharedExperts =
                m.expertFfnHidden > 0 ? static_cast<int>(*shared / m.expertFfnHidden) : 0;
        if (const auto freq = r.text("--moe-layer-freq")) {
            if (const auto dense = leadingDenseLayers(*freq))
                m.firstDenseLayers = *dense;
            else
                r.fail("--moe-layer-freq", "expected 1, ([0]*N+[1]*M) or a list of 0s then 1s, "
                                           "found '" +
                                               *freq + "'");
        }
        if (r.integer("--moe-router-num-groups"))
            setInt(r, "--moe-router-group-topk", m.maxNodesPerToken);
        r.text("--moe-token-dispatcher-type");
        r.boolean("--moe-grouped-gemm");
    }
    MlaConfig& mla = w.mla;
    mla = MlaConfig{};
    if (r.boolean("--multi-latent-attention").value_or(false)) {
        setInt(r, "--q-lora-rank", mla.qLoraRank);
        setInt(r, "--kv-lora-rank", mla.kvLoraRank);
        setInt(r, "--qk-head-dim", mla.qkNopeHeadDim);
        setInt(r, "--qk-pos-emb-head-dim", mla.qkRopeHeadDim);
        setInt(r, "--v-head-dim", mla.vHeadDim);
    }
}

void importMegatron(Reader& r, Scenario& s, ImportedSettings& out)
{
    Workload& w = s.workload;
    Parallelism& p = s.parallelism;
    p.tp = p.cp = p.pp = p.ep = 1;
    setInt(r, "--tensor-model-parallel-size", p.tp);
    setInt(r, "--pipeline-model-parallel-size", p.pp);
    setInt(r, "--context-parallel-size", p.cp);
    setInt(r, "--expert-model-parallel-size", p.ep);
    setInt(r, "--micro-batch-size", p.microBatch);
    setInt(r, "--global-batch-size", w.globalBatch);
    p.virtualStages = 1;
    setInt(r, "--num-virtual-stages-per-pipeline-rank", p.virtualStages);
    setInt(r, "--num-layers", w.layers);
    if (const auto perChunk = r.integer("--num-layers-per-virtual-pipeline-stage"))
        p.virtualStages = std::max(1, static_cast<int>(w.layers / (*perChunk * p.pp)));
    w.mtpDepth = 0;
    setInt(r, "--mtp-num-layers", w.mtpDepth);
    s.placement.layersPerStage.clear();
    if (const auto layout = r.text("--pipeline-model-parallel-layout")) {
        const auto chunks = parsePipelineLayout(*layout);
        int mtp = 0;
        const auto perRank =
            chunks ? layersFromLayout(*chunks, p.pp, p.virtualStages, mtp) : std::nullopt;
        if (!perRank)
            r.fail("--pipeline-model-parallel-layout",
                   "expected chunks of E, t, m and L whose count is a multiple of PP, found '" +
                       *layout + "'");
        else
            s.placement.layersPerStage = *perRank;
    } else {
        const auto first = r.integer("--decoder-first-pipeline-num-layers");
        const auto last = r.integer("--decoder-last-pipeline-num-layers");
        if ((first || last) && p.pp >= 2) {
            const int middleRanks = p.pp - (first ? 1 : 0) - (last ? 1 : 0);
            const long long middle = w.layers - first.value_or(0) - last.value_or(0);
            if (middleRanks > 0 && middle % middleRanks == 0 && middle > 0) {
                std::vector<int> perRank(static_cast<std::size_t>(p.pp),
                                         static_cast<int>(middle / std::max(1, middleRanks)));
                if (first)
                    perRank.front() = static_cast<int>(*first);
                if (last)
                    perRank.back() = static_cast<int>(*last);
                s.placement.layersPerStage = perRank;
            } else {
                r.fail("--decoder-first-pipeline-num-layers",
                       "the middle stages' layers do not divide evenly");
            }
        }
    }
    p.sequenceParallel = r.boolean("--sequence-parallel").value_or(false);
    const bool fsdp = r.boolean("--use-megatron-fsdp").value_or(false);
    const bool distOpt = r.boolean("--use-distributed-optimizer").value_or(false);
    const std::string sharding = r.text("--data-parallel-sharding-strategy").value_or("no_shard");
    if (fsdp) {
        p.zeroStage = sharding == "optim_grads_params" ? 3 : sharding == "optim_grads" ? 2 : 1;
        p.distributedOptimizer = true;
    } else {
        p.zeroStage = distOpt ? 1 : 0;
        p.distributedOptimizer = distOpt;
    }
    p.distributedOptimizerInstances = 1;
    setInt(r, "--num-distributed-optimizer-instances", p.distributedOptimizerInstances);
    p.gradReduceDtype = r.boolean("--grad-reduce-in-bf16").value_or(false) ? GradReduceDtype::Bf16
                                                                           : GradReduceDtype::Fp32;
    const std::string recompute = r.text("--recompute-granularity").value_or("");
    p.recompute = recompute == "full"        ? Recompute::Full
                  : recompute == "selective" ? Recompute::Selective
                                             : Recompute::None;
    r.text("--recompute-method");
    r.text("--recompute-num-layers");
    p.overlap.dpGradReduce = r.boolean("--overlap-grad-reduce").value_or(false);
    const bool sharded = p.zeroStage >= 1 || p.distributedOptimizer;
    if (sharded) // without sharded weights there is no all-gather to overlap: kept
        p.overlap.dpParamGather = r.boolean("--overlap-param-gather").value_or(false);
    if (p.tp > 1)
        p.overlap.tpComm = r.boolean("--tp-comm-overlap").value_or(false);
    if (p.ep > 1)
        p.overlap.epComm = r.boolean("--overlap-moe-expert-parallel-comm").value_or(false);
    if (p.pp > 1 && p.virtualStages > 1)
        p.overlap.ppComm = !r.boolean("--no-overlap-p2p-communication").value_or(false);
    p.kernels.flashAttention.reset();
    if (const auto backend = r.text("--attention-backend"))
        p.kernels.flashAttention = *backend == "flash"     ? std::optional<bool>(true)
                                   : *backend == "unfused" ? std::optional<bool>(false)
                                                           : std::nullopt;
    if (r.boolean("--use-flash-attn").value_or(false))
        p.kernels.flashAttention = true;

    // A command without the model's shape (parallelism flags pasted alone) keeps the scenario's
    // shape: Megatron-LM's defaults for what is absent (no GQA, GeLU, tied embeddings) apply
    // only to a command that describes a model.
    if (r.has("--hidden-size") || r.has("--num-attention-heads"))
        importModelShape(r, w);
    else
        out.notes.push_back("no --hidden-size or --num-attention-heads: the workload's model "
                            "shape is kept");
    if (const auto iters = r.integer("--train-iters"))
        w.trainTokens = static_cast<double>(*iters) * w.globalBatch * w.seqLen;
    if (r.has("--save-interval")) {
        r.integer("--save-interval");
        out.notes.push_back("the checkpoint interval stays the scenario's (--save-interval "
                            "counts iterations, whose length the model predicts)");
    }
    w.checkpointAsynchronous = r.boolean("--async-save").value_or(false);
    for (const char* data : {"--mock-data", "--tokenizer-type", "--save", "--ckpt-format"})
        r.text(data);
    s.schedule.kind = p.virtualStages > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
    s.schedule.extraInFlightAtDci = 0;
    const bool ppInner = r.boolean("--use-tp-pp-dp-mapping").value_or(false);
    if (pipelineInnerToData(s.placement) != ppInner)
        s.placement.rankOrder =
            ppInner ? std::vector<ParallelDim>{ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Ep,
                                               ParallelDim::Pp, ParallelDim::Dp}
                    : std::vector<ParallelDim>{ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Ep,
                                               ParallelDim::Dp, ParallelDim::Pp};
}

} // namespace

ImportedSettings importLaunchSettings(Framework framework, std::string_view text,
                                      const Scenario& base, const std::string& fileName)
{
    ImportedSettings out;
    const FoundSettings found =
        framework == Framework::MegatronLm ? readMegatronSettings(text, fileName)
        : framework == Framework::Nemo     ? readNemoSettings(text, fileName)
                                           : readTorchTitanSettings(text, fileName);
    out.errors = found.errors;
    if (found.values.empty()) {
        Diagnostic d;
        d.file = fileName;
        d.message = std::string("no ") + displayName(framework) + " settings found";
        out.errors.push_back(std::move(d));
    }
    if (!out.errors.empty())
        return out;
    launch::Reader reader(found, framework, fileName);
    Scenario s = base;
    switch (framework) {
    case Framework::MegatronLm:
        importMegatron(reader, s, out);
        break;
    case Framework::Nemo:
        launch::importNemo(reader, s, out);
        break;
    case Framework::TorchTitan:
        launch::importTorchTitan(reader, s, out);
        break;
    }
    out.ignored = reader.unused();
    out.errors = std::move(reader.errors());
    if (!out.errors.empty())
        return out;
    // The placement for the new degrees over the base's topology.
    const PlacementRepair repaired = repairPlacement(s, base, effectiveCatalog(s));
    if (!repaired.scenario) {
        out.errors = repaired.errors;
        return out;
    }
    out.notes.insert(out.notes.end(), repaired.notes.begin(), repaired.notes.end());
    out.scenario = *repaired.scenario;
    const Parallelism& p = out.scenario->parallelism;
    out.applied.push_back("TP " + std::to_string(p.tp) + ", CP " + std::to_string(p.cp) + ", PP " +
                          std::to_string(p.pp) + ", EP " + std::to_string(p.ep) + ", DP " +
                          std::to_string(dataParallel(*out.scenario)) +
                          (p.virtualStages > 1 ? ", v " + std::to_string(p.virtualStages) : ""));
    out.applied.push_back("micro-batch " + std::to_string(p.microBatch) + ", global batch " +
                          std::to_string(out.scenario->workload.globalBatch));
    return out;
}

} // namespace archipelago::core
