// Passes 1 and 2: placement, then the cost of every model chunk and pipeline boundary.
#include "evaluation/passes.h"

#include "compute/modelflops.h"
#include "model/dcilink.h"
#include "model/scheduletraits.h"
#include "network/collectives.h"
#include "pipeline/pipelineschedules.h"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

namespace archipelago::core {

namespace {

// The accelerator of each pipeline rank: the slowest among the datacenters that hold it.
// (No copy of the shards and one catalog lookup per datacenter: this runs for every design
// point of a sweep.)
std::vector<const AcceleratorSpec*> rankAccelerators(const Scenario& s, const Catalog& catalog)
{
    const int p = s.parallelism.pp;
    std::vector<const AcceleratorSpec*> out(static_cast<std::size_t>(p), nullptr);
    std::vector<std::pair<Id, const AcceleratorSpec*>> known; // per datacenter id asked
    const auto accelOf = [&](Id id) {
        for (const auto& [dcId, a] : known)
            if (dcId == id)
                return a;
        const Datacenter* dc = findDatacenter(s.topology, id);
        const AcceleratorSpec* a = dc ? catalog.accelerator(dc->accelerator) : nullptr;
        known.emplace_back(id, a);
        return a;
    };
    const auto hold = [&](int r, std::span<const Id> holders) {
        for (const Id id : holders) {
            const AcceleratorSpec* a = accelOf(id);
            auto& slot = out[static_cast<std::size_t>(r)];
            if (a && (!slot || a->peakTflopsBf16 < slot->peakTflopsBf16))
                slot = a;
        }
    };
    if (s.placement.shards.empty()) { // effectiveShards: every stage in the first datacenter
        const Id dc = s.topology.datacenters.empty() ? 0 : s.topology.datacenters.front().id;
        for (int r = 0; r < p; ++r)
            hold(r, std::span<const Id>(&dc, 1));
    }
    for (const PlacementShard& shard : s.placement.shards)
        for (int r = 0; r < p && r < static_cast<int>(shard.stageDatacenters.size()); ++r) {
            // A split shard runs every stage in all of its split datacenters.
            hold(r, shard.split() ? std::span<const Id>(shard.splitDatacenters)
                                  : std::span<const Id>(
                                        &shard.stageDatacenters[static_cast<std::size_t>(r)], 1));
        }
    const AcceleratorSpec* fallback =
        catalog.accelerator(s.topology.datacenters.front().accelerator);
    for (auto& a : out)
        if (!a)
            a = fallback;
    return out;
}

// Links conserve capacity. Boundary `boundary` joins rank `from` to rank `to`: every
// shard whose two stages sit in different datacenters pushes its replicas' activations along
// its route one way and their gradients back the other way. Each (DCI link, direction) is a
// resource of the pipeline spec, loaded by the boundary's transfer of one micro-batch for the
// bytes all those replicas push at once / the link's capacity per direction (`queue`, for
// asynchronous transfers), and the bytes go to the traffic per link direction.
void addDciLoads(EvaluationContext& ctx, const std::vector<PlacementShard>& shards, int boundary,
                 int from, int to, double bytesPerReplica, bool queue)
{
    PipelineSpec& spec = ctx.spec;
    std::vector<DirectedLinkBytes>& traffic = ctx.traffic.groups.pipelineDci;
    for (const PlacementShard& shard : shards) {
        const auto& sd = shard.stageDatacenters;
        if (shard.dpReplicas <= 0 || shard.split() || std::max(from, to) >= std::ssize(sd))
            continue;
        const double bytes = bytesPerReplica * static_cast<double>(shard.dpReplicas);
        for (const bool backward : {false, true}) {
            const Id src = sd[static_cast<std::size_t>(backward ? to : from)];
            const Id dst = sd[static_cast<std::size_t>(backward ? from : to)];
            if (src == dst)
                continue;
            std::optional<DciRoute> scratch;
            const DciRoute* route = ctx.topology.route(src, dst, scratch);
            for (std::size_t j = 0; route && j < route->links.size(); ++j) {
                const DciLink* link = ctx.topology.link(route->links[j]);
                if (!link)
                    continue;
                const bool fromA = link->a == route->datacenters[j];
                auto t = std::find_if(traffic.begin(), traffic.end(), [&](const auto& d) {
                    return d.dciLinkId == link->id && d.fromA == fromA;
                });
                if (t == traffic.end())
                    t = traffic.insert(traffic.end(), {link->id, fromA, 0.0});
                t->bytes += bytes * ctx.chunkMicroBatches;
                const double capacityGBps = dciCapacityGBps(*link);
                if (!queue || capacityGBps <= 0.0)
                    continue;
                const PipelineResource key{LinkClass::Dci, link->id, fromA, capacityGBps};
                auto res = std::find(spec.resources.begin(), spec.resources.end(), key);
                if (res == spec.resources.end())
                    res = spec.resources.insert(spec.resources.end(), key);
                const auto index = static_cast<int>(res - spec.resources.begin());
                auto load = std::find_if(spec.loads.begin(), spec.loads.end(), [&](const auto& l) {
                    return l.boundary == boundary && l.backward == backward && l.resource == index;
                });
                if (load == spec.loads.end())
                    load = spec.loads.insert(spec.loads.end(), {boundary, backward, index, 0.0});
                load->serviceS += bytes / (capacityGBps * 1e9);
            }
        }
    }
}

double levelTransferS(const LevelLink& level, double bytes, const EfficiencyParams& eff,
                      double& transferOnly)
{
    transferOnly = bytes / std::max(levelBytesPerS(level, eff), 1.0);
    return level.latencyS + transferOnly;
}

} // namespace

std::vector<ChunkSpec> layoutChunks(const Scenario& s, ScheduleKind kind, int v)
{
    const int p = s.parallelism.pp;
    const std::vector<int> perStage = effectiveLayersPerStage(s);
    const int copies = scheduleTraits(kind).modelCopies;
    const int perCopy = p * v / copies;
    const int stageChunks = v / copies; // chunks of one stage in one copy
    std::vector<ChunkSpec> chunks(static_cast<std::size_t>(p * v));
    int layer = 0;
    for (int c = 0; c < perCopy; ++c) {
        const int r = c % p;
        const int j = c / p;
        const int total = perStage[static_cast<std::size_t>(r)];
        const int size = total / stageChunks + (j < total % stageChunks ? 1 : 0);
        ChunkSpec& ch = chunks[static_cast<std::size_t>(c)];
        for (int i = 0; i < size; ++i, ++layer)
            (isMoeLayer(s.workload, layer) ? ch.moeLayers : ch.denseLayers) += 1;
    }
    // Multi-token prediction modules run after the output head and share it (DeepSeek-V3
    // report section 2.2), so they sit with it on the last chunk; each holds one transformer
    // layer of the kind of the model's last layer (the compute, collectives, parameters and
    // activations of a layer) plus its projection and a second pass through the head.
    if (s.workload.mtpDepth > 0 && perCopy > 0) {
        ChunkSpec& last = chunks[static_cast<std::size_t>(perCopy - 1)];
        const int d = s.workload.mtpDepth;
        (isMoeLayer(s.workload, s.workload.layers - 1) ? last.moeLayers : last.denseLayers) += d;
        last.mtpModules = d;
    }
    for (int k = 0; k < copies; ++k) {
        for (int c = 0; c < perCopy; ++c)
            chunks[static_cast<std::size_t>(k * perCopy + c)] = chunks[static_cast<std::size_t>(c)];
        chunks[static_cast<std::size_t>(k * perCopy)].first = true;
        chunks[static_cast<std::size_t>(k * perCopy + perCopy - 1)].last = true;
    }
    const std::vector<int> ranks = chunkRanks(kind, p, v);
    for (std::size_t c = 0; c < chunks.size(); ++c)
        chunks[c].rank = ranks[c];
    return chunks;
}

void placementPass(EvaluationContext& ctx)
{
    ctx.placement = ctx.workspace
                        ? ctx.workspace->placementFor(ctx.s, ctx.catalog, ctx.options.warnings)
                        : analyzePlacement(ctx.s, ctx.catalog, &ctx.topology, ctx.options.warnings);
    for (Warning& wn : ctx.placement.warnings)
        ctx.ev.warnings.push_back(std::move(wn));
    ctx.placement.warnings.clear();
    ctx.accel = rankAccelerators(ctx.s, ctx.catalog);
    ctx.chunks = layoutChunks(ctx.s, ctx.kind, ctx.v);
}

void stageCostPass(EvaluationContext& ctx)
{
    const Scenario& s = ctx.s;
    const Workload& w = s.workload;
    const Parallelism& par = ctx.par;
    const int p = ctx.p;
    const int nChunks = ctx.nChunks;
    const int m = ctx.chunkMicroBatches; // through each chunk (DualPipe: m / 2)
    const PlacementAnalysis& pl = ctx.placement;
    PipelineSpec& spec = ctx.spec;
    spec.schedule = ctx.kind;
    spec.stages = p;
    spec.virtualStages = ctx.v;
    spec.microBatches = ctx.m;
    spec.extraInFlightAtDci = s.schedule.extraInFlightAtDci;
    spec.forwardS.resize(static_cast<std::size_t>(nChunks));
    spec.backwardS.resize(static_cast<std::size_t>(nChunks));
    ctx.parts.resize(static_cast<std::size_t>(nChunks));
    LayerComputeMemo memo; // the chunks' layers share a few shapes (one per accelerator)
    memo.entries.reserve(4);
    for (int c = 0; c < nChunks; ++c)
        ctx.parts[static_cast<std::size_t>(c)] = chunkCost(
            w, par, pl,
            *ctx.accel[static_cast<std::size_t>(ctx.chunkRank[static_cast<std::size_t>(c)])],
            ctx.chunks[static_cast<std::size_t>(c)], m, &ctx.traffic,
            ctx.kind == ScheduleKind::DualPipe, &memo);

    // Pipeline boundaries: activations of one micro-batch, s*b*h bf16 per TP group, split by
    // cp, and split by t: each TP rank sends only its 1/t slice over its own NIC, the
    // scatter/gather optimisation of Narayanan et al. 2021 section 4.1 (with sequence parallel
    // the tensor is sharded anyway, Korthikanti et al. 2022 section 4.2.2).
    const double sendBytes =
        static_cast<double>(par.microBatch) * w.seqLen * w.hidden * 2.0 / par.tp / par.cp;
    if (nChunks > 1) {
        spec.sendS.resize(static_cast<std::size_t>(nChunks - 1));
        spec.sendCrossesDci.resize(static_cast<std::size_t>(nChunks - 1));
        ctx.sendBoundary.assign(static_cast<std::size_t>(nChunks - 1), -1);
    }
    if (p > 1)
        ctx.traffic.groups.stageBoundary.resize(static_cast<std::size_t>(p - 1), 0.0);
    const std::vector<PlacementShard> shards =
        s.topology.links.empty() ? std::vector<PlacementShard>{} : effectiveShards(s);
    const int copies = scheduleTraits(ctx.kind).modelCopies;
    const int chain = nChunks / copies; // chunks a micro-batch runs through
    for (int c = 0; c + 1 < nChunks; ++c) {
        // DualPipe: no micro-batch crosses from the down copy's last chunk to the up copy.
        if ((c + 1) % chain == 0)
            continue;
        const int from = ctx.chunkRank[static_cast<std::size_t>(c)];
        const int to = ctx.chunkRank[static_cast<std::size_t>(c + 1)];
        // The boundary between ranks r and r + 1 (r = p - 1: the interleaved wrap); the up
        // copy of DualPipe crosses it from r + 1 to r.
        const int r = copies == 2 && c >= chain ? to : from;
        const LevelLink& link = (r < p - 1 && r < static_cast<int>(pl.stageBoundaries.size()))
                                    ? pl.stageBoundaries[static_cast<std::size_t>(r)]
                                    : pl.wrapBoundary;
        const EfficiencyParams& eff = ctx.accel[static_cast<std::size_t>(from)]->efficiency;
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
        ctx.sendBoundary[static_cast<std::size_t>(c)] = r;
        const bool seen = std::any_of(ctx.dciBoundaries.begin(), ctx.dciBoundaries.end(),
                                      [&](const auto& b) { return b.rank == r; });
        if (dci && !seen)
            ctx.dciBoundaries.push_back(
                {r, link.fromDatacenter, link.toDatacenter, link.latencyS, transfer, 0.0});
        if (p > 1 && !shards.empty())
            addDciLoads(ctx, shards, c, from, to, sendBytes * par.tp * par.cp, par.overlap.ppComm);
    }
    for (int c = 0; c < nChunks; ++c) {
        spec.forwardS[static_cast<std::size_t>(c)] =
            ctx.parts[static_cast<std::size_t>(c)].forwardPass;
        spec.backwardS[static_cast<std::size_t>(c)] =
            ctx.parts[static_cast<std::size_t>(c)].backwardPass;
    }
}

} // namespace archipelago::core
