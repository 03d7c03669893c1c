// A generated Megatron step as Chakra traces, for tests that run one: split runs, runs over
// processes.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "scenario_helpers.hpp"
#include "scenarios/chakra/chakra_generate.hpp"
#include "scenarios/loader/scenario.hpp"
#include "temp_dir.hpp"

namespace test_support {

// tp 8, pp 2, dp 4 on 8 dgx-h100 servers, its traces written into `dir`: its tensor groups'
// all-reduces (NVLS inside a server unless `algorithm` says otherwise), its pipeline sends and
// receives, its data groups' gradient all-reduces.
inline scen::Scenario chakra_step(const TempDir& dir, const std::string& algorithm) {
  scen::ChakraTrainingLayout l;
  l.tp = 8;
  l.pp = 2;
  l.dp = 4;
  l.microbatches = 4;
  l.layers = 4;
  l.forward = sim::Time(20'000'000);
  l.backward = sim::Time(40'000'000);
  l.optimizer = sim::Time(10'000'000);
  l.activation_bytes = 1 << 20;
  l.gradient_bytes = 4 << 20;
  l.bucket_bytes = 16 << 20;
  REQUIRE(scen::write_training_traces(l, (dir / "step").string()) == 64);
  scen::Json j = dgx_rail_cluster("chakra-split", 8);
  j["fabric"]["nic"] = {{"mtu", "4KiB"}};
  j["workload"]["chakra"] = {{"traces", "step"}, {"comm_groups", "step.comm_groups.json"}};
  if (!algorithm.empty()) j["workload"]["chakra"]["comm"] = {{"algorithm", algorithm}};
  return scen::load_scenario_json(j, dir.path().string(), scen::LoadOptions{});
}

}  // namespace test_support
