// Validation and port assignment: turns a Topology (as written by a user or a generator) into
// a Fabric whose every port is resolved. Everything a model needs later is checked here, so
// that bad input is refused before the simulation starts (DESIGN.md, "Errors at the
// boundary"), with the path of the offending item, its value and what was expected.
#include "topologies/topology.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace topo {
namespace {

std::string node_path(int i) {
  return "nodes[" + std::to_string(i) + "]";
}
std::string link_path(int i) {
  return "links[" + std::to_string(i) + "]";
}

// Names of the two ends as JSON keys, so that paths match what the user wrote.
const char* end_key(bool a_side) {
  return a_side ? "a" : "b";
}
const char* port_key(bool a_side) {
  return a_side ? "a_port" : "b_port";
}

void validate_nodes(const Topology& t) {
  if (t.nodes.empty()) throw TopologyError("nodes", "topology has no nodes");
  std::unordered_map<std::string, int> first_use;
  bool has_host = false;
  for (int i = 0; i < static_cast<int>(t.nodes.size()); ++i) {
    const Node& n = t.nodes[i];
    if (n.name.empty()) throw TopologyError(node_path(i) + ".name", "node name is empty");
    const auto [it, inserted] = first_use.emplace(n.name, i);
    if (!inserted) {
      throw TopologyError(
          node_path(i) + ".name",
          "duplicate node name \"" + n.name + "\" (already used by " + node_path(it->second) + ")");
    }
    if (n.radix < 0 || n.radix > kMaxPortsPerNode) {
      throw TopologyError(node_path(i) + ".radix", "radix of node " + n.name + " must be in [0, " +
                                                       std::to_string(kMaxPortsPerNode) +
                                                       "] (0 = unlimited), got " +
                                                       std::to_string(n.radix));
    }
    has_host = has_host || n.kind == NodeKind::Host;
  }
  if (!has_host) {
    throw TopologyError("nodes", "topology has no hosts; at least one node must be a host");
  }
}

// Checks one end of a link: a valid node index and, if given, a usable explicit port.
void validate_link_end(const Topology& t, int link, bool a_side) {
  const Link& l = t.links[link];
  const int node = a_side ? l.a : l.b;
  const int port = a_side ? l.a_port : l.b_port;
  const int num_nodes = static_cast<int>(t.nodes.size());
  if (node < 0 || node >= num_nodes) {
    throw TopologyError(link_path(link) + "." + end_key(a_side),
                        "node index " + std::to_string(node) + " is out of range: expected 0.." +
                            std::to_string(num_nodes - 1));
  }
  if (port == -1) return;
  const Node& n = t.nodes[node];
  const int limit = n.radix > 0 ? n.radix : kMaxPortsPerNode;
  if (port < 0 || port >= limit) {
    throw TopologyError(link_path(link) + "." + port_key(a_side),
                        "port " + std::to_string(port) + " of node " + n.name +
                            " is out of range: expected 0.." + std::to_string(limit - 1) +
                            (n.radix > 0 ? " (radix " + std::to_string(n.radix) + ")" : "") +
                            ", or -1 to assign the next free port");
  }
}

void validate_links(const Topology& t) {
  for (int i = 0; i < static_cast<int>(t.links.size()); ++i) {
    const Link& l = t.links[i];
    validate_link_end(t, i, true);
    validate_link_end(t, i, false);
    if (l.a == l.b) {
      throw TopologyError(link_path(i),
                          "link connects node " + t.nodes[l.a].name + " to itself (self-loop)");
    }
    if (l.rate_bps <= 0) {
      throw TopologyError(link_path(i) + ".rate", "link rate must be > 0 bit/s, got " +
                                                      std::to_string(l.rate_bps) + " bit/s");
    }
    if (l.latency_ps <= 0) {
      throw TopologyError(link_path(i) + ".latency", "link latency must be > 0 ps, got " +
                                                         std::to_string(l.latency_ps) + " ps");
    }
    // Written as a negation so that NaN is refused too. 1 is excluded: a link that loses
    // every packet is a failed link, which routing models with link_up instead.
    if (!(l.loss_rate >= 0.0 && l.loss_rate < 1.0)) {
      throw TopologyError(link_path(i) + ".loss_rate",
                          "loss_rate must be in [0, 1), got " + std::to_string(l.loss_rate));
    }
  }
}

// Explicit port numbers must not collide; each node's port count must fit its radix.
// Returns, per node, which explicit port is taken by which link (-1 = free).
std::vector<std::vector<int>> claim_explicit_ports(const Topology& t) {
  const int num_nodes = static_cast<int>(t.nodes.size());
  std::vector<int> degree(num_nodes, 0);
  std::vector<std::vector<int>> owner(num_nodes);
  for (int i = 0; i < static_cast<int>(t.links.size()); ++i) {
    for (const bool a_side : {true, false}) {
      const Link& l = t.links[i];
      const int node = a_side ? l.a : l.b;
      const int port = a_side ? l.a_port : l.b_port;
      ++degree[node];
      if (port < 0) continue;
      auto& taken = owner[node];
      if (static_cast<int>(taken.size()) <= port) taken.resize(port + 1, -1);
      if (taken[port] != -1) {
        throw TopologyError(link_path(i) + "." + port_key(a_side),
                            "port " + std::to_string(port) + " of node " + t.nodes[node].name +
                                " is already used by " + link_path(taken[port]));
      }
      taken[port] = i;
    }
  }
  for (int n = 0; n < num_nodes; ++n) {
    const int limit = t.nodes[n].radix > 0 ? t.nodes[n].radix : kMaxPortsPerNode;
    if (degree[n] > limit) {
      throw TopologyError(
          node_path(n) + (t.nodes[n].radix > 0 ? ".radix" : ""),
          "node " + t.nodes[n].name + " has " + std::to_string(degree[n]) + " links but " +
              (t.nodes[n].radix > 0 ? "its radix is " + std::to_string(t.nodes[n].radix)
                                    : "at most " + std::to_string(kMaxPortsPerNode) +
                                          " ports per node are supported"));
    }
  }
  return owner;
}

// Every node must reach the first host; otherwise some traffic has a route to nowhere.
void validate_connected(const Topology& t) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph g(t.nodes.size());
  for (const Link& l : t.links) boost::add_edge(l.a, l.b, g);
  std::vector<int> component(t.nodes.size());
  const int count = boost::connected_components(g, component.data());
  if (count == 1) return;
  // A GPU server's NVLink domain is a part of its own (gpu_nodes.hpp): its endpoints talk
  // only to each other, and the fabric is the part of the first other host.
  std::vector<bool> intra_node(t.nodes.size(), false);
  for (int n : t.gpus.nvswitch_node) intra_node[n] = true;
  for (int n : t.gpus.nvlink_node) intra_node[n] = true;
  const int nodes = static_cast<int>(t.nodes.size());
  int first_host = 0;
  while (first_host < nodes &&
         (t.nodes[first_host].kind != NodeKind::Host || intra_node[first_host])) {
    ++first_host;
  }
  if (first_host == nodes) first_host = 0;
  for (int n = 0; n < static_cast<int>(t.nodes.size()); ++n) {
    if (intra_node[n]) continue;
    if (component[n] != component[first_host]) {
      throw TopologyError(node_path(n), "node " + t.nodes[n].name + " is not connected to host " +
                                            t.nodes[first_host].name + " (the fabric has " +
                                            std::to_string(count) + " separate parts)");
    }
  }
}

}  // namespace

