// Calibrated parameters carry over: the send engine's cap as a fraction of the NIC's own line
// rate (send_efficiency), and a calibration overlay included by a scenario of either fabric
// applies to it (or is refused with its path), never dropped.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"
#include "temp_dir.hpp"
#include "tools/calibration/calibration.hpp"
#include "tools/calibration/cluster.hpp"

namespace {

// One 8 MiB flow between two hosts on one switch at `rate`.
scen::Json one_flow(const std::string& rate) {
  scen::Json j;
  j["name"] = "one-flow";
  j["topology"] = test_support::star(2, rate, "1us");
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "8MiB"}}};
  return j;
}

double fct_us(const scen::Scenario& s) {
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.flows.size() == 1);
  return static_cast<double>(out.flows[0].fct.ps) / 1e6;
}

}  // namespace

TEST_CASE("send_efficiency caps a NIC at its fraction of its own line rate",
          "[mechanism][calibrate][portable]") {
  for (const char* rate : {"100Gbps", "400Gbps"}) {
    scen::Json full = one_flow(rate);
    scen::Json half = full;
    half["fabric"]["nic"]["send_efficiency"] = 0.5;
    const double t_full = fct_us(test_support::load(full));
    const double t_half = fct_us(test_support::load(half));
    INFO(rate << ": " << t_full << " us at line rate, " << t_half << " us at half");
    CHECK(t_half > 1.9 * t_full);
    CHECK(t_half < 2.05 * t_full);
  }
  // With an absolute cap too, the lower holds.
  scen::Json both = one_flow("400Gbps");
  both["fabric"]["nic"]["send_efficiency"] = 0.5;
  both["fabric"]["nic"]["max_send_rate"] = "100Gbps";
  scen::Json quarter = one_flow("400Gbps");
  quarter["fabric"]["nic"]["max_send_rate"] = "100Gbps";
  CHECK(fct_us(test_support::load(both)) == fct_us(test_support::load(quarter)));
}

TEST_CASE("a calibration overlay applies to the fabric that includes it",
          "[mechanism][calibrate][portable]") {
  test_support::TempDir dir;
  dir.write("params.json",
            R"({"fabric": {"nic": {"send_efficiency": 0.5, "tx_latency": "1us"},
                           "switch": {"latency": "300ns"}}})");
  for (const char* fabric : {"roce", "infiniband"}) {
    scen::Json plain = one_flow("400Gbps");
    plain["fabric"] = fabric;
    scen::Json calibrated = plain;
    calibrated["include"] = {"params.json"};
    const scen::Scenario s = scen::load_scenario_json(calibrated, dir.path().string(), {});
    CHECK(s.nic.send_efficiency == 0.5);
    CHECK(s.nic.tx_latency == sim::Time(1'000'000));
    const double t_plain = fct_us(scen::load_scenario_json(plain, dir.path().string(), {}));
    const double t_cal = fct_us(s);
    INFO(fabric << ": " << t_plain << " us plain, " << t_cal << " us calibrated");
    // The payload at half of 400 Gb/s bounds it (InfiniBand's default credits already hold
    // the plain run below line rate over these 1 µs links).
    const double half_rate_us = 8.0 * (8 << 20) / 200e9 * 1e6;
    CHECK(t_plain < half_rate_us);
    CHECK(t_cal >= half_rate_us);
  }
  // The including file's own keys still win.
  scen::Json own = one_flow("400Gbps");
  own["fabric"] = "infiniband";
  own["infiniband"]["nic"]["send_efficiency"] = 0.8;
  own["include"] = {"params.json"};
  CHECK(scen::load_scenario_json(own, dir.path().string(), {}).nic.send_efficiency == 0.8);
  // Keys the fabric does not take are refused where they landed, not dropped.
  dir.write("roce_only.json", R"({"fabric": {"pfc": {"enabled": true}}})");
  scen::Json ib = one_flow("400Gbps");
  ib["fabric"] = "infiniband";
  ib["include"] = {"roce_only.json"};
  try {
    (void)scen::load_scenario_json(ib, dir.path().string(), {});
    FAIL("accepted RoCE-only keys on InfiniBand");
  } catch (const scen::InputError& e) {
    CHECK(e.path == "infiniband.pfc");
  }
}

TEST_CASE("calibrate writes the send engine's cap as a fraction of the line rate",
          "[mechanism][calibrate][portable]") {
  calib::ClusterSpec c;
  c.name = "c";
  c.link_rate_bps = 200'000'000'000;
  calib::FabricParams p;
  p.efficiency = 0.9;
  const scen::Json overlay = calib::params_overlay(c, p);
  CHECK(overlay["fabric"]["nic"]["send_efficiency"].get<double>() == 0.9);
  CHECK_FALSE(overlay["fabric"]["nic"].contains("max_send_rate"));
  test_support::TempDir dir;
  const auto file = dir.write("params.json", overlay.dump());
  // Read back for a cluster of another speed: the same fraction.
  calib::ClusterSpec faster = c;
  faster.link_rate_bps = 400'000'000'000;
  CHECK(calib::read_params_overlay(file.string(), faster).efficiency == 0.9);
}
