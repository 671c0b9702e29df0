#include "explore/paretofront.h"

#include <algorithm>

namespace archipelago::core {

bool dominates(double ax, double ay, double bx, double by)
{
    return ax <= bx && ay <= by && (ax < bx || ay < by);
}

bool ParetoFront::insert(const SweepPoint& p)
{
    const double px = m_x(p);
    const double py = m_y(p);
    for (const SweepPoint& q : m_points)
        if (m_x(q) <= px && m_y(q) <= py)
            return false;
    std::erase_if(m_points, [&](const SweepPoint& q) { return dominates(px, py, m_x(q), m_y(q)); });
    m_points.push_back(p);
    return true;
}

std::vector<SweepPoint> ParetoFront::sorted() const
{
    std::vector<SweepPoint> out = m_points;
    std::sort(out.begin(), out.end(), [&](const SweepPoint& a, const SweepPoint& b) {
        if (m_x(a) != m_x(b))
            return m_x(a) < m_x(b);
        return a.point.index < b.point.index;
    });
    return out;
}

std::vector<std::size_t> paretoFrontOf(const std::vector<FrontCandidate>& points)
{
    std::vector<std::size_t> order(points.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const FrontCandidate& p = points[a];
        const FrontCandidate& q = points[b];
        if (p.x != q.x)
            return p.x < q.x;
        if (p.y != q.y)
            return p.y < q.y;
        if (p.index != q.index)
            return p.index < q.index;
        return a < b;
    });
    std::vector<std::size_t> front;
    bool any = false;
    double leastY = 0.0; // the least y of the points of a smaller x
    for (std::size_t i = 0; i < order.size();) {
        // A run of equal x: its first point has the least y and, among the points equal to it,
        // the lowest index; the others are dominated by it or equal to it with a higher index.
        const FrontCandidate& first = points[order[i]];
        // A point of smaller x and no greater y dominates it.
        if (!any || leastY > first.y) {
            front.push_back(order[i]);
            leastY = first.y;
            any = true;
        }
        while (i < order.size() && points[order[i]].x == first.x)
            ++i;
    }
    return front;
}

} // namespace archipelago::core
