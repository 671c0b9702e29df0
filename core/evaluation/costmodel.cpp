// evaluate(): the cost model's orchestration (ARCHITECTURE.md section 3). Per model chunk it
// costs compute and TP/CP/EP communication (stagecost.h), runs the pipeline schedule through
// the discrete-event simulator with each boundary's transfer time (pipelinesimulator.h), adds
// the data-parallel gradient reduction and the optimizer step (datacost.h), and fills memory,
// traffic, throughput and warnings.
//
// Iteration time identity (tested): iterationTimeS = forward + backward + recompute + tp + cp
// + ep + pp + dp + optimizer + bubble + interference, where the compute and per-micro-batch
// communication parts are those of the busiest pipeline rank, bubble is that rank's idle time
// in the pipeline period, and dp / optimizer are what runs after the pipeline drains.
#include "evaluation/costmodel.h"

#include "network/bom.h"
#include "network/collectives.h"
#include "compute/computemodel.h"
#include "evaluation/datacost.h"
#include "evaluation/evaluationfill.h"
#include "network/linktraffic.h"
#include "compute/memorymodel.h"
#include "compute/modelflops.h"
#include "pipeline/pipelinesimulator.h"
#include "network/placement.h"
#include "io/scenarioio.h"
#include "model/shapecheck.h"
#include "evaluation/stagecost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace archipelago::core {

Catalog effectiveCatalog(const Scenario& scenario)
{
    if (scenario.catalogOverrides.empty())
        return builtinCatalog();
    return builtinCatalog().mergedWith(scenario.catalogOverrides);
}

Evaluation evaluate(const Scenario& scenario)
{
    if (scenario.catalogOverrides.empty()) // no copy of the catalog on the hot path
        return evaluate(scenario, builtinCatalog());
    return evaluate(scenario, effectiveCatalog(scenario));
}

namespace {

std::string fmt(const char* format, double a, double b = 0.0, double c = 0.0)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, format, a, b, c);
    return buf;
}

void fail(Evaluation& ev, std::string code, std::string message)
{
    ev.ok = false;
    ev.warnings.push_back({std::move(code), std::move(message)});
}

// Degrees and shapes that must divide for the model to mean anything: the cost-model subset of
// the scenario's shape rules (model/shapecheck.h), which checkScenario runs too, so that both
// say the same thing about a scenario. The first error fails the evaluation.
bool checkScenarioShape(const Scenario& s, const Catalog& catalog, Evaluation& ev)
{
    const ShapeFindings findings = checkCostModelShape(s, catalog);
    const ShapeFinding* error = findings.firstError();
    if (!error)
        return true;
    // "/pointer: message": a range rule's message alone does not say which field it is about.
    fail(ev, warningCode(error->category), error->diagnostic.toString());
    return false;
}

// The accelerator of each pipeline rank: the slowest among the datacenters that hold it.
std::vector<const AcceleratorSpec*> rankAccelerators(const Scenario& s, const Catalog& catalog)
{
    const int p = s.parallelism.pp;
    std::vector<const AcceleratorSpec*> out(static_cast<std::size_t>(p), nullptr);
    for (const PlacementShard& shard : effectiveShards(s))
        for (int r = 0; r < p && r < static_cast<int>(shard.stageDatacenters.size()); ++r) {
            // A split shard runs every stage in all of its split datacenters.
            const std::vector<Id> holders =
                shard.split()
                    ? shard.splitDatacenters
                    : std::vector<Id>{shard.stageDatacenters[static_cast<std::size_t>(r)]};
            for (const Id id : holders) {
                const Datacenter* dc = findDatacenter(s.topology, id);
                const AcceleratorSpec* a = dc ? catalog.accelerator(dc->accelerator) : nullptr;
                auto& slot = out[static_cast<std::size_t>(r)];
                if (a && (!slot || a->peakTflopsBf16 < slot->peakTflopsBf16))
                    slot = a;
            }
        }
    const AcceleratorSpec* fallback =
        catalog.accelerator(s.topology.datacenters.front().accelerator);
    for (auto& a : out)
        if (!a)
            a = fallback;
    return out;
}

// Model chunks in model order (chunk c = j*p + r lives on rank r, Megatron interleaving).
std::vector<ChunkSpec> layoutChunks(const Scenario& s, int v)
{
    const int p = s.parallelism.pp;
    const std::vector<int> perStage = effectiveLayersPerStage(s);
    std::vector<ChunkSpec> chunks(static_cast<std::size_t>(p * v));
    int layer = 0;
    for (int c = 0; c < p * v; ++c) {
        const int r = c % p;
        const int j = c / p;
        const int total = perStage[static_cast<std::size_t>(r)];
        const int size = total / v + (j < total % v ? 1 : 0);
        ChunkSpec& ch = chunks[static_cast<std::size_t>(c)];
        for (int i = 0; i < size; ++i, ++layer)
            (isMoeLayer(s.workload, layer) ? ch.moeLayers : ch.denseLayers) += 1;
    }
    chunks.front().first = true;
    chunks.back().last = true;
    return chunks;
}

