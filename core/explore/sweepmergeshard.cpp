#include "explore/sweepmergeshard.h"

#include "io/evaluationjson.h"

#include <algorithm>

namespace archipelago::core::sweepmerge {

namespace {

std::optional<MergePoint> readPoint(const Reporter& r, const json& p, const std::string& pointer)
{
    const std::optional<std::uint64_t> index = r.count(p, pointer, kIndex);
    const json* ev = r.object(p, pointer, kEvaluation);
    const std::string evPointer = childPointer(pointer, kEvaluation);
    std::optional<double> time, train, effective, runCost, memory;
    if (ev) {
        time = r.figure(*ev, evPointer, evalkeys::kIterationTimeS);
        train = r.figure(*ev, evPointer, evalkeys::kTimeToTrainS);
        memory = r.figure(*ev, evPointer, evalkeys::kMemoryPeakGib);
        if (const json* g = r.object(*ev, evPointer, evalkeys::kGoodput))
            effective = r.figure(*g, childPointer(evPointer, evalkeys::kGoodput),
                                 evalkeys::kEffectiveTimeToTrainS);
        if (const json* c = r.object(*ev, evPointer, evalkeys::kRunCost))
            runCost = r.figure(*c, childPointer(evPointer, evalkeys::kRunCost),
                               evalkeys::kEffectiveRunCostUsd);
    }
    const std::optional<double> capex = r.figure(p, pointer, evalkeys::kNetworkCapexUsd);
    const std::optional<double> cost = r.figure(p, pointer, kTotalCostUsd);
    if (!index || !time || !train || !effective || !runCost || !memory || !capex || !cost)
        return std::nullopt;
    static thread_local SweepPoint scratch; // only the figures below are read
    scratch.point.index = *index;
    scratch.evaluation.iterationTimeS = *time;
    scratch.evaluation.timeToTrainS = *train;
    scratch.evaluation.goodput.effectiveTimeToTrainS = *effective;
    scratch.evaluation.runCost.effectiveRunCostUsd = *runCost;
    scratch.evaluation.memoryPeakGib = *memory;
    scratch.networkCapexUsd = *capex;
    scratch.totalCostUsd = *cost;
    MergePoint out;
    out.value = &p;
    out.figures.index = *index;
    out.figures.iterationTimeS = *time;
    for (std::size_t k = 0; k < kSweepObjectives; ++k)
        out.figures.objective[k] = objectiveValue(static_cast<SweepObjective>(k), scratch);
    for (std::size_t f = 0; f < kFrontSpecs.size(); ++f)
        out.figures.front[f] = {*index, kFrontSpecs[f].x(scratch), kFrontSpecs[f].y(scratch)};
    return out;
}

// The points of shard `s` in the array at `parent`/`key`, each checked to be of the shard, at
// most `most` of them (`why` says why).
void readPoints(const Reporter& r, const Shard& s, const json& parent, const std::string& pointer,
                const char* key, std::uint64_t most, const std::string& why,
                std::vector<MergePoint>& out)
{
    const json* list = r.array(parent, pointer, key);
    if (!list)
        return;
    const std::string listPointer = childPointer(pointer, key);
    if (list->size() > most) {
        r.error(listPointer, "expected at most " + std::to_string(most) + " points (" + why +
                                 "), got " + std::to_string(list->size()));
        return;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string p = childPointer(listPointer, i);
        std::optional<MergePoint> point = readPoint(r, (*list)[i], p);
        if (!point)
            continue;
        const std::uint64_t index = point->figures.index;
        const auto n = static_cast<std::uint64_t>(s.count);
        if (index >= s.spacePoints || index % n != static_cast<std::uint64_t>(s.index)) {
            r.error(childPointer(p, kIndex), "point " + std::to_string(index) +
                                                 " is not of shard " + std::to_string(s.index) +
                                                 "/" + std::to_string(s.count) + " of a space of " +
                                                 std::to_string(s.spacePoints) + " points");
            continue;
        }
        out.push_back(std::move(*point));
    }
}

// The points of index `index` modulo `count` among `space`.
std::uint64_t pointsOfShard(std::uint64_t space, std::uint64_t index, std::uint64_t count)
{
    return space > index ? (space - index - 1) / count + 1 : 0;
}

// The counts of one shard add up as explore/sweep.cpp counts them: a point considered is pruned
// for one reason or evaluated; a point evaluated failed, is out of memory, over budget or
// feasible; a point faster than the base is feasible, and the base ranks after those.
void checkCounts(const Reporter& r, Shard& s, const json& root)
{
    const json& c = *s.counts;
    const auto need = [&](const char* key) -> std::optional<std::uint64_t> {
        const json* v = r.member(c, "/counts", key, "a count (a non-negative integer)");
        return v ? r.count(*v, childPointer("/counts", key)) : std::nullopt;
    };
    const std::optional<std::uint64_t> pruned = need(kPruned);
    const std::optional<std::uint64_t> evaluated = need(kEvaluated);
    // Each sum is known (every term read) and within 64 bits, or reported.
    std::uint64_t evaluatedSum = 0;
    bool evaluatedKnown = true;
    bool evaluatedWraps = false;
    for (const char* key : {kFailed, kOutOfMemory, kOverBudget, kFeasible}) {
        const std::optional<std::uint64_t> n = need(key);
        evaluatedKnown = evaluatedKnown && n;
        if (n && !addChecked(evaluatedSum, *n))
            evaluatedWraps = true;
        if (n && key == kFeasible)
            s.feasible = *n;
    }
    std::uint64_t prunedSum = 0;
    bool prunedKnown = false;
    bool prunedWraps = false;
    if (const json* byReason = r.object(c, "/counts", kPrunedByReason)) {
        prunedKnown = true;
        for (const auto& [reason, value] : byReason->items()) {
            const std::optional<std::uint64_t> n =
                r.count(value, childPointer("/counts/pruned_by_reason", reason));
            prunedKnown = prunedKnown && n;
            if (n && !addChecked(prunedSum, *n))
                prunedWraps = true;
        }
    }
    if (prunedWraps)
        r.error("/counts/pruned_by_reason", "the counts' sum overflows 64 bits");
    else if (pruned && prunedKnown && *pruned != prunedSum)
        r.error("/counts/pruned", "expected " + std::to_string(prunedSum) +
                                      " (the sum of /counts/pruned_by_reason), got " +
                                      std::to_string(*pruned));
    if (evaluatedWraps)
        r.error("/counts", "failed + out_of_memory + over_budget + feasible overflows 64 bits");
    else if (evaluated && evaluatedKnown && *evaluated != evaluatedSum)
        r.error("/counts/evaluated",
                "expected " + std::to_string(evaluatedSum) +
                    " (failed + out_of_memory + over_budget + feasible), got " +
                    std::to_string(*evaluated));
    std::uint64_t considered = 0;
    if (pruned && evaluated &&
        (!addChecked(considered, *pruned) || !addChecked(considered, *evaluated) ||
         considered != s.considered))
        r.error("/counts/considered", "expected pruned + evaluated (" + std::to_string(*pruned) +
                                          " + " + std::to_string(*evaluated) + "), got " +
                                          std::to_string(s.considered));
    if (const std::optional<std::uint64_t> faster = r.count(root, {}, kFasterThanBase)) {
        s.fasterThanBase = *faster;
        if (*faster > s.feasible)
            r.error("/faster_than_base",
                    "expected at most " + std::to_string(s.feasible) +
                        " (the feasible points; a point faster than the base is one), got " +
                        std::to_string(*faster));
        else if (*faster == std::numeric_limits<std::uint64_t>::max())
            r.error("/faster_than_base", "expected fewer than 2^64 - 1 (the base's rank, one "
                                         "more, is a 64-bit count), got " +
                                             std::to_string(*faster));
        else if (const std::optional<std::uint64_t> rank = r.count(root, {}, kBaseRank);
                 rank && *rank != *faster + 1)
            r.error("/base_rank", "expected " + std::to_string(*faster + 1) +
                                      " (faster_than_base + 1), got " + std::to_string(*rank));
    }
}

} // namespace

std::optional<Shard> readShard(const std::string& file, const json& root,
                               std::vector<Diagnostic>& errors)
{
    const std::size_t errorsBefore = errors.size();
    const Reporter r(file, errors);
    Shard s;
    if (!root.is_object()) {
        r.error({}, "expected the JSON object of `sweep -o`, got " + describe(root));
        return std::nullopt;
    }
    if (const json* shard = r.object(root, {}, kShard)) {
        const std::optional<std::uint64_t> count = r.count(*shard, "/shard", kCount);
        const std::optional<std::uint64_t> index = r.count(*shard, "/shard", kIndex);
        if (count && (*count < 1 || *count > kMaxShards))
            r.error("/shard/count",
                    "expected a shard count in 1..100000, got " + std::to_string(*count));
        else if (count && index && *index >= *count)
            r.error("/shard/index", "expected an index in 0.." + std::to_string(*count - 1) +
                                        ", got " + std::to_string(*index));
        else if (count && index) {
            s.count = static_cast<int>(*count);
            s.index = static_cast<int>(*index);
        }
    }
    if (const auto cancelled = root.find(kCancelled);
        cancelled != root.end() && *cancelled != json(false))
        r.error("/cancelled", "expected false, got " + describe(*cancelled) +
                                  ": the shard stopped early, run it again");
    s.inputs = r.object(root, {}, kInputs);
    if (s.inputs)
        s.top = r.count(*s.inputs, "/inputs", kTop).value_or(0);
    s.counts = r.object(root, {}, kCounts);
    if (s.counts) {
        s.spacePoints = r.count(*s.counts, "/counts", kSpacePoints).value_or(0);
        const std::optional<std::uint64_t> considered = r.count(*s.counts, "/counts", kConsidered);
        const std::uint64_t expected =
            pointsOfShard(s.spacePoints, static_cast<std::uint64_t>(s.index),
                          static_cast<std::uint64_t>(s.count));
        if (considered && errors.size() == errorsBefore && *considered != expected)
            r.error("/counts/considered",
                    "expected " + std::to_string(expected) + " (the points of index " +
                        std::to_string(s.index) + " modulo " + std::to_string(s.count) + " among " +
                        std::to_string(s.spacePoints) + "), got " + std::to_string(*considered));
        s.considered = considered.value_or(0);
        if (errors.size() == errorsBefore)
            checkCounts(r, s, root);
    }
    s.base = r.object(root, {}, kBase);
    if (errors.size() != errorsBefore)
        return std::nullopt; // the points are checked against the shard and the space
    const std::uint64_t topMost = std::min(s.top, s.feasible);
    const std::string topWhy = "the top " + std::to_string(s.top) + " of " +
                               std::to_string(s.feasible) + " feasible points";
    if (const json* byObjective = r.object(root, {}, kTopByObjective)) {
        for (std::size_t k = 0; k < kSweepObjectives; ++k)
            readPoints(r, s, *byObjective, "/top_by_objective",
                       toString(static_cast<SweepObjective>(k)), topMost, topWhy, s.topBy[k]);
        for (const auto& [name, list] : byObjective->items()) {
            bool known = false;
            for (std::size_t k = 0; k < kSweepObjectives; ++k)
                known = known || name == toString(static_cast<SweepObjective>(k));
            if (!known)
                r.error(childPointer("/top_by_objective", name),
                        "an objective this program cannot merge (written by another version?)");
        }
    }
    if (const json* fronts = r.object(root, {}, kFronts)) {
        for (std::size_t f = 0; f < kFrontSpecs.size(); ++f)
            readPoints(r, s, *fronts, "/fronts", kFrontSpecs[f].name, s.feasible,
                       "the feasible ones", s.fronts[f]);
        // A front this merge would copy from one shard instead of merging.
        for (const auto& item : fronts->items()) {
            const std::string& name = item.key(); // a plain name: clang captures no bindings
            if (std::none_of(kFrontSpecs.begin(), kFrontSpecs.end(),
                             [&](const FrontSpec& f) { return name == f.name; }))
                r.error(childPointer("/fronts", name),
                        "a front this program cannot merge (written by another version?)");
        }
    }
    if (errors.size() != errorsBefore)
        return std::nullopt;
    return s;
}

} // namespace archipelago::core::sweepmerge
