// Run-time PFC deadlock detection: the ring of four deadlocks and the detector names the
// cycle within 1 ms of its forming; a pause tree (incast) is never a deadlock.
#include <catch2/catch.hpp>

#include "models/network.hpp"
#include "models/roce/deadlock_detector.hpp"
#include "scenario_helpers.hpp"

namespace {

const std::string kRing = RDMASIM_SOURCE_DIR "/scenarios/deadlock-ring4.json";

scen::RunOutcome run_ring(const std::vector<std::string>& sets = {}) {
  scen::LoadOptions o;
  o.sets = sets;
  return scen::run_scenario(scen::load_scenario_file(kRing, o));
}

double ns(const scen::Json& v) {
  return v.get<double>();  // summary.json writes numbers
}

}  // namespace

TEST_CASE("deadlock: the ring of four is detected with its cycle in waiting order",
          "[mechanism][deadlock]") {
  const auto out = run_ring();
  REQUIRE(out.results["deadlocks"] == 1);
  CHECK(out.results["stop_reason"] == "deadlock");
  CHECK(out.results["flows_completed"] == 0);
  const auto& e = out.results["deadlock_events"][0];
  CHECK(e["cycle"] == scen::Json({"s0:2:p3", "s1:1:p3", "s2:1:p3", "s3:1:p3"}));
  CHECK(e["flows"] == scen::Json({0, 1, 2, 3}));
  CHECK(e["frozen_bytes"].get<uint64_t>() > 4 * 100'000);  // every ring ingress past XOFF
  const double formed = ns(e["formed_ns"]), detected = ns(e["detected_ns"]);
  CHECK(formed > 0);
  CHECK(detected - formed >= 200'000);    // the window: paused throughout
  CHECK(detected - formed <= 1'000'000);  // within 1 ms of forming
  // The same cycle at the same picosecond on a rerun.
  CHECK(run_ring().results["deadlock_events"] == out.results["deadlock_events"]);
}

TEST_CASE("deadlock: with on_deadlock continue the run goes on and reports it once",
          "[mechanism][deadlock]") {
  const auto out = run_ring({"stop.on_deadlock=continue", "stop.time=3ms"});
  CHECK(out.results["deadlocks"] == 1);
  CHECK(out.results["stop_reason"] == "time-limit");
  CHECK(out.end_time == sim::Time(3'000'000'000));
}

TEST_CASE("deadlock: without the cycle (three flows of four) nothing deadlocks",
          "[mechanism][deadlock]") {
  scen::Json j = scen::read_json_file(kRing);
  j["workload"]["flows"].erase(3);
  j["stop"] = {{"until", "workload-done"}, {"time", "50ms"}};
  const auto out =
      scen::run_scenario(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}));
  CHECK(out.results["deadlocks"] == 0);
  CHECK(out.results["flows_completed"] == 3);
}

TEST_CASE("deadlock: a 64-to-1 incast's long pause tree is never a deadlock",
          "[mechanism][deadlock]") {
  scen::Json j;
  j["topology"] = {
      {"generator", "leaf-spine"}, {"leaves", 8}, {"spines", 2}, {"hosts_per_leaf", 9}};
  j["fabric"]["pfc"] = {{"enabled", true}, {"xoff", "50KB"}};
  j["fabric"]["switch"] = {{"buffer", "32MB"}};
  scen::Json senders = scen::Json::array();
  for (int h = 0; h < 72; ++h) {
    if (h % 9 != 8) senders.push_back(h);
  }
  j["workload"]["incast"] = {{"receiver", 8}, {"senders", senders}, {"size", "1MB"}};
  const auto out = scen::run_scenario(test_support::load(j));
  CHECK(out.results["flows_completed"] == 64);
  CHECK(out.results["deadlocks"] == 0);
  // Pauses were long: senders' ports held far longer than the deadlock window.
  sim::Time longest;
  for (const auto& l : out.links) longest = std::max(longest, l.paused);
  CHECK(longest > sim::Time(200'000'000));
}

TEST_CASE("deadlock: the PFC watchdog breaks the ring's deadlock and every flow completes",
          "[mechanism][deadlock][watchdog]") {
  const auto out = run_ring({"fabric.pfc.watchdog_timeout=100us",
                             "fabric.pfc.watchdog_recovery=100us", "stop.time=500ms"});
  CHECK(out.results["pfc"]["watchdog_triggers"].get<uint64_t>() > 0);
  CHECK(out.results["deadlocks"] == 0);
  CHECK(out.results["flows_completed"] == 4);
  // Without the watchdog the same ring stays frozen.
  CHECK(run_ring().results["pfc"]["watchdog_triggers"] == 0);
}

// A look at an idle fabric (no packet anywhere, no queue seen held) is skipped: it could change
// nothing. The ring's flows started 10 ms late deadlock exactly as before, 10 ms later, and the
// 200 looks before them scan nothing.
TEST_CASE("deadlock: the detector skips its looks while no packet is in the network",
          "[mechanism][deadlock]") {
  const auto out = run_ring();
  scen::Json j = scen::read_json_file(kRing);
  for (auto& f : j["workload"]["flows"]) f["start"] = "10ms";
  j["stop"]["time"] = "30ms";
  const scen::Scenario late = scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {});
  scen::ScenarioRun run(late);
  run.advance(sim::Time(10'000'000'000) - sim::Time(1));
  // 199 looks (every 50 us) so far, none of them a scan.
  REQUIRE(run.network().deadlock != nullptr);
  CHECK(run.network().deadlock->scans() == 0);
  run.advance(late.stop_time);
  CHECK(run.network().deadlock->scans() > 0);
  const auto late_out = run.finish();
  REQUIRE(late_out.results["deadlocks"] == 1);
  const auto& a = out.results["deadlock_events"][0];
  const auto& b = late_out.results["deadlock_events"][0];
  CHECK(b["cycle"] == a["cycle"]);
  CHECK(ns(b["formed_ns"]) - ns(a["formed_ns"]) == 10'000'000.0);
  CHECK(ns(b["detected_ns"]) - ns(a["detected_ns"]) == 10'000'000.0);
}
