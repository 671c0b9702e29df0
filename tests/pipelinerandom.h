// Random pipeline shapes for the simulator's tests (test_pipelinereplay, test_pipelineperiodic):
// every schedule, uneven stages, transfers, cross-DC extras and shared-link loads; and the
// difference of two results, field by field.
#pragma once

#include "model/scheduletraits.h"
#include "pipeline/pipelinesimulator.h"
#include "pipelinefixtures.h"

#include <QString>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace archipelago::tests {

using core::PipelineResult;
using core::PipelineSpec;

// Everything but the timeline: exactly (rel 0), or to a relative tolerance.
inline bool same(double a, double b, double rel)
{
    return a == b || std::abs(a - b) <= rel * std::max({1.0, std::abs(a), std::abs(b)});
}
inline bool same(const std::vector<double>& a, const std::vector<double>& b, double rel)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!same(a[i], b[i], rel))
            return false;
    return true;
}

inline QString difference(const PipelineResult& a, const PipelineResult& b, double rel = 0.0)
{
    if (a.ok != b.ok)
        return QStringLiteral("ok");
    if (!a.ok)
        return {};
    if (!same(a.makespanS, b.makespanS, rel))
        return QStringLiteral("makespan %1 vs %2")
            .arg(a.makespanS, 0, 'g', 17)
            .arg(b.makespanS, 0, 'g', 17);
    if (!same(a.periodS, b.periodS, rel))
        return QStringLiteral("period %1 vs %2")
            .arg(a.periodS, 0, 'g', 17)
            .arg(b.periodS, 0, 'g', 17);
    if (!same(a.finishS, b.finishS, rel))
        return QStringLiteral("per-rank ends");
    if (!same(a.busyS, b.busyS, rel))
        return QStringLiteral("per-rank busy");
    if (!same(a.idleS, b.idleS, rel))
        return QStringLiteral("per-rank idle");
    if (!same(a.bubbleRatio, b.bubbleRatio, rel) ||
        !same(a.idleOverCompute, b.idleOverCompute, rel))
        return QStringLiteral("bubble %1 vs %2")
            .arg(a.bubbleRatio, 0, 'g', 17)
            .arg(b.bubbleRatio, 0, 'g', 17);
    if (a.peakInFlight != b.peakInFlight)
        return QStringLiteral("peak in flight");
    if (!same(a.firstForwardStartS, b.firstForwardStartS, rel))
        return QStringLiteral("first forwards");
    if (!same(a.gradReadyStartS, b.gradReadyStartS, rel) ||
        !same(a.gradReadyEndS, b.gradReadyEndS, rel))
        return QStringLiteral("gradient-ready times");
    if (a.resources.size() != b.resources.size())
        return QStringLiteral("resources");
    // Busy intervals with the gaps below the tolerance closed (a gap of a rounding error
    // between two services that meet is no gap).
    const auto closed = [rel](const std::vector<std::pair<double, double>>& spans) {
        std::vector<std::pair<double, double>> out;
        for (const auto& s : spans)
            if (!out.empty() && same(out.back().second, s.first, rel))
                out.back().second = s.second;
            else
                out.push_back(s);
        return out;
    };
    for (std::size_t i = 0; i < a.resources.size(); ++i) {
        const auto x = closed(a.resources[i].busyIntervals);
        const auto y = closed(b.resources[i].busyIntervals);
        if (!same(a.resources[i].busyS, b.resources[i].busyS, rel) || x.size() != y.size())
            return QStringLiteral("resource %1 usage").arg(i);
        for (std::size_t k = 0; k < x.size(); ++k)
            if (!same(x[k].first, y[k].first, rel) || !same(x[k].second, y[k].second, rel))
                return QStringLiteral("resource %1 busy interval %2").arg(i).arg(k);
    }
    return {};
}

