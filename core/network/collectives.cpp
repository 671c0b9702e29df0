#include "network/collectives.h"

#include "network/fabric.h"

#include <algorithm>
#include <cmath>

namespace archipelago::core {

namespace {

double safeRate(double bytesPerS)
{
    return bytesPerS > 0.0 ? bytesPerS : 1e-9;
}

} // namespace

double ringAllReduceS(double bytes, int n, double bytesPerS, double latencyS)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    const double steps = n - 1.0;
    return 2.0 * steps / n * bytes / safeRate(bytesPerS) + 2.0 * steps * latencyS;
}

double treeAllReduceS(double bytes, int n, double bytesPerS, double latencyS)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    return 2.0 * bytes / safeRate(bytesPerS) + 2.0 * std::log2(static_cast<double>(n)) * latencyS;
}

double allReduceS(double bytes, int n, double bytesPerS, double latencyS)
{
    return std::min(ringAllReduceS(bytes, n, bytesPerS, latencyS),
                    treeAllReduceS(bytes, n, bytesPerS, latencyS));
}

double reduceScatterS(double bytes, int n, double bytesPerS, double latencyS)
{
    if (n <= 1 || bytes <= 0.0)
        return 0.0;
    const double steps = n - 1.0;
    return steps / n * bytes / safeRate(bytesPerS) + steps * latencyS;
}

double allGatherS(double bytes, int n, double bytesPerS, double latencyS)
{
    return reduceScatterS(bytes, n, bytesPerS, latencyS);
}

double allToAllS(double bytes, int n, double bytesPerS, double latencyS)
{
    return reduceScatterS(bytes, n, bytesPerS, latencyS);
}

double p2pS(double bytes, double bytesPerS, double latencyS)
{
    if (bytes <= 0.0)
        return 0.0;
    return latencyS + bytes / safeRate(bytesPerS);
}

double busEfficiency(LinkClass linkClass, const EfficiencyParams& eff)
{
    return linkClass == LinkClass::ScaleUp ? eff.scaleUpBusEfficiency : eff.scaleOutBusEfficiency;
}

double ecmpEfficiency(double flows, double paths)
{
    if (!(paths > 1.0) || !(flows > 0.0))
        return 1.0;
    // (1 - 1/n)^f as exp(f log1p(-1/n)): exact for large n and f.
    const double empty = std::exp(flows * std::log1p(-1.0 / paths));
    return paths * (1.0 - empty) / std::min(flows, paths);
}

double levelBytesPerS(const LevelLink& level, const EfficiencyParams& eff)
{
    return level.bandwidthGBps * 1e9 * busEfficiency(level.linkClass, eff);
}

