// Published run -> Scenario, and predicted vs measured (publishedruns.h).
//
// Where a paper leaves a knob unpublished (null), the run is evaluated as the team that tuned
// it would have run it: the fastest setting that fits in HBM, chosen with the design-space
// search (validation/unpublishedknobs.h); published knobs are never changed. A run that fits in
// no admissible setting is an error row (validateRuns) naming what it needs at the least and
// the HBM, never evaluated as if it fitted. The rest, where a paper is silent:
//  - overlap: the defaults of the published era. A100-era Megatron-LM (2021-23): gradient
//    reduction, weight all-gather and TP communication not overlapped, blocking pipeline
//    send/recv. Hopper-era stacks (2023+; the same split as computemodel.h fusedAttention):
//    gradient reduce-scatter and weight all-gather overlapped with backward / forward and
//    asynchronous pipeline send/recv (Megatron-core --overlap-grad-reduce,
//    --overlap-param-gather as in NeMo's recipes; FSDP-style prefetch in Meta's Llama 3
//    stack, Dubey et al. 2024 section 3.3.2); TP not overlapped. CP's ring exchange
//    overlaps attention in both (always so in Megatron's context parallelism). These are the
//    defaults of a run without `software`, or with Megatron-LM or DeepSpeed (Megatron-DeepSpeed
//    runs Megatron's kernels and schedules);
//  - software MegaScale: everything of its section 3 (parallel block, sliding window, TP, PP and
//    DP overlap, fused LayerNorm/GeLU, FlashAttention-2 on A100); NeMo (Megatron-core with
//    Transformer Engine, 2024 recipes): flash attention, TP overlap, DP gradient and parameter
//    overlap, PP overlap only where listed (overlap_p2p_comm is opt-in);
//  - optimizations: each listed one is switched on over the stack's defaults;
//  - sliding window (never published by MegaScale, section 3.1 says only w << s): s/4.
#include "compute/computemodel.h"
#include "evaluation/costmodel.h"
#include "io/evaluationjson.h"
#include "validation/publishedruns.h"
#include "validation/stackfeatures.h"
#include "validation/unpublishedknobs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

