#include "explore/sweepjson.h"

#include "explore/spacejson.h"
#include "explore/sweepkeys.h"
#include "io/evaluationjson.h"
#include "model/scheduletraits.h"

#include <algorithm>
#include <cctype>
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

// The phrases describeSweepPoint and sweepPointChanges share, each empty when the point keeps
// the base's value. One offset for every boundary ("split +1"), or one per boundary ("split
// +1/-1").
std::string splitPhrase(const DesignPoint& d)
{
    if (d.boundary != PlacementBoundary::Pp || d.stageSplit.isZero())
        return {};
    std::string text = "split ";
    if (d.stageSplit.isUniform())
        text += signedText(d.stageSplit.offset);
    for (std::size_t i = 0; i < d.stageSplit.perBoundary.size(); ++i)
        text += (i > 0 ? "/" : "") + signedText(d.stageSplit.perBoundary[i]);
    return text;
}

// One value for every link ("dci lossy-ip", "32 wavelengths"), or one per link ("dci
// base/lossy-ip", "wavelengths 32/base"); one fabric kind ("fabric clos"), or one per
// datacenter ("fabric base/rail-only").
std::vector<std::string> topologyPhrases(const DesignPoint& d)
{
    std::vector<std::string> out;
    if (!d.dciTransport.isBase())
        out.push_back("dci " + choiceText(d.dciTransport, transportName));
    if (!d.wavelengths.isBase())
        out.push_back(d.wavelengths.isUniform()
                          ? countText(*d.wavelengths.all) + " wavelengths"
                          : "wavelengths " + choiceText(d.wavelengths, countText));
    if (d.ncclChannels > 0)
        out.push_back(std::to_string(d.ncclChannels) + " NCCL channels");
    if (!d.fabric.isBase()) {
        std::string text = "fabric ";
        if (d.fabric.isUniform())
            text += fabricName(d.fabric.all);
        for (std::size_t i = 0; i < d.fabric.perDatacenter.size(); ++i)
            text += (i > 0 ? "/" : "") + fabricName(d.fabric.perDatacenter[i]);
        out.push_back(std::move(text));
    }
    return out;
}

// The virtual stages the schedule runs: a schedule that does not interleave runs one chunk per
// rank whatever the knob says (the point showed "v 1048576 zb-h2" while running v 1).
int runsVirtualStages(const DesignPoint& d)
{
    return scheduleTraits(d.schedule).interleaved ? d.virtualStages : 1;
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
    if (const std::string split = splitPhrase(d); !split.empty())
        text += " " + split;
    if (d.rankOrder != kMegatronRankOrder)
        text += " order " + rankOrderToString(d.rankOrder);
    if (d.sequenceParallel && d.tp > 1)
        text += " sp";
    text += " v " + std::to_string(runsVirtualStages(d)) + " mb " + std::to_string(d.microBatch) +
            " " + toString(d.schedule) +
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
    for (const std::string& phrase : topologyPhrases(d))
        text += " " + phrase;
    return text;
}

std::vector<std::string> sweepPointChanges(const SweepPoint& from, const SweepPoint& to)
{
    const DesignPoint& a = from.point;
    const DesignPoint& b = to.point;
    std::vector<std::string> out;
    const auto degree = [&](const char* name, std::int64_t was, std::int64_t is) {
        if (was != is)
            out.push_back(std::string(name) + " " + std::to_string(is));
    };
    degree("TP", a.tp, b.tp);
    degree("CP", a.cp, b.cp);
    degree("PP", a.pp, b.pp);
    degree("EP", a.ep, b.ep);
    degree("DP", from.dataParallel, to.dataParallel);
    if (b.boundary != PlacementBoundary::Base && b.boundary != a.boundary) {
        std::string dim = toString(b.boundary);
        std::transform(dim.begin(), dim.end(), dim.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        out.push_back(dim + " across buildings");
    }
    if (const std::string split = splitPhrase(b); !split.empty() && split != splitPhrase(a))
        out.push_back(split);
    if (b.rankOrder != a.rankOrder)
        out.push_back("order " + rankOrderToString(b.rankOrder));
    const bool spWas = a.sequenceParallel && a.tp > 1;
    const bool spIs = b.sequenceParallel && b.tp > 1;
    if (spIs != spWas && b.tp > 1)
        out.push_back(spIs ? "sequence parallel" : "no sequence parallel");
    degree("v", runsVirtualStages(a), runsVirtualStages(b));
    degree("mb", a.microBatch, b.microBatch);
    if (b.schedule != a.schedule)
        out.emplace_back(scheduleTraits(b.schedule).displayName);
    if (b.extraInFlightAtDci != a.extraInFlightAtDci)
        out.push_back(std::to_string(b.extraInFlightAtDci) + " extra in flight at the DCI");
    if (b.recompute != a.recompute)
        out.push_back(std::string("recompute ") + toString(b.recompute));
    degree("ZeRO", a.zeroStage, b.zeroStage);
    if (b.distributedOptimizer != a.distributedOptimizer)
        out.push_back(b.distributedOptimizer ? "distributed optimizer"
                                             : "no distributed optimizer");
    if (b.gradReduceDtype != a.gradReduceDtype)
        out.push_back(std::string(toString(b.gradReduceDtype)) + " gradients");
    if (b.globalBatch > 0 && b.globalBatch != a.globalBatch)
        out.push_back("batch " + std::to_string(b.globalBatch));
    if (b.datacenterSync && b.datacenterSync != a.datacenterSync)
        out.emplace_back(toString(*b.datacenterSync));
    if (b.innerSteps && b.innerSteps != a.innerSteps)
        out.push_back("H " + std::to_string(*b.innerSteps));
    if (b.checkpointIntervalS && b.checkpointIntervalS != a.checkpointIntervalS)
        out.push_back("checkpoint " + (*b.checkpointIntervalS > 0.0
                                           ? minutesText(*b.checkpointIntervalS)
                                           : std::string("daly")));
    const std::vector<std::string> was = topologyPhrases(a);
    for (std::string& phrase : topologyPhrases(b))
        if (std::find(was.begin(), was.end(), phrase) == was.end())
            out.push_back(std::move(phrase));
    return out;
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
