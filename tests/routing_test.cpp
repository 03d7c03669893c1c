// Routing tables, ECMP hashing and the static analysis (bisection, path diversity). Expected
// values come from counting by hand on the layout, not from the code under test.
#include "topologies/routing.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "topologies/analysis.hpp"
#include "topologies/generators.hpp"

using namespace topo;

namespace {

constexpr int64_t k100G = 100'000'000'000;

int find_link(const Fabric& f, const std::string& a, const std::string& b, int skip = 0) {
  const int na = f.node_by_name(a);
  const int nb = f.node_by_name(b);
  for (int i = 0; i < static_cast<int>(f.topo.links.size()); ++i) {
    const Link& l = f.topo.links[i];
    if (((l.a == na && l.b == nb) || (l.a == nb && l.b == na)) && skip-- == 0) return i;
  }
  FAIL("no link " << a << " - " << b);
  return -1;
}

int distance(const RoutingTables& rt, const Fabric& f, int src_host, int dst_host) {
  return rt.distance[f.host_node[src_host] * rt.num_hosts + dst_host];
}

// 2 leaves x 2 hosts, 4 spines.
Fabric small_leaf_spine() {
  return build_fabric(make_leaf_spine({.leaves = 2, .spines = 4, .hosts_per_leaf = 2}));
}

}  // namespace

TEST_CASE("routing: next hops lead one hop closer and distances count links", "[unit]") {
  const Fabric f = small_leaf_spine();
  const RoutingTables rt = compute_routes(f);
  const int leaf0 = f.node_by_name("leaf0");
  const int spine2 = f.node_by_name("spine2");
  // h0 -> h2: h0-leaf0-spine-leaf1-h2.
  CHECK(distance(rt, f, 0, 2) == 4);
  CHECK(distance(rt, f, 0, 1) == 2);
  CHECK(distance(rt, f, 0, 0) == 0);
  CHECK(rt.next_hops(f.host_node[0], 0).empty());  // at the destination
  CHECK(rt.next_hops(f.host_node[0], 2).size() == 1);
  CHECK(rt.next_hops(leaf0, 2).size() == 4);  // one per spine
  for (const uint16_t port : rt.next_hops(leaf0, 2)) {
    CHECK(f.topo.nodes[f.ports[leaf0][port].peer_node].tier == 2);
  }
  REQUIRE(rt.next_hops(spine2, 2).size() == 1);  // down to leaf1 only
  CHECK(f.ports[spine2][rt.next_hops(spine2, 2)[0]].peer_node == f.node_by_name("leaf1"));
  CHECK(rt.next_hops(leaf0, 1).size() == 1);  // same leaf: straight down
  CHECK(rt.set_of.size() == f.topo.nodes.size() * 4);
}

TEST_CASE("routing: a failed uplink removes its paths, a cut-off leaf is unreachable", "[unit]") {
  const Fabric f = small_leaf_spine();
  std::vector<bool> up(f.topo.links.size(), true);
  up[find_link(f, "leaf0", "spine1")] = false;
  const RoutingTables one_down = compute_routes(f, up);
  CHECK(count_shortest_paths(f, one_down, 0, 2) == 3);
  CHECK(count_shortest_paths(f, one_down, 3, 0) == 3);
  CHECK(distance(one_down, f, 0, 2) == 4);  // the other spines still give 4 hops
  // Shortest paths, not valley-free ones: spine1 now reaches h0 down through leaf1 and up
  // again over the three other spines (4 hops instead of 2).
  const int spine1 = f.node_by_name("spine1");
  CHECK(one_down.distance[spine1 * one_down.num_hosts + 0] == 4);
  REQUIRE(one_down.next_hops(spine1, 0).size() == 1);
  CHECK(f.ports[spine1][one_down.next_hops(spine1, 0)[0]].peer_node == f.node_by_name("leaf1"));

  for (const char* spine : {"spine0", "spine2", "spine3"}) up[find_link(f, "leaf0", spine)] = false;
  const RoutingTables cut = compute_routes(f, up);
  CHECK(count_shortest_paths(f, cut, 0, 2) == 0);
  CHECK(cut.next_hops(f.host_node[0], 2).empty());
  CHECK(cut.next_hops(f.node_by_name("leaf0"), 2).empty());
  CHECK(distance(cut, f, 0, 2) == -1);
  CHECK(distance(cut, f, 2, 0) == -1);
  CHECK(distance(cut, f, 0, 1) == 2);  // the leaf itself still works
  CHECK(count_shortest_paths(f, cut, 2, 3) == 1);
}