double levelTransferS(const LevelLink& level, double bytes, const EfficiencyParams& eff,
                      double& transferOnly)
{
    transferOnly = bytes / std::max(levelBytesPerS(level, eff), 1.0);
    return level.latencyS + transferOnly;
}

std::string datacenterName(const Scenario& s, int rank)
{
    const std::vector<PlacementShard> shards = effectiveShards(s);
    if (shards.empty() || rank >= static_cast<int>(shards.front().stageDatacenters.size()))
        return "?";
    const Datacenter* dc = findDatacenter(s.topology, shards.front().stageDatacenters[rank]);
    return dc ? dc->name : "?";
}

// Schedule settings the pipeline simulator cannot run as given, adjusted with a warning that
// names the cause (evaluate() never fails on them). Returns true when `par`/`kind` changed.
bool adjustSchedule(const Scenario& s, Parallelism& par, ScheduleKind& kind,
                    std::vector<Warning>& warnings)
{
    bool changed = false;
    if (par.virtualStages > 1 && kind != ScheduleKind::Interleaved1F1B) {
        warnings.push_back({"virtual-stages-ignored",
                            fmt("%.0f virtual stages need the interleaved 1F1B schedule; "
                                "evaluated with 1",
                                par.virtualStages)});
        par.virtualStages = 1;
        changed = true;
    }
    if (kind == ScheduleKind::Interleaved1F1B && par.virtualStages == 1)
        kind = ScheduleKind::OneFOneB;
    const std::int64_t dp = dataParallel(s);
    if (kind == ScheduleKind::Interleaved1F1B && dp >= 1 && par.microBatch >= 1 &&
        s.workload.globalBatch % (std::int64_t{par.microBatch} * dp) == 0) {
        const std::int64_t m = s.workload.globalBatch / (std::int64_t{par.microBatch} * dp);
        if (m % par.pp != 0) {
            // Megatron-LM's interleaved schedule runs micro-batches in groups of p and rejects
            // a smaller last group (Narayanan et al. 2021 section 2.2.2); Megatron-core since
            // 2024 accepts it via microbatch_group_size_per_vp_stage, which we do not model.
            warnings.push_back(
                {"interleaving-fallback",
                 fmt("%.0f micro-batches are not a multiple of pp %.0f, which interleaved 1F1B "
                     "needs: evaluated as 1F1B without virtual stages (v %.0f ignored)",
                     static_cast<double>(m), par.pp, par.virtualStages)});
            par.virtualStages = 1;
            kind = ScheduleKind::OneFOneB;
            changed = true;
        }
    }
    return changed;
}

} // namespace

