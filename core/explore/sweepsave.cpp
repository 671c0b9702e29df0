#include "explore/sweepsave.h"

#include "explore/spacejson.h"
#include "explore/spaceodometer.h"
#include "explore/sweepjson.h"
#include "explore/sweepkeys.h"
#include "io/evaluationjson.h"
#include "io/jsondocument.h"
#include "io/objectreader.h"

#include <cmath>
#include <limits>

namespace archipelago::core {

namespace {

using OJson = nlohmann::ordered_json;

// A point's figures are the evaluation's keys; the rest are the sweep's (sweepkeys.h).
using evalkeys::kEffectiveRunCostUsd;
using evalkeys::kEffectiveTimeToTrainS;
using evalkeys::kIterationTimeS;
using evalkeys::kMemoryPeakGib;
using evalkeys::kMfu;
using evalkeys::kNetworkCapexUsd;
using evalkeys::kNetworkPowerW;
using evalkeys::kTimeToTrainS;

OJson pointJson(const SweepPoint& p)
{
    using namespace sweepkeys;
    const Evaluation& e = p.evaluation;
    OJson j = {{kIndex, p.point.index}, {kDescription, describeSweepPoint(p)}};
    if (p.point.globalBatch > 0)
        j[spacekeys::kGlobalBatch] = p.point.globalBatch;
    j[kDataParallel] = p.dataParallel;
    j[kIterationTimeS] = e.iterationTimeS;
    j[kTimeToTrainS] = e.timeToTrainS;
    j[kEffectiveTimeToTrainS] = e.goodput.effectiveTimeToTrainS;
    j[kEffectiveRunCostUsd] = e.runCost.effectiveRunCostUsd;
    j[kMemoryPeakGib] = e.memoryPeakGib;
    j[kMfu] = e.mfu;
    j[kNetworkCapexUsd] = p.networkCapexUsd;
    j[kNetworkPowerW] = p.networkPowerW;
    j[kTotalCostUsd] = p.totalCostUsd;
    return j;
}

OJson pointsJson(const std::vector<SweepPoint>& points)
{
    OJson a = OJson::array();
    for (const SweepPoint& p : points)
        a.push_back(pointJson(p));
    return a;
}

// A non-negative integer (uint64) at `key`.
bool readCount(ObjectReader& r, const char* key, std::uint64_t& out)
{
    const Json* v = r.find(key, Need::Required, "a non-negative integer");
    if (!v)
        return false;
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<std::int64_t>() >= 0)) {
        r.error(key, "expected a non-negative integer, got " + describeJson(*v));
        return false;
    }
    out = v->get<std::uint64_t>();
    return true;
}

// A finite number >= 0 at `key`, or null (written for a figure that is not finite: NaN).
void readFigure(ObjectReader& r, const char* key, double& out)
{
    const Json* v = r.find(key, Need::Required, "a non-negative number");
    if (!v)
        return;
    if (v->is_null()) {
        out = std::numeric_limits<double>::quiet_NaN();
        return;
    }
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0.0) {
        r.error(key, "expected a non-negative number or null, got " + describeJson(*v));
        return;
    }
    out = v->get<double>();
}

void readPoints(ObjectReader& r, const char* key, const SpaceOdometer& odometer,
                std::vector<SweepPoint>& out)
{
    using namespace sweepkeys;
    r.objects(key, Need::Required, [&](ObjectReader& o) {
        SweepPoint p;
        std::uint64_t index = 0;
        if (readCount(o, kIndex, index)) {
            if (index >= odometer.size())
                o.error(kIndex, "expected an index below the space's " +
                                    std::to_string(odometer.size()) + " points, got " +
                                    std::to_string(index));
            else
                p.point = odometer.at(index);
        }
        o.skip(kDescription); // for people: the knobs follow from the index
        o.integer(spacekeys::kGlobalBatch, p.point.globalBatch, Need::Optional,
                  limits::kGlobalBatch);
        int dp = 0;
        if (o.integer(kDataParallel, dp, Need::Required))
            p.dataParallel = dp;
        Evaluation& e = p.evaluation;
        readFigure(o, kIterationTimeS, e.iterationTimeS);
        readFigure(o, kTimeToTrainS, e.timeToTrainS);
        // Absent from documents saved before goodput was modelled: unknown (NaN).
        e.goodput.effectiveTimeToTrainS = std::numeric_limits<double>::quiet_NaN();
        if (o.find(kEffectiveTimeToTrainS, Need::Optional, ""))
            readFigure(o, kEffectiveTimeToTrainS, e.goodput.effectiveTimeToTrainS);
        // Absent from documents saved before the run was priced: unknown (NaN).
        e.runCost.effectiveRunCostUsd = std::numeric_limits<double>::quiet_NaN();
        if (o.find(kEffectiveRunCostUsd, Need::Optional, ""))
            readFigure(o, kEffectiveRunCostUsd, e.runCost.effectiveRunCostUsd);
        readFigure(o, kMemoryPeakGib, e.memoryPeakGib);
        readFigure(o, kMfu, e.mfu);
        readFigure(o, kNetworkCapexUsd, p.networkCapexUsd);
        readFigure(o, kNetworkPowerW, p.networkPowerW);
        readFigure(o, kTotalCostUsd, p.totalCostUsd);
        e.ok = true;
        e.fitsInMemory = true;
        e.networkCapexUsd = p.networkCapexUsd;
        e.networkPowerW = p.networkPowerW;
        out.push_back(std::move(p));
    });
}

} // namespace

