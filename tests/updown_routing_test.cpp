// Up*/down* routing: every route it gives is valley-free, its buffer dependency graph has no
// cycle whatever fails, it equals shortest-path routing on a healthy Clos fabric; and the
// valley-routes reproduction: shortest paths deadlock, up*/down* completes.
#include "topologies/updown_routing.hpp"

#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "topologies/buffer_dependency.hpp"

namespace {

const std::string kValley = RDMASIM_SOURCE_DIR "/scenarios/deadlock-valley-routes.json";
const std::string kValleyFixed = RDMASIM_SOURCE_DIR "/scenarios/deadlock-valley-routes-updown.json";

std::vector<topo::RouteDemand> all_pairs(const topo::Fabric& f) {
  std::vector<topo::RouteDemand> d;
  const int hosts = static_cast<int>(f.host_node.size());
  for (int a = 0; a < hosts; ++a) {
    for (int b = 0; b < hosts; ++b) {
      if (a != b) d.push_back({a, b, 3, {}});
    }
  }
  return d;
}

std::vector<topo::RouteDemand> flows_of(const scen::Scenario& s) {
  std::vector<topo::RouteDemand> d;
  for (const auto& f : s.flows) d.push_back({f.src_host, f.dst_host, f.priority, f.route});
  return d;
}

scen::Scenario generated(const char* topology, const std::vector<std::string>& failures = {}) {
  scen::Json j;
  j["topology"] = scen::Json::parse(topology);
  j["workload"]["flows"] = {{{"src", 0}, {"dst", 1}, {"size", "1KB"}}};
  for (size_t i = 0; i + 1 < failures.size(); i += 2) {
    j["link_failures"].push_back({{"a", failures[i]}, {"b", failures[i + 1]}});
  }
  return test_support::load(j);
}

// Walks every ECMP path from every host to every other and checks that none goes up after
// going down; returns the number of (source, destination) pairs with a route.
int check_valley_free(const topo::Fabric& f, const topo::RoutingTables& rt) {
  const std::vector<int> level = topo::updown_levels(f);
  const int hosts = static_cast<int>(f.host_node.size());
  int routed = 0;
  for (int src = 0; src < hosts; ++src) {
    for (int dst = 0; dst < hosts; ++dst) {
      if (src == dst || rt.distance[static_cast<size_t>(f.host_node[src]) * hosts + dst] < 0) {
        continue;
      }
      ++routed;
      auto walk = [&](auto&& self, int node, bool went_down, int depth) -> void {
        REQUIRE(depth < 64);
        if (node == f.host_node[dst]) return;
        const auto hops = rt.next_hops(node, dst);
        REQUIRE(!hops.empty());
        for (const uint16_t port : hops) {
          const int next = f.ports[node][port].peer_node;
          const bool up = topo::updown_is_up(level, node, next);
          INFO("host " << src << " -> " << dst << " at node " << f.topo.nodes[node].name);
          CHECK(!(went_down && up));
          self(self, next, went_down || !up, depth + 1);
        }
      };
      walk(walk, f.host_node[src], false, 0);
    }
  }
  return routed;
}

}  // namespace

TEST_CASE("up/down: levels count from the hosts", "[unit][updown]") {
  const scen::Scenario s = generated(R"({"generator": "fat-tree", "k": 4})");
  const auto level = topo::updown_levels(s.fabric);
  for (size_t n = 0; n < s.fabric.topo.nodes.size(); ++n) {
    INFO(s.fabric.topo.nodes[n].name);
    CHECK(level[n] == s.fabric.topo.nodes[n].tier);  // hosts 0, edge 1, aggregation 2, core 3
  }
}

TEST_CASE("up/down: on a healthy Clos fabric it is shortest-path routing", "[unit][updown]") {
  for (const char* t : {R"({"generator": "fat-tree", "k": 4})",
                        R"({"generator": "leaf-spine", "leaves": 4, "spines": 3,
                            "hosts_per_leaf": 2})"}) {
    INFO(t);
    const scen::Scenario s = generated(t);
    const auto sp = topo::compute_routes(s.fabric);
    const auto ud = topo::compute_updown_routes(s.fabric);
    CHECK(ud.distance == sp.distance);
    const int hosts = static_cast<int>(s.fabric.host_node.size());
    for (size_t n = 0; n < s.fabric.topo.nodes.size(); ++n) {
      for (int d = 0; d < hosts; ++d) {
        const auto a = sp.next_hops(static_cast<int>(n), d),
                   b = ud.next_hops(static_cast<int>(n), d);
        CHECK(std::vector<uint16_t>(a.begin(), a.end()) ==
              std::vector<uint16_t>(b.begin(), b.end()));
      }
    }
  }
}

