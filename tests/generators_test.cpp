// Generators: sizes from the closed-form counts of each layout, path diversity from the
// structure (Al-Fares 2008 for the fat-tree), and the ns-3 HPCC peer's fat.txt for Clos.
#include "topologies/generators.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"
#include "topologies/routing.hpp"

using namespace topo;

namespace {

int count_kind(const Topology& t, NodeKind kind) {
  int n = 0;
  for (const Node& node : t.nodes) n += node.kind == kind;
  return n;
}

template <typename Params>
void expect_param_refused(Topology (*make)(const Params&), const Params& p,
                          const std::string& path) {
  try {
    make(p);
    FAIL("expected TopologyError at " << path);
  } catch (const TopologyError& e) {
    INFO("message: " << e.what());
    CHECK(e.path == path);
  }
}

}  // namespace

TEST_CASE("generators: leaf-spine sizes, names and hosts first", "[unit]") {
  LeafSpineParams p;
  p.leaves = 3;
  p.spines = 2;
  p.hosts_per_leaf = 5;
  p.uplinks_per_pair = 2;
  const Fabric f = build_fabric(make_leaf_spine(p));
  CHECK(count_kind(f.topo, NodeKind::Host) == 15);
  CHECK(count_kind(f.topo, NodeKind::Switch) == 5);
  CHECK(f.topo.links.size() == 15 + 3 * 2 * 2);
  for (int h = 0; h < 15; ++h) CHECK(f.host_node[h] == h);
  CHECK(f.topo.nodes[14].name == "h14");
  CHECK(f.topo.nodes[15].name == "leaf0");
  CHECK(f.topo.nodes[19].name == "spine1");
  // h7 is the third host of leaf1.
  CHECK(f.ports[f.node_by_name("h7")][0].peer_node == f.node_by_name("leaf1"));
  CHECK(f.ports[f.node_by_name("leaf1")].size() == 5 + 2 * 2);
  CHECK(f.topo.nodes[f.node_by_name("spine0")].tier == 2);
}

TEST_CASE("generators: leaf-spine spreads over spines x uplinks between leaves", "[unit]") {
  for (const int uplinks : {1, 3}) {
    LeafSpineParams p;
    p.leaves = 4;
    p.spines = 4;
    p.hosts_per_leaf = 2;
    p.uplinks_per_pair = uplinks;
    const Fabric f = build_fabric(make_leaf_spine(p));
    const RoutingTables rt = compute_routes(f);
    // leaf0 spreads over spines x uplinks ports; each spine again has `uplinks` parallel
    // links down to leaf3, so distinct link sequences number spines x uplinks^2.
    const int leaf0 = f.node_by_name("leaf0");
    CHECK(rt.next_hops(leaf0, 7).size() == size_t(4 * uplinks));
    CHECK(count_shortest_paths(f, rt, 0, 7) == 4 * uplinks * uplinks);  // leaf0 -> leaf3
    CHECK(count_shortest_paths(f, rt, 0, 1) == 1);                      // same leaf
    CHECK(rt.distance[f.host_node[0] * rt.num_hosts + 7] == 4);
  }
}

TEST_CASE("generators: fat-tree sizes follow Al-Fares (k^3/4 hosts, 5k^2/4 switches)", "[unit]") {
  for (const int k : {2, 4, 8}) {
    const Fabric f = build_fabric(make_fat_tree({.k = k}));
    CHECK(count_kind(f.topo, NodeKind::Host) == k * k * k / 4);
    CHECK(count_kind(f.topo, NodeKind::Switch) == 5 * k * k / 4);
    CHECK(static_cast<int>(f.topo.links.size()) == 3 * k * k * k / 4);
    // Every switch uses exactly its k ports.
    for (int n = 0; n < static_cast<int>(f.topo.nodes.size()); ++n) {
      if (f.topo.nodes[n].kind == NodeKind::Switch) CHECK(f.ports[n].size() == size_t(k));
    }
  }
  const Topology t = make_fat_tree({.k = 4});
  CHECK(t.nodes[16].name == "edge0_0");
  CHECK(t.nodes[24].name == "agg0_0");
  CHECK(t.nodes[32].name == "core0");
  CHECK(t.nodes[35].name == "core3");
  CHECK(t.nodes[31].group == 3);  // agg3_1 is in pod 3
}

TEST_CASE("generators: fat-tree path diversity is (k/2)^2 across pods, k/2 within a pod",
          "[unit]") {
  for (const int k : {4, 6, 8}) {
    const int half = k / 2;
    const Fabric f = build_fabric(make_fat_tree({.k = k}));
    const RoutingTables rt = compute_routes(f);
    const int per_pod = half * half;
    CHECK(count_shortest_paths(f, rt, 0, per_pod) == half * half);     // pod 0 -> pod 1
    CHECK(count_shortest_paths(f, rt, 0, half) == half);               // edge 0 -> edge 1
    CHECK(count_shortest_paths(f, rt, 0, half - 1) == 1);              // same edge
    CHECK(rt.distance[f.host_node[0] * rt.num_hosts + per_pod] == 6);  // up 3, down 3
  }
}

