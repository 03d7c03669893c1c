#include "topologies/partition.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace topo {
namespace {

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  // The smaller index stays the root, so a component is named by its first node.
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

// Nodes that must share a partition whatever is cut: each GPU server's NVSwitch, GPUs and NICs.
UnionFind whole_units(const Fabric& f) {
  UnionFind u(f.topo.nodes.size());
  const GpuCluster& g = f.topo.gpus;
  for (int s = 0; s < g.servers; ++s) {
    const int first = g.nvswitch_node[static_cast<size_t>(s)];
    for (int nic : g.server_nics[static_cast<size_t>(s)]) u.join(first, nic);
    for (int k = 0; k < g.params.gpus; ++k) {
      const int gpu = s * g.params.gpus + k;
      u.join(first, g.nvlink_node[static_cast<size_t>(gpu)]);
      for (int nic : g.nic_nodes[static_cast<size_t>(gpu)]) u.join(first, nic);
    }
  }
  return u;
}

struct Packing {
  std::vector<int> bin_of_root;  // [node] for roots
  std::vector<int64_t> load;
  int64_t heaviest = 0;
};

// Longest processing time first: the heaviest unit into the lightest bin (ties: the unit of the
// smaller first node, the bin of the smaller number).
Packing pack(UnionFind& u, const std::vector<int64_t>& weight, int bins) {
  const size_t n = weight.size();
  std::vector<int64_t> unit_load(n, 0);
  std::vector<int> roots;
  for (size_t v = 0; v < n; ++v) {
    const int r = u.find(static_cast<int>(v));
    if (unit_load[static_cast<size_t>(r)] == 0) roots.push_back(r);
    unit_load[static_cast<size_t>(r)] += weight[v];
  }
  std::stable_sort(roots.begin(), roots.end(), [&](int a, int b) {
    return unit_load[static_cast<size_t>(a)] > unit_load[static_cast<size_t>(b)];
  });
  Packing p;
  p.bin_of_root.assign(n, -1);
  p.load.assign(static_cast<size_t>(std::min<size_t>(static_cast<size_t>(bins), roots.size())), 0);
  for (int r : roots) {
    const auto lightest = std::min_element(p.load.begin(), p.load.end()) - p.load.begin();
    p.bin_of_root[static_cast<size_t>(r)] = static_cast<int>(lightest);
    p.load[static_cast<size_t>(lightest)] += unit_load[static_cast<size_t>(r)];
  }
  p.heaviest = *std::max_element(p.load.begin(), p.load.end());
  return p;
}

}  // namespace

Partitioning partition_fabric(const Fabric& f, int wanted) {
  if (wanted < 1) throw std::invalid_argument("partition_fabric: at least one partition");
  const Topology& t = f.topo;
  const size_t n = t.nodes.size();
  std::vector<int64_t> weight(n, 1);  // a node's ports, and one for the node itself
  for (const Link& l : t.links) {
    ++weight[static_cast<size_t>(l.a)];
    ++weight[static_cast<size_t>(l.b)];
  }
  const int64_t total = std::accumulate(weight.begin(), weight.end(), int64_t{0});
  // Cut at the largest latency first: links below the threshold join their ends.
  std::vector<int64_t> thresholds;
  for (const Link& l : t.links) thresholds.push_back(l.latency_ps);
  std::sort(thresholds.begin(), thresholds.end(), std::greater<>());
  thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
  if (thresholds.empty()) thresholds.push_back(0);

  // The first threshold whose units pack into `wanted` balanced partitions; if none does, the
  // best balanced packing (the most partitions, then the lightest heaviest one), at the largest
  // threshold giving it: a finer cut that balances no better only shortens the lookahead.
  Packing chosen;
  UnionFind chosen_units(0);
  for (int64_t threshold : thresholds) {
    UnionFind u = whole_units(f);
    for (const Link& l : t.links) {
      if (l.latency_ps < threshold) u.join(l.a, l.b);
    }
    Packing p = pack(u, weight, wanted);
    const bool better = chosen.load.empty() || p.load.size() > chosen.load.size() ||
                        (p.load.size() == chosen.load.size() && p.heaviest < chosen.heaviest);
    if (better) {
      chosen = std::move(p);
      chosen_units = std::move(u);
    }
    // Balanced: the heaviest within 1.25 times the mean of the partitions asked for.
    if (static_cast<int>(chosen.load.size()) == wanted &&
        chosen.heaviest * 4 * wanted <= total * 5) {
      break;
    }
  }
  Partitioning out;
  out.count = static_cast<int>(chosen.load.size());
  out.load = chosen.load;
  out.partition.resize(n);
  for (size_t v = 0; v < n; ++v) {
    out.partition[v] =
        chosen.bin_of_root[static_cast<size_t>(chosen_units.find(static_cast<int>(v)))];
  }
  int64_t crossing = -1, longest = 0;
  for (const Link& l : t.links) {
    longest = std::max(longest, l.latency_ps);
    if (out.partition[static_cast<size_t>(l.a)] != out.partition[static_cast<size_t>(l.b)]) {
      crossing = crossing < 0 ? l.latency_ps : std::min(crossing, l.latency_ps);
    }
  }
  out.lookahead_ps = crossing < 0 ? longest : crossing;
  return out;
}

}  // namespace topo
