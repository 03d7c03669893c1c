// Pause storms: a NIC that sends pause frames without end freezes flows that never go near it
// (congestion spreading through PFC), is never taken for a deadlock, and the PFC watchdog
// contains it.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"

namespace {

const std::string kStorm = RDMASIM_SOURCE_DIR "/scenarios/pause-storm.json";
const std::string kStormFixed = RDMASIM_SOURCE_DIR "/scenarios/pause-storm-watchdog.json";

scen::RunOutcome run_file(const std::string& file, const std::vector<std::string>& sets = {}) {
  scen::LoadOptions o;
  o.sets = sets;
  return scen::run_scenario(scen::load_scenario_file(file, o));
}

}  // namespace

TEST_CASE("pause storm: the storm spreads to flows that never reach the NIC",
          "[mechanism][pause_storm]") {
  const auto out = run_file(kStorm);
  // Flows 1 (b -> c) and 2 (c -> r) share no link with x; they stall behind its flow.
  CHECK(out.results["flows_completed"] == 0);
  CHECK(out.results["deadlocks"] == 0);  // a pause tree, not a cycle
  // The storm sent frames at half the pause time (65535 quanta at 100 Gb/s = 335.5 us):
  // from 20 us to 2 ms, at 20, 187.7, 355.5, ... us.
  const uint64_t frames = out.results["pfc"]["storm_pause_frames"].get<uint64_t>();
  const int64_t interval_ps = 65535LL * 512 * 10 / 2;  // ps per bit at 100 Gb/s = 10
  CHECK(frames == static_cast<uint64_t>((2'000'000'000LL - 20'000'000 - 1) / interval_ps + 1));
  // The spine's port to L0 and L1's uplink were held: the storm spread two hops.
  CHECK(test_support::link_between(out, "S", "L0").paused > sim::Time(1'000'000'000));
  CHECK(test_support::link_between(out, "L1", "S").paused > sim::Time(1'000'000'000));
}

TEST_CASE("pause storm: without the storm the same flows complete", "[mechanism][pause_storm]") {
  scen::Json j = scen::read_json_file(kStorm);
  j["pause_storms"][0]["start"] = "10s";  // after the end of the run
  const auto out =
      scen::run_scenario(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}));
  CHECK(out.results["flows_completed"] == 3);
  CHECK(out.results["pfc"]["storm_pause_frames"] == 0);
}

TEST_CASE("pause storm: the watchdog contains it, the other flows complete",
          "[mechanism][pause_storm]") {
  const auto out = run_file(kStormFixed);
  CHECK(out.results["deadlocks"] == 0);
  CHECK(out.results["pfc"]["watchdog_triggers"].get<uint64_t>() > 0);
  CHECK(out.results["pfc"]["watchdog_drops"].get<uint64_t>() > 0);
  CHECK(out.results["flows_completed"] == 2);
  CHECK(out.flows[0].completed == false);  // to x, whose NIC still storms
  CHECK(out.flows[1].completed);
  CHECK(out.flows[2].completed);
}

TEST_CASE("pause storm: an end time stops the frames", "[mechanism][pause_storm]") {
  const auto out =
      run_file(kStorm, {"pause_storms[0].end=400us", "stop.until=workload-done", "stop.time=20ms"});
  // Frames at 20, 187.7 and 355.5 us; the last pause ends 335.5 us later and the flows go on.
  CHECK(out.results["pfc"]["storm_pause_frames"] == 3);
  CHECK(out.results["flows_completed"] == 3);
}
