// A two-objective Pareto front, both minimised, kept incrementally: a point enters when no
// kept point is at least as good on both objectives (an equal point keeps the one inserted
// first, the lower odometer index), and removes the points it dominates.
#pragma once

#include "explore/sweeppoint.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace archipelago::core {

class ParetoFront
{
public:
    using Objective = double (*)(const SweepPoint&);

    ParetoFront(Objective first, Objective second)
        : m_x(first)
        , m_y(second)
    {}

    // True when `p` entered the front.
    bool insert(const SweepPoint& p);
    // The front sorted by the first objective (ties by index).
    std::vector<SweepPoint> sorted() const;
    std::size_t size() const { return m_points.size(); }
    const std::vector<SweepPoint>& points() const { return m_points; } // insertion order
    Objective x() const { return m_x; }
    Objective y() const { return m_y; }

private:
    Objective m_x;
    Objective m_y;
    std::vector<SweepPoint> m_points;
};

// The figures the sweep's fronts are drawn on (explore/sweep.h), one definition for the sweep
// and for merging its shards (explore/sweepmerge.h).
namespace frontaxis {
inline double iterationTimeS(const SweepPoint& p)
{
    return p.evaluation.iterationTimeS;
}
inline double networkCapexUsd(const SweepPoint& p)
{
    return p.networkCapexUsd;
}
inline double memoryPeakGib(const SweepPoint& p)
{
    return p.evaluation.memoryPeakGib;
}
inline double timeToTrainS(const SweepPoint& p)
{
    return p.evaluation.timeToTrainS;
}
inline double totalCostUsd(const SweepPoint& p)
{
    return p.totalCostUsd;
}
} // namespace frontaxis

// a dominates b: no worse on both objectives and better on one.
bool dominates(double ax, double ay, double bx, double by);

// A point offered to paretoFrontOf: its odometer index and its two objectives.
struct FrontCandidate
{
    std::uint64_t index = 0;
    double x = 0.0;
    double y = 0.0;
};

// The front ParetoFront keeps when `points` (distinct indices, no NaN) are inserted in odometer
// order, in the order of sorted(): the positions in `points` of the points that no point
// dominates and that no point of a lower index equals on both objectives, by increasing x.
// O(n log n): a sort by (x, y, index) and one sweep that keeps the least y of the smaller x
// (Kung, Luccio and Preparata 1975, "On finding the maxima of a set of vectors", JACM 22(4),
// the two-dimensional case), where ParetoFront's insertions take O(n * front).
std::vector<std::size_t> paretoFrontOf(const std::vector<FrontCandidate>& points);

} // namespace archipelago::core