namespace {

// The training stack's switches (see the header comment), then the run's listed
// optimizations over them; each switch that differs from a plain Megatron-LM run of the
// accelerator's era is reported.
void applyTrainingStack(const PublishedRun& run, const AcceleratorSpec& acc, Scenario& sc,
                        std::vector<std::string>& assumptions)
{
    Parallelism& par = sc.parallelism;
    Workload& w = sc.workload;
    const std::string stack = run.software.value_or("");
    std::vector<std::string> on(run.optimizations);
    std::vector<std::string> notes;
    if (stack == "MegaScale") {
        // Jiang et al. 2024 section 3: all of these, and FlashAttention-2 (section 3.3).
        for (const char* o : {"parallel_block", "sliding_window_attention", "tp_comm_overlap",
                              "pp_comm_overlap", "dp_comm_overlap", "fused_kernels"})
            on.emplace_back(o);
        par.kernels.flashAttention = true;
    } else if (stack == "NeMo") {
        // NeMo 24.x recipes: tp_comm_overlap, overlap_grad_sync and overlap_param_sync on,
        // cuDNN / flash attention in Transformer Engine.
        for (const char* o : {"tp_comm_overlap", "dp_comm_overlap"})
            on.emplace_back(o);
        par.kernels.flashAttention = true;
        par.overlap.ppComm = false; // overlap_p2p_comm off unless the run lists it
        // NeMo 24.x GPT/Llama recipes train with Apex's DistributedFusedAdam
        // (optim.name: distributed_fused_adam), "the ZeRO-2 algorithm, which distributes the
        // optimizer state and gradients" (NVIDIA/apex, contrib/optimizers/
        // distributed_fused_adam.py): gradients are sharded too, not only the optimizer.
        // A release before the optimizer (format version 2's software_date) keeps Adam whole.
        if (const auto why = missingFeature(run.software, run.softwareDate,
                                            StackFeature::DistributedOptimizer)) {
            notes.push_back("optimizer not distributed (" + *why + ")");
        } else {
            par.zeroStage = 2;
            notes.push_back("optimizer distributed_fused_adam (ZeRO-2)");
        }
    }
    auto has = [&](const char* o) { return std::find(on.begin(), on.end(), o) != on.end(); };
    if (has("parallel_block"))
        w.parallelBlock = true;
    if (has("sliding_window_attention") && w.seqLen >= 4) {
        w.attentionWindow = w.seqLen / 4;
        notes.push_back("sliding window " + std::to_string(w.attentionWindow) +
                        " tokens (not published: s/4)");
    }
    if (has("tp_comm_overlap"))
        par.overlap.tpComm = true;
    if (has("pp_comm_overlap"))
        par.overlap.ppComm = true;
    if (has("dp_comm_overlap"))
        par.overlap.dpGradReduce = par.overlap.dpParamGather = true;
    if (has("fused_kernels"))
        par.kernels.fusedElementwise = true;
    if (stack.empty() && on.empty())
        return;
    std::string text =
        "training stack " +
        (stack.empty() ? std::string("not published (Megatron-LM defaults)") : stack) + ":";
    text += std::string(" flash attention ") + (fusedAttention(acc, par.kernels) ? "on" : "off");
    if (w.parallelBlock)
        text += ", parallel block";
    for (const std::string& n : notes)
        text += ", " + n;
    text += std::string(", overlap TP ") + (par.overlap.tpComm ? "on" : "off") + ", PP " +
            (par.overlap.ppComm ? "on" : "off") + ", DP " +
            (par.overlap.dpGradReduce ? "on" : "off");
    text += std::string(", fused LayerNorm/GeLU ") + (par.kernels.fusedElementwise ? "on" : "off");
    assumptions.push_back(text);
}

Scenario baseScenario(const PublishedRun& run, const Catalog& catalog,
                      std::vector<std::string>& assumptions)
{
    Scenario sc;
    sc.name = run.id;
    sc.description = run.source;

    AcceleratorSpec acc;
    if (const AcceleratorSpec* known = catalog.accelerator(run.accelerator)) {
        acc = *known;
    } else {
        acc.name = run.accelerator;
        acc.generation = "unknown";
        // A100's HBM bytes per FLOP (2,039 GB/s / 312 TFLOP/s) when the catalog has no entry.
        acc.hbmGBps = run.peakDenseTflops * 2039.0 / 312.0;
        assumptions.push_back("accelerator " + run.accelerator +
                              " is not in the catalog: default efficiency parameters and " +
                              "A100-like HBM bandwidth per FLOP");
    }
    acc.peakTflopsBf16 = run.peakDenseTflops;
    acc.hbmGib = run.hbmGib;
    acc.scaleUpGBpsPerDirection = run.scaleUpGBpsPerDirection;
    acc.scaleUpDomainGpus = run.gpusPerNode;
    acc.nicGbps = run.scaleOutGbpsPerGpu;
    sc.catalogOverrides.accelerators.push_back(acc);

    Datacenter dc;
    dc.id = 0;
    dc.name = "cluster";
    dc.accelerator = run.accelerator;
    dc.fabric.kind = run.fabricKind;
    dc.fabric.tiers = run.fabricTiers;
    Pod pod;
    pod.gpusPerDomain = run.gpusPerNode;
    if (run.podGpus > 0 && run.gpus % run.podGpus == 0 && run.podGpus % run.gpusPerNode == 0) {
        pod.count = run.gpus / run.podGpus;
        pod.domainsPerPod = run.podGpus / run.gpusPerNode;
        dc.fabric.spineOversubscription = run.podOversubscription;
    } else {
        pod.count = 1;
        pod.domainsPerPod = std::max(1, run.gpus / run.gpusPerNode);
        dc.fabric.leafOversubscription = run.oversubscription;
    }
    dc.pods.push_back(pod);
    sc.topology.datacenters.push_back(dc);

    sc.workload = run.model;
    // Embeddings as the stacks' recipes have them (the runs format has no field): GPT models
    // tie the output layer to the input embedding (Megatron-LM's default, NeMo's GPT-3
    // config share_embeddings_and_output_weights: true); SwiGLU (Llama-family) recipes untie
    // them (--untie-embeddings-and-output-weights).
    sc.workload.tiedEmbeddings = run.model.activation == FfnActivation::Gelu;
    if (sc.workload.tiedEmbeddings && run.pp > 1)
        assumptions.push_back("embeddings tied (GPT default): the first and last stage "
                              "all-reduce the embedding gradient every iteration");
    Parallelism& par = sc.parallelism;
    par.tp = run.tp;
    par.pp = run.pp;
    par.cp = run.cp;
    par.ep = run.ep;
    par.virtualStages = run.virtualStages.value_or(1);
    par.sequenceParallel = run.sequenceParallel.value_or(false); // null: chosen later
    par.recompute = run.recompute;
    par.microBatch = run.microBatch.value_or(1);
    par.overlap = OverlapOptions{false, false, false, true, false, false};
    if (fusedAttention(acc, Kernels{})) // Hopper-era software (see the header comment)
        par.overlap = OverlapOptions{true, true, false, true, false, true};
    applyTrainingStack(run, acc, sc, assumptions);
    sc.schedule.kind =
        par.virtualStages > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
    return sc;
}

} // namespace

