#include "evaluation/evaluationfill.h"

#include "compute/computemodel.h"
#include "compute/memorymodel.h"
#include "evaluation/loosesync.h"
#include "model/scheduletraits.h"
#include "model/shapecheck.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace archipelago::core {

void fillMemory(const Scenario& s, const Parallelism& par, ScheduleKind kind,
                const std::vector<const AcceleratorSpec*>& accel,
                const std::vector<ChunkSpec>& chunks, const PlacementAnalysis& pl, Evaluation& ev,
                bool warnings)
{
    const int p = par.pp;
    const int v = chunksPerRank(kind, par.virtualStages); // DualPipe: 2
    const int m = static_cast<int>(microBatchesPerIteration(s));
    const double dp = static_cast<double>(dataParallel(s));
    // The cross-DC-aware schedule runs extra micro-batches ahead on every rank up to the last
    // one that sends over a DCI boundary (pipelinesimulator.h).
    int lastDciSender = -1;
    for (std::size_t r = 0; r < pl.stageBoundaries.size(); ++r)
        if (pl.stageBoundaries[r].linkClass == LinkClass::Dci)
            lastDciSender = static_cast<int>(r);
    // Interleaved: every rank runs them once any boundary, the wrap included, crosses a DCI
    // (dciExtraMicroBatches in pipeline/pipelineschedules.cpp: fewer would deadlock).
    if (v > 1 && (lastDciSender >= 0 || pl.wrapBoundary.linkClass == LinkClass::Dci))
        lastDciSender = p - 1;
    const int replicas = looseSyncReplicas(par, pl.dp);
    Parallelism memoryPar = par;
    if (replicas > 1) // the datacenter takes the place of the instances
        memoryPar.distributedOptimizerInstances = 1;
    double worstUse = -1.0;
    double leastFragmentation = kFragmentationHighFraction; // below it a stage has no headroom
    Warning headroom{WarningCode::MemoryHeadroom};
    ev.fitsInMemory = true;
    // The per-layer terms, per kind of attention kernel (the ranks' accelerators may differ).
    std::optional<LayerMemoryTerms> terms[2];
    // What each rank holds, its chunks summed. DualPipe: chunks r and 2p - 1 - r, two copies of
    // the weights (DeepSeek-V3 report Table 2: 2x parameters); its in-flight count is in
    // micro-batches of both chunks.
    std::vector<StageMemoryInput> held(static_cast<std::size_t>(std::max(p, 0)));
    for (const ChunkSpec& c : chunks) {
        if (c.rank < 0 || c.rank >= p)
            continue;
        StageMemoryInput& in = held[static_cast<std::size_t>(c.rank)];
        in.layers += c.denseLayers + c.moeLayers;
        in.moeLayers += c.moeLayers;
        in.first = in.first || c.first;
        in.last = in.last || c.last;
    }
    for (int r = 0; r < p; ++r) {
        StageMemoryInput& in = held[static_cast<std::size_t>(r)];
        in.rank = r;
        in.pp = p;
        in.inFlight = inFlightMicroBatches(kind, p, v, m, r);
        if (r <= lastDciSender && scheduleTraits(kind).extraInFlightApplies)
            in.inFlight = std::min<double>(m, in.inFlight + s.schedule.extraInFlightAtDci);
        // DiLoCo: the optimizer shards over one datacenter's replicas (evaluation/datacost.cpp),
        // which also hold the outer state.
        in.denseShardGroup = dp / replicas * par.cp;
        in.expertShardGroup = std::max(1.0, dp / replicas * par.cp / par.ep);
        in.outerStateBytesPerParam = replicas > 1 ? 8.0 : 0.0;
        in.fusedAttention = fusedAttention(*accel[static_cast<std::size_t>(r)], par.kernels);
        std::optional<LayerMemoryTerms>& t = terms[in.fusedAttention ? 1 : 0];
        if (!t)
            t = layerMemoryTerms(s.workload, memoryPar, in.fusedAttention);
        const MemoryBreakdown mem = stageMemory(s.workload, memoryPar, in, *t);
        const double hbm = accel[static_cast<std::size_t>(r)]->hbmGib;
        const double use = mem.totalGib() / std::max(hbm, 1e-9);
        if (mem.totalGib() > hbm) {
            if (ev.fitsInMemory && warnings)
                ev.warnings.push_back(Warning{WarningCode::OutOfMemory}
                                          .count("stage", r)
                                          .num("total_gib", mem.totalGib())
                                          .num("hbm_gib", hbm)
                                          .num("weights_gib", mem.weightsGib)
                                          .num("gradients_gib", mem.gradientsGib)
                                          .num("optimizer_gib", mem.optimizerGib)
                                          .num("activations_gib", mem.activationsGib)
                                          .num("in_flight", in.inFlight));
            ev.fitsInMemory = false;
        }
        const double allocated = mem.totalGib() - mem.otherGib;
        const double fits = fragmentationThatFits(allocated, hbm);
        if (mem.totalGib() <= hbm && fits < leastFragmentation) {
            leastFragmentation = fits;
            if (warnings)
                headroom = Warning{WarningCode::MemoryHeadroom}
                               .count("stage", r)
                               .num("total_gib", mem.totalGib())
                               .num("hbm_gib", hbm)
                               .num("use_pct", 100.0 * use)
                               .num("allocated_gib", allocated)
                               .num("fits_pct", 100.0 * std::max(0.0, fits));
        }
        if (use > worstUse) {
            worstUse = use;
            ev.memory = mem;
            ev.hbmGib = hbm;
        }
        ev.memoryPeakGib = std::max(ev.memoryPeakGib, mem.totalGib());
    }
    // One warning, for the stage with the least headroom, and none once a stage is out of memory.
    if (warnings && ev.fitsInMemory && !headroom.data.empty())
        ev.warnings.push_back(std::move(headroom));
}