TEST_CASE("generators: clos3 with the HPCC parameters is 320 hosts, 56 switches, 480 links",
          "[unit]") {
  const Fabric f = build_fabric(make_clos3(ClosParams{}));
  CHECK(count_kind(f.topo, NodeKind::Host) == 320);
  CHECK(count_kind(f.topo, NodeKind::Switch) == 56);
  CHECK(f.topo.links.size() == 480);
  CHECK(f.topo.nodes[320].name == "tor0_0");
  CHECK(f.topo.nodes[340].name == "agg0_0");
  CHECK(f.topo.nodes[360].name == "core0");
  const RoutingTables rt = compute_routes(f);
  // Across pods: 4 aggs in the source pod, each reaching its 4 cores, each reaching one agg
  // of the destination pod: 16 paths.
  CHECK(count_shortest_paths(f, rt, 0, 319) == 16);
  CHECK(count_shortest_paths(f, rt, 0, 16) == 4);  // other ToR, same pod
}

TEST_CASE("generators: clos3 reproduces the HPCC peer's fat.txt link for link", "[unit]") {
  RDMASIM_REQUIRE_SHARED(shared);
  std::ifstream in(shared + "/peers/hpcc/fat.txt");
  REQUIRE(in.good());
  int nodes = 0, switches = 0, links = 0;
  in >> nodes >> switches >> links;
  for (int i = 0; i < switches; ++i) {
    int id = 0;
    in >> id;
    CHECK(id == nodes - switches + i);
  }
  const Topology t = make_clos3(ClosParams{});
  REQUIRE(static_cast<int>(t.nodes.size()) == nodes);
  REQUIRE(static_cast<int>(t.links.size()) == links);
  for (int i = 0; i < links; ++i) {
    int a = 0, b = 0;
    std::string rate, delay, loss;
    in >> a >> b >> rate >> delay >> loss;
    INFO("fat.txt link " << i);
    CHECK(t.links[i].a == a);
    CHECK(t.links[i].b == b);
    CHECK(std::to_string(t.links[i].rate_bps / 1'000'000'000) + "Gbps" == rate);
    CHECK(std::to_string(t.links[i].latency_ps / 1000) + "ns" == delay);
  }
}

TEST_CASE("generators: rail-optimised sizes, names and one-switch same-rail paths", "[unit]") {
  RailParams p;
  p.nodes = 6;
  p.rails = 4;
  p.nodes_per_leaf = 4;  // two leaves per rail; the second serves servers 4 and 5 only
  p.spines = 3;
  p.uplinks_per_pair = 2;
  const Fabric f = build_fabric(make_rail(p));
  CHECK(count_kind(f.topo, NodeKind::Host) == 24);
  CHECK(count_kind(f.topo, NodeKind::Switch) == 4 * 2 + 3);
  CHECK(f.topo.links.size() == 24 + 8 * 3 * 2);
  CHECK(f.topo.nodes[0].name == "n0r0");
  CHECK(f.topo.nodes[5].name == "n1r1");  // node-major numbering
  CHECK(f.topo.nodes[24].name == "rail0_leaf0");
  CHECK(f.topo.nodes[27].name == "rail1_leaf1");
  CHECK(f.topo.nodes[32].name == "spine0");
  auto leaf_of = [&](const std::string& h) {
    return f.topo.nodes[f.ports[f.node_by_name(h)][0].peer_node].name;
  };
  CHECK(leaf_of("n5r2") == "rail2_leaf1");
  CHECK(leaf_of("n3r2") == "rail2_leaf0");
  const RoutingTables rt = compute_routes(f);
  auto host = [&](const std::string& h) { return f.host_index[f.node_by_name(h)]; };
  // Via the spines: 3 spines x 2 parallel links up x 2 parallel links down.
  CHECK(count_shortest_paths(f, rt, host("n0r1"), host("n3r1")) == 1);  // same rail leaf
  CHECK(count_shortest_paths(f, rt, host("n0r1"), host("n5r1")) == 3 * 2 * 2);
  CHECK(count_shortest_paths(f, rt, host("n0r0"), host("n0r1")) == 3 * 2 * 2);  // other rail
}

TEST_CASE("generators: bad parameters are refused with the parameter name as path", "[unit]") {
  expect_param_refused(make_fat_tree, FatTreeParams{.k = 5}, "k");
  expect_param_refused(make_fat_tree, FatTreeParams{.k = 0}, "k");
  expect_param_refused(make_fat_tree, FatTreeParams{.k = 4, .rate_bps = 0}, "rate_bps");
  try {
    make_fat_tree({.k = 5});
  } catch (const TopologyError& e) {
    CHECK(std::string(e.what()) == "k must be even and >= 2 (and <= 128), got 5");
  }
  expect_param_refused(make_leaf_spine, LeafSpineParams{.leaves = 0}, "leaves");
  expect_param_refused(make_leaf_spine, LeafSpineParams{.uplinks_per_pair = 0}, "uplinks_per_pair");
  expect_param_refused(make_leaf_spine, LeafSpineParams{.host_latency_ps = 0}, "host_latency_ps");
  expect_param_refused(make_clos3, ClosParams{.cores = 6}, "cores");
  expect_param_refused(make_clos3, ClosParams{.hosts_per_tor = -1}, "hosts_per_tor");
  expect_param_refused(make_rail, RailParams{.rails = 0}, "rails");
  expect_param_refused(make_rail, RailParams{.fabric_rate_bps = -5}, "fabric_rate_bps");
  // An extra zero or two must not allocate gigabytes.
  expect_param_refused(make_leaf_spine, LeafSpineParams{.leaves = 60000, .hosts_per_leaf = 60000},
                       "hosts_per_leaf");
}

TEST_CASE("generators: every generated fabric passes validation", "[unit]") {
  CHECK_NOTHROW(build_fabric(make_leaf_spine({})));
  CHECK_NOTHROW(build_fabric(make_fat_tree({})));
  CHECK_NOTHROW(build_fabric(make_clos3({})));
  CHECK_NOTHROW(build_fabric(make_rail({})));
}
