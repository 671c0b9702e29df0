#include "model/topologygraph.h"

#include "model/dcilink.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <algorithm>
#include <limits>

namespace archipelago::core {

namespace {

// Undirected graph; each edge carries its index into TopologyGraph::edges_ and its length.
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
    : graph_(std::make_unique<BoostGraph>())
{
    for (const Datacenter& dc : topology.datacenters) {
        index_.emplace(dc.id, static_cast<int>(ids_.size()));
        ids_.push_back(dc.id);
    }
    for (const DciLink& link : topology.links) {
        const auto a = vertex(link.a);
        const auto b = vertex(link.b);
        if (a && b && *a != *b)
            edges_.push_back({*a, *b, &link});
    }
    graph_->g = Graph(ids_.size());
    for (std::size_t i = 0; i < edges_.size(); ++i)
        boost::add_edge(
            static_cast<std::size_t>(edges_[i].a), static_cast<std::size_t>(edges_[i].b),
            EdgeProps{static_cast<int>(i), std::max(0.0, edges_[i].link->distanceKm)}, graph_->g);
    components_.assign(ids_.size(), 0);
    if (!ids_.empty())
        componentCount_ =
            static_cast<int>(boost::connected_components(graph_->g, components_.data()));
}

std::optional<int> TopologyGraph::vertex(Id id) const
{
    const auto it = index_.find(id);
    if (it == index_.end())
        return std::nullopt;
    return it->second;
}

int TopologyGraph::componentCount() const
{
    return componentCount_;
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

    const Graph& g = graph_->g;
    std::vector<Graph::vertex_descriptor> pred(ids_.size());
    std::vector<double> dist(ids_.size());
    std::vector<Graph::edge_descriptor> predEdge(ids_.size());
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
        const Edge& edge = edges_[static_cast<std::size_t>(e)];
        at = edge.a == at ? edge.b : edge.a;
        result.datacenters.push_back(ids_[static_cast<std::size_t>(at)]);
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
    const std::size_t n = ids_.size();
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
        for (const Edge& e : edges_) {
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
