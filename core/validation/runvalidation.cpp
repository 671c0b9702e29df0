// Published run -> Scenario, and predicted vs measured (publishedruns.h).
//
// Where a paper leaves a knob unpublished (null), the run is evaluated as the team that tuned
// it would have run it (validation README): the fastest setting that fits in HBM, chosen
// jointly over every unpublished knob, each choice an assumption line naming what it beat.
// The knobs and their admissible values:
//  - micro_batch null: every divisor of the per-replica batch (global_batch / dp), keeping the
//    micro-batch count m a multiple of p when interleaving (Megatron's requirement);
//  - virtual_stages null: 1, or a v that divides every stage's layers (Megatron's
//    num_layers % (pp * vp) == 0); with an uneven split (layers % pp != 0, as Llama 3's) any v
//    up to the fewest layers on a stage, every chunk holding a layer; at most 16;
//  - sequence_parallel null: off or on when tp > 1 (off when tp = 1: nothing to split);
//  - distributed optimizer (format v1 has no field): off or on when dp * cp > 1;
//  - recompute null: none, as the README defines null for it: published, never searched.
// Published knobs are never changed. The search evaluates with searchOptions() (iteration
// time and memory only) in chains of one (v, sequence parallel, distributed optimizer), the
// micro-batches in increasing order up to the first that does not fit (memory grows with the
// micro-batch), the chains in parallel; ties within 0.1% go to the earlier setting (smaller v,
// sequence parallel and distributed optimizer off: Megatron's defaults, smaller micro-batch).
// A run that fits in no admissible setting is an error row (validateRuns) naming what it needs
// at the least and the HBM, never evaluated as if it fitted.
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

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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
        par.zeroStage = 2;
        notes.push_back("optimizer distributed_fused_adam (ZeRO-2)");
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
    std::string text = "training stack " +
                       (stack.empty() ? std::string("not published (Megatron-LM defaults)") : stack) +
                       ":";
    text += std::string(" flash attention ") +
            (fusedAttention(acc, par.kernels) ? "on" : "off");
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
    Parallelism& par = sc.parallelism;
    par.tp = run.tp;
    par.pp = run.pp;
    par.cp = run.cp;
    par.ep = run.ep;
    par.virtualStages = run.virtualStages.value_or(1);
    par.sequenceParallel = run.sequenceParallel.value_or(false); // null: the knob search's
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

// Choosing unpublished knobs needs only the iteration time and the memory fit: no timeline,
// warning text, bill of materials or attribution re-simulation (none of them changes either).
EvaluateOptions searchOptions()
{
    EvaluateOptions o;
    o.timeline = false;
    o.warnings = false;
    o.billOfMaterials = false;
    o.attribution = false;
    return o;
}

// The knobs a run may leave unpublished, as one setting.
struct Knobs
{
    int microBatch = 1;
    int virtualStages = 1;
    bool sequenceParallel = false;
    bool distributedOptimizer = false;
};

// One evaluation of the search.
struct Trial
{
    Knobs knobs;
    double timeS = 0.0;
    double peakGib = 0.0;
    bool fits = false;
};

// The values each knob may take: the published one, or every admissible one, in the order
// ties go (Megatron's defaults first).
struct KnobSpace
{
    std::vector<int> microBatches;  // ascending: memory grows with the micro-batch
    std::vector<int> virtualStages; // ascending, 1 first
    std::vector<bool> sequenceParallel;
    std::vector<bool> distributedOptimizer;
};

// Bounds for a hostile file; real runs stay far below them (memory caps the micro-batch
// long before, and Megatron runs interleave at most 12 chunks per rank).
constexpr std::size_t kMaxMicroBatchCandidates = 64;
constexpr int kMaxVirtualStages = 16;
// Pipeline cells (p * v * m) one candidate may simulate: 4x the largest published run's
// (Narayanan et al. 2021's 1T: 64 * 2 * 512); beyond it a candidate is not tried.
constexpr std::int64_t kMaxSearchCells = std::int64_t{1} << 18;
// Within this, a later candidate is as fast as an earlier one and the earlier one stays.
constexpr double kTieRelative = 1e-3;

