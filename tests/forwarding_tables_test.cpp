// Linear forwarding tables against their definitions: one port per (switch, destination) that
// reaches every destination over a minimal path; min-hop balances the destinations of an
// equal-cost set over its ports within one (OpenSM's least-used port); the fat-tree engine is
// d-mod-k, so that every destination is reached through one core switch from every other pod and
// every core serves the same number of destinations. Expected values come from the layout (the
// k-ary fat-tree's counts), not from the code under test.
#include "topologies/forwarding_tables.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <vector>

#include "topologies/generators.hpp"
#include "topologies/updown_routing.hpp"

using namespace topo;

namespace {

// Follows the LFT from src to dst; returns the nodes visited after the source (empty if the
// walk fails: no entry, or longer than the shortest path plus a margin).
std::vector<int> walk(const Fabric& f, const RoutingTables& rt, int src, int dst) {
  std::vector<int> nodes;
  int node = f.host_node[src];
  for (int guard = 0; guard < 32 && node != f.host_node[dst]; ++guard) {
    const uint16_t port = rt.lft[static_cast<size_t>(node) * rt.num_hosts + dst];
    if (port == kNoPort) return {};
    node = f.ports[node][port].peer_node;
    nodes.push_back(node);
  }
  return node == f.host_node[dst] ? nodes : std::vector<int>{};
}

// Every destination reachable from every host by the LFT, over exactly its min-hop distance,
// and every LFT entry one of the equal-cost ports.
void check_reachable_and_minimal(const Fabric& f, const RoutingTables& rt) {
  const int hosts = rt.num_hosts;
  for (size_t n = 0; n < f.ports.size(); ++n) {
    for (int d = 0; d < hosts; ++d) {
      const uint16_t port = rt.lft[n * hosts + d];
      const auto set = rt.next_hops(static_cast<int>(n), d);
      if (set.empty()) {
        CHECK(port == kNoPort);
        continue;
      }
      CHECK(std::find(set.begin(), set.end(), port) != set.end());
    }
  }
  for (int s = 0; s < hosts; ++s) {
    for (int d = 0; d < hosts; ++d) {
      if (s == d) continue;
      const auto path = walk(f, rt, s, d);
      INFO("h" << s << " -> h" << d);
      REQUIRE(!path.empty());
      CHECK(static_cast<int>(path.size()) ==
            rt.distance[static_cast<size_t>(f.host_node[s]) * hosts + d]);
    }
  }
}

// At every switch, the destinations of each equal-cost set of two or more ports are spread over
// its ports within one of each other; returns the number of such sets checked.
int check_balanced(const Fabric& f, const RoutingTables& rt) {
  int sets = 0;
  for (size_t n = 0; n < f.ports.size(); ++n) {
    if (f.host_index[n] >= 0) continue;
    std::map<uint32_t, std::map<uint16_t, int>> per_set;  // set -> port -> destinations
    for (int d = 0; d < rt.num_hosts; ++d) {
      const uint32_t set = rt.set_of[n * rt.num_hosts + d];
      if (rt.sets[set].count < 2) continue;
      auto& ports = per_set[set];
      if (ports.empty()) {
        for (const uint16_t p : rt.next_hops(static_cast<int>(n), d)) ports[p] = 0;
      }
      ++ports[rt.lft[n * rt.num_hosts + d]];
    }
    for (const auto& [set, ports] : per_set) {
      int lo = 1 << 30, hi = 0;
      for (const auto& [p, count] : ports) {
        lo = std::min(lo, count);
        hi = std::max(hi, count);
      }
      INFO("switch " << f.topo.nodes[n].name << " set " << set);
      CHECK(hi - lo <= 1);
      CHECK(lo > 0);
      ++sets;
    }
  }
  return sets;
}

}  // namespace