Evaluation evaluate(const Scenario& scenario, const Catalog& catalog)
{
    Evaluation ev;
    ev.ok = true;
    Parallelism adjusted = scenario.parallelism;
    ScheduleKind kind = scenario.schedule.kind;
    std::vector<Warning> scheduleWarnings;
    Scenario copy;
    const bool changed = adjustSchedule(scenario, adjusted, kind, scheduleWarnings);
    if (changed) { // a copy only off the hot path
        copy = scenario;
        copy.parallelism = adjusted;
        copy.schedule.kind = kind;
    }
    const Scenario& s = changed ? copy : scenario;
    for (Warning& wn : scheduleWarnings)
        ev.warnings.push_back(std::move(wn));
    if (!checkScenarioShape(s, catalog, ev))
        return ev;
    const Workload& w = s.workload;
    Parallelism par = s.parallelism;
    const int p = par.pp;
    const int v = par.virtualStages;
    const int nChunks = p * v;
    const std::int64_t dp = dataParallel(s);
    const int m = static_cast<int>(microBatchesPerIteration(s));
    ev.gpus = dp * par.tp * par.cp * p;

    PlacementAnalysis pl = analyzePlacement(s, catalog);
    for (Warning& wn : pl.warnings)
        ev.warnings.push_back(std::move(wn));
    const std::vector<const AcceleratorSpec*> accel = rankAccelerators(s, catalog);
    const std::vector<ChunkSpec> chunks = layoutChunks(s, v);

    // ---- per-chunk costs and pipeline transfers
    const double gpusPerChunk = static_cast<double>(dp) * par.tp * par.cp;
    TrafficTally traffic;
    std::vector<ChunkParts> parts(static_cast<std::size_t>(nChunks));
    PipelineSpec spec;
    spec.schedule = kind;
    spec.stages = p;
    spec.virtualStages = v;
    spec.microBatches = m;
    spec.extraInFlightAtDci = s.schedule.extraInFlightAtDci;
    spec.forwardS.resize(static_cast<std::size_t>(nChunks));
    spec.backwardS.resize(static_cast<std::size_t>(nChunks));
    for (int c = 0; c < nChunks; ++c)
        parts[static_cast<std::size_t>(c)] =
            chunkCost(w, par, pl, *accel[static_cast<std::size_t>(c % p)],
                      chunks[static_cast<std::size_t>(c)], m, &traffic);

    // Pipeline boundaries: activations of one micro-batch, s*b*h bf16 per TP group, split by
    // cp, and split by t: each TP rank sends only its 1/t slice over its own NIC, the
    // scatter/gather optimisation of Narayanan et al. 2021 section 4.1 (with sequence parallel
    // the tensor is sharded anyway, Korthikanti et al. 2022 section 4.2.2).
    const double sendBytes =
        static_cast<double>(par.microBatch) * w.seqLen * w.hidden * 2.0 / par.tp / par.cp;
    bool anyDci = false;
    if (nChunks > 1) {
        spec.sendS.resize(static_cast<std::size_t>(nChunks - 1));
        spec.sendCrossesDci.resize(static_cast<std::size_t>(nChunks - 1));
    }
    std::vector<std::string> dciNotes;
    for (int c = 0; c + 1 < nChunks; ++c) {
        const int r = c % p;
        const LevelLink& link = (r < p - 1 && r < static_cast<int>(pl.stageBoundaries.size()))
                                    ? pl.stageBoundaries[static_cast<std::size_t>(r)]
                                    : pl.wrapBoundary;
        const EfficiencyParams& eff = accel[static_cast<std::size_t>(r)]->efficiency;
        double transfer = 0.0;
        const double sendTime = p > 1 ? levelTransferS(link, sendBytes, eff, transfer) : 0.0;
        const bool dci = link.linkClass == LinkClass::Dci;
        anyDci = anyDci || dci;
        spec.sendCrossesDci[static_cast<std::size_t>(c)] = dci;
        if (!par.overlap.ppComm) {
            // Blocking send/recv (Megatron's default p2p): the sender waits for the transfer.
            ChunkParts& a = parts[static_cast<std::size_t>(c)];
            ChunkParts& b = parts[static_cast<std::size_t>(c + 1)];
            a.pp += transfer;
            a.forwardPass += transfer;
            b.pp += transfer;
            b.backwardPass += transfer;
            spec.sendS[static_cast<std::size_t>(c)] = link.latencyS;
        } else {
            spec.sendS[static_cast<std::size_t>(c)] = sendTime;
        }
        // Traffic: each GPU of the stage sends its shard forward and the gradient back.
        if (p > 1) {
            std::vector<double>& sb = traffic.groups.stageBoundary;
            sb.resize(static_cast<std::size_t>(p - 1), 0.0);
            if (r < p - 1)
                sb[static_cast<std::size_t>(r)] += 2.0 * sendBytes * m;
            else
                traffic.groups.wrapBoundary += 2.0 * sendBytes * m;
        }
        if (dci && c < p - 1)
            dciNotes.push_back(fmt("%.0f->%.0f", r, r + 1) + " crosses " + datacenterName(s, r) +
                               "<->" + datacenterName(s, r + 1) +
                               fmt(": %.2f ms latency + %.2f ms transfer per micro-batch",
                                   link.latencyS * 1e3, transfer * 1e3));
    }
    for (int c = 0; c < nChunks; ++c) {
        spec.forwardS[static_cast<std::size_t>(c)] = parts[static_cast<std::size_t>(c)].forwardPass;
        spec.backwardS[static_cast<std::size_t>(c)] =
            parts[static_cast<std::size_t>(c)].backwardPass;
    }
    spec.recordTimeline = true;
    PipelineResult pipe = simulatePipeline(spec);
    if (!pipe.ok) {
        fail(ev, "pipeline", "pipeline schedule cannot run: " + pipe.error);
        return ev;
    }
    const bool zeroBubble =
        kind == ScheduleKind::ZeroBubbleH1 || kind == ScheduleKind::ZeroBubbleH2;
    const double pipeS = zeroBubble && pipe.periodS > 0.0 ? pipe.periodS : pipe.makespanS;
    // What the transfers cost is what the same schedule loses to them: re-simulate with the
    // transfers removed (all of them for the breakdown, only the DCI ones for the warning), so
    // that the bubble left in the breakdown is the schedule's own and "exposed PP" is the
    // transfers' share (the same attribution as a with/without comparison in a simulator).
    const auto periodWithout = [&](auto&& keep) {
        PipelineSpec without = spec;
        without.recordTimeline = false;
        for (std::size_t i = 0; i < without.sendS.size(); ++i)
            if (!keep(i))
                without.sendS[i] = 0.0;
        const PipelineResult r = simulatePipeline(without);
        if (!r.ok)
            return pipeS;
        return zeroBubble && r.periodS > 0.0 ? r.periodS : r.makespanS;
    };
    const bool anySend =
        std::any_of(spec.sendS.begin(), spec.sendS.end(), [](double t) { return t > 0.0; });
    const double ppExposedS =
        anySend ? std::max(0.0, pipeS - periodWithout([](std::size_t) { return false; })) : 0.0;
    if (anyDci && !dciNotes.empty()) {
        const double dciExposedS = std::max(
            0.0, pipeS - periodWithout([&](std::size_t i) { return !spec.sendCrossesDci[i]; }));
        for (const std::string& note : dciNotes)
            ev.warnings.push_back(
                {"dci-exposed",
                 "stage " + note +
                     fmt("; DCI transfers lengthen the pipeline by %.1f ms per iteration",
                         dciExposedS * 1e3)});
    }

    // ---- data parallel and optimizer (after the pipeline drains)
    const DataParallelCost dpc = dataParallelCost(s, par, pl, accel, chunks, parts, pipe, &traffic);

    // ---- breakdown on the busiest rank
    int busiest = 0;
    double busiestS = -1.0;
    for (int r = 0; r < p; ++r) {
        double busy = 0.0;
        for (int c = r; c < nChunks; c += p)
            busy += parts[static_cast<std::size_t>(c)].total() * m;
        if (busy > busiestS) {
            busiestS = busy;
            busiest = r;
        }
    }
    Breakdown& bd = ev.breakdown;
    for (int c = busiest; c < nChunks; c += p) {
        const ChunkParts& cp = parts[static_cast<std::size_t>(c)];
        bd.forwardS += cp.forward * m;
        bd.backwardS += cp.backward * m;
        bd.recomputeS += cp.recompute * m;
        bd.tpCommS += cp.tp * m;
        bd.cpCommS += cp.cp * m;
        bd.epCommS += cp.ep * m;
        bd.ppCommS += cp.pp * m;
        bd.interferenceS += cp.interference * m;
    }
    bd.ppCommS += ppExposedS;
    bd.bubbleS = std::max(0.0, pipeS - busiestS - ppExposedS);
    bd.dpCommS = dpc.exposedS;
    bd.interferenceS += dpc.interferenceS;
    bd.optimizerS = dpc.optimizerS;
    ev.iterationTimeS =
        std::max(pipeS, busiestS) + dpc.exposedS + dpc.interferenceS + dpc.optimizerS;
    ev.bubbleRatio = pipe.bubbleRatio;
    ev.idleOverCompute = pipe.idleOverCompute;

    // ---- throughput and utilisation
    double peakSum = 0.0; // FLOP/s of every GPU of the job (mixed generations allowed)
    for (int r = 0; r < p; ++r)
        peakSum += peakFlopsPerS(*accel[static_cast<std::size_t>(r)], w.precision) * gpusPerChunk;
    ev.modelFlopsPerIteration = modelFlopsPerIteration(w);
    ev.hardwareFlopsPerIteration = hardwareFlopsPerIteration(w, par.recompute);
    // MFU and HFU as defined by Chowdhery et al. 2022 (PaLM), Appendix B, and Korthikanti et
    // al. 2022 section 6.3: achieved FLOP/s over peak, without and with recompute.
    ev.mfu = ev.modelFlopsPerIteration / (ev.iterationTimeS * peakSum);
    ev.hfu = ev.hardwareFlopsPerIteration / (ev.iterationTimeS * peakSum);
    const double tokens = static_cast<double>(w.globalBatch) * w.seqLen;
    ev.tokensPerS = tokens / ev.iterationTimeS;
    ev.timeToTrainS = w.trainTokens / ev.tokensPerS;
    ev.gpuHoursToTrain = ev.timeToTrainS * static_cast<double>(ev.gpus) / 3600.0;

    // ---- memory
    fillMemory(s, par, kind, accel, chunks, pl, ev);
    // Per-GPU group bytes averaged over the pipeline ranks (boundaries are per boundary).
    for (double* g : {&traffic.groups.tp, &traffic.groups.cp, &traffic.groups.ep,
                      &traffic.groups.dp, &traffic.groups.expertDp})
        *g /= p;
    ev.traffic = linkTraffic(s, pl, traffic.groups, ev.iterationTimeS);
    std::vector<Warning> bomWarnings;
    ev.bom = billOfMaterials(s, catalog, bomWarnings);
    const BomTotals totals = bomTotal(ev.bom);
    ev.networkCapexUsd = totals.capexUsd;
    ev.networkPowerW = totals.powerW;
    for (Warning& wn : bomWarnings)
        ev.warnings.push_back(std::move(wn));
    ev.timeline = std::move(pipe.timeline);
    addWarnings(s, par, ev);
    return ev;
}

} // namespace archipelago::core
