// Partitions for a run on several threads: whole units, balanced load, cuts at the longest
// links that allow it, and the lookahead that results.
#include "topologies/partition.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "sim/rng.hpp"
#include "topologies/generators.hpp"

using namespace topo;

namespace {

// Every node has a partition in range; every link between two partitions is at least as long
// as the lookahead, and one is exactly as long.
void check_consistent(const Fabric& f, const Partitioning& p) {
  REQUIRE(p.partition.size() == f.topo.nodes.size());
  REQUIRE(static_cast<int>(p.load.size()) == p.count);
  std::set<int> used;
  for (int x : p.partition) {
    REQUIRE(x >= 0);
    REQUIRE(x < p.count);
    used.insert(x);
  }
  CHECK(static_cast<int>(used.size()) == p.count);
  bool exact = p.count == 1;
  for (const Link& l : f.topo.links) {
    if (p.partition[l.a] == p.partition[l.b]) continue;
    CHECK(l.latency_ps >= p.lookahead_ps);
    exact |= l.latency_ps == p.lookahead_ps;
  }
  CHECK(exact);
}

// A leaf-spine with two spines, its host and fabric links of the given latencies (ps).
Fabric leaf_spine(int leaves, int hosts_per_leaf, int64_t host_ps, int64_t fabric_ps) {
  return build_fabric(make_leaf_spine({.leaves = leaves,
                                       .spines = 2,
                                       .hosts_per_leaf = hosts_per_leaf,
                                       .host_latency_ps = host_ps,
                                       .fabric_latency_ps = fabric_ps}));
}

// `f` in two partitions, checked, with `lookahead_ps`.
Partitioning halves(const Fabric& f, int64_t lookahead_ps) {
  const Partitioning p = partition_fabric(f, 2);
  check_consistent(f, p);
  CHECK(p.count == 2);
  CHECK(p.lookahead_ps == lookahead_ps);
  return p;
}

}  // namespace

