#include "topologies/partition.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

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

// Greedy graph growing over the units: a partition grows breadth-first from the first unit not
// yet placed (in node order) until it holds its share of what is left, so each partition is a
// connected region — a pod, a group of leaves with their hosts — and few links are cut (each
// cut link carries packets between event lists). The last partition takes the rest.
Packing grow(const Topology& t, UnionFind& u, const std::vector<int64_t>& weight, int bins) {
  const size_t n = weight.size();
  std::vector<int64_t> unit_load(n, 0);
  std::vector<std::vector<int>> next(n);  // [root] the roots of neighbouring units
  size_t units = 0;
  for (size_t v = 0; v < n; ++v) {
    const int r = u.find(static_cast<int>(v));
    units += unit_load[static_cast<size_t>(r)] == 0;
    unit_load[static_cast<size_t>(r)] += weight[v];
  }
  for (const Link& l : t.links) {
    const int a = u.find(l.a), b = u.find(l.b);
    if (a == b) continue;
    next[static_cast<size_t>(a)].push_back(b);
    next[static_cast<size_t>(b)].push_back(a);
  }
  Packing p;
  p.bin_of_root.assign(n, -1);
  const int count = static_cast<int>(std::min<size_t>(static_cast<size_t>(bins), units));
  p.load.assign(static_cast<size_t>(count), 0);
  int64_t left = std::accumulate(weight.begin(), weight.end(), int64_t{0});
  size_t units_left = units;
  size_t seed = 0;
  for (int bin = 0; bin < count; ++bin) {
    const int64_t share = bin + 1 == count ? left : left / (count - bin);
    std::vector<int> queue;
    size_t head = 0;
    // Regions may be disconnected once others took their surroundings: reseed until full. A
    // partition stops early rather than leave a later one without a unit.
    const size_t later_bins = static_cast<size_t>(count - bin - 1);
    while (p.load[static_cast<size_t>(bin)] < share && units_left > later_bins) {
      if (head == queue.size()) {
        while (seed < n && (u.find(static_cast<int>(seed)) != static_cast<int>(seed) ||
                            p.bin_of_root[seed] >= 0)) {
          ++seed;
        }
        if (seed == n) break;
        p.bin_of_root[seed] = bin;
        p.load[static_cast<size_t>(bin)] += unit_load[seed];
        --units_left;
        queue.push_back(static_cast<int>(seed));
        continue;
      }
      const int r = queue[head++];
      for (int m : next[static_cast<size_t>(r)]) {
        if (p.bin_of_root[static_cast<size_t>(m)] >= 0) continue;
        if (p.load[static_cast<size_t>(bin)] >= share || units_left == later_bins) break;
        p.bin_of_root[static_cast<size_t>(m)] = bin;
        p.load[static_cast<size_t>(bin)] += unit_load[static_cast<size_t>(m)];
        --units_left;
        queue.push_back(m);
      }
    }
    left -= p.load[static_cast<size_t>(bin)];
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
    Packing p = grow(t, u, weight, wanted);
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

std::vector<uint32_t> ranks_of_partitions(const Partitioning& p, int ranks) {
  const auto n = static_cast<int64_t>(p.load.size());
  if (ranks < 1 || ranks > n) {
    throw std::invalid_argument("ranks_of_partitions: 1 to " + std::to_string(n) + " ranks");
  }
  const int64_t total =
      std::max<int64_t>(1, std::accumulate(p.load.begin(), p.load.end(), int64_t{0}));
  std::vector<uint32_t> rank_of(static_cast<size_t>(n));
  int64_t before = 0;  // load of the partitions before this one
  int64_t prev = 0;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t load = p.load[static_cast<size_t>(k)];
    // The rank whose share of the load holds this partition's middle ...
    const int64_t wanted = (2 * before + load) * ranks / (2 * total);
    // ... within one of the last one's (no rank left without a partition) and leaving a
    // partition for each rank after it.
    const int64_t lo = std::max(prev, ranks - (n - k));
    const int64_t hi = std::min(k == 0 ? 0 : prev + 1, k);
    const int64_t r = std::clamp(wanted, lo, hi);
    rank_of[static_cast<size_t>(k)] = static_cast<uint32_t>(r);
    prev = r;
    before += load;
  }
  return rank_of;
}

}  // namespace topo