int Fabric::node_by_name(const std::string& name) const {
  if (name_index.size() == topo.nodes.size()) {
    const auto it = name_index.find(name);
    return it == name_index.end() ? -1 : it->second;
  }
  for (int i = 0; i < static_cast<int>(topo.nodes.size()); ++i) {
    if (topo.nodes[i].name == name) return i;
  }
  return -1;
}

Fabric build_fabric(Topology t) {
  validate_nodes(t);
  validate_links(t);
  std::vector<std::vector<int>> owner = claim_explicit_ports(t);
  validate_connected(t);

  // Implicit ports take the lowest free index, links in order, after all explicit ones are
  // placed: an explicit port later in the list never collides with an earlier implicit one.
  const int num_nodes = static_cast<int>(t.nodes.size());
  std::vector<std::pair<int, int>> link_ports(t.links.size());  // (a_port, b_port)
  std::vector<int> next_free(num_nodes, 0);
  auto assign = [&](int node, int link, int explicit_port) {
    if (explicit_port >= 0) return explicit_port;
    auto& taken = owner[node];
    int& p = next_free[node];
    while (p < static_cast<int>(taken.size()) && taken[p] != -1) ++p;
    if (p >= static_cast<int>(taken.size())) taken.resize(p + 1, -1);
    taken[p] = link;
    return p;
  };
  for (int i = 0; i < static_cast<int>(t.links.size()); ++i) {
    link_ports[i].first = assign(t.links[i].a, i, t.links[i].a_port);
    link_ports[i].second = assign(t.links[i].b, i, t.links[i].b_port);
  }

  Fabric f;
  f.ports.resize(num_nodes);
  for (int n = 0; n < num_nodes; ++n) f.ports[n].resize(owner[n].size());
  for (int i = 0; i < static_cast<int>(t.links.size()); ++i) {
    Link& l = t.links[i];
    l.a_port = link_ports[i].first;
    l.b_port = link_ports[i].second;
    f.ports[l.a][l.a_port] = PortRef{i, true, l.b, l.b_port};
    f.ports[l.b][l.b_port] = PortRef{i, false, l.a, l.a_port};
  }

  f.host_index.assign(num_nodes, -1);
  f.name_index.reserve(num_nodes);
  for (int n = 0; n < num_nodes; ++n) {
    f.name_index.emplace(t.nodes[n].name, n);
    if (t.nodes[n].kind == NodeKind::Host) {
      f.host_index[n] = static_cast<int>(f.host_node.size());
      f.host_node.push_back(n);
    }
  }
  f.topo = std::move(t);
  return f;
}

}  // namespace topo