RunScenario scenarioForRun(const PublishedRun& run, const Catalog& catalog,
                           std::int64_t maxSearchCells)
{
    RunScenario out;
    if (run.scenario) {
        out.scenario = *run.scenario;
        out.assumptions.push_back("the run's own scenario, as it was measured");
        return out;
    }
    out.scenario = baseScenario(run, catalog, out.assumptions);
    out.searchCells = chooseUnpublishedKnobs(run, catalog.mergedWith(out.scenario.catalogOverrides),
                                             out.scenario, out.assumptions, maxSearchCells);
    return out;
}

RunScenario scenarioForRun(const PublishedRun& run, const Catalog& catalog)
{
    return scenarioForRun(run, catalog, kMaxKnobSearchCells);
}

namespace {

std::string formatted(const char* format, double value)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

std::string onOff(bool on)
{
    return on ? "on" : "off";
}

// A run that does not fit is not evaluated as if it did: what it needs at the least, and the
// HBM it has.
std::string unfitReason(const PublishedRun& run, const Scenario& sc, const Evaluation& ev)
{
    const Parallelism& par = sc.parallelism;
    const bool searched = hasUnpublishedKnobs(run);
    return std::string("does not fit in HBM") +
           (searched ? " in any admissible setting of its unpublished knobs: needs at least "
                     : " with its published settings: needs ") +
           formatted("%.1f", ev.memoryPeakGib) + " GiB per GPU of " + formatted("%.4g", ev.hbmGib) +
           " GiB (micro-batch " + std::to_string(par.microBatch) + ", virtual stages " +
           std::to_string(par.virtualStages) + ", sequence parallel " +
           onOff(par.sequenceParallel) + ", distributed optimizer " +
           onOff(par.distributedOptimizer) + ", recompute " + toString(par.recompute) + ")";
}

} // namespace

ValidationReport validateRuns(const std::vector<PublishedRun>& runs, const Catalog& catalog)
{
    ValidationReport report;
    double sum = 0.0;
    for (const PublishedRun& run : runs) {
        RunComparison cmp;
        cmp.id = run.id;
        cmp.measuredS = run.measuredIterationS;
        RunScenario rs = scenarioForRun(run, catalog);
        const Evaluation ev =
            evaluate(rs.scenario, catalog.mergedWith(rs.scenario.catalogOverrides));
        cmp.assumptions = std::move(rs.assumptions);
        for (const Warning& w : ev.warnings)
            cmp.warnings.push_back(warningText(w));
        cmp.ok = ev.ok && cmp.measuredS > 0.0;
        cmp.predictedS = ev.iterationTimeS;
        if (cmp.ok && !ev.fitsInMemory) {
            cmp.ok = false;
            cmp.reason = unfitReason(run, rs.scenario, ev);
        }
        if (!cmp.ok) {
            // Not a large error but no prediction at all: kept out of the averages and
            // reported as a failure with the evaluation's own reasons.
            for (const std::string& w :
                 cmp.reason.empty() ? cmp.warnings : std::vector<std::string>{})
                cmp.reason += (cmp.reason.empty() ? "" : "; ") + w;
            if (cmp.reason.empty())
                cmp.reason = "the model could not evaluate this run";
            report.runs.push_back(std::move(cmp));
            continue;
        }
        cmp.error = ev.iterationTimeS / cmp.measuredS - 1.0;
        sum += std::abs(cmp.error);
        report.maxAbsError = std::max(report.maxAbsError, std::abs(cmp.error));
        ++report.evaluated;
        report.runs.push_back(std::move(cmp));
    }
    report.meanAbsError = report.evaluated == 0 ? 0.0 : sum / report.evaluated;
    return report;
}

} // namespace archipelago::core
