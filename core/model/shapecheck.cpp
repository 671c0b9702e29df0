#include "model/shapecheck.h"

#include "model/checkedmath.h"
#include "model/topologygraph.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace archipelago::core {

namespace {

using limits::kPositive;

std::string str(std::int64_t v)
{
    return std::to_string(v);
}

std::string childPointer(const std::string& parent, std::size_t index)
{
    return parent + '/' + std::to_string(index);
}

constexpr auto kDivide = ShapeCategory::DegreesDoNotDivide;
constexpr auto kInvalid = ShapeCategory::Invalid;

// One integer against its range. With ShapeRules::CostModel only the lower bound counts: the
// upper bounds keep a hostile file from exhausting memory or time, which a scenario built in
// code does not need. The pointer is built only for a finding (evaluate() runs this per call).
void checkIntLimit(ShapeFindings& out, std::string_view pointer, long long value,
                   const limits::IntLimit& limit, ShapeRules rules = ShapeRules::Scenario)
{
    const bool outside = rules == ShapeRules::Scenario ? !limit.contains(value) : value < limit.min;
    if (outside)
        out.error(kInvalid, std::string(pointer),
                  expectedGot(limit.expected, std::to_string(value)));
}

// The same for each entry of an array.
void checkIntLimits(ShapeFindings& out, std::string_view pointer, const std::vector<int>& values,
                    const limits::IntLimit& limit)
{
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!limit.contains(values[i]))
            checkIntLimit(out, std::string(pointer) + '/' + std::to_string(i), values[i], limit);
}

struct PlacementResult
{
    bool valid = false;
    std::int64_t dp = 0;
    std::vector<std::int64_t> placed; // GPUs per datacenter, in topology order (Scenario rules)
};

void checkDpReplicas(const Placement& placement, ShapeFindings& out)
{
    for (std::size_t i = 0; i < placement.shards.size(); ++i)
        if (!kPositive.contains(placement.shards[i].dpReplicas))
            checkIntLimit(out, "/placement/shards/" + std::to_string(i) + "/dp_replicas",
                          placement.shards[i].dpReplicas, kPositive);
}

// A shard's split of its TP or CP groups across datacenters (docs/scenario-format.md,
// "Placement"): legal, but every collective of that dimension then crosses the DCI, so it
// also warns.
bool checkSplit(const Scenario& s, std::size_t i, const std::unordered_map<Id, std::size_t>& index,
                ShapeFindings& out)
{
    const PlacementShard& shard = s.placement.shards[i];
    const std::string base = "/placement/shards/" + std::to_string(i);
    const std::string ptr = base + "/split_datacenters";
    const std::string dimPtr = base + "/split_dim";
    bool valid = true;
    std::vector<Id> seen;
    for (std::size_t j = 0; j < shard.splitDatacenters.size(); ++j) {
        const Id dc = shard.splitDatacenters[j];
        if (!index.contains(dc)) {
            out.error(kInvalid, childPointer(ptr, j), "no datacenter with id " + str(dc));
            valid = false;
        } else if (std::find(seen.begin(), seen.end(), dc) != seen.end()) {
            out.error(kInvalid, childPointer(ptr, j), "datacenter " + str(dc) + " is listed twice");
            valid = false;
        }
        seen.push_back(dc);
    }
    const auto k = static_cast<std::int64_t>(shard.splitDatacenters.size());
    if (k < 2) {
        out.error(kInvalid, ptr, "expected at least 2 datacenters to split across, got " + str(k));
        valid = false;
    }
    const bool tp = shard.splitDim == ParallelDim::Tp;
    if (!tp && shard.splitDim != ParallelDim::Cp) {
        out.error(kInvalid, dimPtr,
                  "expected tp or cp (the dimension split across datacenters), got " +
                      std::string(toString(shard.splitDim)));
        return false;
    }
    const int degree = tp ? s.parallelism.tp : s.parallelism.cp;
    if (k >= 2 && degree % k != 0) {
        out.error(kDivide, dimPtr,
                  std::string(tp ? "tp" : "cp") + " = " + str(degree) +
                      " is not divisible by the " + str(k) +
                      " split datacenters (each holds degree / k members of a group)");
        valid = false;
    }
    for (std::size_t j = 0; j < shard.stageDatacenters.size(); ++j)
        if (std::find(seen.begin(), seen.end(), shard.stageDatacenters[j]) == seen.end()) {
            out.error(kInvalid, childPointer(base + "/stage_datacenters", j),
                      "stage datacenter " + str(shard.stageDatacenters[j]) +
                          " is not one of the shard's split_datacenters");
            valid = false;
        }
    if (!valid || !out.keepsWarnings())
        return valid;
    std::string names;
    for (const Id dc : shard.splitDatacenters)
        names += (names.empty() ? "" : ", ") + s.topology.datacenters[index.at(dc)].name;
    out.warning(dimPtr, std::string(tp ? "TP " : "CP ") + str(degree) + " is split across " +
                            names + ": every " + (tp ? "tensor" : "context") +
                            "-parallel collective crosses the DCI link");
    return true;
}

