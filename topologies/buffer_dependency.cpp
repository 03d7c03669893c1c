#include "topologies/buffer_dependency.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "topologies/circuits.hpp"
#include "topologies/valley_tagging.hpp"

namespace topo {
namespace {

// Dense numbering of (node, port, priority) buffers, created on first sight.
class BufferIndex {
 public:
  explicit BufferIndex(const Fabric& f) {
    base_.resize(f.ports.size() + 1, 0);
    for (size_t n = 0; n < f.ports.size(); ++n) base_[n + 1] = base_[n] + f.ports[n].size();
  }
  int id(const BufferId& b) {
    const uint64_t key = static_cast<uint64_t>(b.priority) * base_.back() + base_[b.node] +
                         static_cast<uint64_t>(b.port);
    auto [it, fresh] = ids_.try_emplace(key, static_cast<int>(buffers_.size()));
    if (fresh) buffers_.push_back(b);
    return it->second;
  }
  const std::vector<BufferId>& buffers() const { return buffers_; }

 private:
  std::vector<uint64_t> base_;  // first global port number of each node
  std::unordered_map<uint64_t, int> ids_;
  std::vector<BufferId> buffers_;
};

bool is_switch(const Fabric& f, int node) {
  return f.host_index[node] < 0;
}

}  // namespace

DependencyReport buffer_dependency_cycles(const Fabric& f, const RoutingTables& rt,
                                          const std::vector<RouteDemand>& demands,
                                          size_t max_cycles, const ValleyRetag* retag) {
  // The priority of the packet in the next buffer (Tagger: re-tagged at a valley).
  auto next_priority = [&](int prev, int node, int next, int priority) {
    return retag == nullptr ? priority : retagged(*retag, prev, node, next, priority);
  };
  BufferIndex index(f);
  std::vector<std::pair<int, int>> edges;

  // ECMP demands, grouped by (destination, priority): one search per group over every next
  // hop reaches each buffer once, however many sources share it.
  std::map<std::pair<int, int>, std::vector<int>> groups;
  for (const auto& d : demands) {
    if (d.route.empty()) groups[{d.dst_host, d.priority}].push_back(d.src_host);
  }
  std::vector<uint8_t> seen;
  for (const auto& [key, sources] : groups) {
    const auto [dst, prio] = key;
    seen.assign(index.buffers().size(), 0);
    std::vector<int> frontier;
    auto visit = [&](int from, int node, int port, int priority) {
      const int b = index.id({node, port, priority});
      if (static_cast<size_t>(b) >= seen.size()) seen.resize(b + 1, 0);
      if (from >= 0) edges.emplace_back(from, b);
      if (!seen[b]) {
        seen[b] = 1;
        frontier.push_back(b);
      }
    };
    for (int src : sources) {
      const int h = f.host_node[src];
      for (uint16_t x : rt.next_hops(h, dst)) {
        const PortRef& pr = f.ports[h][x];
        if (is_switch(f, pr.peer_node)) visit(-1, pr.peer_node, pr.peer_port, prio);
      }
    }
    while (!frontier.empty()) {
      const int b = frontier.back();
      frontier.pop_back();
      const BufferId here = index.buffers()[b];
      const int prev = f.ports[here.node][here.port].peer_node;
      for (uint16_t x : rt.next_hops(here.node, dst)) {
        const PortRef& pr = f.ports[here.node][x];
        if (is_switch(f, pr.peer_node)) {
          visit(b, pr.peer_node, pr.peer_port,
                next_priority(prev, here.node, pr.peer_node, here.priority));
        }
      }
    }
  }

  // Explicit routes: host, the listed switches, host; every parallel link between two
  // consecutive nodes may carry the packets (down links carry none: they have no routes).
  for (const auto& d : demands) {
    if (d.route.empty()) continue;
    std::vector<int> path = {f.host_node[d.src_host]};
    path.insert(path.end(), d.route.begin(), d.route.end());
    path.push_back(f.host_node[d.dst_host]);
    std::vector<int> previous;  // buffers the packet may occupy at path[i]
    int priority = d.priority;
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      if (i > 0) priority = next_priority(path[i - 1], path[i], path[i + 1], priority);
      std::vector<int> next;
      if (is_switch(f, path[i + 1])) {
        for (const PortRef& pr : f.ports[path[i]]) {
          if (pr.link >= 0 && pr.peer_node == path[i + 1]) {
            next.push_back(index.id({pr.peer_node, pr.peer_port, priority}));
          }
        }
      }
      for (int a : previous) {
        for (int b : next) edges.emplace_back(a, b);
      }
      previous = std::move(next);
    }
  }

  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  DependencyReport report;
  report.buffers = index.buffers().size();
  report.dependencies = edges.size();

  // Sorted and without repeats, as elementary_circuits needs.
  const Circuits found = elementary_circuits(report.buffers, edges, max_cycles);
  report.truncated = found.truncated;
  const auto& buffers = index.buffers();
  const auto order = [](const BufferId& a, const BufferId& b) {
    return std::tie(a.node, a.port, a.priority) < std::tie(b.node, b.port, b.priority);
  };
  for (const auto& c : found.circuits) {
    std::vector<BufferId> cycle;
    for (int v : c) cycle.push_back(buffers[v]);
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end(), order), cycle.end());
    report.cycles.push_back(std::move(cycle));
  }
  std::sort(report.cycles.begin(), report.cycles.end(),
            [&](const std::vector<BufferId>& a, const std::vector<BufferId>& b) {
              return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), order);
            });
  return report;
}

std::string format_cycle(const Fabric& f, const std::vector<BufferId>& cycle) {
  std::string s;
  for (size_t i = 0; i <= cycle.size(); ++i) {
    const BufferId& b = cycle[i % cycle.size()];
    if (i > 0) s += " -> ";
    s += f.topo.nodes[b.node].name + ":" + std::to_string(b.port) + ":p" +
         std::to_string(b.priority);
  }
  return s;
}

}  // namespace topo
