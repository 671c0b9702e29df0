// The graph of datacenters and DCI links (ARCHITECTURE.md section 2): connectivity, the
// shortest route by fibre distance and the bottleneck capacity between two sites.
// Built once from a Topology, which must outlive it; the Boost graph is built once too, so a
// route costs one Dijkstra run. Answers are by datacenter id.
#pragma once

#include "model/scenario.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace archipelago::core {

// A path between two datacenters over DCI links.
struct DciRoute
{
    std::vector<Id> datacenters; // from source to destination, both included
    std::vector<Id> links;       // DCI link ids, in order (empty when source == destination)
    double distanceKm = 0.0;
    double oneWayLatencyS = 0.0; // sum of the links' propagation + equipment latency
    double bottleneckGBps = 0.0; // min capacity over the links (GB/s per direction)

    bool operator==(const DciRoute&) const = default;
};

// A route as its datacenters' names joined by arrows, from source to destination
// ("A2 → A1 → B1"); an unknown id prints as "?".
std::string routeName(const Topology& topology, const DciRoute& route);

class TopologyGraph
{
public:
    explicit TopologyGraph(const Topology& topology);
    ~TopologyGraph();
    TopologyGraph(TopologyGraph&&) noexcept;
    TopologyGraph& operator=(TopologyGraph&&) noexcept;

    std::size_t datacenterCount() const { return m_ids.size(); }
    // Number of connected components (1 = every datacenter reaches every other).
    int componentCount() const;
    // Component index of each datacenter, in topology order (0 holds the first datacenter).
    const std::vector<int>& components() const { return m_components; }
    bool isConnected() const { return componentCount() <= 1; }
    bool connected(Id a, Id b) const { return route(a, b).has_value(); }

    // Shortest route by fibre distance (Dijkstra 1959, via boost::dijkstra_shortest_paths).
    // nullopt when either id is unknown or the sites are not connected.
    std::optional<DciRoute> route(Id from, Id to) const;
    // The shortest route from `from` to every datacenter, in topology order, from one Dijkstra
    // run (nullopt where unreachable; all nullopt for an unknown id).
    std::vector<std::optional<DciRoute>> routesFrom(Id from) const;
    // Widest path: the largest bottleneck capacity over all routes (max-min path, a Dijkstra
    // variant; Pollack 1960, "The maximum capacity through a network"). 0 when disconnected.
    double maxBottleneckGBps(Id from, Id to) const;

private:
    struct Edge
    {
        int a = 0, b = 0;
        const DciLink* link = nullptr;
    };
    struct BoostGraph; // boost::adjacency_list, kept out of this header
    struct ShortestPaths;
    std::optional<int> vertex(Id id) const;
    ShortestPaths shortestPaths(int source) const;
    std::optional<DciRoute> routeTo(int source, int target, const ShortestPaths& paths) const;

    std::vector<Id> m_ids;     // vertex index -> datacenter id
    std::map<Id, int> m_index; // datacenter id -> vertex index
    std::vector<Edge> m_edges;
    std::unique_ptr<BoostGraph> m_graph;
    std::vector<int> m_components;
    int m_componentCount = 0;
};

} // namespace archipelago::core