TEST_CASE("up/down: with failed links, shortest paths cycle and up/down never does",
          "[unit][updown][deadlock]") {
  struct Case {
    const char* topology;
    std::vector<std::string> failures;
  };
  // Leaf-spine: leaf0 and leaf1 share no spine any more, so their shortest paths are valleys
  // through leaf2/leaf3. Fat-tree: a pod whose edge lost an aggregation link.
  const std::vector<Case> cases = {
      {R"({"generator": "leaf-spine", "leaves": 4, "spines": 2, "hosts_per_leaf": 2})",
       {"leaf0", "spine0", "leaf1", "spine1"}},
      {R"({"generator": "fat-tree", "k": 4})",
       {"edge0_0", "agg0_0", "edge0_1", "agg0_1", "agg1_0", "core0"}},
  };
  for (const Case& c : cases) {
    INFO(c.topology);
    const scen::Scenario s = generated(c.topology, c.failures);
    const auto sp = topo::compute_routes(s.fabric, s.link_up);
    const auto ud = topo::compute_updown_routes(s.fabric, s.link_up);
    const auto demands = all_pairs(s.fabric);
    CHECK_FALSE(topo::buffer_dependency_cycles(s.fabric, sp, demands).cycles.empty());
    const auto r = topo::buffer_dependency_cycles(s.fabric, ud, demands);
    CHECK(r.dependencies > 0);
    CHECK(r.cycles.empty());
    CHECK(check_valley_free(s.fabric, ud) > 0);
  }
}

TEST_CASE("up/down: healthy fat-tree and leaf-spine, all pairs routed, valley-free, acyclic",
          "[unit][updown][deadlock]") {
  for (const char* t : {R"({"generator": "fat-tree", "k": 4})",
                        R"({"generator": "leaf-spine", "leaves": 4, "spines": 3,
                            "hosts_per_leaf": 4})"}) {
    INFO(t);
    const scen::Scenario s = generated(t);
    const auto ud = topo::compute_updown_routes(s.fabric);
    const int hosts = static_cast<int>(s.fabric.host_node.size());
    CHECK(check_valley_free(s.fabric, ud) == hosts * (hosts - 1));
    CHECK(topo::buffer_dependency_cycles(s.fabric, ud, all_pairs(s.fabric)).cycles.empty());
  }
}

TEST_CASE("valley routes: the static check finds both cycles, none with up/down",
          "[unit][updown][deadlock]") {
  const scen::Scenario s = scen::load_scenario_file(kValley);
  const auto sp = topo::compute_routes(s.fabric, s.link_up);
  const auto r = topo::buffer_dependency_cycles(s.fabric, sp, flows_of(s));
  REQUIRE(r.cycles.size() == 2);
  // Either valley leaf can be the middle of h0 -> h1 (and of h1 -> h0): one cycle each way.
  CHECK(topo::format_cycle(s.fabric, r.cycles[0]) ==
        "L2:1:p3 -> S1:2:p3 -> L3:2:p3 -> S0:3:p3 -> L2:1:p3");
  CHECK(topo::format_cycle(s.fabric, r.cycles[1]) ==
        "L2:2:p3 -> S0:2:p3 -> L3:1:p3 -> S1:3:p3 -> L2:2:p3");
  const scen::Scenario fixed = scen::load_scenario_file(kValleyFixed);
  CHECK(fixed.updown_routing);
  const auto ud = topo::compute_updown_routes(fixed.fabric, fixed.link_up);
  CHECK(topo::buffer_dependency_cycles(fixed.fabric, ud, all_pairs(fixed.fabric)).cycles.empty());
}

TEST_CASE("valley routes: the run deadlocks on the expected cycle, up/down completes",
          "[unit][updown][deadlock]") {
  const auto out = scen::run_scenario(scen::load_scenario_file(kValley));
  REQUIRE(out.results["deadlocks"] == 1);
  const auto& e = out.results["deadlock_events"][0];
  CHECK(e["cycle"] == scen::Json({"L2:2:p3", "S0:2:p3", "L3:1:p3", "S1:3:p3"}));
  const double formed = e["formed_ns"].get<double>();
  const double detected = e["detected_ns"].get<double>();
  CHECK(detected - formed <= 1'000'000);  // within 1 ms of forming
  CHECK(scen::run_scenario(scen::load_scenario_file(kValley)).results["deadlock_events"] ==
        out.results["deadlock_events"]);  // same cycle, same picosecond

  const auto fixed = scen::run_scenario(scen::load_scenario_file(kValleyFixed));
  CHECK(fixed.results["deadlocks"] == 0);
  CHECK(fixed.results["flows_completed"] == 4);
}