// The stage lists of explicit shards, then the GPUs they put in each datacenter
// (docs/scenario-format.md, "Placement": tp * cp * dp_replicas per stage entry).
PlacementResult checkShards(const Scenario& s, ShapeFindings& out)
{
    const Topology& t = s.topology;
    const Parallelism& p = s.parallelism;
    PlacementResult result;
    result.placed.assign(t.datacenters.size(), 0);
    std::unordered_map<Id, std::size_t> index;
    for (std::size_t i = 0; i < t.datacenters.size(); ++i)
        index.emplace(t.datacenters[i].id, i);
    bool valid = true;
    for (std::size_t i = 0; i < s.placement.shards.size(); ++i) {
        const PlacementShard& shard = s.placement.shards[i];
        const std::string ptr = "/placement/shards/" + std::to_string(i) + "/stage_datacenters";
        if (shard.stageDatacenters.size() != static_cast<std::size_t>(p.pp)) {
            out.error(kInvalid, ptr,
                      "expected pp = " + str(p.pp) +
                          " entries (one datacenter per "
                          "pipeline stage), got " +
                          str(static_cast<std::int64_t>(shard.stageDatacenters.size())));
            valid = false;
            continue;
        }
        for (std::size_t j = 0; j < shard.stageDatacenters.size(); ++j)
            if (!index.contains(shard.stageDatacenters[j])) {
                out.error(kInvalid, childPointer(ptr, j),
                          "no datacenter with id " + str(shard.stageDatacenters[j]));
                valid = false;
            }
        // A split_dim without split_datacenters is reported too (it would be silently unused).
        const bool splitGiven =
            !shard.splitDatacenters.empty() || shard.splitDim != ParallelDim::Tp;
        if (splitGiven && !checkSplit(s, i, index, out))
            valid = false;
    }
    if (!valid)
        return result;
    const std::int64_t perReplica = std::int64_t{p.tp} * p.cp; // < 2^62
    for (const PlacementShard& shard : s.placement.shards) {
        result.dp += shard.dpReplicas;
        // Saturates: an absurd product is reported as a mismatch, not an overflow.
        const std::int64_t perStage =
            checkedMul(perReplica, shard.dpReplicas).value_or(kMaxGpus + 1);
        if (shard.split()) {
            // A split shard puts tp * cp * dp_replicas * pp / k GPUs in each split datacenter.
            const auto k = static_cast<std::int64_t>(shard.splitDatacenters.size());
            const std::int64_t each =
                checkedMul(std::min(perStage, kMaxGpus + 1), p.pp).value_or(kMaxGpus + 1) / k;
            for (Id dc : shard.splitDatacenters) {
                std::int64_t& placed = result.placed[index.at(dc)];
                placed = std::min(placed + std::min(each, kMaxGpus + 1), kMaxGpus + 1);
            }
            continue;
        }
        for (Id dc : shard.stageDatacenters) {
            std::int64_t& placed = result.placed[index.at(dc)];
            placed = std::min(placed + std::min(perStage, kMaxGpus + 1), kMaxGpus + 1);
        }
    }
    result.valid = true;
    return result;
}

