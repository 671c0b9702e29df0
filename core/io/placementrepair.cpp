#include "io/placementrepair.h"

#include "io/scenarioio.h"
#include "model/checkedmath.h"
#include "model/placementpresets.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <utility>

namespace archipelago::core {

namespace {

struct Candidate
{
    Placement placement;
    PlacementFallback fallback = PlacementFallback::Kept;
    const char* remade = nullptr; // how a preset re-made the shards, for a note on lost splits
};

std::vector<Diagnostic> errorsOf(const Scenario& scenario, const Catalog& catalog,
                                 TopologyRules topology)
{
    std::vector<Diagnostic> errors;
    for (Diagnostic& d : checkScenario(scenario, catalog, topology))
        if (d.severity == Diagnostic::Severity::Error)
            errors.push_back(std::move(d));
    return errors;
}

// Idle GPUs are legal (a spare-gpus warning: the explorer leaves some on purpose), but an edit
// of the GPUs or the degrees means to use them all: a candidate that leaves GPUs idle is taken
// only when no candidate places every GPU.
bool leavesGpusIdle(const Scenario& s)
{
    const std::vector<std::int64_t> placed = placedGpusPerDatacenter(s);
    for (std::size_t i = 0; i < placed.size() && i < s.topology.datacenters.size(); ++i)
        if (placed[i] < gpusInDatacenter(s.topology.datacenters[i]))
            return true;
    return false;
}

bool crossesWithPipeline(const Placement& placement)
{
    for (const PlacementShard& shard : placement.shards) {
        const std::set<Id> dcs(shard.stageDatacenters.begin(), shard.stageDatacenters.end());
        if (dcs.size() > 1)
            return true;
    }
    return false;
}

// A split of the old stage count, or of the old layer count (another model), means nothing for
// the new one: drop it (even split). When the layers do not divide into pp * virtual stages the
// even split is not allowed, so spell out the uneven one core uses (the first stages take the
// remainder).
void fitLayersPerStage(Scenario& s)
{
    const std::vector<int>& split = s.placement.layersPerStage;
    if (split.size() != static_cast<std::size_t>(std::max(0, s.parallelism.pp)) ||
        std::accumulate(split.begin(), split.end(), std::int64_t{0}) != s.workload.layers)
        s.placement.layersPerStage.clear();
    const int chunks = s.parallelism.pp * std::max(1, s.parallelism.virtualStages);
    if (s.placement.layersPerStage.empty() && chunks > 0 && s.workload.layers % chunks != 0)
        s.placement.layersPerStage = effectiveLayersPerStage(s);
}

std::optional<std::int64_t> gpusIn(const Topology& topology, Id id)
{
    const Datacenter* dc = findDatacenter(topology, id);
    if (!dc)
        return std::nullopt;
    return gpusInDatacenter(*dc);
}

// newGpus / oldGpus (reduced), the same for every datacenter the shard occupies; nullopt when
// they changed by different ratios, or a datacenter is new or gone: then no proportional
// rescale exists for the shard.
std::optional<std::pair<std::int64_t, std::int64_t>>
gpuRatio(const PlacementShard& shard, const Topology& before, const Topology& after)
{
    const std::vector<Id>& occupied =
        shard.split() ? shard.splitDatacenters : shard.stageDatacenters;
    std::optional<std::pair<std::int64_t, std::int64_t>> ratio;
    for (Id id : occupied) {
        const std::optional<std::int64_t> oldGpus = gpusIn(before, id);
        const std::optional<std::int64_t> newGpus = gpusIn(after, id);
        if (!oldGpus || !newGpus || *oldGpus <= 0 || *newGpus <= 0)
            return std::nullopt;
        const std::int64_t g = std::gcd(*oldGpus, *newGpus);
        const std::pair<std::int64_t, std::int64_t> r{*newGpus / g, *oldGpus / g};
        if (ratio && *ratio != r)
            return std::nullopt;
        ratio = r;
    }
    return ratio;
}

// replicas * num / den when that is a whole number of replicas (at least one).
std::optional<int> scaledReplicas(int replicas, std::int64_t num, std::int64_t den)
{
    if (replicas < 1 || num < 1 || den < 1)
        return std::nullopt;
    const std::int64_t g = std::gcd(num, den);
    num /= g;
    den /= g;
    if (replicas % den != 0)
        return std::nullopt;
    const std::optional<std::int64_t> scaled = checkedMul(replicas / den, num);
    if (!scaled || *scaled > std::numeric_limits<int>::max())
        return std::nullopt;
    return static_cast<int>(*scaled);
}

// Each run of consecutive stages in one datacenter gets its share of the new stage count, so
// a shard keeps how its pipeline is spread over the datacenters ([0,0,1,1] -> [0,0,0,0,1,1,1,1]).
std::vector<Id> apportionStages(const std::vector<Id>& stages, int pp)
{
    std::vector<Id> runDatacenter;
    std::vector<std::int64_t> runLength;
    for (Id id : stages) {
        if (runDatacenter.empty() || runDatacenter.back() != id) {
            runDatacenter.push_back(id);
            runLength.push_back(0);
        }
        ++runLength.back();
    }
    const std::vector<int> shares = apportion(pp, runLength);
    std::vector<Id> out;
    for (std::size_t i = 0; i < shares.size(); ++i)
        out.insert(out.end(), static_cast<std::size_t>(shares[i]), runDatacenter[i]);
    return out;
}

int splitDegree(const PlacementShard& shard, const Parallelism& par)
{
    return shard.splitDim == ParallelDim::Cp ? par.cp : par.tp;
}

bool splitFits(const PlacementShard& shard, const Parallelism& par)
{
    const auto k = static_cast<int>(shard.splitDatacenters.size());
    return k > 0 && splitDegree(shard, par) % k == 0;
}

// The shards of `base` (the edited scenario, layers fitted), taken as laid out for `before`'s
// degrees and GPUs, scaled to `base`'s. A split whose datacenters no longer divide the degree
// is dropped: each of the k datacenters must hold degree / k members of every group.
std::optional<Placement> rescaled(const Scenario& base, const Scenario& before)
{
    const Parallelism& from = before.parallelism;
    const Parallelism& to = base.parallelism;
    if (base.placement.shards.empty() || std::min({from.tp, from.cp, from.pp}) < 1 ||
        std::min({to.tp, to.cp, to.pp}) < 1)
        return std::nullopt;
    const auto fromModel = checkedProduct(from.tp, from.cp, from.pp);
    const auto toModel = checkedProduct(to.tp, to.cp, to.pp);
    if (!fromModel || !toModel)
        return std::nullopt;
    Placement out = base.placement;
    for (PlacementShard& shard : out.shards) {
        if (shard.stageDatacenters.size() != static_cast<std::size_t>(from.pp))
            return std::nullopt;
        const auto ratio = gpuRatio(shard, before.topology, base.topology);
        if (!ratio)
            return std::nullopt;
        // The shard's GPUs in each datacenter scale by the GPU ratio; its replicas hold
        // tp * cp * pp GPUs each (docs/scenario-format.md, "Placement").
        const auto num = checkedMul(*fromModel, ratio->first);
        const auto den = checkedMul(*toModel, ratio->second);
        if (!num || !den)
            return std::nullopt;
        const std::optional<int> replicas = scaledReplicas(shard.dpReplicas, *num, *den);
        if (!replicas)
            return std::nullopt;
        shard.dpReplicas = *replicas;
        shard.stageDatacenters = apportionStages(shard.stageDatacenters, to.pp);
        if (shard.split() && !splitFits(shard, to)) {
            shard.splitDatacenters.clear();
            shard.splitDim = ParallelDim::Tp;
        }
    }
    return out;
}

std::vector<Candidate> candidates(const Scenario& edited, const Scenario& before,
                                  PlacementRepairMode mode)
{
    std::vector<Candidate> out{{edited.placement, PlacementFallback::Kept}};
    if (mode == PlacementRepairMode::KeepPlacement)
        return out;
    Scenario base = edited;
    fitLayersPerStage(base);
    out.push_back({base.placement, PlacementFallback::Kept});
    if (std::optional<Placement> scaled = rescaled(base, before))
        out.push_back({std::move(*scaled), PlacementFallback::Rescaled});
    static constexpr const char* kPpAcross = "pipeline stages across datacenters";
    static constexpr const char* kDpAcross = "data parallelism across datacenters";
    const Candidate pp{ppAcrossDatacenters(base), PlacementFallback::SameShape, kPpAcross};
    const Candidate dp{dpAcrossDatacenters(base), PlacementFallback::SameShape, kDpAcross};
    // A layout chosen per boundary (PP inside some groups of datacenters, DP between them)
    // re-made as it was, before either uniform preset.
    std::vector<int> groups = pipelineGroups(before);
    int single = static_cast<int>(groups.size());
    for (int& g : groups)
        if (g < 0)
            g = single++; // a datacenter that held no stage: a group of its own
    if (groups.size() == base.topology.datacenters.size() && !groups.empty())
        out.push_back({pipelinesPerGroup(base, groups), PlacementFallback::SameShape,
                       "the same datacenters sharing each pipeline"});
    const bool ppFirst = crossesWithPipeline(before.placement);
    out.push_back(ppFirst ? pp : dp);
    out.push_back(ppFirst ? dp : pp);
    out.back().fallback = PlacementFallback::OtherShape;
    Placement implicit = base.placement;
    implicit.shards.clear();
    out.push_back({std::move(implicit), PlacementFallback::Implicit, "no shards"});

    std::vector<Candidate> distinct;
    for (Candidate& c : out)
        if (std::none_of(distinct.begin(), distinct.end(),
                         [&](const Candidate& d) { return d.placement == c.placement; }))
            distinct.push_back(std::move(c));
    return distinct;
}

std::string datacenterNames(const Topology& topology, const std::vector<Id>& ids)
{
    std::string names;
    for (Id id : ids) {
        const Datacenter* dc = findDatacenter(topology, id);
        names += (names.empty() ? "" : ", ") + (dc ? dc->name : "#" + std::to_string(id));
    }
    return names;
}

// A TP/CP split of `before` that the repaired placement no longer has, with the reason.
void noteDroppedSplits(const Scenario& before, const Scenario& after, const Candidate& chosen,
                       std::vector<std::string>& notes)
{
    std::set<std::pair<ParallelDim, std::set<Id>>> reported;
    for (const PlacementShard& old : before.placement.shards) {
        if (!old.split())
            continue;
        const std::set<Id> dcs(old.splitDatacenters.begin(), old.splitDatacenters.end());
        const bool kept = std::any_of(after.placement.shards.begin(), after.placement.shards.end(),
                                      [&](const PlacementShard& s) {
                                          return s.split() && s.splitDim == old.splitDim &&
                                                 std::set<Id>(s.splitDatacenters.begin(),
                                                              s.splitDatacenters.end()) == dcs;
                                      });
        if (kept || !reported.insert({old.splitDim, dcs}).second)
            continue;
        const char* dim = old.splitDim == ParallelDim::Cp ? "CP" : "TP";
        std::string why;
        if (!splitFits(old, after.parallelism))
            why = std::string(old.splitDim == ParallelDim::Cp ? "cp" : "tp") + " = " +
                  std::to_string(splitDegree(old, after.parallelism)) +
                  " is not divisible by its " + std::to_string(dcs.size()) + " datacenters";
        else if (chosen.remade)
            why = std::string("the placement was re-made with ") + chosen.remade;
        else
            why = "the new placement does not split it";
        notes.push_back(std::string(dim) + " split across " +
                        datacenterNames(before.topology, old.splitDatacenters) +
                        " dropped: " + why);
    }
}

PlacementRepair repaired(Scenario scenario, const Candidate& chosen, const Scenario& edited,
                         const Scenario& before)
{
    PlacementRepair out;
    out.fallback = chosen.fallback;
    out.globalBatchFitted = scenario.workload.globalBatch != edited.workload.globalBatch;
    if (out.globalBatchFitted)
        out.notes.push_back("global batch " + std::to_string(edited.workload.globalBatch) + " → " +
                            std::to_string(scenario.workload.globalBatch) +
                            " sequences to divide micro-batch " +
                            std::to_string(scenario.parallelism.microBatch) + " × DP " +
                            std::to_string(dataParallel(scenario)));
    // The shape the user chose (which dimension crosses the boundaries) did not fit: say so,
    // since the drawing of the stages may barely change.
    if (chosen.fallback == PlacementFallback::OtherShape && chosen.remade)
        out.notes.push_back(std::string("placement re-made with ") + chosen.remade +
                            ": the layout it had does not fit the new degrees without idle "
                            "GPUs or a batch that does not divide");
    // Also when the edit set the placement itself (a preset chosen in the layout view): a
    // split is easy to lose without noticing, since the drawing of the stages barely changes.
    noteDroppedSplits(before, scenario, chosen, out.notes);
    out.scenario = std::move(scenario);
    return out;
}

} // namespace

PlacementRepair repairPlacement(const Scenario& edited, const Scenario& before,
                                const Catalog& catalog, PlacementRepairMode mode,
                                TopologyRules topology)
{
    std::vector<Diagnostic> editedErrors = errorsOf(edited, catalog, topology);
    if (editedErrors.empty() && !leavesGpusIdle(edited))
        return repaired(edited, {edited.placement, PlacementFallback::Kept}, edited, before);

    // The errors every candidate has are the ones no placement fixes: the reason to give when
    // the edit is refused (the edited placement's own mismatch would only mislead).
    std::vector<Diagnostic> unfixable = editedErrors;
    const std::vector<Candidate> tried = candidates(edited, before, mode);
    for (const Candidate& c : tried) {
        if (c.placement == edited.placement)
            continue; // checked above
        Scenario s = edited;
        s.placement = c.placement;
        const std::vector<Diagnostic> errors = errorsOf(s, catalog, topology);
        if (errors.empty() && !leavesGpusIdle(s))
            return repaired(std::move(s), c, edited, before);
        std::erase_if(unfixable, [&](const Diagnostic& d) {
            return std::find(errors.begin(), errors.end(), d) == errors.end();
        });
    }
    // The edit changed the GPUs or the degrees, not the batch: let the batch follow DP.
    if (edited.workload.globalBatch == before.workload.globalBatch)
        for (const Candidate& c : tried) {
            Scenario s = edited;
            s.placement = c.placement;
            Scenario fitted = withFittedGlobalBatch(s);
            if (fitted.workload.globalBatch != s.workload.globalBatch &&
                errorsOf(fitted, catalog, topology).empty() && !leavesGpusIdle(fitted))
                return repaired(std::move(fitted), c, edited, before);
        }
    // Last, a valid candidate that leaves GPUs idle (the edited placement first).
    if (editedErrors.empty())
        return repaired(edited, {edited.placement, PlacementFallback::Kept}, edited, before);
    for (const Candidate& c : tried) {
        Scenario s = edited;
        s.placement = c.placement;
        if (errorsOf(s, catalog, topology).empty())
            return repaired(std::move(s), c, edited, before);
    }
    PlacementRepair refused;
    refused.errors = unfixable.empty() ? std::move(editedErrors) : std::move(unfixable);
    return refused;
}

} // namespace archipelago::core