void addWarnings(const Scenario& s, const Parallelism& par, Evaluation& ev)
{
    // Spare GPUs: legal, counted out of the cost (only placed GPUs are), worth naming.
    const std::vector<std::int64_t> placed = placedGpusPerDatacenter(s);
    for (std::size_t i = 0; i < placed.size() && i < s.topology.datacenters.size(); ++i) {
        const std::int64_t held = gpusInDatacenter(s.topology.datacenters[i]);
        if (placed[i] < held)
            ev.warnings.push_back(spareGpusWarning(s.topology.datacenters[i], held, placed[i]));
    }
    const bool placementWarned =
        std::any_of(ev.warnings.begin(), ev.warnings.end(),
                    [](const Warning& w) { return w.code == WarningCode::TpExceedsScaleUp; });
    if (!placementWarned)
        for (const Datacenter& dc : s.topology.datacenters)
            if (par.tp > scaleUpDomainGpus(dc)) {
                ev.warnings.push_back(
                    Warning{WarningCode::TpExceedsScaleUp, WarningForm::ScaleOutFabric}
                        .count("tp", par.tp)
                        .count("domain_gpus", scaleUpDomainGpus(dc))
                        .count("datacenter_id", dc.id)
                        .name("datacenter", dc.name));
                break;
            }
    const Breakdown& b = ev.breakdown;
    const double t = ev.iterationTimeS;
    if (t <= 0.0)
        return;
    if (b.bubbleS > 0.2 * t)
        ev.warnings.push_back(Warning{WarningCode::Bubble}
                                  .num("bubble_pct", 100.0 * b.bubbleS / t)
                                  .num("bubble_s", b.bubbleS)
                                  .count("pp", par.pp)
                                  .count("micro_batches", microBatchesPerIteration(s)));
    if (b.dpCommS > 0.1 * t)
        ev.warnings.push_back(Warning{WarningCode::DpExposed}
                                  .num("dp_comm_s", b.dpCommS)
                                  .num("dp_comm_pct", 100.0 * b.dpCommS / t)
                                  .num("iteration_s", t));
    if (b.tpCommS > 0.2 * t)
        ev.warnings.push_back(Warning{WarningCode::TpExposed}
                                  .num("tp_comm_s", b.tpCommS)
                                  .num("tp_comm_pct", 100.0 * b.tpCommS / t)
                                  .count("tp", par.tp));
}

} // namespace archipelago::core