TEST_CASE("routing: hosts never forward, even when that is the only way", "[unit]") {
  // h1 - s0 - hub - s1 - h2, where "hub" is a dual-homed host: h1 cannot reach h2.
  Topology t;
  t.nodes = {{"hub", NodeKind::Host},
             {"h1", NodeKind::Host},
             {"h2", NodeKind::Host},
             {"s0", NodeKind::Switch},
             {"s1", NodeKind::Switch}};
  for (auto [a, b] : {std::pair{0, 3}, {0, 4}, {1, 3}, {2, 4}}) {
    t.links.push_back(Link{a, b, k100G, 1000, 0.0, -1, -1});
  }
  const Fabric f = build_fabric(t);
  const RoutingTables rt = compute_routes(f);
  CHECK(distance(rt, f, 1, 2) == -1);
  CHECK(rt.next_hops(f.node_by_name("s0"), 2).empty());
  CHECK(distance(rt, f, 1, 0) == 2);
  CHECK(distance(rt, f, 0, 2) == 2);  // the hub itself reaches both sides
}

namespace {

// The definition of the tables, checked entry by entry: the next hops of (node, dst) are the
// up ports, in port order, whose peer is one hop closer to dst and is a switch or dst itself.
void check_against_definition(const Fabric& f, const RoutingTables& rt,
                              const std::vector<bool>& up) {
  for (int node = 0; node < static_cast<int>(f.ports.size()); ++node) {
    for (int dst = 0; dst < rt.num_hosts; ++dst) {
      const int32_t d = rt.distance[size_t(node) * rt.num_hosts + dst];
      std::vector<uint16_t> expected;
      for (int p = 0; d > 0 && p < static_cast<int>(f.ports[node].size()); ++p) {
        const PortRef& ref = f.ports[node][p];
        if (ref.link < 0 || (!up.empty() && !up[ref.link])) continue;
        const int peer = ref.peer_node;
        if (rt.distance[size_t(peer) * rt.num_hosts + dst] != d - 1) continue;
        if (f.host_index[peer] >= 0 && f.host_index[peer] != dst) continue;
        expected.push_back(static_cast<uint16_t>(p));
      }
      const auto got = rt.next_hops(node, dst);
      INFO("node " << f.topo.nodes[node].name << " dst host " << dst);
      REQUIRE(std::vector<uint16_t>(got.begin(), got.end()) == expected);
    }
  }
}

}  // namespace

TEST_CASE("routing: every next-hop set is exactly the up ports one hop closer", "[unit]") {
  SECTION("fat-tree k=4 with two failed links") {
    const Fabric f = build_fabric(make_fat_tree({.k = 4}));
    std::vector<bool> up(f.topo.links.size(), true);
    up[10] = false;
    up[21] = false;
    check_against_definition(f, compute_routes(f, up), up);
  }
  SECTION("leaf-spine whose leaves have more than 64 ports (masks of several words)") {
    const Fabric f = build_fabric(
        make_leaf_spine({.leaves = 3, .spines = 5, .hosts_per_leaf = 70, .uplinks_per_pair = 2}));
    check_against_definition(f, compute_routes(f), {});
  }
  SECTION("dual-homed hosts") {
    Topology t = make_leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2});
    const Fabric plain = build_fabric(t);
    // Second links: every host of leaf0 also to leaf1, one host of leaf2 also to leaf0.
    for (const char* h : {"h0", "h1", "h4"}) {
      t.links.push_back(Link{plain.node_by_name(h),
                             plain.node_by_name(h[1] == '4' ? "leaf0" : "leaf1"), k100G, 1000, 0.0,
                             -1, -1});
    }
    const Fabric f = build_fabric(t);
    check_against_definition(f, compute_routes(f), {});
  }
}

