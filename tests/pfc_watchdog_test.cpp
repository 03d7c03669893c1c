// The PFC watchdog: its drop action empties the stuck queues of the ring of four (drops
// counted, every flow then completes over go-back-N), where ignoring the pause instead costs
// lossless drops downstream; parameters per switch and port through overrides.
#include <catch2/catch.hpp>

#include "models/roce/pfc_gate.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"
#include "scenarios/loader/input_error.hpp"

namespace {

const std::string kRing = RDMASIM_SOURCE_DIR "/scenarios/deadlock-ring4.json";
const std::string kRingFixed = RDMASIM_SOURCE_DIR "/scenarios/deadlock-ring4-watchdog.json";

scen::RunOutcome run_file(const std::string& file, const std::vector<std::string>& sets = {}) {
  scen::LoadOptions o;
  o.sets = sets;
  return scen::run_scenario(scen::load_scenario_file(file, o));
}

}  // namespace

TEST_CASE("watchdog: ignoring the pause breaks the ring's deadlock, flows complete",
          "[mechanism][watchdog]") {
  const auto out = run_file(kRingFixed);
  CHECK(out.results["deadlocks"] == 0);
  CHECK(out.results["flows_completed"] == 4);
  CHECK(out.results["pfc"]["watchdog_triggers"].get<uint64_t>() > 0);
  CHECK(out.results["pfc"]["watchdog_drops"] == 0);  // nothing discarded at the stuck queues
  // Whatever was sent into a paused ingress beyond its headroom would be lost there and
  // resent; every loss is recovered.
  CHECK(out.results["retransmitted_packets"].get<uint64_t>() >=
        out.results["drops"]["lossless"].get<uint64_t>());
}

TEST_CASE("watchdog: without it the fixed ring deadlocks as the original",
          "[mechanism][watchdog]") {
  // The same file with the watchdog switched off by a later override: the deadlock is back,
  // so it is the watchdog that fixes it.
  scen::Json j = scen::read_json_file(kRingFixed);
  j["overrides"].push_back({{"switch", "*"}, {"set", {{"pfc_watchdog", {{"timeout", "0s"}}}}}});
  const auto out =
      scen::run_scenario(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}));
  CHECK(out.results["deadlocks"] == 1);
  CHECK(out.results["pfc"]["watchdog_triggers"] == 0);
}

TEST_CASE("watchdog: the drop action at one switch breaks the ring, drops counted",
          "[mechanism][watchdog]") {
  // s2 discards its stuck queue (flows 1 and 2 lose packets); the cycle needs every member,
  // so the ring is free, and go-back-N resends what was discarded.
  const auto out =
      run_file(kRingFixed, {"overrides[0].switch=s2", "overrides[0].set.pfc_watchdog.action=drop"});
  const auto& pfc = out.results["pfc"];
  CHECK(out.results["deadlocks"] == 0);
  CHECK(out.results["flows_completed"] == 4);
  CHECK(pfc["watchdog_triggers"].get<uint64_t>() > 0);
  const uint64_t drops = pfc["watchdog_drops"].get<uint64_t>();
  CHECK(drops > 0);
  CHECK(pfc["watchdog_drop_bytes"].get<uint64_t>() >= drops * 64);  // whole frames
  CHECK(out.results["drops"]["lossless"] == 0);  // discarded, never sent into a full ingress
  CHECK(out.results["retransmitted_packets"].get<uint64_t>() >= drops);
}

TEST_CASE("watchdog: parameters per switch and port, over the fabric-wide ones",
          "[mechanism][watchdog]") {
  scen::Json j = scen::read_json_file(kRing);
  j["fabric"]["pfc"]["watchdog_timeout"] = "300us";
  j["overrides"] = {
      {{"switch", "s1"}, {"set", {{"pfc_watchdog", {{"timeout", "50us"}, {"action", "drop"}}}}}},
      {{"switch", "s1"}, {"port", 2}, {"set", {{"pfc_watchdog", {{"recovery", "20us"}}}}}}};
  const scen::Scenario s = scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {});
  sim::Simulator build_sim(1);
  const auto net = scen::build_network(s, build_sim);
  const int s1 = s.fabric.node_by_name("s1");
  int checked = 0;
  for (size_t i = 0; i < net->links.size(); ++i) {
    const topo::Link& l = s.fabric.topo.links[i / 2];
    const int from = i % 2 == 0 ? l.a : l.b, port = i % 2 == 0 ? l.a_port : l.b_port;
    if (s.fabric.host_index[from] >= 0) continue;
    const models::PfcGate& g = *net->link_gate[i];
    INFO("node " << from << " port " << port);
    if (from == s1) {
      CHECK(g.watchdog_timeout() == sim::Time(50'000'000));
      CHECK(g.watchdog_action() == models::WatchdogAction::Drop);
      CHECK(g.watchdog_recovery() == (port == 2 ? sim::Time(20'000'000) : s.pfc.watchdog_recovery));
    } else {
      CHECK(g.watchdog_timeout() == sim::Time(300'000'000));
      CHECK(g.watchdog_action() == models::WatchdogAction::IgnorePause);
    }
    ++checked;
  }
  CHECK(checked == 12);  // 4 switches x 3 ports
}

TEST_CASE("watchdog: bad settings are refused with their path",
          "[mechanism][watchdog][bad_input]") {
  scen::Json j = scen::read_json_file(kRing);
  j["overrides"] = {{{"switch", "s1"}, {"set", {{"pfc_watchdog", {{"action", "explode"}}}}}}};
  CHECK_THROWS_WITH(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}),
                    Catch::Contains("explode"));
  j["overrides"] = {
      {{"switch", "s1"}, {"priority", 3}, {"set", {{"pfc_watchdog", {{"timeout", "1us"}}}}}}};
  CHECK_THROWS_AS(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}),
                  scen::InputError);
  j["overrides"] = {{{"switch", "s1"}, {"set", {{"pfc_watchdog", {{"timeot", "1us"}}}}}}};
  CHECK_THROWS_AS(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}),
                  scen::InputError);
}