// The data-parallel degree the placement implies. Without shards the whole job runs in the
// first datacenter; with shards the cost model needs at least one replica (it skips empty
// shards), while a file needs every shard's stage list to be right.
PlacementResult checkPlacement(const Scenario& s, ShapeRules rules, ShapeFindings& out)
{
    const Parallelism& p = s.parallelism;
    if (!s.placement.shards.empty()) {
        if (rules == ShapeRules::Scenario)
            return checkShards(s, out);
        PlacementResult result;
        for (const PlacementShard& shard : s.placement.shards)
            result.dp += shard.dpReplicas;
        result.valid = result.dp >= 1;
        if (!result.valid)
            checkDpReplicas(s.placement, out);
        return result;
    }
    PlacementResult result;
    result.placed.assign(s.topology.datacenters.size(), 0);
    const Datacenter& first = s.topology.datacenters.front();
    const std::int64_t gpus = gpusInDatacenter(first);
    const auto modelParallel = checkedMul(std::int64_t{p.tp} * p.cp, p.pp);
    if (!modelParallel || gpus < *modelParallel || gpus % *modelParallel != 0) {
        out.error(kDivide, "/parallelism",
                  "tp * cp * pp = " + str(p.tp) + " * " + str(p.cp) + " * " + str(p.pp) +
                      " does not divide the " + str(gpus) + " GPUs of datacenter " +
                      describeDatacenter(first) +
                      " (without placement.shards the whole job runs in the first "
                      "datacenter)");
        return result;
    }
    result.dp = gpus / *modelParallel;
    result.placed[0] = gpus;
    result.valid = true;
    return result;
}

// Every GPU of the topology placed, and none twice (ShapeRules::Scenario only: a scenario
// being edited may leave GPUs idle, and the cost model counts only those placed).
void checkGpuAccounting(const Scenario& s, const PlacementResult& placement, ShapeFindings& out)
{
    const Topology& t = s.topology;
    const Parallelism& p = s.parallelism;
    const std::int64_t total = totalGpus(t);
    const auto product = checkedProduct(p.tp, p.cp, p.pp, placement.dp);
    // More GPUs placed than the topology holds is an error; fewer is legal (spare GPUs, which
    // the explorer's DP dimension uses), with a warning per datacenter below.
    if (!product || *product > total)
        out.error(kDivide, "/parallelism",
                  "tp * cp * pp * dp = " + str(p.tp) + " * " + str(p.cp) + " * " + str(p.pp) +
                      " * " + str(placement.dp) +
                      (product ? " = " + str(*product) : " (overflow)") +
                      ", but the topology holds " + str(total) + " GPUs");
    for (std::size_t i = 0; i < t.datacenters.size(); ++i) {
        const std::int64_t gpus = gpusInDatacenter(t.datacenters[i]);
        const auto ptr = [i] { return "/topology/datacenters/" + std::to_string(i); };
        if (placement.placed[i] > gpus)
            out.error(kInvalid, ptr(),
                      "datacenter " + describeDatacenter(t.datacenters[i]) + " holds " + str(gpus) +
                          " GPUs, but the placement puts " + str(placement.placed[i]) +
                          " there (tp * cp * dp_replicas per entry of a shard's "
                          "stage_datacenters)");
        else if (placement.placed[i] < gpus && out.keepsWarnings())
            out.warning(ptr(),
                        warningText(spareGpusWarning(t.datacenters[i], gpus, placement.placed[i])));
    }
}

