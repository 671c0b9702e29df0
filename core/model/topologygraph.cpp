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

std::string routeName(const Topology& topology, const DciRoute& route)
{
    std::string out;
    for (const Id id : route.datacenters) {
        if (!out.empty())
            out += " \u2192 ";
        const Datacenter* dc = findDatacenter(topology, id);
        out += dc ? dc->name : "?";
    }
    return out;
}

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

struct TopologyGraph::ShortestPaths
{
    std::vector<std::size_t> pred; // Dijkstra's predecessor of each vertex (itself: unreached)
    std::vector<int> predEdge;     // index into m_edges of the edge that reached it
};

TopologyGraph::ShortestPaths TopologyGraph::shortestPaths(int source) const
{
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
    boost::dijkstra_shortest_paths(g, static_cast<std::size_t>(source),
                                   boost::predecessor_map(pred.data())
                                       .distance_map(dist.data())
                                       .weight_map(boost::get(&EdgeProps::distanceKm, g))
                                       .visitor(recorder));
    ShortestPaths out;
    out.pred.assign(pred.begin(), pred.end());
    out.predEdge.assign(m_ids.size(), -1);
    for (std::size_t v = 0; v < m_ids.size(); ++v)
        if (pred[v] != v)
            out.predEdge[v] = g[predEdge[v]].index;
    return out;
}

std::optional<DciRoute> TopologyGraph::routeTo(int source, int target,
                                               const ShortestPaths& paths) const
{
    DciRoute result;
    result.datacenters.push_back(m_ids[static_cast<std::size_t>(source)]);
    result.bottleneckGBps = std::numeric_limits<double>::infinity();
    if (source == target)
        return result;
    const auto t = static_cast<std::size_t>(target);
    if (paths.pred[t] == t)
        return std::nullopt; // unreachable

    std::vector<int> edgeIndices;
    for (std::size_t v = t; v != static_cast<std::size_t>(source); v = paths.pred[v])
        edgeIndices.push_back(paths.predEdge[v]);
    std::reverse(edgeIndices.begin(), edgeIndices.end());
    int at = source;
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

std::optional<DciRoute> TopologyGraph::route(Id from, Id to) const
{
    const auto s = vertex(from);
    const auto t = vertex(to);
    if (!s || !t)
        return std::nullopt;
    if (*s == *t)
        return routeTo(*s, *t, {});
    return routeTo(*s, *t, shortestPaths(*s));
}

std::vector<std::optional<DciRoute>> TopologyGraph::routesFrom(Id from) const
{
    std::vector<std::optional<DciRoute>> out(m_ids.size());
    const auto s = vertex(from);
    if (!s)
        return out;
    const ShortestPaths paths = shortestPaths(*s);
    for (std::size_t t = 0; t < m_ids.size(); ++t)
        out[t] = routeTo(*s, static_cast<int>(t), paths);
    return out;
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
