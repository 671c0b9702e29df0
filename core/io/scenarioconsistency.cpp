// Phase 2 of the semantic checks: how the values fit together. Runs only on a scenario whose
// values passed phase 1 (positive degrees, resolvable ids, at most kMaxGpus GPUs), so divisions
// are safe and GPU counts fit in int64; products of degrees are still computed checked.
// Divisibility rules are Megatron-LM's (megatron/core/transformer/transformer_config.py,
// megatron/training/arguments.py, megatron/core/parallel_state.py), because the cost model
// describes Megatron-style training.
#include "io/scenariocheck.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace archipelago::core {

namespace {

std::optional<std::int64_t> checkedMul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

std::string str(std::int64_t v)
{
    return std::to_string(v);
}

struct PlacementResult
{
    bool valid = false;
    std::int64_t dp = 0;
    std::vector<std::int64_t> placed; // GPUs per datacenter, in topology order
};

// A shard's split of its TP or CP groups across datacenters (docs/scenario-format.md,
// "Placement"): legal, but every collective of that dimension then crosses the DCI, so it
// also warns (issue 4 item 2: "TP, CP or EP across datacenters allowed with a warning").
bool checkSplit(const Scenario& s, std::size_t i, const std::unordered_map<Id, std::size_t>& index,
                DiagnosticSink& sink)
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
            sink.error(childPointer(ptr, j), "no datacenter with id " + str(dc));
            valid = false;
        } else if (std::find(seen.begin(), seen.end(), dc) != seen.end()) {
            sink.error(childPointer(ptr, j), "datacenter " + str(dc) + " is listed twice");
            valid = false;
        }
        seen.push_back(dc);
    }
    const auto k = static_cast<std::int64_t>(shard.splitDatacenters.size());
    if (k < 2) {
        sink.error(ptr, "expected at least 2 datacenters to split across, got " + str(k));
        valid = false;
    }
    const bool tp = shard.splitDim == ParallelDim::Tp;
    if (!tp && shard.splitDim != ParallelDim::Cp) {
        sink.error(dimPtr, "expected tp or cp (the dimension split across datacenters), got " +
                               std::string(toString(shard.splitDim)));
        return false;
    }
    const int degree = tp ? s.parallelism.tp : s.parallelism.cp;
    if (k >= 2 && degree % k != 0) {
        sink.error(dimPtr, std::string(tp ? "tp" : "cp") + " = " + str(degree) +
                               " is not divisible by the " + str(k) +
                               " split datacenters (each holds degree / k members of a group)");
        valid = false;
    }
    for (std::size_t j = 0; j < shard.stageDatacenters.size(); ++j)
        if (std::find(seen.begin(), seen.end(), shard.stageDatacenters[j]) == seen.end()) {
            sink.error(childPointer(base + "/stage_datacenters", j),
                       "stage datacenter " + str(shard.stageDatacenters[j]) +
                           " is not one of the shard's split_datacenters");
            valid = false;
        }
    if (!valid)
        return false;
    std::string names;
    for (const Id dc : shard.splitDatacenters)
        names += (names.empty() ? "" : ", ") + s.topology.datacenters[index.at(dc)].name;
    sink.warning(dimPtr, std::string(tp ? "TP " : "CP ") + str(degree) + " is split across " +
                             names + ": every " + (tp ? "tensor" : "context") +
                             "-parallel collective crosses the DCI link");
    return true;
}

