// Links going down and up during a run, routes recomputed with a convergence delay: the
// transient loop of deadlock-routing-loop traps its lossless flow (and only with stale routes),
// the static check finds the loop in the routes during convergence, the watchdog recovers.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/loader/failures_section.hpp"
#include "scenarios/loader/routing_section.hpp"
#include "topologies/buffer_dependency.hpp"
#include "topologies/route_transition.hpp"

namespace {

const std::string kLoop = RDMASIM_SOURCE_DIR "/scenarios/deadlock-routing-loop.json";
const std::string kLoopFixed = RDMASIM_SOURCE_DIR "/scenarios/deadlock-routing-loop-watchdog.json";

scen::RunOutcome run_file(const std::string& file, const std::vector<std::string>& sets = {}) {
  scen::LoadOptions o;
  o.sets = sets;
  return scen::run_scenario(scen::load_scenario_file(file, o));
}

double ns(const scen::Json& v) {
  return v.get<double>();  // summary.json writes numbers
}

}  // namespace

TEST_CASE("routing loop: stale routes during convergence deadlock the lossless flow",
          "[mechanism][link_events][deadlock]") {
  const auto out = run_file(kLoop);
  REQUIRE(out.results["deadlocks"] == 1);
  const auto& e = out.results["deadlock_events"][0];
  // A's ingress from B waits on B's ingress from A, and back.
  CHECK(e["cycle"] == scen::Json({"A:0:p3", "B:1:p3"}));
  CHECK(e["flows"] == scen::Json::array({0}));
  const double formed = ns(e["formed_ns"]), detected = ns(e["detected_ns"]);
  CHECK(formed > 300'000);  // after the failure
  CHECK(formed < 500'000);  // before B converged: the loop made it
  CHECK(detected - formed <= 1'000'000);
  CHECK(out.results["flows_completed"] == 0);
  // Same cycle at the same picosecond on a rerun.
  CHECK(run_file(kLoop).results["deadlock_events"] == out.results["deadlock_events"]);
}

TEST_CASE("routing loop: with routes converging at once there is no loop and no deadlock",
          "[mechanism][link_events][deadlock]") {
  const auto out = run_file(kLoop, {"link_events.convergence_delay=0s"});
  CHECK(out.results["deadlocks"] == 0);
  CHECK(out.results["flows_completed"] == 1);
  CHECK(out.results["drops"]["ttl"] == 0);  // nothing ever looped
}

TEST_CASE("routing loop: the watchdog recovers it and the flow completes",
          "[mechanism][link_events][watchdog]") {
  const auto out = run_file(kLoopFixed);
  CHECK(out.results["deadlocks"] == 0);
  CHECK(out.results["flows_completed"] == 1);
  CHECK(out.results["pfc"]["watchdog_drops"].get<uint64_t>() > 0);
}

TEST_CASE("link events: a link that comes back up carries the flow again",
          "[mechanism][link_events]") {
  // h0 - s1 - s2 - h1, the only path; s1-s2 down from 50 us to 150 us.
  scen::Json j;
  j["topology"] =
      test_support::chain_topology({"100Gbps", "100Gbps", "100Gbps"}, {"1us", "1us", "1us"});
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "2MB"}}};
  j["link_events"]["events"] = {{{"at", "50us"}, {"a", "s1"}, {"b", "s2"}},
                                {{"at", "150us"}, {"a", "s1"}, {"b", "s2"}, {"state", "up"}}};
  const auto out = scen::run_scenario(test_support::load(j));
  CHECK(out.results["flows_completed"] == 1);
  // Down for 100 us: the flow (160 us at line rate alone) finishes after 260 us.
  CHECK(out.flows[0].finish > sim::Time(260'000'000));
  // Meanwhile s1 had no route to h1 and dropped what reached it.
  CHECK(out.results["drops"]["no_route"].get<uint64_t>() > 0);
  // Without the events it is done in ~170 us.
  j.erase("link_events");
  CHECK(scen::run_scenario(test_support::load(j)).flows[0].finish < sim::Time(200'000'000));
}

TEST_CASE("link events: the static check sees the loop only in the routes during convergence",
          "[mechanism][link_events][deadlock]") {
  const scen::Scenario s = scen::load_scenario_file(kLoop);
  const std::vector<topo::RouteDemand> flow = {{0, 1, 3, {}}};
  const auto before = scen::routes_for(s, s.link_up);
  const auto after = scen::routes_for(s, scen::link_state_after(s, 1));
  CHECK(topo::buffer_dependency_cycles(s.fabric, before, flow).cycles.empty());
  CHECK(topo::buffer_dependency_cycles(s.fabric, after, flow).cycles.empty());
  std::vector<bool> ends(s.fabric.topo.nodes.size(), false);
  ends[s.fabric.node_by_name("A")] = ends[s.fabric.node_by_name("C")] = true;
  const auto r =
      topo::buffer_dependency_cycles(s.fabric, topo::mix_routes(before, after, ends), flow);
  REQUIRE(r.cycles.size() == 1);
  CHECK(topo::format_cycle(s.fabric, r.cycles[0]) == "A:0:p3 -> B:1:p3 -> A:0:p3");

  // The same from the command line, as a warning (exit code 3 with --strict).
  test_support::TempDir dir("rdmasim_link_events");
  const auto run = test_support::rdmasim({"check", kLoop, "--strict"}, dir);
  CHECK(run.exit_code == 3);
  CHECK(test_support::contains(
      run.out,
      "cyclic buffer dependency (a PFC deadlock can form) after A-C down at 300us, "
      "during convergence: A:0:p3 -> B:1:p3 -> A:0:p3"));
}

TEST_CASE("link events: bad events are refused with their path",
          "[mechanism][link_events][bad_input]") {
  scen::Json j = scen::read_json_file(kLoop);
  j["link_events"]["events"][0]["b"] = "D";  // no A-D link
  CHECK_THROWS_WITH(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}),
                    Catch::Contains("link_events.events[0]"));
  j["link_events"]["events"][0]["b"] = "C";
  j["link_events"]["events"][0]["state"] = "sideways";
  CHECK_THROWS_WITH(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}),
                    Catch::Contains("sideways"));
}
