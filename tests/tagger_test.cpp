// Tagger: packets that turn up again after going down move to the next lossless priority,
// which cuts the valley-routes cycle in the static check and in the run, routes unchanged.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/routing_section.hpp"
#include "topologies/buffer_dependency.hpp"
#include "topologies/valley_tagging.hpp"

namespace {

const std::string kValley = RDMASIM_SOURCE_DIR "/scenarios/deadlock-valley-routes.json";
const std::string kTagger = RDMASIM_SOURCE_DIR "/scenarios/deadlock-valley-routes-tagger.json";

std::vector<topo::RouteDemand> all_pairs(const topo::Fabric& f, int priority) {
  std::vector<topo::RouteDemand> d;
  const int hosts = static_cast<int>(f.host_node.size());
  for (int a = 0; a < hosts; ++a) {
    for (int b = 0; b < hosts; ++b) {
      if (a != b) d.push_back({a, b, priority, {}});
    }
  }
  return d;
}

}  // namespace

TEST_CASE("tagger: valleys and the re-tag table", "[unit][tagger]") {
  const scen::Scenario s = scen::load_scenario_file(kTagger);
  const auto r = topo::make_valley_retag(s.fabric, {3, 4});
  CHECK(r.next[3] == 4);
  CHECK(r.next[4] == 4);  // the last keeps its priority
  CHECK(r.next[0] == -1);
  const auto n = [&](const char* name) { return s.fabric.node_by_name(name); };
  CHECK(topo::is_valley(r.level, n("S1"), n("L2"), n("S0")));        // down to L2, up again
  CHECK_FALSE(topo::is_valley(r.level, n("L0"), n("S1"), n("L2")));  // up, then down
  CHECK_FALSE(topo::is_valley(r.level, n("S0"), n("L2"), n("h2")));  // down, down
  CHECK(topo::retagged(r, n("S1"), n("L2"), n("S0"), 3) == 4);
  CHECK(topo::retagged(r, n("S1"), n("L2"), n("S0"), 0) == 0);  // not in the list
}

TEST_CASE("tagger: the static check finds no cycle with re-tagging, the same routes",
          "[unit][tagger][deadlock]") {
  const scen::Scenario s = scen::load_scenario_file(kTagger);
  const auto rt = scen::routes_for(s, s.link_up);
  const auto retag = scen::valley_retag_for(s);
  REQUIRE(retag != nullptr);
  const auto demands = all_pairs(s.fabric, 3);
  CHECK(topo::buffer_dependency_cycles(s.fabric, rt, demands).cycles.size() >= 2);
  const auto r = topo::buffer_dependency_cycles(s.fabric, rt, demands, 100, retag.get());
  CHECK(r.cycles.empty());
  CHECK(r.dependencies > 0);

  test_support::TempDir dir("rdmasim_tagger");
  const auto run = test_support::rdmasim({"check", kTagger, "--all-pairs"}, dir);
  CHECK(run.exit_code == 0);
  CHECK(test_support::contains(run.out, "0 cycle(s)"));
}

TEST_CASE("tagger: the valley-routes run completes, every valley packet re-tagged",
          "[unit][tagger][deadlock]") {
  const auto out = scen::run_scenario(scen::load_scenario_file(kTagger));
  CHECK(out.results["deadlocks"] == 0);
  CHECK(out.results["flows_completed"] == 4);
  REQUIRE(out.results["retransmitted_packets"] == 0);
  // h0 -> h1 and h1 -> h0 cross one valley each, h2 <-> h3 none; all four flows are the same
  // size, so half the data packets were re-tagged, once.
  CHECK(out.results["pfc"]["valley_retags"].get<uint64_t>() * 2 ==
        out.results["data_packets_sent"].get<uint64_t>());
  // Without it, the same file deadlocks (the original reproduction).
  scen::Json j = scen::read_json_file(kTagger);
  j.erase("tagging");
  const auto plain =
      scen::run_scenario(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}));
  CHECK(plain.results["deadlocks"] == 1);
}

TEST_CASE("tagger: refused without two lossless priorities", "[unit][tagger][bad_input]") {
  scen::Json j = scen::read_json_file(kTagger);
  j["tagging"]["priorities"] = {3, 5};  // 5 is lossy
  CHECK_THROWS_WITH(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}),
                    Catch::Contains("tagging.priorities[1]"));
  j["tagging"]["priorities"] = {3};
  CHECK_THROWS_AS(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}),
                  scen::InputError);
  j["tagging"]["priorities"] = {3, 4};
  scen::LoadOptions on_4;
  on_4.sets = {"workload.flows[0].priority=4"};  // kept for re-tagged packets
  CHECK_THROWS_WITH(scen::load_scenario_file(kTagger, on_4),
                    Catch::Contains("flow 0 on priority 4"));
  j["fabric"]["qos"]["trust"] = "dscp";
  CHECK_THROWS_AS(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}),
                  scen::InputError);
}