// Stage lists, then the GPUs the shards put in each datacenter (docs/scenario-format.md,
// "Placement": tp * cp * dp_replicas per stage entry).
PlacementResult checkPlacement(const Scenario& s, DiagnosticSink& sink)
{
    const Topology& t = s.topology;
    const Parallelism& p = s.parallelism;
    PlacementResult out;
    out.placed.assign(t.datacenters.size(), 0);
    const std::int64_t perReplica = std::int64_t{p.tp} * p.cp; // < 2^62
    if (s.placement.shards.empty()) {
        const Datacenter& first = t.datacenters.front();
        const std::int64_t gpus = gpusInDatacenter(first);
        const auto modelParallel = checkedMul(perReplica, p.pp);
        if (!modelParallel || gpus % *modelParallel != 0) {
            sink.error("/parallelism",
                       "tp * cp * pp = " + str(p.tp) + " * " + str(p.cp) + " * " + str(p.pp) +
                           " does not divide the " + str(gpus) + " GPUs of datacenter " +
                           describeDatacenter(first) +
                           " (without placement.shards the whole job runs in the first "
                           "datacenter)");
            return out;
        }
        out.dp = gpus / *modelParallel;
        out.placed[0] = gpus;
        out.valid = true;
        return out;
    }

    std::unordered_map<Id, std::size_t> index;
    for (std::size_t i = 0; i < t.datacenters.size(); ++i)
        index.emplace(t.datacenters[i].id, i);
    bool valid = true;
    for (std::size_t i = 0; i < s.placement.shards.size(); ++i) {
        const PlacementShard& shard = s.placement.shards[i];
        const std::string ptr = "/placement/shards/" + std::to_string(i) + "/stage_datacenters";
        if (shard.stageDatacenters.size() != static_cast<std::size_t>(p.pp)) {
            sink.error(ptr, "expected pp = " + str(p.pp) +
                                " entries (one datacenter per "
                                "pipeline stage), got " +
                                str(static_cast<std::int64_t>(shard.stageDatacenters.size())));
            valid = false;
            continue;
        }
        for (std::size_t j = 0; j < shard.stageDatacenters.size(); ++j)
            if (!index.contains(shard.stageDatacenters[j])) {
                sink.error(childPointer(ptr, j),
                           "no datacenter with id " + str(shard.stageDatacenters[j]));
                valid = false;
            }
        // A split_dim without split_datacenters is reported too (it would be silently unused).
        const bool splitGiven =
            !shard.splitDatacenters.empty() || shard.splitDim != ParallelDim::Tp;
        if (splitGiven && !checkSplit(s, i, index, sink))
            valid = false;
    }
    if (!valid)
        return out;
    for (const PlacementShard& shard : s.placement.shards) {
        out.dp += shard.dpReplicas;
        // Saturates: an absurd product is reported as a mismatch below, not an overflow.
        const std::int64_t perStage =
            checkedMul(perReplica, shard.dpReplicas).value_or(kMaxGpus + 1);
        if (shard.split()) {
            // A split shard puts tp * cp * dp_replicas * pp / k GPUs in each split datacenter.
            const auto k = static_cast<std::int64_t>(shard.splitDatacenters.size());
            const std::int64_t each =
                checkedMul(std::min(perStage, kMaxGpus + 1), p.pp).value_or(kMaxGpus + 1) / k;
            for (Id dc : shard.splitDatacenters) {
                std::int64_t& placed = out.placed[index.at(dc)];
                placed = std::min(placed + std::min(each, kMaxGpus + 1), kMaxGpus + 1);
            }
            continue;
        }
        for (Id dc : shard.stageDatacenters) {
            std::int64_t& placed = out.placed[index.at(dc)];
            placed = std::min(placed + std::min(perStage, kMaxGpus + 1), kMaxGpus + 1);
        }
    }
    out.valid = true;
    return out;
}

void checkGpuAccounting(const Scenario& s, const PlacementResult& placement, DiagnosticSink& sink)
{
    const Topology& t = s.topology;
    const Parallelism& p = s.parallelism;
    const std::int64_t total = totalGpus(t);
    const auto product = checkedMul(std::int64_t{p.tp} * p.cp, std::int64_t{p.pp} * placement.dp);
    if (!product || *product != total)
        sink.error("/parallelism", "tp * cp * pp * dp = " + str(p.tp) + " * " + str(p.cp) + " * " +
                                       str(p.pp) + " * " + str(placement.dp) +
                                       (product ? " = " + str(*product) : " (overflow)") +
                                       ", but the topology holds " + str(total) + " GPUs");
    for (std::size_t i = 0; i < t.datacenters.size(); ++i) {
        const std::int64_t gpus = gpusInDatacenter(t.datacenters[i]);
        if (placement.placed[i] != gpus)
            sink.error("/topology/datacenters/" + std::to_string(i),
                       "datacenter " + describeDatacenter(t.datacenters[i]) + " holds " +
                           str(gpus) + " GPUs, but the placement puts " + str(placement.placed[i]) +
                           " there (tp * cp * dp_replicas per entry of a shard's "
                           "stage_datacenters)");
    }
}

