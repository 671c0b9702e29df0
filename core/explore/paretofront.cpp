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

} // namespace archipelago::core
