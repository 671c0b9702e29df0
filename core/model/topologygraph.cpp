#include "model/topologygraph.h"

#include "model/dcilink.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <algorithm>
#include <limits>

namespace archipelago::core {

namespace {

// Undirected graph; each edge carries its index into TopologyGraph::m_edges and its length.
struct EdgeProps
{
    int index = 0;
    double distanceKm = 0.0;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                    boost::no_property, EdgeProps>;

} // namespace

struct TopologyGraph::BoostGraph
{
    Graph g;
};

TopologyGraph::~TopologyGraph() = default;
TopologyGraph::TopologyGraph(TopologyGraph&&) noexcept = default;
TopologyGraph& TopologyGraph::operator=(TopologyGraph&&) noexcept = default;

TopologyGraph::TopologyGraph(const Topology& topology)
    : m_graph(std::make_unique<BoostGraph>())
{
    for (const Datacenter& dc : topology.datacenters) {
        m_index.emplace(dc.id, static_cast<int>(m_ids.size()));
        m_ids.push_back(dc.id);
    }
    for (const DciLink& link : topology.links) {
        const auto a = vertex(link.a);
        const auto b = vertex(link.b);
        if (a && b && *a != *b)
            m_edges.push_back({*a, *b, &link});
    }
    m_graph->g = Graph(m_ids.size());
    for (std::size_t i = 0; i < m_edges.size(); ++i)
        boost::add_edge(
            static_cast<std::size_t>(m_edges[i].a), static_cast<std::size_t>(m_edges[i].b),
            EdgeProps{static_cast<int>(i), std::max(0.0, m_edges[i].link->distanceKm)}, m_graph->g);
    m_components.assign(m_ids.size(), 0);
    if (!m_ids.empty())
        m_componentCount =
            static_cast<int>(boost::connected_components(m_graph->g, m_components.data()));
}

std::optional<int> TopologyGraph::vertex(Id id) const
{
    const auto it = m_index.find(id);
    if (it == m_index.end())
        return std::nullopt;
    return it->second;
}

int TopologyGraph::componentCount() const
{
    return m_componentCount;
}

std::optional<DciRoute> TopologyGraph::route(Id from, Id to) const
{
    const auto s = vertex(from);
    const auto t = vertex(to);
    if (!s || !t)
        return std::nullopt;
    DciRoute result;
    result.datacenters.push_back(from);
    result.bottleneckGBps = std::numeric_limits<double>::infinity();
    if (*s == *t)
        return result;

    const Graph& g = m_graph->g;
    std::vector<Graph::vertex_descriptor> pred(m_ids.size());
    std::vector<double> dist(m_ids.size());
    std::vector<Graph::edge_descriptor> predEdge(m_ids.size());
    // Record the edge used to reach each vertex so parallel links resolve to the shorter one.
    struct EdgeRecorder : boost::default_dijkstra_visitor
    {
        std::vector<Graph::edge_descriptor>* out;
        void edge_relaxed(Graph::edge_descriptor e, const Graph& gr)
        {
            (*out)[boost::target(e, gr)] = e;
        }
    };
    EdgeRecorder recorder;
    recorder.out = &predEdge;
    boost::dijkstra_shortest_paths(g, static_cast<std::size_t>(*s),
                                   boost::predecessor_map(pred.data())
                                       .distance_map(dist.data())
                                       .weight_map(boost::get(&EdgeProps::distanceKm, g))
                                       .visitor(recorder));
    const auto target = static_cast<std::size_t>(*t);
    if (pred[target] == target)
        return std::nullopt; // unreachable

    std::vector<int> edgeIndices;
    for (std::size_t v = target; v != static_cast<std::size_t>(*s); v = pred[v])
        edgeIndices.push_back(g[predEdge[v]].index);
    std::reverse(edgeIndices.begin(), edgeIndices.end());
    int at = *s;
    for (int e : edgeIndices) {
        const Edge& edge = m_edges[static_cast<std::size_t>(e)];
        at = edge.a == at ? edge.b : edge.a;
        result.datacenters.push_back(m_ids[static_cast<std::size_t>(at)]);
        result.links.push_back(edge.link->id);
        result.distanceKm += edge.link->distanceKm;
        result.oneWayLatencyS += dciOneWayLatencyS(*edge.link);
        result.bottleneckGBps = std::min(result.bottleneckGBps, dciCapacityGBps(*edge.link));
    }
    return result;
}

double TopologyGraph::maxBottleneckGBps(Id from, Id to) const
{
    const auto s = vertex(from);
    const auto t = vertex(to);
    if (!s || !t)
        return 0.0;
    if (*s == *t)
        return std::numeric_limits<double>::infinity();
    // Max-min label setting: repeatedly settle the vertex with the widest known bottleneck.
    // A few dozen datacenters: the O(V^2) scan is simpler than a heap and fast enough.
    const std::size_t n = m_ids.size();
    std::vector<double> width(n, 0.0);
    std::vector<bool> done(n, false);
    width[static_cast<std::size_t>(*s)] = std::numeric_limits<double>::infinity();
    for (std::size_t iter = 0; iter < n; ++iter) {
        std::size_t best = n;
        for (std::size_t v = 0; v < n; ++v)
            if (!done[v] && width[v] > 0.0 && (best == n || width[v] > width[best]))
                best = v;
        if (best == n)
            break;
        done[best] = true;
        for (const Edge& e : m_edges) {
            const auto a = static_cast<std::size_t>(e.a);
            const auto b = static_cast<std::size_t>(e.b);
            if (a != best && b != best)
                continue;
            const std::size_t other = a == best ? b : a;
            width[other] = std::max(width[other], std::min(width[best], dciCapacityGBps(*e.link)));
        }
    }
    return width[static_cast<std::size_t>(*t)];
}

} // namespace archipelago::core