// How the layers split into pipeline stages and virtual-stage chunks. The cost model runs any
// split in which every chunk holds a layer; a file must also divide evenly when it gives no
// explicit split, as Megatron-LM requires (num_layers % (pp * vp) in arguments.py).
void checkPipeline(const Scenario& s, ShapeRules rules, ShapeFindings& out)
{
    const bool strict = rules == ShapeRules::Scenario;
    const Parallelism& p = s.parallelism;
    const int layers = s.workload.layers;
    const int v = p.virtualStages;
    if (p.pp > layers)
        out.error(kDivide, "/parallelism/pp",
                  "pp = " + str(p.pp) + " exceeds the " + str(layers) +
                      " layers (every stage needs at least one layer)");
    if (v > 1) {
        if (strict && p.pp == 1)
            out.error(kInvalid, "/parallelism/virtual_stages",
                      "virtual_stages = " + str(v) +
                          " needs pp > 1 (interleaving splits each "
                          "pipeline rank's layers into chunks)");
        if (s.schedule.kind != ScheduleKind::Interleaved1F1B && out.keepsWarnings())
            out.warning("/parallelism/virtual_stages", "virtual_stages = " + str(v) +
                                                           " takes effect only with schedule "
                                                           "interleaved-1f1b, not " +
                                                           toString(s.schedule.kind));
        const std::int64_t chunks = std::int64_t{p.pp} * v;
        const bool uneven = strict ? layers % chunks != 0 : layers < chunks;
        if (s.placement.layersPerStage.empty() && uneven)
            out.error(kDivide, "/parallelism/virtual_stages",
                      "layers = " + str(layers) +
                          " is not divisible by pp * virtual_stages = " + str(chunks) +
                          " (give placement.layers_per_stage for an uneven "
                          "split)");
    } else if (s.schedule.kind == ScheduleKind::Interleaved1F1B) {
        out.warning("/schedule/kind", "interleaved-1f1b with virtual_stages = 1 is plain 1F1B");
    }

    const std::vector<int>& split = s.placement.layersPerStage;
    if (split.empty())
        return;
    const std::string ptr = "/placement/layers_per_stage";
    if (split.size() != static_cast<std::size_t>(p.pp)) {
        out.error(kInvalid, ptr,
                  "expected pp = " + str(p.pp) + " entries, got " +
                      str(static_cast<std::int64_t>(split.size())));
        return;
    }
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < split.size(); ++i) {
        sum += split[i];
        if (split[i] < v)
            out.error(kDivide, childPointer(ptr, i),
                      "stage " + std::to_string(i) + " has " + str(split[i]) +
                          " layers, fewer than its " + str(v) + " virtual stages");
    }
    if (sum != layers)
        out.error(kInvalid, ptr,
                  "the stages hold " + str(sum) +
                      " layers in total, expected layers = " + str(layers));
}

// Tensor and expert parallelism against the model's matrices.
void checkModelShape(const Scenario& s, const PlacementResult& placement, ShapeRules rules,
                     ShapeFindings& out)
{
    const bool strict = rules == ShapeRules::Scenario;
    const Workload& w = s.workload;
    const Parallelism& p = s.parallelism;
    const auto tp = [&] { return "tp = " + str(p.tp); };
    if (w.heads % p.tp != 0)
        out.error(kDivide, "/parallelism/tp", tp() + " does not divide heads = " + str(w.heads));
    if (strict && (w.kvHeads > w.heads || w.heads % w.kvHeads != 0))
        out.error(kDivide, "/workload/kv_heads",
                  "kv_heads = " + str(w.kvHeads) + " must divide heads = " + str(w.heads));
    // Megatron: num_query_groups % tensor_model_parallel_size == 0 (each TP rank holds whole
    // KV groups). The cost model also runs tp > kv_heads, with KV heads replicated across TP
    // ranks.
    else if (w.kvHeads % p.tp != 0 && (strict || p.tp <= w.kvHeads))
        out.error(kDivide, "/parallelism/tp",
                  tp() + " does not divide kv_heads = " + str(w.kvHeads) +
                      " (each TP rank must hold whole KV groups)");
    if (strict && w.hidden % w.heads != 0)
        out.error(kDivide, "/workload/hidden",
                  "hidden = " + str(w.hidden) + " is not divisible by heads = " + str(w.heads));
    if (strict && w.ffnHidden % p.tp != 0)
        out.error(kDivide, "/parallelism/tp",
                  tp() + " does not divide ffn_hidden = " + str(w.ffnHidden));
    // The vocabulary needs no check: Megatron pads it to a multiple of 128 * tp.

    const MoeConfig& moe = w.moe;
    if (!moe.enabled() && strict) {
        if (p.ep > 1)
            out.error(kInvalid, "/parallelism/ep",
                      "ep = " + str(p.ep) +
                          " needs a mixture-of-experts workload "
                          "(workload.moe.experts > 0)");
        return;
    }
    if (moe.enabled()) {
        if (strict && moe.expertFfnHidden % p.tp != 0)
            out.error(kDivide, "/parallelism/tp",
                      tp() +
                          " does not divide moe.expert_ffn_hidden = " + str(moe.expertFfnHidden));
        if (strict && moe.firstDenseLayers >= w.layers)
            out.error(kInvalid, "/workload/moe/first_dense_layers",
                      "first_dense_layers = " + str(moe.firstDenseLayers) +
                          " leaves no MoE layer among the " + str(w.layers));
        if (moe.experts % p.ep != 0)
            out.error(kDivide, "/parallelism/ep",
                      "ep = " + str(p.ep) + " does not divide experts = " + str(moe.experts));
    }
    // Expert parallelism is carved out of DP x CP (parallel_state.initialize_model_parallel).
    if (placement.valid && (placement.dp * p.cp) % p.ep != 0)
        out.error(kDivide, "/parallelism/ep",
                  "ep = " + str(p.ep) + " does not divide dp * cp = " + str(placement.dp) + " * " +
                      str(p.cp));
}

