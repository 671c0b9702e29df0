// Alpha-beta costs of collectives (ARCHITECTURE.md section 3, "Collectives").
// Notation: n participants, S bytes of the full buffer per GPU, B achieved bandwidth per GPU
// per direction (bytes/s), a latency per step (s). Formulas from Thakur, Rabenseifner and
// Gropp 2005, "Optimization of Collective Communication Operations in MPICH", section 4
// (ring algorithms), and Patarasuk and Yuan 2009 (bandwidth-optimal ring all-reduce).
#pragma once

#include "model/catalog.h"
#include "network/placement.h"

namespace archipelago::core {

// Ring all-reduce: reduce-scatter + all-gather, 2(n-1)/n * S/B + 2(n-1)a.
double ringAllReduceS(double bytes, int n, double bytesPerS, double latencyS);
// NCCL double binary tree all-reduce (Sanders, Speck and Traff 2009, "Two-tree algorithms for
// full bandwidth broadcast, reduction and scan"; NCCL 2.4 release notes): two pipelined
// trees each carry half the data, so the bandwidth term is 2*S/B (every byte goes up and down
// once) and the latency term is 2*log2(n)*a (up and down the tree depth).
double treeAllReduceS(double bytes, int n, double bytesPerS, double latencyS);
// Best of ring and tree, as NCCL's tuner picks per message size.
double allReduceS(double bytes, int n, double bytesPerS, double latencyS);
// Ring reduce-scatter or all-gather of a buffer of S bytes in total: (n-1)/n * S/B + (n-1)a.
double reduceScatterS(double bytes, int n, double bytesPerS, double latencyS);
double allGatherS(double bytes, int n, double bytesPerS, double latencyS);
// All-to-all where each GPU sends S bytes in total, (n-1)/n of it off-GPU: pairwise exchange,
// (n-1)/n * S/B + (n-1)a (Thakur et al. 2005, section 4.6).
double allToAllS(double bytes, int n, double bytesPerS, double latencyS);
// Point-to-point: a + S/B.
double p2pS(double bytes, double bytesPerS, double latencyS);

// Fraction of a level's link bandwidth that NCCL collectives achieve (bus bandwidth over
// link bandwidth), from the accelerator's efficiency parameters.
double busEfficiency(LinkClass linkClass, const EfficiencyParams& eff);
// Expected share of the offered load that `flows` elephant flows, each able to fill one link,
// get when ECMP hashes them uniformly onto `paths` equal links (balls into bins: the expected
// number of non-empty bins is n(1 - (1 - 1/n)^f); Mitzenmacher and Upfal 2005, "Probability and
// Computing", section 5.2): n(1 - (1 - 1/n)^f) / min(f, n). 1 on a single path and for f >> n;
// 1 - 1/e ~ 0.63 at f = n for large n (0.656 at n = 8, 0.635 at n = 64).
double ecmpEfficiency(double flows, double paths);
// Achieved bytes/s per GPU on a level: bandwidth x bus efficiency. Placement already shared
// the level among the flows that cross it and applied the ECMP collision loss.
double levelBytesPerS(const LevelLink& level, const EfficiencyParams& eff);

// Hierarchical collectives over a group path, innermost level first. An all-reduce is a
// reduce-scatter at each level going out (on S, S/n1, S/(n1 n2), ...), an all-reduce at the
// outermost level, and all-gathers coming back (NCCL's hierarchical / "2D" algorithms;
// Jia et al. 2018, "Highly scalable deep learning training system with mixed-precision",
// section 4.3; Mikami et al. 2018, section 3.1). A one-level path is the flat collective.
struct CollectiveCost
{
    double timeS = 0.0;
    // Bytes each GPU sends per level, innermost first (for traffic accounting); size = levels.
    // A ring over merged fabric levels puts on level i only its edges that turn there (an
    // average over the GPUs: a ring of N members in P pods has P edges through the core).
    double bytesPerLevel[8] = {};
    int levels = 0;
};
CollectiveCost hierarchicalAllReduce(double bytes, const GroupPath& path,
                                     const EfficiencyParams& eff);
CollectiveCost hierarchicalReduceScatter(double bytes, const GroupPath& path,
                                         const EfficiencyParams& eff);
CollectiveCost hierarchicalAllGather(double bytes, const GroupPath& path,
                                     const EfficiencyParams& eff);
// All-to-all across levels: each level carries the share of the traffic whose destination
// lies outside the inner levels; levels run concurrently, the slowest decides.
CollectiveCost hierarchicalAllToAll(double bytes, const GroupPath& path,
                                    const EfficiencyParams& eff);

// Expert dispatch (or combine) under node-limited routing (DeepSeek-V3 report sections 2.1.2
// and 3.2.2): each token's `topK` expert copies of `tokenBytes` go to at most `maxNodes`
// nodes; a token crosses the scale-out fabric once per distinct remote node (to the GPU of the
// same local index), which forwards it over the scale-up domain to the GPUs of its experts
// (the combine reduces in the reverse order). The path's first level is the node's scale-up
// domain when it has one. Distinct nodes: the k experts spread uniformly over the
// r = min(maxNodes, nodes) nodes a token may reach, r (1 - (1 - 1/r)^k) occupied (Mitzenmacher
// and Upfal 2005, section 5.2, balls into bins), each remote with probability (nodes-1)/nodes.
// Fabric and scale-up run concurrently, the slower decides (DeepSeek-V3 section 3.2.2: "IB and
// NVLink are fully overlapped").
CollectiveCost nodeLimitedAllToAll(double tokenBytes, double topK, int maxNodes,
                                   const GroupPath& path, const EfficiencyParams& eff);
// Copies of one token that cross the scale-out fabric under that routing (the formula above),
// for `nodes` nodes of the expert-parallel group.
double remoteNodeCopies(double topK, int maxNodes, double nodes);

using CollectiveFn = CollectiveCost (*)(double, const GroupPath&, const EfficiencyParams&);

// The last few collectives one evaluation computed, by (function, bytes, path, efficiency):
// the model chunks of a pipeline and the ranks of a data-parallel tail ask for the same few
// over and over. Paths and efficiencies are compared by address, so a memo lives no longer
// than the placement analysis and catalog it was filled from (one evaluation). The cost is
// the function's, bit for bit.
class CollectiveMemo
{
public:
    const CollectiveCost& get(CollectiveFn fn, double bytes, const GroupPath& path,
                              const EfficiencyParams& eff);

private:
    struct Entry
    {
        CollectiveFn fn = nullptr;
        double bytes = 0.0;
        const GroupPath* path = nullptr;
        const EfficiencyParams* eff = nullptr;
        CollectiveCost cost;
    };
    static constexpr int kEntries = 16;
    Entry m_entries[kEntries];
    int m_size = 0;
    int m_next = 0; // the entry to replace when full (round robin)
};

} // namespace archipelago::core