TEST_CASE("partitions: a leaf-spine splits at the spine links, hosts stay with their leaf",
          "[unit][topology]") {
  // 100 ns to the hosts, 500 ns between leaves and spines: no host link is cut.
  const Fabric f = leaf_spine(4, 8, 100'000, 500'000);
  const Partitioning p = halves(f, 500'000);
  for (const Link& l : f.topo.links) {
    if (l.latency_ps == 100'000) CHECK(p.partition[l.a] == p.partition[l.b]);
  }
  const int64_t total = p.load[0] + p.load[1];
  CHECK(std::max(p.load[0], p.load[1]) * 4 * 2 <= total * 5);
  // The same fabric, the same partitions.
  CHECK(partition_fabric(f, 2).partition == p.partition);
  // One partition: nothing crosses.
  const Partitioning one = partition_fabric(f, 1);
  CHECK(one.count == 1);
  CHECK(one.lookahead_ps == 500'000);
  check_consistent(f, one);
}

TEST_CASE("partitions: cut shorter links only when the longer ones cannot balance",
          "[unit][topology]") {
  // One leaf of 16 hosts and two spines: cutting only the 1 us spine links leaves the leaf and
  // its hosts as one unit far heavier than half, so the 200 ns host links are cut too.
  const Fabric f = leaf_spine(1, 16, 200'000, 1'000'000);
  halves(f, 200'000);
  // More partitions than units: as many as there are nodes, no more.
  const Partitioning many = partition_fabric(f, 100);
  check_consistent(f, many);
  CHECK(many.count == static_cast<int>(f.topo.nodes.size()));
}

TEST_CASE("partitions: a GPU server's NVLink domain and NICs stay in one partition",
          "[unit][topology]") {
  const RailParams rp{.nodes = 4, .rails = 8, .nodes_per_leaf = 2, .spines = 2};
  Topology t = make_rail(rp);
  std::vector<std::vector<int>> nics(static_cast<size_t>(rp.nodes));  // node n's rail-r NIC
  for (int n = 0; n < rp.nodes; ++n) {
    for (int r = 0; r < rp.rails; ++r) nics[static_cast<size_t>(n)].push_back(n * rp.rails + r);
  }
  GpuNodeParams g;
  REQUIRE(gpu_node_preset("dgx-h100", g));
  add_gpu_nodes(t, nics, g);
  const Fabric f = build_fabric(t);
  const Partitioning p = partition_fabric(f, 2);
  check_consistent(f, p);
  CHECK(p.count == 2);
  const GpuCluster& c = f.topo.gpus;
  for (int s = 0; s < c.servers; ++s) {
    const int part = p.partition[c.nvswitch_node[s]];
    for (int nic : c.server_nics[s]) CHECK(p.partition[nic] == part);
    for (int k = 0; k < c.params.gpus; ++k)
      CHECK(p.partition[c.nvlink_node[s * c.params.gpus + k]] == part);
  }
}

TEST_CASE("partitions: regions grow from a node, so a fat-tree is cut along its pods",
          "[unit][topology]") {
  // All links alike (no latency to choose by): a partition is a connected region grown
  // breadth-first, not nodes dealt out one by one — which would cut a share 1 - 1/parts of the
  // links (at most 0.6 of that here: 112 of 384 with 2, 134 with 4).
  const Fabric f = build_fabric(make_fat_tree({.k = 8}));
  for (int parts : {2, 4}) {
    const Partitioning p = partition_fabric(f, parts);
    check_consistent(f, p);
    CHECK(p.count == parts);
    size_t cut = 0;
    for (const Link& l : f.topo.links) cut += p.partition[l.a] != p.partition[l.b];
    INFO(parts << " partitions: " << cut << " of " << f.topo.links.size() << " links cut");
    CHECK(cut * 10 * parts <= 6 * (parts - 1) * f.topo.links.size());
    int64_t total = 0, heaviest = 0;
    for (int64_t x : p.load) {
      total += x;
      heaviest = std::max(heaviest, x);
    }
    CHECK(heaviest * 4 * parts <= total * 5);
  }
}

TEST_CASE("partitions: over processes, blocks of about equal load, every rank one at least",
          "[unit][split][ranks]") {
  const auto ranks_of = [](std::vector<int64_t> load, int ranks) {
    topo::Partitioning p;
    p.count = static_cast<int>(load.size());
    p.load = std::move(load);
    return topo::ranks_of_partitions(p, ranks);
  };
  // Four GPU servers (heavy) then four switches: two servers a process, not four and none.
  CHECK(ranks_of({40, 40, 40, 40, 10, 10, 10, 10}, 2) ==
        std::vector<uint32_t>{0, 0, 1, 1, 1, 1, 1, 1});
  // One partition outweighs the rest: it alone, and the others still split.
  CHECK(ranks_of({100, 1, 1, 1}, 3) == std::vector<uint32_t>{0, 1, 2, 2});
  CHECK(ranks_of({1, 1, 1, 100}, 3) == std::vector<uint32_t>{0, 0, 1, 2});
  CHECK(ranks_of({5, 5, 5}, 3) == std::vector<uint32_t>{0, 1, 2});
  CHECK(ranks_of({5, 5, 5}, 1) == std::vector<uint32_t>{0, 0, 0});
  // Whatever the loads: non-decreasing, from 0 to ranks - 1 in steps of at most one.
  sim::Rng rng(7, 1);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng.below(40));
    const int ranks = 1 + static_cast<int>(rng.below(static_cast<uint64_t>(n)));
    std::vector<int64_t> load(static_cast<size_t>(n));
    for (auto& l : load) l = static_cast<int64_t>(rng.below(1000));
    const std::vector<uint32_t> r = ranks_of(load, ranks);
    REQUIRE(r.front() == 0);
    REQUIRE(r.back() == static_cast<uint32_t>(ranks - 1));
    for (size_t k = 1; k < r.size(); ++k) REQUIRE(r[k] - r[k - 1] <= 1);
  }
  CHECK_THROWS(ranks_of({1, 1}, 3));
}