void checkSequenceAndBatch(const Scenario& s, const PlacementResult& placement, ShapeRules rules,
                           ShapeFindings& out)
{
    const Workload& w = s.workload;
    const Parallelism& p = s.parallelism;
    if (rules == ShapeRules::Scenario) {
        // Context parallelism splits the sequence into 2 * cp chunks for load balance under the
        // causal mask (Megatron get_batch_on_this_cp_rank).
        if (p.cp > 1 && w.seqLen % (2 * std::int64_t{p.cp}) != 0)
            out.error(kDivide, "/parallelism/cp",
                      "seq_len = " + str(w.seqLen) +
                          " is not divisible by 2 * cp = " + str(2 * std::int64_t{p.cp}));
        if (p.sequenceParallel && p.tp == 1)
            out.warning("/parallelism/sequence_parallel", "sequence parallelism has no effect "
                                                          "with tp = 1");
        else if (p.sequenceParallel && (w.seqLen / p.cp) % p.tp != 0)
            out.error(kDivide, "/parallelism/tp",
                      "tp = " + str(p.tp) + " does not divide the sequence per CP rank (" +
                          str(w.seqLen / p.cp) + ") for sequence parallelism");
    }
    if (!placement.valid)
        return;
    const auto perStep = checkedMul(p.microBatch, placement.dp);
    if (!perStep || w.globalBatch % *perStep != 0)
        out.error(kDivide, "/workload/global_batch",
                  "global_batch = " + str(w.globalBatch) +
                      " is not divisible by micro_batch * dp = " + str(p.microBatch) + " * " +
                      str(placement.dp));
    // DualPipe: pp and the micro-batch count even (DeepSeek-V3 report section 3.2.1), and at
    // least 2 * pp micro-batches, so that each direction fills every rank (dualpipe.py asserts
    // num_chunks >= num_ranks * 2). The pipeline simulator checks the same.
    if (s.schedule.kind == ScheduleKind::DualPipe && perStep && w.globalBatch % *perStep == 0) {
        const std::int64_t m = w.globalBatch / *perStep;
        if (p.pp % 2 != 0 || m % 2 != 0 || m < 2 * std::int64_t{p.pp})
            out.error(kDivide, "/schedule/kind",
                      "dualpipe needs an even pp and an even number of micro-batches, at least "
                      "2 * pp (pp = " +
                          str(p.pp) + ", " + str(m) + " micro-batches)");
    }
}