void checkPipeline(const Scenario& s, DiagnosticSink& sink)
{
    const Parallelism& p = s.parallelism;
    const int layers = s.workload.layers;
    const int v = p.virtualStages;
    if (p.pp > layers)
        sink.error("/parallelism/pp", "pp = " + str(p.pp) + " exceeds the " + str(layers) +
                                          " layers (every stage needs at least one layer)");
    if (v > 1) {
        if (p.pp == 1)
            sink.error("/parallelism/virtual_stages", "virtual_stages = " + str(v) +
                                                          " needs pp > 1 (interleaving splits each "
                                                          "pipeline rank's layers into chunks)");
        if (s.schedule.kind != ScheduleKind::Interleaved1F1B)
            sink.warning("/parallelism/virtual_stages", "virtual_stages = " + str(v) +
                                                            " takes effect only with schedule "
                                                            "interleaved-1f1b, not " +
                                                            toString(s.schedule.kind));
        const std::int64_t chunks = std::int64_t{p.pp} * v;
        if (s.placement.layersPerStage.empty() && layers % chunks != 0)
            sink.error("/parallelism/virtual_stages",
                       "layers = " + str(layers) +
                           " is not divisible by pp * virtual_stages = " + str(chunks) +
                           " (give placement.layers_per_stage for an uneven "
                           "split)");
    } else if (s.schedule.kind == ScheduleKind::Interleaved1F1B) {
        sink.warning("/schedule/kind", "interleaved-1f1b with virtual_stages = 1 is plain 1F1B");
    }

    const std::vector<int>& split = s.placement.layersPerStage;
    if (split.empty())
        return;
    const std::string ptr = "/placement/layers_per_stage";
    if (split.size() != static_cast<std::size_t>(p.pp)) {
        sink.error(ptr, "expected pp = " + str(p.pp) + " entries, got " +
                            str(static_cast<std::int64_t>(split.size())));
        return;
    }
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < split.size(); ++i) {
        sum += split[i];
        if (split[i] < v)
            sink.error(childPointer(ptr, i), "stage " + std::to_string(i) + " has " +
                                                 str(split[i]) + " layers, fewer than its " +
                                                 str(v) + " virtual stages");
    }
    if (sum != layers)
        sink.error(ptr, "the stages hold " + str(sum) +
                            " layers in total, expected layers = " + str(layers));
}

void checkModelShape(const Scenario& s, const PlacementResult& placement, DiagnosticSink& sink)
{
    const Workload& w = s.workload;
    const Parallelism& p = s.parallelism;
    const std::string tp = "tp = " + str(p.tp);
    if (w.heads % p.tp != 0)
        sink.error("/parallelism/tp", tp + " does not divide heads = " + str(w.heads));
    if (w.kvHeads > w.heads || w.heads % w.kvHeads != 0)
        sink.error("/workload/kv_heads",
                   "kv_heads = " + str(w.kvHeads) + " must divide heads = " + str(w.heads));
    // Megatron: num_query_groups % tensor_model_parallel_size == 0 (each TP rank holds whole
    // KV groups).
    else if (w.kvHeads % p.tp != 0)
        sink.error("/parallelism/tp", tp + " does not divide kv_heads = " + str(w.kvHeads) +
                                          " (each TP rank must hold whole KV groups)");
    if (w.hidden % w.heads != 0)
        sink.error("/workload/hidden",
                   "hidden = " + str(w.hidden) + " is not divisible by heads = " + str(w.heads));
    if (w.ffnHidden % p.tp != 0)
        sink.error("/parallelism/tp", tp + " does not divide ffn_hidden = " + str(w.ffnHidden));
    // The vocabulary needs no check: Megatron pads it to a multiple of 128 * tp.

    const MoeConfig& moe = w.moe;
    if (!moe.enabled()) {
        if (p.ep > 1)
            sink.error("/parallelism/ep", "ep = " + str(p.ep) +
                                              " needs a mixture-of-experts workload "
                                              "(workload.moe.experts > 0)");
        return;
    }
    if (moe.expertFfnHidden % p.tp != 0)
        sink.error("/parallelism/tp",
                   tp + " does not divide moe.expert_ffn_hidden = " + str(moe.expertFfnHidden));
    if (moe.firstDenseLayers >= w.layers)
        sink.error("/workload/moe/first_dense_layers",
                   "first_dense_layers = " + str(moe.firstDenseLayers) +
                       " leaves no MoE layer among the " + str(w.layers));
    if (moe.experts % p.ep != 0)
        sink.error("/parallelism/ep",
                   "ep = " + str(p.ep) + " does not divide experts = " + str(moe.experts));
    // Expert parallelism is carved out of DP x CP (parallel_state.initialize_model_parallel).
    if (placement.valid && (placement.dp * p.cp) % p.ep != 0)
        sink.error("/parallelism/ep", "ep = " + str(p.ep) + " does not divide dp * cp = " +
                                          str(placement.dp) + " * " + str(p.cp));
}