namespace {

enum class Op
{
    AllReduce,
    ReduceScatter,
    AllGather
};

// One stage of the collective as NCCL runs it. NCCL builds its rings and trees over whole
// nodes: inside a node over NVLink, across nodes one flat ring/tree whatever the switch tiers
// (NCCL does not reduce per leaf switch). So consecutive fabric levels (leaf, spine, core)
// merge into one stage with their product of participants and the largest latency; scale-up
// and DCI stay stages of their own. Every edge of a ring carries the same bytes, so the ring
// moves at its slowest edge: the stage rate is the smallest of the levels' rates, where
// placement gives an upper level the rate of one edge that crosses it (the container's uplinks
// shared by the edges crossing them), not the per-GPU share of the uplinks.
struct Stage
{
    int participants = 1;
    double bytesPerS = 0.0;
    double latencyS = 0.0;
    int level = 0; // first level of the stage (for traffic accounting)
    int last = 0;  // last level merged into it
};

// Splits `bytes` (what each GPU of a ring over the stage's levels sends) over the levels the
// ring's edges turn at. With members in rank order, a ring of N members whose containers at
// level j hold c_j of them has N / c_j edges leaving those containers (none when one holds
// all): level j carries (N/c_{j-1} - N/c_j) / N of the bytes, c_{-1} = 1.
void splitBytes(const GroupPath& path, const Stage& st, double bytes, double* out)
{
    const double n = st.participants;
    double below = 1.0; // ring members inside one container of the level below
    for (int j = st.level; j <= st.last; ++j) {
        const int p = path.levels[static_cast<std::size_t>(j)].participants;
        if (p <= 1)
            continue;
        const double leaving = below < n ? n / below : 0.0;
        below *= p;
        const double leavingNext = below < n ? n / below : 0.0;
        out[j] += bytes * (leaving - leavingNext) / n;
    }
}

bool isFabric(LinkClass c)
{
    return c == LinkClass::Leaf || c == LinkClass::Spine || c == LinkClass::Core;
}

int stages(const GroupPath& path, const EfficiencyParams& eff, Stage* out, int maxStages)
{
    int n = 0;
    for (std::size_t i = 0; i < path.levels.size() && i < 8; ++i) {
        const LevelLink& level = path.levels[i];
        if (level.participants <= 1)
            continue;
        const double rate = levelBytesPerS(level, eff);
        const bool merge =
            n > 0 && isFabric(level.linkClass) &&
            isFabric(path.levels[static_cast<std::size_t>(out[n - 1].level)].linkClass);
        if (merge) {
            Stage& st = out[n - 1];
            st.participants *= level.participants;
            st.bytesPerS = std::min(st.bytesPerS, rate);
            st.latencyS = std::max(st.latencyS, level.latencyS);
            st.last = static_cast<int>(i);
        } else if (n < maxStages) {
            out[n++] = Stage{level.participants, rate, level.latencyS, static_cast<int>(i),
                             static_cast<int>(i)};
        }
    }
    return n;
}

CollectiveCost hierarchical(double bytes, const GroupPath& path, const EfficiencyParams& eff, Op op)
{
    CollectiveCost cost;
    cost.levels = static_cast<int>(std::min<std::size_t>(path.levels.size(), 8));
    Stage st[8];
    const int n = stages(path, eff, st, 8);
    // One launch per collective (NCCL baseLatencies, Ring Simple: network/fabric.h).
    if (n > 0)
        cost.timeS += kCollectiveBaseLatencyS;
    double shard = bytes; // buffer size entering the stage
    for (int i = 0; i < n; ++i) {
        const int k = st[i].participants;
        const double frac = (k - 1.0) / k;
        if (op == Op::AllReduce && i == n - 1) {
            cost.timeS += allReduceS(shard, k, st[i].bytesPerS, st[i].latencyS);
            splitBytes(path, st[i], 2.0 * frac * shard, cost.bytesPerLevel);
        } else if (op == Op::AllReduce) {
            // Reduce-scatter going out, all-gather coming back at the same stage.
            cost.timeS += 2.0 * reduceScatterS(shard, k, st[i].bytesPerS, st[i].latencyS);
            splitBytes(path, st[i], 2.0 * frac * shard, cost.bytesPerLevel);
        } else {
            cost.timeS += reduceScatterS(shard, k, st[i].bytesPerS, st[i].latencyS);
            splitBytes(path, st[i], frac * shard, cost.bytesPerLevel);
        }
        shard /= k;
    }
    return cost;
}

} // namespace

CollectiveCost hierarchicalAllReduce(double bytes, const GroupPath& path,
                                     const EfficiencyParams& eff)
{
    return hierarchical(bytes, path, eff, Op::AllReduce);
}

CollectiveCost hierarchicalReduceScatter(double bytes, const GroupPath& path,
                                         const EfficiencyParams& eff)
{
    return hierarchical(bytes, path, eff, Op::ReduceScatter);
}

CollectiveCost hierarchicalAllGather(double bytes, const GroupPath& path,
                                     const EfficiencyParams& eff)
{
    return hierarchical(bytes, path, eff, Op::AllGather);
}