// Distributed-optimizer instances (Megatron-Core num_distributed_optimizer_instances): each is
// dp / instances consecutive data-parallel replicas (parallel_state.py cuts the dp-cp ranks
// into contiguous intra-instance groups), so the count must divide DP; the scheme only exists
// with the distributed optimizer (param_and_grad_buffer.py: the cross-instance all-reduce
// runs only under use_distributed_optimizer); and an instance that straddles two buildings
// would put its reduce-scatter and all-gather on the DCI, which the scheme is there to avoid:
// every instance lies in one datacenter, shards taken in order as the placement ranks them.
void checkOptimizerInstances(const Scenario& s, const PlacementResult& placement,
                             ShapeFindings& out)
{
    const Parallelism& p = s.parallelism;
    const int n = p.distributedOptimizerInstances;
    if (n <= 1 || !placement.valid)
        return;
    const std::string ptr = "/parallelism/distributed_optimizer_instances";
    if (!p.distributedOptimizer || p.zeroStage > 1) {
        out.error(kInvalid, ptr,
                  "distributed_optimizer_instances = " + str(n) +
                      " needs distributed_optimizer: true and zero_stage 0 or 1 (Megatron-Core "
                      "partial distributed optimizer)");
        return;
    }
    if (placement.dp % n != 0) {
        out.error(kDivide, ptr,
                  "distributed_optimizer_instances = " + str(n) +
                      " does not divide dp = " + str(placement.dp));
        return;
    }
    const std::int64_t size = placement.dp / n; // replicas per instance
    for (int stage = 0; stage < p.pp; ++stage) {
        std::vector<Id> home(static_cast<std::size_t>(n), -1);
        std::int64_t pos = 0;
        for (const PlacementShard& shard : s.placement.shards) {
            if (shard.dpReplicas <= 0 || shard.split() ||
                shard.stageDatacenters.size() != static_cast<std::size_t>(p.pp))
                continue;
            const Id dc = shard.stageDatacenters[static_cast<std::size_t>(stage)];
            const std::int64_t last =
                std::min<std::int64_t>(n - 1, (pos + shard.dpReplicas - 1) / size);
            for (std::int64_t i = pos / size; i <= last; ++i) {
                Id& h = home[static_cast<std::size_t>(i)];
                if (h >= 0 && h != dc) {
                    auto name = [&](Id id) {
                        const Datacenter* d = findDatacenter(s.topology, id);
                        return d ? describeDatacenter(*d) : str(id);
                    };
                    out.error(kInvalid, ptr,
                              "distributed_optimizer_instances = " + str(n) + ": instance " +
                                  str(i) + " (" + str(size) +
                                  " consecutive DP replicas) spans datacenters " + name(h) +
                                  " and " + name(dc) + " at pipeline stage " + str(stage) +
                                  "; choose a count whose instances each lie in one building "
                                  "(e.g. one per datacenter the DP group spans)");
                    return;
                }
                h = dc;
            }
            pos += shard.dpReplicas;
        }
    }
}

// TP outside the scale-up domain is legal but runs its collectives on the scale-out fabric.
void checkScaleUp(const Scenario& s, const PlacementResult& placement, ShapeFindings& out)
{
    const auto& dcs = s.topology.datacenters;
    for (std::size_t i = 0; i < dcs.size(); ++i) {
        const int domain = scaleUpDomainGpus(dcs[i]);
        if (placement.placed[i] > 0 && s.parallelism.tp > domain && out.keepsWarnings())
            out.warning("/parallelism/tp",
                        "tp = " + str(s.parallelism.tp) + " exceeds the " + str(domain) +
                            "-GPU scale-up domain of datacenter " + describeDatacenter(dcs[i]) +
                            ": tensor-parallel traffic crosses the scale-out fabric");
    }
}

} // namespace

// Every datacenter reachable from the first over DCI links (ShapeRules::Scenario only: a
// datacenter just drawn on the canvas is not linked yet, and the cost model needs a route
// only between the datacenters that the placement uses).
void checkConnectivity(const Topology& t, ShapeFindings& out)
{
    if (t.datacenters.size() < 2)
        return;
    const TopologyGraph graph(t);
    if (graph.isConnected())
        return;
    const std::vector<int>& component = graph.components();
    constexpr int kMaxNamed = 10;
    std::string names;
    int unreachable = 0;
    for (std::size_t i = 1; i < t.datacenters.size(); ++i) {
        if (component[i] == component[0])
            continue;
        if (++unreachable <= kMaxNamed)
            names += (names.empty() ? "" : ", ") + describeDatacenter(t.datacenters[i]);
    }
    if (unreachable > kMaxNamed)
        names += " and " + std::to_string(unreachable - kMaxNamed) + " more";
    out.error(kInvalid, "/topology/dci_links",
              "the datacenter graph is not connected: no DCI path from " +
                  describeDatacenter(t.datacenters[0]) + " to " + names);
}

Warning spareGpusWarning(const Datacenter& dc, std::int64_t heldGpus, std::int64_t placedGpus)
{
    return Warning{WarningCode::SpareGpus}
        .name("datacenter", dc.name)
        .count("datacenter_id", dc.id)
        .count("held_gpus", heldGpus)
        .count("placed_gpus", placedGpus)
        .count("spare_gpus", heldGpus - placedGpus);
}

WarningCode warningCode(ShapeCategory category)
{
    switch (category) {
    case ShapeCategory::UnknownAccelerator:
        return WarningCode::UnknownAccelerator;
    case ShapeCategory::DegreesDoNotDivide:
        return WarningCode::DegreesDoNotDivide;
    case ShapeCategory::Invalid:
        break;
    }
    return WarningCode::Invalid;
}