nlohmann::ordered_json savedSweepToJson(const SearchSpace& space, const SweepResult& r)
{
    using namespace sweepkeys;
    const SweepCounts& c = r.counts;
    OJson pruned = OJson::object();
    for (std::size_t i = 0; i < c.pruned.size(); ++i)
        pruned[toString(static_cast<PruneReason>(i))] = c.pruned[i];
    OJson j;
    j[kSpace] = searchSpaceToJson(space);
    j[kCounts] = {{kSpacePoints, c.spacePoints}, {kConsidered, c.considered},
                  {kPrunedByReason, pruned},     {kEvaluated, c.evaluated},
                  {kFailed, c.failed},           {kOutOfMemory, c.outOfMemory},
                  {kOverBudget, c.overBudget},   {kFeasible, c.feasible}};
    j[kCancelled] = r.cancelled;
    j[kBaseRank] = r.baseRank;
    j[kFronts] = {{kTimeVsCapex, pointsJson(r.timeVsCapex)},
                  {kTimeVsMemory, pointsJson(r.timeVsMemory)},
                  {kTrainTimeVsCost, pointsJson(r.trainTimeVsCost)}};
    OJson top = OJson::object();
    for (std::size_t k = 0; k < kSweepObjectives; ++k)
        top[toString(static_cast<SweepObjective>(k))] = pointsJson(r.topBy[k]);
    j[kTopByObjective] = std::move(top);
    return j;
}

std::string savedSweepText(const SearchSpace& space, const SweepResult& result)
{
    return savedSweepToJson(space, result).dump(-1, ' ', false, OJson::error_handler_t::replace);
}

std::optional<SavedSweep> readSavedSweep(std::string_view text, const Scenario& base,
                                         DiagnosticSink& sink, const std::string& pointer)
{
    using namespace sweepkeys;
    Json doc;
    {
        DiagnosticSink syntax(sink.file());
        if (!parseJsonDocument(text, doc, syntax)) {
            for (Diagnostic d : syntax.takeErrors()) {
                d.pointer = pointer + d.pointer;
                sink.add(std::move(d));
            }
            return std::nullopt;
        }
    }
    SavedSweep saved;
    bool spaceOk = false;
    {
        ObjectReader r(doc, pointer, sink);
        if (!r.valid())
            return std::nullopt;
        // The space with the one space reader, its pointers under the section's.
        if (const Json* space = r.find(kSpace, Need::Required, "an object")) {
            std::optional<SearchSpace> read =
                readSearchSpace(*space, base, sink, r.pointerOf(kSpace));
            if (read) {
                saved.space = std::move(*read);
                spaceOk = true;
            }
        }
        r.object(kCounts, Need::Required, [&](ObjectReader& c) {
            SweepCounts& n = saved.counts;
            readCount(c, kSpacePoints, n.spacePoints);
            readCount(c, kConsidered, n.considered);
            c.object(kPrunedByReason, Need::Required, [&](ObjectReader& p) {
                for (std::size_t i = 0; i < n.pruned.size(); ++i) {
                    const char* reason = toString(static_cast<PruneReason>(i));
                    if (p.find(reason, Need::Optional, ""))
                        readCount(p, reason, n.pruned[i]);
                }
            });
            readCount(c, kEvaluated, n.evaluated);
            readCount(c, kFailed, n.failed);
            readCount(c, kOutOfMemory, n.outOfMemory);
            readCount(c, kOverBudget, n.overBudget);
            readCount(c, kFeasible, n.feasible);
        });
        r.boolean(kCancelled, saved.cancelled, Need::Optional);
        if (r.find(kBaseRank, Need::Optional, ""))
            readCount(r, kBaseRank, saved.baseRank);
        if (!spaceOk) {
            // Without the space the indices mean nothing: mark the rest as read.
            r.skip(kFronts);
            r.skip(kTopByObjective);
            return std::nullopt;
        }
        const SpaceOdometer odometer(saved.space);
        r.object(kFronts, Need::Required, [&](ObjectReader& f) {
            readPoints(f, kTimeVsCapex, odometer, saved.timeVsCapex);
            readPoints(f, kTimeVsMemory, odometer, saved.timeVsMemory);
            readPoints(f, kTrainTimeVsCost, odometer, saved.trainTimeVsCost);
        });
        r.object(kTopByObjective, Need::Optional, [&](ObjectReader& t) {
            for (std::size_t k = 0; k < kSweepObjectives; ++k) {
                const char* name = toString(static_cast<SweepObjective>(k));
                if (t.find(name, Need::Optional, ""))
                    readPoints(t, name, odometer, saved.topBy[k]);
            }
        });
    }
    if (sink.hasErrors())
        return std::nullopt;
    return saved;
}

SweepResult sweepResultOf(const SavedSweep& saved)
{
    SweepResult r;
    r.ok = true;
    r.cancelled = saved.cancelled;
    r.counts = saved.counts;
    r.baseRank = saved.baseRank;
    r.timeVsCapex = saved.timeVsCapex;
    r.timeVsMemory = saved.timeVsMemory;
    r.trainTimeVsCost = saved.trainTimeVsCost;
    r.topBy = saved.topBy;
    r.top = saved.topBy[static_cast<std::size_t>(SweepObjective::IterationTime)];
    return r;
}

} // namespace archipelago::core