void applyKnobs(const Knobs& k, Scenario& sc)
{
    Parallelism& par = sc.parallelism;
    par.microBatch = k.microBatch;
    par.virtualStages = k.virtualStages;
    par.sequenceParallel = k.sequenceParallel;
    par.distributedOptimizer = k.distributedOptimizer;
    sc.schedule.kind = k.virtualStages > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
}

std::vector<int> divisorsAscending(int n)
{
    std::vector<int> low, high;
    for (int d = 1; static_cast<std::int64_t>(d) * d <= n; ++d) {
        if (n % d != 0)
            continue;
        low.push_back(d);
        if (d != n / d)
            high.push_back(n / d);
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}

bool shardsOptimizer(const PublishedRun& run)
{
    return std::int64_t{run.dp} * run.cp > 1;
}

KnobSpace knobSpace(const PublishedRun& run, const Scenario& sc)
{
    KnobSpace s;
    if (run.microBatch) {
        s.microBatches = {*run.microBatch};
    } else {
        s.microBatches =
            divisorsAscending(std::max(1, run.model.globalBatch / std::max(1, run.dp)));
        if (s.microBatches.size() > kMaxMicroBatchCandidates)
            s.microBatches.resize(kMaxMicroBatchCandidates);
    }
    s.virtualStages = {run.virtualStages.value_or(1)};
    if (!run.virtualStages && run.pp > 1) {
        const std::vector<int> split = effectiveLayersPerStage(sc);
        const auto [fewest, most] = std::minmax_element(split.begin(), split.end());
        const bool even = split.empty() || *fewest == *most;
        const int top = split.empty() ? 1 : std::min(*fewest, kMaxVirtualStages);
        for (int v = 2; v <= top; ++v)
            if (!even || *fewest % v == 0)
                s.virtualStages.push_back(v);
    }
    if (run.sequenceParallel)
        s.sequenceParallel = {*run.sequenceParallel};
    else if (run.tp > 1)
        s.sequenceParallel = {false, true};
    else
        s.sequenceParallel = {false};
    // A stack that always shards (NeMo's ZeRO-2 optimizer) has nothing to choose.
    if (sc.parallelism.zeroStage >= 1)
        s.distributedOptimizer = {shardsOptimizer(run)};
    else
        s.distributedOptimizer =
            shardsOptimizer(run) ? std::vector<bool>{false, true} : std::vector<bool>{false};
    return s;
}

// Every setting of the space, as chains of one (v, sequence parallel, distributed optimizer)
// each, whose micro-batches run in increasing order up to the first that does not fit (memory
// grows with the micro-batch: no larger one would). Chains run in parallel; the trials come
// back in the space's order whatever the threads did.
std::vector<Trial> searchKnobs(const PublishedRun& run, const KnobSpace& space, const Scenario& sc,
                               const Catalog& merged)
{
    std::vector<Knobs> chains;
    for (int v : space.virtualStages)
        for (bool sp : space.sequenceParallel)
            for (bool distOpt : space.distributedOptimizer)
                chains.push_back(Knobs{0, v, sp, distOpt});
    std::vector<std::vector<Trial>> perChain(chains.size());
    tbb::enumerable_thread_specific<EvaluationWorkspace> workspaces;
    tbb::parallel_for(std::size_t{0}, chains.size(), [&](std::size_t i) {
        Scenario local = sc;
        EvaluationWorkspace& workspace = workspaces.local();
        for (int b : space.microBatches) {
            Knobs k = chains[i];
            k.microBatch = b;
            applyKnobs(k, local);
            // Megatron interleaves only when the micro-batch count is a multiple of p.
            const std::int64_t m = microBatchesPerIteration(local);
            if (k.virtualStages > 1 && m % run.pp != 0)
                continue;
            if (m * run.pp * k.virtualStages > kMaxSearchCells)
                continue;
            const Evaluation ev = evaluate(local, merged, searchOptions(), &workspace);
            if (!ev.ok)
                continue;
            perChain[i].push_back(Trial{k, ev.iterationTimeS, ev.memoryPeakGib, ev.fitsInMemory});
            if (!ev.fitsInMemory)
                break;
        }
    });
    std::vector<Trial> trials;
    for (std::vector<Trial>& chain : perChain)
        trials.insert(trials.end(), chain.begin(), chain.end());
    return trials;
}

// The fastest trial that fits among those `keep` selects (ties within kTieRelative go to the
// earlier one); when none fits, the one that needs the least memory; null when there is none.
template <typename Keep> const Trial* bestTrial(const std::vector<Trial>& trials, Keep keep)
{
    const Trial* best = nullptr;
    for (const Trial& t : trials) {
        if (!keep(t.knobs))
            continue;
        const bool better =
            !best || (t.fits && !best->fits) ||
            (t.fits && best->fits && t.timeS < best->timeS * (1.0 - kTieRelative)) ||
            (!t.fits && !best->fits && t.peakGib < best->peakGib);
        if (better)
            best = &t;
    }
    return best;
}

std::string formatted(const char* format, double value)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

// "8 is 5.7% slower" or "8 would need 93.1 GiB of 80".
std::string versus(const std::string& name, const Trial& alt, const Trial& chosen, double hbmGib)
{
    if (!alt.fits)
        return name + " would need " + formatted("%.1f", alt.peakGib) + " GiB of " +
               formatted("%.4g", hbmGib);
    const double slower = alt.timeS / chosen.timeS - 1.0;
    if (slower < kTieRelative)
        return name + " is as fast (within 0.1%)";
    return name + " is " + formatted("%.1f", 100.0 * slower) + "% slower";
}

std::string onOff(bool on)
{
    return on ? "on" : "off";
}

bool sameOtherThanMicroBatch(const Knobs& a, const Knobs& b)
{
    return a.virtualStages == b.virtualStages && a.sequenceParallel == b.sequenceParallel &&
           a.distributedOptimizer == b.distributedOptimizer;
}

// One assumption line per knob the run does not publish, each naming what the choice beat.
void describeChoices(const PublishedRun& run, const KnobSpace& space,
                     const std::vector<Trial>& trials, const Trial& chosen, double hbmGib,
                     std::vector<std::string>& assumptions)
{
    const Knobs& c = chosen.knobs;
    const std::string why = chosen.fits ? "the fastest that fits"
                                        : "nothing admissible fits in HBM: the setting that "
                                          "needs the least memory";
    // Against the best setting with the knob at another value, the others chosen jointly.
    const auto against = [&](auto keep, auto name) {
        const Trial* alt = bestTrial(trials, keep);
        return alt && chosen.fits ? "; " + versus(name(*alt), *alt, chosen, hbmGib) : std::string();
    };

    if (!run.microBatch) {
        std::string text =
            "micro_batch not published: " + std::to_string(c.microBatch) + " (" + why;
        if (chosen.fits) {
            // The larger ones with the other knobs as chosen: the largest that fits, and the
            // first that does not (the search stops there).
            const Trial* largest = nullptr;
            const Trial* tooLarge = nullptr;
            for (const Trial& t : trials) {
                if (!sameOtherThanMicroBatch(t.knobs, c) || t.knobs.microBatch <= c.microBatch)
                    continue;
                if (t.fits)
                    largest = &t;
                else if (!tooLarge)
                    tooLarge = &t;
            }
            if (largest)
                text += "; " + versus(std::to_string(largest->knobs.microBatch) +
                                          ", the largest that fits,",
                                      *largest, chosen, hbmGib);
            if (tooLarge)
                text += "; " + versus(std::to_string(tooLarge->knobs.microBatch), *tooLarge, chosen,
                                      hbmGib);
            if (!largest && !tooLarge)
                text += "; the largest admissible";
        }
        assumptions.push_back(text + ")");
    }
    if (!run.virtualStages) {
        std::string text = "virtual_stages not published: " + std::to_string(c.virtualStages);
        if (run.pp == 1)
            text += " (pp = 1: no pipeline to interleave)";
        else if (space.virtualStages.size() == 1)
            text += " (no stage holds enough layers to interleave)";
        else if (c.virtualStages == 1)
            text += " (" + why +
                    against([](const Knobs& k) { return k.virtualStages > 1; },
                            [](const Trial& t) {
                                return "the best interleaving, " +
                                       std::to_string(t.knobs.virtualStages) + ",";
                            }) +
                    ")";
        else
            text += " (" + why +
                    against([](const Knobs& k) { return k.virtualStages == 1; },
                            [](const Trial&) { return std::string("1 (no interleaving)"); }) +
                    ")";
        assumptions.push_back(text);
    }
    if (!run.sequenceParallel) {
        std::string text = "sequence_parallel not published: " + onOff(c.sequenceParallel);
        if (run.tp == 1)
            text += " (tp = 1: nothing to split)";
        else
            text +=
                " (" + why +
                against([&](const Knobs& k) { return k.sequenceParallel != c.sequenceParallel; },
                        [&](const Trial&) { return onOff(!c.sequenceParallel); }) +
                ")";
        assumptions.push_back(text);
    }
    if (shardsOptimizer(run) && space.distributedOptimizer.size() > 1)
        assumptions.push_back(
            "distributed optimizer (not in format v1): " + onOff(c.distributedOptimizer) + " (" +
            why +
            against(
                [&](const Knobs& k) { return k.distributedOptimizer != c.distributedOptimizer; },
                [&](const Trial&) { return onOff(!c.distributedOptimizer); }) +
            ")");
}

} // namespace

