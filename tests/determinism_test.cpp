// Same scenario and seed: byte-identical outputs. A different seed: different ECMP choices.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "scenarios/outputs/write_outputs.hpp"

namespace {

scen::Json fat_tree_flows(uint64_t seed) {
  scen::Json j;
  j["seed"] = seed;
  j["topology"] = {{"generator", "fat-tree"}, {"k", 4}, {"rate", "100Gbps"}, {"latency", "1us"}};
  // Fixed flows (no random workload): only the ECMP hash can depend on the seed.
  for (int s = 0; s < 8; ++s) {
    j["workload"]["flows"].push_back({{"src", s}, {"dst", 15 - s}, {"size", "200KB"}});
  }
  return j;
}

}  // namespace

TEST_CASE("determinism: the same scenario and seed give byte-identical outputs",
          "[scenario][determinism]") {
  const scen::Scenario s =
      scen::load_scenario_file(std::string(RDMASIM_SOURCE_DIR) + "/scenarios/quickstart.json");
  const scen::RunOutcome a = scen::run_scenario(s);
  const scen::RunOutcome b = scen::run_scenario(s);
  CHECK(scen::flows_csv(a) == scen::flows_csv(b));
  CHECK(scen::links_csv(a) == scen::links_csv(b));
  CHECK(scen::timeseries_csv(a) == scen::timeseries_csv(b));
  CHECK(scen::summary_json(s, a) == scen::summary_json(s, b));
}

TEST_CASE("determinism: a different seed changes ECMP choices on a fat-tree",
          "[scenario][determinism]") {
  const auto run = [](uint64_t seed) {
    return scen::links_csv(scen::run_scenario(test_support::load(fat_tree_flows(seed))));
  };
  const std::string one = run(1);
  CHECK(one == run(1));
  CHECK(one != run(2));
}

TEST_CASE("determinism: PFC, ECN marking and DCQCN give byte-identical outputs",
          "[scenario][determinism][dcqcn]") {
  scen::LoadOptions o;
  o.sets = {"fabric.dcqcn.enabled=true", "stop.time=5ms"};
  const scen::Scenario s = scen::load_scenario_file(
      std::string(RDMASIM_SOURCE_DIR) + "/scenarios/roce-victim-flow.json", o);
  const scen::RunOutcome a = scen::run_scenario(s);
  const scen::RunOutcome b = scen::run_scenario(s);
  REQUIRE(a.results["dcqcn"]["rate_decreases"].get<uint64_t>() > 0);
  REQUIRE(a.results["pfc"]["pause_frames"].get<uint64_t>() > 0);
  CHECK(scen::flows_csv(a) == scen::flows_csv(b));
  CHECK(scen::links_csv(a) == scen::links_csv(b));
  CHECK(scen::timeseries_csv(a) == scen::timeseries_csv(b));
  CHECK(scen::rates_csv(a) == scen::rates_csv(b));
  CHECK(scen::pfc_csv(a) == scen::pfc_csv(b));
  CHECK(scen::summary_json(s, a) == scen::summary_json(s, b));
}
