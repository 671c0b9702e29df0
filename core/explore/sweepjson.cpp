#include "explore/sweepjson.h"

#include "explore/spacejson.h"
#include "explore/sweepkeys.h"
#include "io/evaluationjson.h"
#include "model/scheduletraits.h"

#include <cstdio>
#include <limits>

namespace archipelago::core {

namespace {

nlohmann::json breakdownDelta(const Breakdown& a, const Breakdown& base)
{
    using namespace evalkeys;
    return {{kForwardS, a.forwardS - base.forwardS},
            {kBackwardS, a.backwardS - base.backwardS},
            {kRecomputeS, a.recomputeS - base.recomputeS},
            {kTpCommS, a.tpCommS - base.tpCommS},
            {kCpCommS, a.cpCommS - base.cpCommS},
            {kEpCommS, a.epCommS - base.epCommS},
            {kPpCommS, a.ppCommS - base.ppCommS},
            {kDpCommS, a.dpCommS - base.dpCommS},
            {kOptimizerS, a.optimizerS - base.optimizerS},
            {kBubbleS, a.bubbleS - base.bubbleS},
            {kInterferenceS, a.interferenceS - base.interferenceS},
            {kVariabilityS, a.variabilityS - base.variabilityS},
            {kOverheadS, a.overheadS - base.overheadS}};
}

// A fabric kind's name, or "base" (the datacenter keeps its own).
std::string fabricName(std::optional<FabricKind> kind)
{
    return kind ? toString(*kind) : spacekeys::kBase;
}

// One kind for every datacenter, or an array with one per datacenter (the --space forms).
nlohmann::json fabricToJson(const FabricChoice& fabric)
{
    if (fabric.isUniform())
        return fabricName(fabric.all);
    nlohmann::json a = nlohmann::json::array();
    for (const std::optional<FabricKind>& kind : fabric.perDatacenter)
        a.push_back(fabricName(kind));
    return a;
}

// A per-link value in its --space form: one value or "base", or an array of one per link.
template <typename T, typename Name>
nlohmann::json choiceToJson(const ElementChoice<T>& choice, Name name)
{
    const auto one = [&](const std::optional<T>& v) {
        return v ? nlohmann::json(name(*v)) : nlohmann::json(spacekeys::kBase);
    };
    if (choice.isUniform())
        return one(choice.all);
    nlohmann::json a = nlohmann::json::array();
    for (const std::optional<T>& v : choice.each)
        a.push_back(one(v));
    return a;
}

// The same for people: "lossy-ip", "base/lossy-ip".
template <typename T, typename Name>
std::string choiceText(const ElementChoice<T>& choice, Name name)
{
    const auto one = [&](const std::optional<T>& v) {
        return v ? std::string(name(*v)) : std::string(spacekeys::kBase);
    };
    if (choice.isUniform())
        return one(choice.all);
    std::string text;
    for (std::size_t i = 0; i < choice.each.size(); ++i)
        text += (i > 0 ? "/" : "") + one(choice.each[i]);
    return text;
}

std::string transportName(DciTransport t)
{
    return toString(t);
}

std::string countText(int n)
{
    return std::to_string(n);
}

nlohmann::json stageSplitToJson(const StageSplit& split)
{
    return split.isUniform() ? nlohmann::json(split.offset) : nlohmann::json(split.perBoundary);
}

std::string signedText(int n)
{
    return (n > 0 ? "+" : "") + std::to_string(n);
}

nlohmann::json pointToJson(const SweepPoint& p, const SweepPoint& base)
{
    using namespace sweepkeys;
    nlohmann::json j = designPointToJson(p.point);
    j[kEvaluation] = evaluationToJson("", p.evaluation);
    j[kEvaluation].erase(evalkeys::kFile);
    // For `merge`'s text output, which reads the knobs as opaque JSON.
    j[kDescription] = describeSweepPoint(p);
    j[kDataParallel] = p.dataParallel;
    j[evalkeys::kNetworkCapexUsd] = p.networkCapexUsd;
    j[evalkeys::kNetworkPowerW] = p.networkPowerW;
    j[kTotalCostUsd] = p.totalCostUsd;
    j[kIterationTimeVsBase] = p.evaluation.iterationTimeS / base.evaluation.iterationTimeS;
    j[kBreakdownMinusBase] = breakdownDelta(p.evaluation.breakdown, base.evaluation.breakdown);
    return j;
}

nlohmann::json pointsToJson(const std::vector<SweepPoint>& points, const SweepPoint& base)
{
    nlohmann::json a = nlohmann::json::array();
    for (const SweepPoint& p : points)
        a.push_back(pointToJson(p, base));
    return a;
}

// A checkpoint interval as the space writes it: seconds, "daly" (0) or "base" (nullopt).
nlohmann::json checkpointIntervalJson(const std::optional<double>& seconds)
{
    if (!seconds)
        return spacekeys::kBase;
    return *seconds > 0.0 ? nlohmann::json(*seconds) : nlohmann::json(spacekeys::kDaly);
}

// Minutes, to three significant figures ("30 min", "7.5 min").
std::string minutesText(double seconds)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g min", seconds / 60.0);
    return buf;
}

} // namespace

