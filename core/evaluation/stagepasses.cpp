// Passes 1 and 2: placement, then the cost of every model chunk and pipeline boundary.
#include "evaluation/passes.h"

#include "compute/modelflops.h"
#include "network/collectives.h"

namespace archipelago::core {

namespace {

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

} // namespace

void placementPass(EvaluationContext& ctx)
{
    ctx.placement = analyzePlacement(ctx.s, ctx.catalog, &ctx.topology, ctx.options.warnings);
    for (Warning& wn : ctx.placement.warnings)
        ctx.ev.warnings.push_back(std::move(wn));
    ctx.placement.warnings.clear();
    ctx.accel = rankAccelerators(ctx.s, ctx.catalog);
    ctx.chunks = layoutChunks(ctx.s, ctx.v);
}

void stageCostPass(EvaluationContext& ctx)
{
    const Scenario& s = ctx.s;
    const Workload& w = s.workload;
    const Parallelism& par = ctx.par;
    const int p = ctx.p;
    const int nChunks = ctx.nChunks;
    const int m = ctx.m;
    const PlacementAnalysis& pl = ctx.placement;
    PipelineSpec& spec = ctx.spec;
    spec.schedule = ctx.kind;
    spec.stages = p;
    spec.virtualStages = ctx.v;
    spec.microBatches = m;
    spec.extraInFlightAtDci = s.schedule.extraInFlightAtDci;
    spec.forwardS.resize(static_cast<std::size_t>(nChunks));
    spec.backwardS.resize(static_cast<std::size_t>(nChunks));
    ctx.parts.resize(static_cast<std::size_t>(nChunks));
    for (int c = 0; c < nChunks; ++c)
        ctx.parts[static_cast<std::size_t>(c)] =
            chunkCost(w, par, pl, *ctx.accel[static_cast<std::size_t>(c % p)],
                      ctx.chunks[static_cast<std::size_t>(c)], m, &ctx.traffic);

    // Pipeline boundaries: activations of one micro-batch, s*b*h bf16 per TP group, split by
    // cp, and split by t: each TP rank sends only its 1/t slice over its own NIC, the
    // scatter/gather optimisation of Narayanan et al. 2021 section 4.1 (with sequence parallel
    // the tensor is sharded anyway, Korthikanti et al. 2022 section 4.2.2).
    const double sendBytes =
        static_cast<double>(par.microBatch) * w.seqLen * w.hidden * 2.0 / par.tp / par.cp;
    if (nChunks > 1) {
        spec.sendS.resize(static_cast<std::size_t>(nChunks - 1));
        spec.sendCrossesDci.resize(static_cast<std::size_t>(nChunks - 1));
    }
    if (p > 1)
        ctx.traffic.groups.stageBoundary.resize(static_cast<std::size_t>(p - 1), 0.0);
    for (int c = 0; c + 1 < nChunks; ++c) {
        const int r = c % p;
        const LevelLink& link = (r < p - 1 && r < static_cast<int>(pl.stageBoundaries.size()))
                                    ? pl.stageBoundaries[static_cast<std::size_t>(r)]
                                    : pl.wrapBoundary;
        const EfficiencyParams& eff = ctx.accel[static_cast<std::size_t>(r)]->efficiency;
        double transfer = 0.0;
        const double sendTime = p > 1 ? levelTransferS(link, sendBytes, eff, transfer) : 0.0;
        const bool dci = link.linkClass == LinkClass::Dci;
        ctx.anyDci = ctx.anyDci || dci;
        spec.sendCrossesDci[static_cast<std::size_t>(c)] = dci;
        if (!par.overlap.ppComm) {
            // Blocking send/recv (Megatron's default p2p): the sender waits for the transfer.
            ChunkParts& a = ctx.parts[static_cast<std::size_t>(c)];
            ChunkParts& b = ctx.parts[static_cast<std::size_t>(c + 1)];
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
            if (r < p - 1)
                ctx.traffic.groups.stageBoundary[static_cast<std::size_t>(r)] +=
                    2.0 * sendBytes * m;
            else
                ctx.traffic.groups.wrapBoundary += 2.0 * sendBytes * m;
        }
        if (dci && c < p - 1)
            ctx.dciBoundaries.push_back({r, link.latencyS, transfer});
    }
    for (int c = 0; c < nChunks; ++c) {
        spec.forwardS[static_cast<std::size_t>(c)] =
            ctx.parts[static_cast<std::size_t>(c)].forwardPass;
        spec.backwardS[static_cast<std::size_t>(c)] =
            ctx.parts[static_cast<std::size_t>(c)].backwardPass;
    }
}

} // namespace archipelago::core