// A shape in a failure message: "1f1b, p 4, v 1, m 12, extra 0, 2 loads".
inline QString describe(const PipelineSpec& s)
{
    return QStringLiteral("%1, p %2, v %3, m %4, extra %5, %6 loads")
        .arg(QString::fromLatin1(name(s.schedule)))
        .arg(s.stages)
        .arg(s.virtualStages)
        .arg(s.microBatches)
        .arg(s.extraInFlightAtDci)
        .arg(s.loads.size());
}

class Shapes
{
public:
    explicit Shapes(unsigned seed)
        : m_rng(seed)
    {}

    // A random valid shape: schedule, p, v, m, uneven stage times, transfers, and (with
    // `loads`) shared links loaded by some boundaries in some directions. `groups` scales the
    // micro-batch count (1: up to 24, or 4 groups of p for interleaved).
    PipelineSpec next(bool loads, int groups = 1)
    {
        PipelineSpec s;
        const auto schedules = core::allScheduleTraits();
        const core::ScheduleTraits& t = schedules[pick(0, static_cast<int>(schedules.size()) - 1)];
        s.schedule = t.kind;
        const bool dualPipe = t.modelCopies == 2;
        s.stages = dualPipe ? 2 * pick(1, 4) : pick(2, 8);
        s.virtualStages = t.fixedChunksPerRank > 0 ? t.fixedChunksPerRank
                          : t.interleaved          ? pick(1, 3)
                                                   : 1;
        if (dualPipe)
            s.microBatches = 2 * pick(s.stages, s.stages + 6 * groups);
        else if (t.interleaved && s.virtualStages > 1)
            s.microBatches = s.stages * pick(1, 4 * groups);
        else
            s.microBatches = pick(1, 24 * groups);
        const auto n = static_cast<std::size_t>(s.stages * s.virtualStages);
        for (std::size_t c = 0; c < n; ++c) {
            s.forwardS.push_back(uniform(0.5, 1.5));
            s.backwardS.push_back(uniform(1.0, 3.0));
        }
        if (t.splitsWeightGrad && pick(0, 1))
            for (std::size_t c = 0; c < n; ++c)
                s.weightGradS.push_back(s.backwardS[c] * uniform(0.2, 0.8));
        if (pick(0, 3) > 0)
            for (std::size_t c = 0; c + 1 < n; ++c)
                s.sendS.push_back(pick(0, 2) ? uniform(0.0, 0.4) : 0.0);
        if (!dualPipe && !s.sendS.empty() && pick(0, 2) == 0) {
            s.sendCrossesDci.assign(n - 1, false);
            s.sendCrossesDci[static_cast<std::size_t>(pick(0, static_cast<int>(n) - 2))] = true;
            s.extraInFlightAtDci = pick(1, 2);
        }
        if (loads && n > 1) {
            const int resources = pick(1, 3);
            for (int r = 0; r < resources; ++r)
                s.resources.push_back({core::LinkClass::Dci, r, r % 2 == 0, 100.0});
            for (std::size_t c = 0; c + 1 < n; ++c)
                for (const bool backward : {false, true})
                    if (pick(0, 2) == 0)
                        s.loads.push_back({static_cast<int>(c), backward, pick(0, resources - 1),
                                           uniform(0.05, 0.8)});
        }
        s.recordTimeline = false;
        return s;
    }

    // The same shape and loads with every time scaled by a factor in [1 - spread, 1 + spread].
    PipelineSpec perturbed(PipelineSpec s, double spread)
    {
        for (std::vector<double>* v : {&s.forwardS, &s.backwardS, &s.sendS})
            for (double& x : *v)
                x *= uniform(1.0 - spread, 1.0 + spread);
        for (std::size_t c = 0; c < s.weightGradS.size(); ++c)
            s.weightGradS[c] = std::min(s.backwardS[c], s.weightGradS[c] * uniform(0.9, 1.1));
        for (core::PipelineLoad& l : s.loads)
            l.serviceS *= uniform(1.0 - spread, 1.0 + spread);
        return s;
    }

private:
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(m_rng); }
    double uniform(double lo, double hi)
    {
        return std::uniform_real_distribution<double>(lo, hi)(m_rng);
    }
    std::mt19937 m_rng;
};

} // namespace archipelago::tests