nlohmann::json designPointToJson(const DesignPoint& p)
{
    // A point's knobs are the space's dimensions, one value each.
    using namespace spacekeys;
    // "base": each DCI link or datacenter keeps its own value; "max": the largest DP that fits.
    nlohmann::json j = {
        {kDciTransport, choiceToJson(p.dciTransport, transportName)},
        {kWavelengths, choiceToJson(p.wavelengths, [](int n) { return n; })},
        {kFabric, fabricToJson(p.fabric)},
        {kNcclChannels, p.ncclChannels > 0 ? nlohmann::json(p.ncclChannels) : kBase},
        {kTp, p.tp},
        {kCp, p.cp},
        {kPp, p.pp},
        {kEp, p.ep},
        {kBoundary, toString(p.boundary)},
        {kStageSplit, stageSplitToJson(p.stageSplit)},
        {kRankOrder, rankOrderToString(p.rankOrder)},
        {kDp, p.dataParallel > 0 ? nlohmann::json(p.dataParallel) : kMax},
        {kSequenceParallel, p.sequenceParallel},
        {kVirtualStages, p.virtualStages},
        {kMicroBatch, p.microBatch},
        {kSchedule, toString(p.schedule)},
        {kExtraInFlight, p.extraInFlightAtDci},
        {kRecompute, toString(p.recompute)},
        {kZeroStage, p.zeroStage},
        {kDistributedOptimizer, p.distributedOptimizer},
        {kGradReduceDtype, toString(p.gradReduceDtype)},
        {kDatacenterSync, p.datacenterSync ? nlohmann::json(toString(*p.datacenterSync)) : kBase},
        {kInnerSteps, p.innerSteps ? nlohmann::json(*p.innerSteps) : kBase},
        {kCheckpointIntervalS, checkpointIntervalJson(p.checkpointIntervalS)}};
    if (p.globalBatch > 0)
        j[kGlobalBatch] = p.globalBatch;
    if (p.index != std::numeric_limits<std::uint64_t>::max())
        j[sweepkeys::kIndex] = p.index;
    return j;
}