void ShapeFindings::error(ShapeCategory category, std::string pointer, std::string message)
{
    if (!hasErrors())
        m_firstError = m_all.size();
    m_all.push_back(
        {category, {Diagnostic::Severity::Error, {}, std::move(pointer), std::move(message)}});
}

void ShapeFindings::warning(std::string pointer, std::string message)
{
    if (!m_keepWarnings)
        return;
    m_all.push_back({ShapeCategory::Invalid,
                     {Diagnostic::Severity::Warning, {}, std::move(pointer), std::move(message)}});
}

const ShapeFinding* ShapeFindings::firstError() const
{
    return hasErrors() ? &m_all[m_firstError] : nullptr;
}

std::string describeDatacenter(const Datacenter& dc)
{
    return "\"" + dc.name + "\" (id " + std::to_string(dc.id) + ")";
}

std::string expectedGot(std::string_view expected, std::string_view got)
{
    std::string out = "expected ";
    out += expected;
    out += ", got ";
    out += got;
    return out;
}

std::optional<std::string> catalogNameProblem(const std::string& name, const char* kind,
                                              bool optional, bool known)
{
    if (name.empty())
        return optional ? std::nullopt
                        : std::optional<std::string>(std::string("expected the name of a ") +
                                                     "catalog " + kind + ", got \"\"");
    if (known)
        return std::nullopt;
    return std::string("unknown ") + kind + " \"" + name +
           "\" (not in the built-in catalog nor the scenario's catalog)";
}

void checkDatacentersPresent(const Topology& topology, ShapeFindings& out)
{
    if (topology.datacenters.empty())
        out.error(kInvalid, "/topology/datacenters", "expected at least one datacenter, got none");
}

void checkAccelerator(const Datacenter& dc, std::size_t index, const Catalog& catalog,
                      ShapeFindings& out)
{
    const bool known = !dc.accelerator.empty() && catalog.accelerator(dc.accelerator) != nullptr;
    if (auto problem = catalogNameProblem(dc.accelerator, "accelerator", false, known))
        out.error(ShapeCategory::UnknownAccelerator,
                  "/topology/datacenters/" + std::to_string(index) + "/accelerator",
                  std::move(*problem));
}

void checkWorkloadDimensions(const Workload& w, ShapeRules rules, ShapeFindings& out)
{
    using namespace limits;
    checkIntLimit(out, "/workload/layers", w.layers, kLayers, rules);
    checkIntLimit(out, "/workload/hidden", w.hidden, kPositive, rules);
    checkIntLimit(out, "/workload/heads", w.heads, kPositive, rules);
    checkIntLimit(out, "/workload/kv_heads", w.kvHeads, kPositive, rules);
    checkIntLimit(out, "/workload/ffn_hidden", w.ffnHidden, kPositive, rules);
    checkIntLimit(out, "/workload/vocab", w.vocab, kPositive, rules);
    checkIntLimit(out, "/workload/seq_len", w.seqLen, kPositive, rules);
    checkIntLimit(out, "/workload/global_batch", w.globalBatch, kGlobalBatch, rules);
}

void checkMoeFields(const Workload& w, ShapeFindings& out)
{
    using namespace limits;
    const MoeConfig& moe = w.moe;
    checkIntLimit(out, "/workload/moe/experts", moe.experts, kNonNegative);
    if (!moe.enabled())
        return;
    const std::string topK = "an integer in 1..experts (" + std::to_string(moe.experts) + ")";
    checkIntLimit(out, "/workload/moe/top_k", moe.topK, {1, moe.experts, topK});
    checkIntLimit(out, "/workload/moe/expert_ffn_hidden", moe.expertFfnHidden, kPositive);
    checkIntLimit(out, "/workload/moe/shared_experts", moe.sharedExperts, kNonNegative);
    checkIntLimit(out, "/workload/moe/first_dense_layers", moe.firstDenseLayers, kNonNegative);
    checkIntLimit(out, "/workload/moe/max_nodes_per_token", moe.maxNodesPerToken, kNonNegative);
}

