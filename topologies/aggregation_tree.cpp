#include "topologies/aggregation_tree.hpp"

#include <algorithm>
#include <stdexcept>

namespace topo {
namespace {

bool is_host(const Fabric& f, int node) {
  return f.host_index[static_cast<size_t>(node)] >= 0;
}

// Hop distance of every switch to its nearest host (multi-source BFS from the hosts).
std::vector<int> switch_levels(const Fabric& f) {
  const size_t n = f.topo.nodes.size();
  std::vector<int> level(n, -1);
  std::vector<int> frontier;
  for (size_t v = 0; v < n; ++v) {
    if (is_host(f, static_cast<int>(v))) {
      level[v] = 0;
      frontier.push_back(static_cast<int>(v));
    }
  }
  for (size_t head = 0; head < frontier.size(); ++head) {
    const int u = frontier[head];
    for (const PortRef& p : f.ports[static_cast<size_t>(u)]) {
      if (level[static_cast<size_t>(p.peer_node)] < 0) {
        level[static_cast<size_t>(p.peer_node)] = level[static_cast<size_t>(u)] + 1;
        frontier.push_back(p.peer_node);
      }
    }
  }
  return level;
}

// The nodes connected to `node` (1), the rest of the graph (0).
std::vector<char> component_of(const Fabric& f, int node) {
  std::vector<char> in(f.topo.nodes.size(), 0);
  std::vector<int> frontier{node};
  in[static_cast<size_t>(node)] = 1;
  for (size_t head = 0; head < frontier.size(); ++head) {
    for (const PortRef& p : f.ports[static_cast<size_t>(frontier[head])]) {
      if (p.link < 0 || in[static_cast<size_t>(p.peer_node)] != 0) continue;
      in[static_cast<size_t>(p.peer_node)] = 1;
      frontier.push_back(p.peer_node);
    }
  }
  return in;
}

}  // namespace

AggregationTree build_aggregation_tree(const Fabric& f, const std::vector<int>& host_nodes) {
  const size_t n = f.topo.nodes.size();
  if (host_nodes.size() < 2) throw std::invalid_argument("an aggregation group needs two hosts");
  std::vector<char> member(n, 0);
  for (int h : host_nodes) {
    if (h < 0 || static_cast<size_t>(h) >= n || !is_host(f, h)) {
      throw std::invalid_argument("aggregation group: node " + std::to_string(h) +
                                  " is not a host");
    }
    if (member[static_cast<size_t>(h)] != 0) {
      throw std::invalid_argument("aggregation group: host " + f.topo.nodes[h].name + " twice");
    }
    member[static_cast<size_t>(h)] = 1;
  }
  const std::vector<int> level = switch_levels(f);
  // The root is chosen among the switches of the group's part of the graph: a GPU server's
  // NVSwitch domain is a part apart from the fabric (topologies/gpu_nodes.hpp), and its
  // NVLink endpoints are reduced by their NVSwitch alone (NVLS).
  const std::vector<char> part = component_of(f, host_nodes.front());
  int root = -1;
  for (size_t v = 0; v < n; ++v) {
    if (part[v] != 0 && !is_host(f, static_cast<int>(v)) &&
        (root < 0 || level[v] > level[static_cast<size_t>(root)])) {
      root = static_cast<int>(v);
    }
  }
  if (root < 0) throw std::invalid_argument("aggregation tree: the group's hosts have no switch");

  // Breadth-first from the root over switches; hosts attach through their port 0 only.
  std::vector<int> parent(n, -2);       // -2 unvisited, -1 root
  std::vector<int> parent_port(n, -1);  // node's port towards its parent
  std::vector<int> order;
  parent[static_cast<size_t>(root)] = -1;
  order.push_back(root);
  for (size_t head = 0; head < order.size(); ++head) {
    const int u = order[head];
    if (is_host(f, u)) continue;  // hosts never forward
    for (const PortRef& p : f.ports[static_cast<size_t>(u)]) {
      const int v = p.peer_node;
      if (parent[static_cast<size_t>(v)] != -2) continue;
      if (is_host(f, v) && p.peer_port != 0) continue;  // a host's NIC is its port 0
      parent[static_cast<size_t>(v)] = u;
      parent_port[static_cast<size_t>(v)] = p.peer_port;
      order.push_back(v);
    }
  }
  // Keep the switches with a group host below them (children before parents: reverse BFS).
  std::vector<int> members_below(n, 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    if (member[static_cast<size_t>(v)] != 0) members_below[static_cast<size_t>(v)] += 1;
    if (parent[static_cast<size_t>(v)] >= 0) {
      members_below[static_cast<size_t>(parent[static_cast<size_t>(v)])] +=
          members_below[static_cast<size_t>(v)];
    }
  }
  for (int h : host_nodes) {
    if (parent[static_cast<size_t>(h)] < 0) {
      throw std::invalid_argument("aggregation tree: host " + f.topo.nodes[h].name +
                                  " not reachable from the root");
    }
  }
  auto kept_children = [&](int u) {
    std::vector<int> kids;
    for (const PortRef& p : f.ports[static_cast<size_t>(u)]) {
      const int v = p.peer_node;
      if (parent[static_cast<size_t>(v)] == u &&
          parent_port[static_cast<size_t>(v)] == p.peer_port &&
          members_below[static_cast<size_t>(v)] > 0) {
        kids.push_back(v);
      }
    }
    return kids;
  };
  // Descend while the root has one child and it is a switch.
  for (;;) {
    const std::vector<int> kids = kept_children(root);
    if (kids.size() != 1 || is_host(f, kids[0])) break;
    root = kids[0];
  }

  AggregationTree t;
  std::vector<int> index(n, -1);
  std::vector<int> queue{root};
  index[static_cast<size_t>(root)] = 0;
  t.switches.push_back(AggregationSwitch{root, -1, -1, {}, 1});
  for (size_t head = 0; head < queue.size(); ++head) {
    const int u = queue[head];
    const int ui = index[static_cast<size_t>(u)];
    for (int v : kept_children(u)) {
      // The child port of u is the peer port of v's parent port.
      const PortRef& up =
          f.ports[static_cast<size_t>(v)][static_cast<size_t>(parent_port[static_cast<size_t>(v)])];
      t.switches[static_cast<size_t>(ui)].child_ports.push_back(up.peer_port);
      if (is_host(f, v)) {
        t.depth = std::max(t.depth, t.switches[static_cast<size_t>(ui)].depth);
        continue;
      }
      index[static_cast<size_t>(v)] = static_cast<int>(t.switches.size());
      t.switches.push_back(AggregationSwitch{v,
                                             ui,
                                             parent_port[static_cast<size_t>(v)],
                                             {},
                                             t.switches[static_cast<size_t>(ui)].depth + 1});
      queue.push_back(v);
    }
    auto& cp = t.switches[static_cast<size_t>(ui)].child_ports;
    std::sort(cp.begin(), cp.end());
  }
  for (int h : host_nodes) {
    t.host_switch.push_back(index[static_cast<size_t>(parent[static_cast<size_t>(h)])]);
  }
  return t;
}

}  // namespace topo