RunScenario scenarioForRun(const PublishedRun& run, const Catalog& catalog)
{
    RunScenario out;
    out.scenario = baseScenario(run, catalog, out.assumptions);
    Scenario& sc = out.scenario;
    const Catalog merged = catalog.mergedWith(sc.catalogOverrides);
    const KnobSpace space = knobSpace(run, sc);
    const std::vector<Trial> trials = searchKnobs(run, space, sc, merged);
    const Trial* chosen = bestTrial(trials, [](const Knobs&) { return true; });
    if (!chosen) {
        // No setting could be evaluated: the first one, whose evaluation says why.
        const Knobs first{space.microBatches.front(), space.virtualStages.front(),
                          space.sequenceParallel.front(), space.distributedOptimizer.front()};
        applyKnobs(first, sc);
        if (!run.microBatch || !run.virtualStages || !run.sequenceParallel ||
            shardsOptimizer(run))
            out.assumptions.push_back(
                "unpublished knobs not searched (no admissible setting could be evaluated "
                "within the search's bounds): micro-batch " +
                std::to_string(first.microBatch) + ", virtual stages " +
                std::to_string(first.virtualStages) + ", sequence parallel " +
                onOff(first.sequenceParallel) + ", distributed optimizer " +
                onOff(first.distributedOptimizer));
        return out;
    }
    applyKnobs(chosen->knobs, sc);
    describeChoices(run, space, trials, *chosen, run.hbmGib, out.assumptions);
    return out;
}

namespace {

// A run that does not fit is not evaluated as if it did: what it needs at the least, and the
// HBM it has.
std::string unfitReason(const PublishedRun& run, const Scenario& sc, const Evaluation& ev)
{
    const Parallelism& par = sc.parallelism;
    const bool searched =
        !run.microBatch || !run.virtualStages || !run.sequenceParallel || shardsOptimizer(run);
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