void checkMlaFields(const Workload& w, ShapeFindings& out)
{
    using namespace limits;
    const MlaConfig& mla = w.mla;
    if (mla == MlaConfig{})
        return;
    checkIntLimit(out, "/workload/attention/q_lora_rank", mla.qLoraRank, kNonNegative);
    checkIntLimit(out, "/workload/attention/kv_lora_rank", mla.kvLoraRank, kPositive);
    checkIntLimit(out, "/workload/attention/qk_nope_head_dim", mla.qkNopeHeadDim, kPositive);
    checkIntLimit(out, "/workload/attention/qk_rope_head_dim", mla.qkRopeHeadDim, kNonNegative);
    checkIntLimit(out, "/workload/attention/v_head_dim", mla.vHeadDim, kPositive);
}

void checkParallelismFields(const Scenario& s, ShapeRules rules, ShapeFindings& out)
{
    using namespace limits;
    const bool strict = rules == ShapeRules::Scenario;
    const Parallelism& p = s.parallelism;
    checkIntLimit(out, "/parallelism/tp", p.tp, kPositive);
    checkIntLimit(out, "/parallelism/cp", p.cp, kPositive);
    checkIntLimit(out, "/parallelism/pp", p.pp, kPositive);
    checkIntLimit(out, "/parallelism/ep", p.ep, kPositive);
    checkIntLimit(out, "/parallelism/virtual_stages", p.virtualStages, kPositive);
    checkIntLimit(out, "/parallelism/micro_batch", p.microBatch, kPositive);
    checkIntLimit(out, "/parallelism/distributed_optimizer_instances",
                  p.distributedOptimizerInstances, kPositive);
    const DatacenterSyncOptions& sync = p.datacenterSync;
    checkIntLimit(out, "/parallelism/datacenter_sync/inner_steps", sync.innerSteps, kInnerSteps);
    checkIntLimit(out, "/parallelism/datacenter_sync/outer_gradient_bits", sync.outerGradientBits,
                  kOuterGradientBits);
    checkIntLimit(out, "/parallelism/datacenter_sync/fragments", sync.fragments, kFragments);
    checkIntLimit(out, "/parallelism/datacenter_sync/overlap_steps", sync.overlapSteps,
                  kOverlapSteps);
    if (strict) {
        checkIntLimit(out, "/parallelism/zero_stage", p.zeroStage, kZeroStage);
        checkIntLimit(out, "/schedule/extra_in_flight_at_dci", s.schedule.extraInFlightAtDci,
                      kExtraInFlight);
    }

    const Placement& pl = s.placement;
    if (strict) {
        const std::unordered_set<ParallelDim> dims(pl.rankOrder.begin(), pl.rankOrder.end());
        if (pl.rankOrder.size() != 5 || dims.size() != 5)
            out.error(kInvalid, "/placement/rank_order",
                      "expected each of tp, cp, ep, dp, pp exactly once, got " +
                          std::to_string(pl.rankOrder.size()) + " entries with " +
                          std::to_string(dims.size()) + " distinct");
        // The cost model skips an empty shard; its rule is in checkPlacement.
        checkDpReplicas(pl, out);
    }
    checkIntLimits(out, "/placement/layers_per_stage", pl.layersPerStage, kPositive);
}

void checkShapeConsistency(const Scenario& scenario, ShapeRules rules, ShapeFindings& out,
                           TopologyRules topology)
{
    const bool strict = rules == ShapeRules::Scenario;
    if (strict && topology == TopologyRules::Run)
        checkConnectivity(scenario.topology, out);
    const PlacementResult placement = checkPlacement(scenario, rules, out);
    if (strict && placement.valid)
        checkGpuAccounting(scenario, placement, out);
    checkPipeline(scenario, rules, out);
    checkModelShape(scenario, placement, rules, out);
    checkSequenceAndBatch(scenario, placement, rules, out);
    checkOptimizerInstances(scenario, placement, out);
    if (strict && placement.valid)
        checkScaleUp(scenario, placement, out);
}

ShapeFindings checkCostModelShape(const Scenario& scenario, const Catalog& catalog)
{
    constexpr ShapeRules rules = ShapeRules::CostModel;
    ShapeFindings out;
    checkDatacentersPresent(scenario.topology, out);
    for (std::size_t i = 0; i < scenario.topology.datacenters.size(); ++i)
        checkAccelerator(scenario.topology.datacenters[i], i, catalog, out);
    checkWorkloadDimensions(scenario.workload, rules, out);
    checkParallelismFields(scenario, rules, out);
    if (!out.hasErrors())
        checkShapeConsistency(scenario, rules, out);
    return out;
}

} // namespace archipelago::core
