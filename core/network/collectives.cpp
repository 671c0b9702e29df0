#include "network/collectives.h"

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

// ECMP hashing puts flows on uplinks at random; with n flows on n equal paths the expected
// fraction of paths in use is 1 - 1/e (balls into bins), and the ring collective moves at the
// pace of its slowest, shared hop. Al-Fares et al. 2010 (Hedera, NSDI) section 2.2 measure
// ECMP collisions costing up to 61% of bisection bandwidth; Jiang et al. 2024 (MegaScale)
// section 3.4 and Qian et al. 2024 (Alibaba HPN) section 2.2 report the same for LLM training
// traffic that leaves the leaf switch.
constexpr double kEcmpEfficiency = 0.632;

double levelBytesPerS(const LevelLink& level, const EfficiencyParams& eff)
{
    const bool hashed = level.linkClass == LinkClass::Spine || level.linkClass == LinkClass::Core;
    return level.bandwidthGBps * 1e9 * busEfficiency(level.linkClass, eff) *
           (hashed ? kEcmpEfficiency : 1.0);
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
// merge into one stage with their product of participants, the slowest per-GPU bandwidth and
// the largest latency; scale-up and DCI stay stages of their own.
struct Stage
{
    int participants = 1;
    double bytesPerS = 0.0;
    double latencyS = 0.0;
    int level = 0; // first level of the stage (for traffic accounting)
};

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
        } else if (n < maxStages) {
            out[n++] = Stage{level.participants, rate, level.latencyS, static_cast<int>(i)};
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
    double shard = bytes; // buffer size entering the stage
    for (int i = 0; i < n; ++i) {
        const int k = st[i].participants;
        const double frac = (k - 1.0) / k;
        if (op == Op::AllReduce && i == n - 1) {
            cost.timeS += allReduceS(shard, k, st[i].bytesPerS, st[i].latencyS);
            cost.bytesPerLevel[st[i].level] += 2.0 * frac * shard;
        } else if (op == Op::AllReduce) {
            // Reduce-scatter going out, all-gather coming back at the same stage.
            cost.timeS += 2.0 * reduceScatterS(shard, k, st[i].bytesPerS, st[i].latencyS);
            cost.bytesPerLevel[st[i].level] += 2.0 * frac * shard;
        } else {
            cost.timeS += reduceScatterS(shard, k, st[i].bytesPerS, st[i].latencyS);
            cost.bytesPerLevel[st[i].level] += frac * shard;
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

} // namespace archipelago::core
