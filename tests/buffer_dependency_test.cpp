// The static deadlock check: cyclic buffer dependencies from the routes, over every ECMP next
// hop, before any simulation.
#include "topologies/buffer_dependency.hpp"

#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "topologies/circuits.hpp"

namespace {

std::vector<topo::RouteDemand> flows_of(const scen::Scenario& s) {
  std::vector<topo::RouteDemand> d;
  for (const auto& f : s.flows) d.push_back({f.src_host, f.dst_host, f.priority, f.route});
  return d;
}

std::vector<topo::RouteDemand> all_pairs(const scen::Scenario& s, int priority) {
  std::vector<topo::RouteDemand> d;
  const int hosts = static_cast<int>(s.fabric.host_node.size());
  for (int a = 0; a < hosts; ++a) {
    for (int b = 0; b < hosts; ++b) {
      if (a != b) d.push_back({a, b, priority, {}});
    }
  }
  return d;
}

const std::string kRing = RDMASIM_SOURCE_DIR "/scenarios/deadlock-ring4.json";

}  // namespace

TEST_CASE("buffer dependencies: the ring of four explicit routes closes one cycle",
          "[unit][deadlock]") {
  const scen::Scenario s = scen::load_scenario_file(kRing);
  const auto rt = topo::compute_routes(s.fabric, s.link_up);
  const auto r = topo::buffer_dependency_cycles(s.fabric, rt, flows_of(s));
  CHECK(r.buffers == 8);  // each flow: two ring ingresses and the last switch's
  REQUIRE(r.cycles.size() == 1);
  // s0's ingress from s3 waits on s1's from s0, on s2's from s1, on s3's from s2, on s0's.
  CHECK(topo::format_cycle(s.fabric, r.cycles[0]) ==
        "s0:2:p3 -> s1:1:p3 -> s2:1:p3 -> s3:1:p3 -> s0:2:p3");
  CHECK_FALSE(r.truncated);

  // Any three of the four flows leave the ring open: no cycle.
  for (size_t drop = 0; drop < s.flows.size(); ++drop) {
    auto d = flows_of(s);
    d.erase(d.begin() + static_cast<long>(drop));
    CHECK(topo::buffer_dependency_cycles(s.fabric, rt, d).cycles.empty());
  }
}

TEST_CASE("buffer dependencies: up/down fabrics have none, for every host pair",
          "[unit][deadlock]") {
  for (const char* topology :
       {R"({"generator": "fat-tree", "k": 4})",
        R"({"generator": "leaf-spine", "leaves": 4, "spines": 3, "hosts_per_leaf": 4})"}) {
    scen::Json j;
    j["topology"] = scen::Json::parse(topology);
    j["workload"]["flows"] = {{{"src", 0}, {"dst", 1}, {"size", "1KB"}}};
    const scen::Scenario s = test_support::load(j);
    const auto rt = topo::compute_routes(s.fabric, s.link_up);
    const auto r = topo::buffer_dependency_cycles(s.fabric, rt, all_pairs(s, 3));
    INFO(topology);
    CHECK(r.buffers > 0);
    CHECK(r.dependencies > 0);
    CHECK(r.cycles.empty());
  }
}

TEST_CASE("buffer dependencies: a routing table that bounces between two switches cycles",
          "[unit][deadlock]") {
  // Hand-made: two switches, each sending traffic for h1 to the other (a transient loop): both
  // ingress buffers wait on each other.
  scen::Json j;
  j["topology"] = {
      {"nodes",
       {{{"name", "h0"}, {"kind", "host"}},
        {{"name", "h1"}, {"kind", "host"}},
        {{"name", "a"}, {"kind", "switch"}},
        {{"name", "b"}, {"kind", "switch"}}}},
      {"links", {{{"a", "h0"}, {"b", "a"}}, {{"a", "a"}, {"b", "b"}}, {{"a", "b"}, {"b", "h1"}}}}};
  j["topology"]["defaults"] = {{"rate", "100Gbps"}, {"latency", "1us"}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1KB"}}};
  const scen::Scenario s = test_support::load(j);
  topo::RoutingTables rt = topo::compute_routes(s.fabric, s.link_up);
  // Point b's route for h1 back at a, through b's port 0 (a's route to h0 is also port 0):
  // a -> b -> a -> ...
  const int a = s.fabric.node_by_name("a"), b = s.fabric.node_by_name("b");
  REQUIRE(rt.next_hops(a, 0).size() == 1);
  REQUIRE(rt.next_hops(a, 0)[0] == 0);
  rt.set_of[static_cast<size_t>(b) * rt.num_hosts + 1] =
      rt.set_of[static_cast<size_t>(a) * rt.num_hosts + 0];
  const auto r = topo::buffer_dependency_cycles(s.fabric, rt, flows_of(s));
  REQUIRE(r.cycles.size() == 1);
  CHECK(topo::format_cycle(s.fabric, r.cycles[0]) == "a:1:p3 -> b:0:p3 -> a:1:p3");
}

TEST_CASE(
    "circuits: each elementary circuit once, from its smallest vertex, depth first in edge order",
    "[unit][deadlock]") {
  // Circuits 0 -> 2 -> 0, 0 -> 1 -> 2 -> 0, 1 -> 2 -> 3 -> 1 and 1 -> 3 -> 1.
  const std::vector<std::pair<int, int>> edges = {{0, 2}, {0, 1}, {1, 2}, {1, 3},
                                                  {2, 0}, {2, 3}, {3, 1}};
  const topo::Circuits c = topo::elementary_circuits(4, edges, 100);
  CHECK_FALSE(c.truncated);
  // From 0: the edge 0 -> 2 is listed first, so its circuit comes first (the deadlock detector
  // reports the first circuit of each start and relies on this order).
  const std::vector<std::vector<int>> expected = {{0, 2}, {0, 1, 2}, {1, 2, 3}, {1, 3}};
  CHECK(c.circuits == expected);
  // Listing 0 -> 1 first finds the longer circuit first.
  const std::vector<std::pair<int, int>> swapped = {{0, 1}, {0, 2}, {1, 2}, {1, 3},
                                                    {2, 0}, {2, 3}, {3, 1}};
  CHECK(topo::elementary_circuits(4, swapped, 100).circuits.front() == std::vector<int>{0, 1, 2});
  // A cap: the first ones, and the mark that there are more.
  const topo::Circuits capped = topo::elementary_circuits(4, edges, 2);
  CHECK(capped.truncated);
  CHECK(capped.circuits.size() == 2);
  CHECK(topo::elementary_circuits(3, {{0, 1}, {1, 2}}, 100).circuits.empty());
}
