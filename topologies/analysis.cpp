// Static figures of a fabric: what `rdmasim topo` prints before anything is simulated.
#include "topologies/analysis.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace topo {
namespace {

int64_t link_rate_sum(const Fabric& f) {
  int64_t sum = 0;
  for (const Link& l : f.topo.links) sum += l.rate_bps;
  return sum;
}

// Max-flow from the first half of the hosts to the second half (see TopologySummary). Each
// full-duplex link is two arcs of capacity `rate`, each paired with a zero-capacity reverse
// arc as push_relabel_max_flow requires.
int64_t half_split_max_flow(const Fabric& f) {
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using Graph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<
          boost::edge_capacity_t, int64_t,
          boost::property<boost::edge_residual_capacity_t, int64_t,
                          boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const int num_hosts = static_cast<int>(f.host_node.size());
  if (num_hosts < 2) return 0;
  const int num_nodes = static_cast<int>(f.topo.nodes.size());
  const int source = num_nodes;
  const int sink = num_nodes + 1;
  Graph g(num_nodes + 2);
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  auto add_arc = [&](int from, int to, int64_t cap) {
    const auto forward = boost::add_edge(from, to, g).first;
    const auto backward = boost::add_edge(to, from, g).first;
    capacity[forward] = cap;
    capacity[backward] = 0;
    reverse[forward] = backward;
    reverse[backward] = forward;
  };
  for (const Link& l : f.topo.links) {
    add_arc(l.a, l.b, l.rate_bps);
    add_arc(l.b, l.a, l.rate_bps);
  }
  // More than every link together: the super-source and super-sink arcs never limit the flow.
  const int64_t unlimited = 2 * link_rate_sum(f) + 1;
  for (int h = 0; h < num_hosts; ++h) {
    if (h < num_hosts / 2) {
      add_arc(source, f.host_node[h], unlimited);
    } else {
      add_arc(f.host_node[h], sink, unlimited);
    }
  }
  return boost::push_relabel_max_flow(g, source, sink);
}

int64_t half_injection(const Fabric& f) {
  const int num_hosts = static_cast<int>(f.host_node.size());
  if (num_hosts < 2) return 0;
  int64_t first = 0, second = 0;
  for (const Link& l : f.topo.links) {
    for (const int node : {l.a, l.b}) {
      const int h = f.host_index[node];
      if (h < 0) continue;
      (h < num_hosts / 2 ? first : second) += l.rate_bps;
    }
  }
  return std::min(first, second);
}

// The node a host's first port leads to; hosts behind the same switch share all paths but
// the last hop, so pairs among them say nothing about the fabric's diversity.
int first_hop(const Fabric& f, int host) {
  for (const PortRef& p : f.ports[f.host_node[host]]) {
    if (p.link >= 0) return p.peer_node;
  }
  return -1;
}

// splitmix64 (Steele, Lea, Flood, OOPSLA 2014): a fixed, portable sequence for sampling.
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Host pairs (src < dst) on different first-hop switches: all of them if there are at most
// `wanted`, else `wanted` drawn at random with a fixed seed. If every host shares one switch,
// any two distinct hosts qualify.
std::vector<std::pair<int, int>> sample_pairs(const Fabric& f, int wanted) {
  const int num_hosts = static_cast<int>(f.host_node.size());
  std::vector<std::pair<int, int>> pairs;
  if (num_hosts < 2 || wanted <= 0) return pairs;
  std::vector<int> hop(num_hosts);
  std::vector<std::vector<int>> groups;  // hosts by first-hop switch
  std::vector<int> group_of_switch(f.topo.nodes.size() + 1, -1);
  for (int h = 0; h < num_hosts; ++h) {
    hop[h] = first_hop(f, h);
    int& g = group_of_switch[hop[h] + 1];
    if (g < 0) {
      g = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[g].push_back(h);
  }
  const bool single_group = groups.size() == 1;
  auto eligible = [&](int a, int b) { return a != b && (single_group || hop[a] != hop[b]); };

  // Number of eligible unordered pairs, without enumerating them.
  int64_t same_group = 0;
  for (const auto& g : groups) same_group += int64_t(g.size()) * int64_t(g.size() - 1) / 2;
  const int64_t all = int64_t(num_hosts) * (num_hosts - 1) / 2;
  const int64_t eligible_count = single_group ? all : all - same_group;

  if (eligible_count <= wanted) {
    // Few pairs means few groups (each pair of groups yields one), so this is cheap.
    if (single_group) {
      for (int a = 0; a < num_hosts; ++a) {
        for (int b = a + 1; b < num_hosts; ++b) pairs.emplace_back(a, b);
      }
    } else {
      for (size_t i = 0; i < groups.size(); ++i) {
        for (size_t j = i + 1; j < groups.size(); ++j) {
          for (const int a : groups[i]) {
            for (const int b : groups[j]) pairs.emplace_back(std::min(a, b), std::max(a, b));
          }
        }
      }
      std::sort(pairs.begin(), pairs.end());
    }
    return pairs;
  }
  uint64_t state = 0x5eed'0f'70b0ULL;  // fixed: the summary must not change between runs
  const int64_t max_draws = int64_t(wanted) * 1000;
  for (int64_t draw = 0; draw < max_draws && static_cast<int>(pairs.size()) < wanted; ++draw) {
    const int a = static_cast<int>(next_random(state) % num_hosts);
    const int b = static_cast<int>(next_random(state) % num_hosts);
    if (eligible(a, b)) pairs.emplace_back(std::min(a, b), std::max(a, b));
  }
  return pairs;
}

void summarize_paths(const Fabric& f, const RoutingTables& rt, int wanted, TopologySummary& s) {
  auto pairs = sample_pairs(f, wanted);
  // A GPU's NVLink endpoint reaches only its own server's (gpu_nodes.hpp): pairs with one
  // outside it have no path by design and are left out.
  std::vector<int> server(f.host_node.size(), -1);
  const GpuCluster& gpus = f.topo.gpus;
  for (int g = 0; g < gpus.gpus(); ++g)
    server[f.host_index[gpus.nvlink_node[g]]] = gpus.server_of(g);
  std::erase_if(pairs, [&](const auto& p) { return server[p.first] != server[p.second]; });
  s.path_pairs_sampled = static_cast<int>(pairs.size());
  if (pairs.empty()) return;
  s.min_paths = std::numeric_limits<int>::max();
  double total = 0.0;
  for (const auto& [a, b] : pairs) {
    const int n = count_shortest_paths(f, rt, a, b);
    if (n == 0) ++s.unreachable_pairs;
    s.min_paths = std::min(s.min_paths, n);
    s.max_paths = std::max(s.max_paths, n);
    total += n;
  }
  s.mean_paths = total / static_cast<double>(pairs.size());
}

std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

TopologySummary summarize(const Fabric& f, const RoutingTables& rt, int path_sample_pairs) {
  TopologySummary s;
  s.hosts = static_cast<int>(f.host_node.size());
  s.switches = static_cast<int>(f.topo.nodes.size()) - s.hosts;
  s.links = static_cast<int>(f.topo.links.size());
  s.total_capacity_bps = link_rate_sum(f);
  s.bisection_bps = half_split_max_flow(f);
  s.half_injection_bps = half_injection(f);
  if (s.half_injection_bps > 0) {
    s.bisection_ratio =
        static_cast<double>(s.bisection_bps) / static_cast<double>(s.half_injection_bps);
  }
  summarize_paths(f, rt, path_sample_pairs, s);

  for (int a = 0; a < s.hosts; ++a) {
    const int32_t* row = &rt.distance[size_t(f.host_node[a]) * rt.num_hosts];
    for (int b = 0; b < s.hosts; ++b) s.max_hops = std::max(s.max_hops, row[b]);
  }
  for (int n = 0; n < static_cast<int>(f.topo.nodes.size()); ++n) {
    if (f.topo.nodes[n].kind != NodeKind::Switch) continue;
    const auto used = std::count_if(f.ports[n].begin(), f.ports[n].end(),
                                    [](const PortRef& p) { return p.link >= 0; });
    ++s.switch_radix_histogram[static_cast<int>(used)];
  }
  return s;
}

std::string format_rate(int64_t rate_bps) {
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {1'000'000'000'000, "T"}, {1'000'000'000, "G"}, {1'000'000, "M"}, {1'000, "K"}};
  for (const auto& [scale, suffix] : kUnits) {
    if (rate_bps != 0 && rate_bps % scale == 0) return std::to_string(rate_bps / scale) + suffix;
  }
  return std::to_string(rate_bps);
}

std::string to_dot(const Fabric& f) {
  std::ostringstream out;
  out << "graph " << quoted(f.topo.name.empty() ? "fabric" : f.topo.name) << " {\n";
  for (const Node& n : f.topo.nodes) {
    out << "  " << quoted(n.name)
        << (n.kind == NodeKind::Host ? " [shape=box];\n" : " [shape=ellipse];\n");
  }
  for (const Link& l : f.topo.links) {
    out << "  " << quoted(f.topo.nodes[l.a].name) << " -- " << quoted(f.topo.nodes[l.b].name)
        << " [label=\"" << format_rate(l.rate_bps) << "\"];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace topo