TEST_CASE("routing: link_up of the wrong size is refused", "[unit]") {
  const Fabric f = small_leaf_spine();
  REQUIRE_THROWS_AS(compute_routes(f, std::vector<bool>(3, true)), TopologyError);
}

TEST_CASE("routing: a 1024-host fat-tree (k=16) has 64 paths across pods everywhere", "[unit]") {
  const Fabric f = build_fabric(make_fat_tree({.k = 16}));
  REQUIRE(f.topo.nodes.size() == 1344);
  const RoutingTables rt = compute_routes(f);
  int max_distance = 0;
  for (int a = 0; a < 1024; a += 37) {
    for (int b = 0; b < 1024; ++b) max_distance = std::max(max_distance, distance(rt, f, a, b));
  }
  CHECK(max_distance == 6);
  CHECK(count_shortest_paths(f, rt, 5, 1000) == 64);
  CHECK(count_shortest_paths(f, rt, 0, 8) == 8);
}

TEST_CASE("routing: ecmp_hash spreads flows evenly over next hops", "[unit]") {
  // 4 next hops, 40,000 flows between varying hosts and source ports at one switch: each
  // port should get its quarter within 10 %.
  for (const uint64_t seed : {0ULL, 1ULL, 0xdeadbeefULL}) {
    std::vector<int> hits(4, 0);
    const int flows = 40'000;
    for (int i = 0; i < flows; ++i) {
      const uint32_t src = i % 200;
      const uint32_t dst = 200 + (i / 200) % 50;
      const uint16_t sport = static_cast<uint16_t>(49152 + i / 10'000);
      ++hits[ecmp_hash(seed, 7, src, dst, sport) % 4];
    }
    for (const int h : hits) {
      CHECK(h > flows / 4 * 0.9);
      CHECK(h < flows / 4 * 1.1);
    }
  }
  // The same over consecutive UDP source ports alone (RoCEv2 entropy) and with 3 next hops.
  std::vector<int> hits(3, 0);
  for (uint32_t sport = 0; sport < 30'000; ++sport) {
    ++hits[ecmp_hash(42, 1, 3, 4, static_cast<uint16_t>(sport)) % 3];
  }
  for (const int h : hits) CHECK(std::abs(h - 10'000) < 1'000);
}

TEST_CASE("routing: ecmp_hash is deterministic and the seed reshuffles choices", "[unit]") {
  CHECK(ecmp_hash(1, 2, 3, 4, 5) == ecmp_hash(1, 2, 3, 4, 5));
  // Pinned: the value must not change between builds or machines (it decides every ECMP
  // choice, so it is part of every run's fingerprint).
  CHECK(ecmp_hash(1, 2, 3, 4, 5) == 0xb8beaf74u);
  // The form a switch uses, the seed's part computed once: the same value.
  CHECK(ecmp_hash_keyed(ecmp_seed_key(1), 2, 3, 4, 5) == 0xb8beaf74u);
  int changed = 0, switch_changed = 0;
  for (uint32_t src = 0; src < 1000; ++src) {
    changed += ecmp_hash(1, 9, src, 77, 4791) % 4 != ecmp_hash(2, 9, src, 77, 4791) % 4;
    switch_changed += ecmp_hash(1, 9, src, 77, 4791) % 4 != ecmp_hash(1, 10, src, 77, 4791) % 4;
  }
  // Independent choices differ 3 times out of 4.
  CHECK(std::abs(changed - 750) < 75);
  CHECK(std::abs(switch_changed - 750) < 75);
}

TEST_CASE("routing: bisection of an oversubscribed leaf-spine is the fabric side", "[unit]") {
  // 4 leaves x 4 hosts at 100G, 2 spines at 100G. Split h0..h7 (leaves 0, 1) | h8..h15.
  // Host side: 8 hosts x 100G = 800G. Fabric side: leaves 0 and 1 have 2 uplinks each,
  // 4 x 100G = 400G. The bisection is the smaller: 400G.
  const Fabric f = build_fabric(make_leaf_spine({}));
  const TopologySummary s = summarize(f, compute_routes(f));
  const int64_t host_side = 8 * k100G;
  const int64_t fabric_side = 2 * 2 * k100G;
  CHECK(s.bisection_bps == std::min(host_side, fabric_side));
  CHECK(s.half_injection_bps == host_side);
  CHECK(s.bisection_ratio == Approx(0.5));
  CHECK(s.hosts == 16);
  CHECK(s.switches == 6);
  CHECK(s.links == 24);
  CHECK(s.total_capacity_bps == 24 * k100G);
  CHECK(s.min_paths == 2);
  CHECK(s.max_paths == 2);
  CHECK(s.max_hops == 4);
  CHECK(s.switch_radix_histogram == std::map<int, int>{{4, 2}, {6, 4}});
}

TEST_CASE("routing: bisection is the host side when the fabric is non-blocking", "[unit]") {
  // Same hosts, 4 spines x 2 uplinks: leaves 0 and 1 have 16 x 100G up, more than their
  // 8 hosts can send.
  const Fabric f = build_fabric(make_leaf_spine({.spines = 4, .uplinks_per_pair = 2}));
  CHECK(summarize(f, compute_routes(f)).bisection_bps == 8 * k100G);
  // Al-Fares: the k-ary fat-tree has full bisection bandwidth, k^3/8 hosts x rate.
  const Fabric ft = build_fabric(make_fat_tree({.k = 4}));
  const TopologySummary s = summarize(ft, compute_routes(ft));
  CHECK(s.bisection_bps == 8 * k100G);
  CHECK(s.bisection_ratio == Approx(1.0));
  CHECK(s.min_paths == 2);  // other edge, same pod
  CHECK(s.max_paths == 4);  // other pod
  CHECK(s.max_hops == 6);
  CHECK(s.switch_radix_histogram == std::map<int, int>{{4, 20}});
  // HPCC's Clos: every tier has as much capacity up as down (16 x 100G = 4 x 400G), so it is
  // non-blocking too: 160 hosts x 100G.
  const Fabric clos = build_fabric(make_clos3({}));
  CHECK(summarize(clos, compute_routes(clos)).bisection_bps == 160 * k100G);
}

TEST_CASE("routing: path sampling is deterministic and counts failures", "[unit]") {
  const Fabric f = build_fabric(make_fat_tree({.k = 8}));
  std::vector<bool> up(f.topo.links.size(), true);
  up[find_link(f, "h0", "edge0_0")] = false;
  const RoutingTables rt = compute_routes(f, up);
  const TopologySummary a = summarize(f, rt, 300);
  const TopologySummary b = summarize(f, rt, 300);
  CHECK(a.path_pairs_sampled == 300);
  CHECK(a.mean_paths == b.mean_paths);
  CHECK(a.unreachable_pairs == b.unreachable_pairs);
  CHECK(a.max_paths == 16);
  CHECK(a.mean_paths > 4);
  CHECK(a.mean_paths < 16);
}

TEST_CASE("routing: Graphviz output draws hosts as boxes and labels links with rates", "[unit]") {
  const Fabric f = small_leaf_spine();
  const std::string dot = to_dot(f);
  CHECK(dot.rfind("graph \"leaf_spine\" {\n", 0) == 0);
  CHECK(dot.find("\"h0\" [shape=box];") != std::string::npos);
  CHECK(dot.find("\"spine3\" [shape=ellipse];") != std::string::npos);
  CHECK(dot.find("\"h3\" -- \"leaf1\" [label=\"100G\"];") != std::string::npos);
  CHECK(format_rate(1'600'000'000'000) == "1600G");
  CHECK(format_rate(12'500'000'000) == "12500M");
  CHECK(format_rate(2'000'000'000'000) == "2T");
  CHECK(format_rate(7) == "7");
}