CollectiveCost hierarchicalAllToAll(double bytes, const GroupPath& path,
                                    const EfficiencyParams& eff)
{
    CollectiveCost cost;
    cost.levels = static_cast<int>(std::min<std::size_t>(path.levels.size(), 8));
    const double total = std::max(1, path.size());
    double inner = 1.0; // GPUs reachable inside the levels below
    for (int i = 0; i < cost.levels; ++i) {
        const LevelLink& level = path.levels[static_cast<std::size_t>(i)];
        const int n = level.participants;
        if (n <= 1)
            continue;
        // Destinations uniform over the group: the share that leaves the inner containers
        // but stays inside this level's container crosses this level.
        const double share = (inner * n - inner) / total;
        const double levelBytes = share * bytes;
        const double t =
            levelBytes / safeRate(levelBytesPerS(level, eff)) + (n - 1.0) * level.latencyS;
        cost.timeS = std::max(cost.timeS, t);
        cost.bytesPerLevel[i] += levelBytes;
        inner *= n;
    }
    return cost;
}

double remoteNodeCopies(double topK, int maxNodes, double nodes)
{
    if (!(nodes > 1.0) || !(topK > 0.0))
        return 0.0;
    const double reach = maxNodes > 0 ? std::min(nodes, static_cast<double>(maxNodes)) : nodes;
    const double distinct = reach > 1.0 ? reach * (1.0 - std::pow(1.0 - 1.0 / reach, topK)) : 1.0;
    return distinct * (nodes - 1.0) / nodes;
}

CollectiveCost nodeLimitedAllToAll(double tokenBytes, double topK, int maxNodes,
                                   const GroupPath& path, const EfficiencyParams& eff)
{
    CollectiveCost cost;
    cost.levels = static_cast<int>(std::min<std::size_t>(path.levels.size(), 8));
    if (cost.levels == 0 || !(tokenBytes > 0.0) || !(topK > 0.0))
        return cost;
    const bool scaleUp = path.levels[0].linkClass == LinkClass::ScaleUp;
    const double local = scaleUp ? std::max(1, path.levels[0].participants) : 1.0;
    const double nodes = std::max(1, path.size()) / local;
    // Scale-up: every copy whose expert sits on another GPU of the node that receives it.
    if (scaleUp && local > 1.0) {
        const LevelLink& level = path.levels[0];
        const double bytes = topK * (local - 1.0) / local * tokenBytes;
        cost.timeS = bytes / safeRate(levelBytesPerS(level, eff)) + (local - 1.0) * level.latencyS;
        cost.bytesPerLevel[0] = bytes;
    }
    // Fabric levels: the remote node copies, each level carrying the share of destination nodes
    // outside the containers below it and inside its own (as hierarchicalAllToAll does).
    const double remote = remoteNodeCopies(topK, maxNodes, nodes) * tokenBytes;
    double inner = 1.0; // nodes reachable inside the levels below
    for (int i = scaleUp ? 1 : 0; i < cost.levels; ++i) {
        const LevelLink& level = path.levels[static_cast<std::size_t>(i)];
        const int n = level.participants;
        if (n <= 1)
            continue;
        const double levelBytes = remote * (inner * n - inner) / std::max(1.0, nodes - 1.0);
        const double t =
            levelBytes / safeRate(levelBytesPerS(level, eff)) + (n - 1.0) * level.latencyS;
        cost.timeS = std::max(cost.timeS, t);
        cost.bytesPerLevel[i] += levelBytes;
        inner *= n;
    }
    return cost;
}

const CollectiveCost& CollectiveMemo::get(CollectiveFn fn, double bytes, const GroupPath& path,
                                          const EfficiencyParams& eff)
{
    for (int i = 0; i < m_size; ++i) {
        const Entry& e = m_entries[i];
        if (e.fn == fn && e.bytes == bytes && e.path == &path && e.eff == &eff)
            return e.cost;
    }
    Entry* slot = nullptr;
    if (m_size < kEntries) {
        slot = &m_entries[m_size++];
    } else {
        slot = &m_entries[m_next];
        m_next = (m_next + 1) % kEntries;
    }
    *slot = Entry{fn, bytes, &path, &eff, fn(bytes, path, eff)};
    return slot->cost;
}

} // namespace archipelago::core