TEST_CASE("LFT minhop: reachable, minimal, destinations balanced per equal-cost set",
          "[unit][lft][routing]") {
  SECTION("k = 8 fat-tree") {
    const Fabric f = build_fabric(make_fat_tree({.k = 8}));
    RoutingTables rt = compute_routes(f);
    rt.lft = compute_lft(f, rt, LftAlgorithm::MinHop);
    check_reachable_and_minimal(f, rt);
    // Every edge and aggregation switch has one set of 4 uplinks; cores have none.
    CHECK(check_balanced(f, rt) == 64);
    // An edge switch: 124 remote destinations over 4 uplinks, 31 each (by hand: 128 - 4 local).
    const auto loads = lft_port_loads(f, rt, f.node_by_name("edge0_0"));
    for (size_t p = 4; p < 8; ++p) CHECK(loads[p] == 31);
  }
  SECTION("leaf-spine with parallel links (6 leaves x 5 hosts, 3 spines x 2 links)") {
    const Fabric f = build_fabric(
        make_leaf_spine({.leaves = 6, .spines = 3, .hosts_per_leaf = 5, .uplinks_per_pair = 2}));
    RoutingTables rt = compute_routes(f);
    rt.lft = compute_lft(f, rt, LftAlgorithm::MinHop);
    check_reachable_and_minimal(f, rt);
    // Leaves: one set of 6 uplinks for 25 remote hosts (4 or 5 each); spines: one set of 2
    // parallel links per leaf, 5 hosts (2 or 3 each).
    CHECK(check_balanced(f, rt) == 6 + 3 * 6);
  }
  SECTION("a failed uplink: still every destination, over the remaining minimal paths") {
    Fabric f = build_fabric(make_fat_tree({.k = 4}));
    std::vector<bool> up(f.topo.links.size(), true);
    const int edge = f.node_by_name("edge0_0"), agg = f.node_by_name("agg0_0");
    for (size_t i = 0; i < f.topo.links.size(); ++i) {
      const Link& l = f.topo.links[i];
      if ((l.a == edge && l.b == agg) || (l.a == agg && l.b == edge)) up[i] = false;
    }
    RoutingTables rt = compute_routes(f, up);
    rt.lft = compute_lft(f, rt, LftAlgorithm::MinHop);
    check_reachable_and_minimal(f, rt);
    for (int d = 0; d < rt.num_hosts; ++d) {
      const uint16_t p = rt.lft[static_cast<size_t>(edge) * rt.num_hosts + d];
      if (p != kNoPort) CHECK(f.ports[edge][p].peer_node != agg);
    }
  }
}

TEST_CASE("LFT ftree: d-mod-k, one core per destination, every core the same share",
          "[unit][lft][routing]") {
  const Fabric f = build_fabric(make_fat_tree({.k = 8}));
  RoutingTables rt = compute_updown_routes(f);
  rt.lft = compute_lft(f, rt, LftAlgorithm::FatTree);
  check_reachable_and_minimal(f, rt);
  CHECK(check_balanced(f, rt) == 64);
  // Destination d leaves any edge switch on uplink d mod 4 (the port towards agg<pod>_<d mod 4>).
  const int hosts = rt.num_hosts;
  for (int d = 0; d < hosts; ++d) {
    const int edge = f.node_by_name("edge3_1");
    if (f.host_node[d] / 4 == 3 * 4 + 1) continue;  // its own hosts (4 per edge, in order)
    const uint16_t p = rt.lft[static_cast<size_t>(edge) * hosts + d];
    CHECK(f.topo.nodes[f.ports[edge][p].peer_node].name == "agg3_" + std::to_string(d % 4));
  }
  // From every host of another pod, destination d crosses one and the same core, and each of
  // the 16 cores carries 128 / 16 = 8 destinations.
  std::map<int, int> destinations_per_core;
  for (int d = 0; d < hosts; ++d) {
    std::set<int> cores;
    for (int s = 0; s < hosts; ++s) {
      if (s / 16 == d / 16) continue;  // same pod: no core on the way
      for (const int n : walk(f, rt, s, d)) {
        if (f.topo.nodes[n].tier == 3) cores.insert(n);
      }
    }
    INFO("destination h" << d);
    REQUIRE(cores.size() == 1);
    ++destinations_per_core[*cores.begin()];
  }
  CHECK(destinations_per_core.size() == 16);
  for (const auto& [core, count] : destinations_per_core) CHECK(count == 8);
}

TEST_CASE("LFT minhop on a fat-tree sends an aggregation switch's arrivals up one port",
          "[unit][lft][routing]") {
  // OpenSM's min-hop balances each switch on its own: an edge switch sends destination d up to
  // agg d mod 4, and agg0_a then also gives out-of-pod destinations d mod 4 ... so the
  // destinations that arrive at agg0_a (d = a mod 4) all leave by one core port. The reason the
  // fat-tree engine exists; d-mod-k spreads them over all four.
  const Fabric f = build_fabric(make_fat_tree({.k = 8}));
  auto core_ports_used = [&](const RoutingTables& rt) {
    const int agg = f.node_by_name("agg0_1");
    std::set<uint16_t> used;
    for (int d = 16; d < rt.num_hosts; ++d) {
      if (d % 4 != 1) continue;  // the destinations edge switches send to agg0_1
      used.insert(rt.lft[static_cast<size_t>(agg) * rt.num_hosts + d]);
    }
    return used.size();
  };
  RoutingTables minhop = compute_routes(f);
  minhop.lft = compute_lft(f, minhop, LftAlgorithm::MinHop);
  RoutingTables ftree = compute_updown_routes(f);
  ftree.lft = compute_lft(f, ftree, LftAlgorithm::FatTree);
  CHECK(core_ports_used(minhop) == 1);
  CHECK(core_ports_used(ftree) == 4);
}