std::string describeSweepPoint(const SweepPoint& p)
{
    const DesignPoint& d = p.point;
    std::string text = "tp " + std::to_string(d.tp) + " cp " + std::to_string(d.cp) + " pp " +
                       std::to_string(d.pp) + " ep " + std::to_string(d.ep) + " dp " +
                       std::to_string(p.dataParallel);
    // The placement and topology knobs only when they are not the base's.
    if (d.boundary != PlacementBoundary::Base)
        text += std::string(" ") + toString(d.boundary) + "-across";
    // One offset for every boundary ("split +1"), or one per boundary ("split +1/-1").
    if (d.boundary == PlacementBoundary::Pp && !d.stageSplit.isZero()) {
        text += " split ";
        if (d.stageSplit.isUniform())
            text += signedText(d.stageSplit.offset);
        for (std::size_t i = 0; i < d.stageSplit.perBoundary.size(); ++i)
            text += (i > 0 ? "/" : "") + signedText(d.stageSplit.perBoundary[i]);
    }
    if (d.rankOrder != kMegatronRankOrder)
        text += " order " + rankOrderToString(d.rankOrder);
    if (d.sequenceParallel && d.tp > 1)
        text += " sp";
    // The virtual stages the schedule runs: a schedule that does not interleave runs one chunk
    // per rank whatever the knob says (the point showed "v 1048576 zb-h2" while running v 1).
    const int runsV = scheduleTraits(d.schedule).interleaved ? d.virtualStages : 1;
    text += " v " + std::to_string(runsV) + " mb " + std::to_string(d.microBatch) + " " +
            toString(d.schedule) +
            (d.extraInFlightAtDci > 0 ? "+" + std::to_string(d.extraInFlightAtDci) : "") +
            " recompute " + toString(d.recompute) + " zero " + std::to_string(d.zeroStage) +
            (d.distributedOptimizer ? " distopt" : "") +
            (d.gradReduceDtype == GradReduceDtype::Bf16 ? " grads bf16" : "");
    if (d.globalBatch > 0)
        text += " batch " + std::to_string(d.globalBatch);
    // The run's knobs only when the point sets them: "diloco H 100", "H 30" (the base's
    // scheme), "checkpoint 30 min", "checkpoint daly".
    if (d.datacenterSync)
        text += std::string(" ") + toString(*d.datacenterSync);
    if (d.innerSteps && d.datacenterSync != DatacenterSync::Synchronous)
        text += " H " + std::to_string(*d.innerSteps);
    if (d.checkpointIntervalS)
        text += " checkpoint " +
                (*d.checkpointIntervalS > 0.0 ? minutesText(*d.checkpointIntervalS) : "daly");
    // One value for every link ("dci lossy-ip", "32 wavelengths"), or one per link
    // ("dci base/lossy-ip", "wavelengths 32/base").
    if (!d.dciTransport.isBase())
        text += " dci " + choiceText(d.dciTransport, transportName);
    if (!d.wavelengths.isBase())
        text += d.wavelengths.isUniform() ? " " + countText(*d.wavelengths.all) + " wavelengths"
                                          : " wavelengths " + choiceText(d.wavelengths, countText);
    if (d.ncclChannels > 0)
        text += " " + std::to_string(d.ncclChannels) + " NCCL channels";
    // One kind ("fabric clos"), or one per datacenter ("fabric base/rail-only").
    if (!d.fabric.isBase()) {
        text += " fabric ";
        if (d.fabric.isUniform())
            text += fabricName(d.fabric.all);
        for (std::size_t i = 0; i < d.fabric.perDatacenter.size(); ++i)
            text += (i > 0 ? "/" : "") + fabricName(d.fabric.perDatacenter[i]);
    }
    return text;
}

nlohmann::json sweepResultToJson(const std::string& file, const SweepResult& r)
{
    nlohmann::json pruned = nlohmann::json::object();
    for (std::size_t i = 0; i < r.counts.pruned.size(); ++i)
        pruned[toString(static_cast<PruneReason>(i))] = r.counts.pruned[i];
    const SweepCounts& c = r.counts;
    using namespace sweepkeys;
    nlohmann::json j = {{kFile, file},
                        {kCancelled, r.cancelled},
                        {kCounts,
                         {{kSpacePoints, c.spacePoints},
                          {kConsidered, c.considered},
                          {kPruned, c.prunedTotal()},
                          {kPrunedByReason, pruned},
                          {kEvaluated, c.evaluated},
                          {kFailed, c.failed},
                          {kOutOfMemory, c.outOfMemory},
                          {kOverBudget, c.overBudget},
                          {kFeasible, c.feasible}}},
                        {kBase, pointToJson(r.base, r.base)},
                        {kBaseFeasible, r.baseFeasible},
                        {kBaseRank, r.baseRank},
                        {kFasterThanBase, r.fasterThanBase},
                        {kShard, {{kIndex, r.shardIndex}, {kCount, r.shardCount}}},
                        {kTop, pointsToJson(r.top, r.base)},
                        {kFronts,
                         {{kTimeVsCapex, pointsToJson(r.timeVsCapex, r.base)},
                          {kTimeVsMemory, pointsToJson(r.timeVsMemory, r.base)},
                          {kTrainTimeVsCost, pointsToJson(r.trainTimeVsCost, r.base)}}}};
    nlohmann::json byObjective = nlohmann::json::object();
    for (std::size_t k = 0; k < kSweepObjectives; ++k)
        byObjective[toString(static_cast<SweepObjective>(k))] = pointsToJson(r.topBy[k], r.base);
    j[kTopByObjective] = std::move(byObjective);
    return j;
}

} // namespace archipelago::core