void checkSequenceAndBatch(const Scenario& s, const PlacementResult& placement,
                           DiagnosticSink& sink)
{
    const Workload& w = s.workload;
    const Parallelism& p = s.parallelism;
    // Context parallelism splits the sequence into 2 * cp chunks for load balance under the
    // causal mask (Megatron get_batch_on_this_cp_rank).
    if (p.cp > 1 && w.seqLen % (2 * std::int64_t{p.cp}) != 0)
        sink.error("/parallelism/cp",
                   "seq_len = " + str(w.seqLen) +
                       " is not divisible by 2 * cp = " + str(2 * std::int64_t{p.cp}));
    if (p.sequenceParallel && p.tp == 1)
        sink.warning("/parallelism/sequence_parallel", "sequence parallelism has no effect "
                                                       "with tp = 1");
    else if (p.sequenceParallel && (w.seqLen / p.cp) % p.tp != 0)
        sink.error("/parallelism/tp", "tp = " + str(p.tp) +
                                          " does not divide the sequence per CP rank (" +
                                          str(w.seqLen / p.cp) + ") for sequence parallelism");
    if (!placement.valid)
        return;
    const auto perStep = checkedMul(p.microBatch, placement.dp);
    if (!perStep || w.globalBatch % *perStep != 0)
        sink.error("/workload/global_batch", "global_batch = " + str(w.globalBatch) +
                                                 " is not divisible by micro_batch * dp = " +
                                                 str(p.microBatch) + " * " + str(placement.dp));
}

// TP outside the scale-up domain is legal but runs its collectives on the scale-out fabric.
void checkScaleUp(const Scenario& s, const PlacementResult& placement, DiagnosticSink& sink)
{
    const auto& dcs = s.topology.datacenters;
    for (std::size_t i = 0; i < dcs.size(); ++i) {
        const int domain = scaleUpDomainGpus(dcs[i]);
        if (placement.placed[i] > 0 && s.parallelism.tp > domain)
            sink.warning("/parallelism/tp",
                         "tp = " + str(s.parallelism.tp) + " exceeds the " + str(domain) +
                             "-GPU scale-up domain of datacenter " + describeDatacenter(dcs[i]) +
                             ": tensor-parallel traffic crosses the scale-out fabric");
    }
}

void checkConnectivity(const Topology& t, DiagnosticSink& sink)
{
    if (t.datacenters.size() < 2)
        return;
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    std::unordered_map<Id, std::size_t> index;
    for (std::size_t i = 0; i < t.datacenters.size(); ++i)
        index.emplace(t.datacenters[i].id, i);
    Graph graph(t.datacenters.size());
    for (const DciLink& link : t.links)
        boost::add_edge(index.at(link.a), index.at(link.b), graph);
    std::vector<int> component(t.datacenters.size());
    if (boost::connected_components(graph, component.data()) <= 1)
        return;
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
    sink.error("/topology/dci_links", "the datacenter graph is not connected: no DCI path from " +
                                          describeDatacenter(t.datacenters[0]) + " to " + names);
}

} // namespace

void checkScenarioConsistency(const Scenario& scenario, DiagnosticSink& sink)
{
    checkConnectivity(scenario.topology, sink);
    const PlacementResult placement = checkPlacement(scenario, sink);
    if (placement.valid)
        checkGpuAccounting(scenario, placement, sink);
    checkPipeline(scenario, sink);
    checkModelShape(scenario, placement, sink);
    checkSequenceAndBatch(scenario, placement, sink);
    if (placement.valid)
        checkScaleUp(scenario, placement, sink);
}

} // namespace archipelago::core
