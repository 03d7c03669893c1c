// InfiniBand congestion control (IBA annex A10): the congestion control table arithmetic and the
// CCTI rules against hand-computed values, FECN marking only above the threshold, the victim of
// congestion spreading getting its bandwidth back (scenarios/ib-cc-victim.json), determinism,
// and refused settings.
#include <catch2/catch.hpp>

#include "models/ib/ib_cc.hpp"
#include "rate_control_rig.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/param_registry.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "sim/units.hpp"

namespace {

using namespace sim::literals;
constexpr int64_t kLine = 400'000'000'000;

// One QP of a long flow and the controller of a two-NIC fabric (4122-byte packets).
struct Rig : test_support::RateControlRig<models::IbCongestionControl> {
  explicit Rig(const models::IbCcParams& p) : RateControlRig(kLine, p, 2, 4122) {}
};

scen::Json victim_scenario() {
  return scen::read_json_file(std::string(RDMASIM_SOURCE_DIR) + "/scenarios/ib-cc-victim.json");
}

const scen::FlowResult& flow_from(const scen::RunOutcome& out, const std::string& src) {
  for (const auto& f : out.flows) {
    if (f.src == src) return f;
  }
  throw std::runtime_error("no flow from " + src);
}

}  // namespace

TEST_CASE("ib cc: table entries give rate and inter-packet delay by hand",
          "[mechanism][infiniband][ibcc]") {
  using models::CctEntry;
  // rate = line x 2^shift / (2^shift + multiplier)
  CHECK(models::cct_rate_bps(kLine, CctEntry{0, 0}) == kLine);
  CHECK(models::cct_rate_bps(kLine, CctEntry{3, 8}) == 200'000'000'000);
  CHECK(models::cct_rate_bps(kLine, CctEntry{3, 120}) == 25'000'000'000);
  CHECK(models::cct_rate_bps(kLine, CctEntry{2, 1}) == 320'000'000'000);
  CHECK(models::cct_rate_bps(kLine, CctEntry{0, 3}) == 100'000'000'000);
  // IPD = packet time x multiplier / 2^shift; 4122 bytes at 400 Gb/s take 82.44 ns.
  CHECK(models::cct_ipd(kLine, CctEntry{3, 8}, 4122) == sim::Time(82'440));
  CHECK(models::cct_ipd(kLine, CctEntry{0, 3}, 4122) == sim::Time(247'320));
  CHECK(models::cct_ipd(kLine, CctEntry{1, 1}, 4122) == sim::Time(41'220));
  // Start-to-start spacing at that rate = packet time + IPD.
  CHECK(sim::serialization_time(4122, models::cct_rate_bps(kLine, CctEntry{0, 3})) ==
        sim::Time(82'440 + 247'320));
  // The default table: i -> 3:i, 128 entries.
  const auto t = models::default_cct();
  REQUIRE(t.size() == 128);
  CHECK(models::cct_rate_bps(kLine, t[0]) == kLine);
  CHECK(models::cct_rate_bps(kLine, t[24]) == 100'000'000'000);
  CHECK(models::cct_rate_bps(kLine, t[120]) == 25'000'000'000);
}

TEST_CASE("ib cc: CCTI rises per BECN to the limit and the timer lowers it to the minimum",
          "[mechanism][infiniband][ibcc]") {
  models::IbCcParams p;
  p.ccti_increase = 5;
  p.ccti_limit = 12;
  p.ccti_min = 2;
  CHECK(models::ccti_after_becn(0, p) == 5);
  CHECK(models::ccti_after_becn(5, p) == 10);
  CHECK(models::ccti_after_becn(10, p) == 12);  // capped
  CHECK(models::ccti_after_becn(12, p) == 12);
  CHECK(models::ccti_after_timer(4, p) == 3);
  CHECK(models::ccti_after_timer(3, p) == 2);
  CHECK(models::ccti_after_timer(2, p) == 2);  // floor

  // The controller: a table of its own, increase 4, limit 10, timer 10 us.
  models::IbCcParams q;
  q.ccti_increase = 4;
  q.ccti_limit = 10;
  q.ccti_timer = 10_us;
  for (int i = 0; i < 11; ++i) q.cct.push_back({0, static_cast<uint16_t>(i)});  // rate line/(1+i)
  Rig rig(q);
  rig.controller->on_becn(rig.qp(), kLine);
  CHECK(rig.controller->ccti(0) == 4);
  CHECK(rig.qp().rate_bps == kLine / 5);
  rig.controller->on_becn(rig.qp(), kLine);
  rig.controller->on_becn(rig.qp(), kLine);
  CHECK(rig.controller->ccti(0) == 10);  // 12 capped at the limit
  CHECK(rig.qp().rate_bps == kLine / 11);
  CHECK(rig.controller->nic_stats(0).becns_received == 3);
  // The timer started with the first BECN (t = 0) and is not restarted by later ones.
  rig.run_to(sim::Time((10_us).ps - 1));
  CHECK(rig.controller->ccti(0) == 10);
  rig.run_to(10_us);
  CHECK(rig.controller->ccti(0) == 9);
  CHECK(rig.qp().rate_bps == kLine / 10);
  rig.run_to(35_us);
  CHECK(rig.controller->ccti(0) == 7);
  rig.run_to(1_ms);
  CHECK(rig.controller->ccti(0) == 0);
  CHECK(rig.qp().rate_bps == kLine);
  CHECK(rig.controller->nic_stats(0).max_ccti == 10);
  // At CCTI_Min the timer stops: nothing is left to run.
  CHECK(rig.sim.run(sim::Time::max()) == sim::StopReason::Idle);
  CHECK(rig.sim.now() == 1_ms);
}

TEST_CASE("ib cc: FECN marks only at ports whose queue passed the threshold",
          "[mechanism][infiniband][ibcc]") {
  // Three senders into one receiver through one switch: only the receiver's port queues.
  scen::Json j;
  j["topology"]["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (const std::string h : {"h0", "h1", "h2", "r"}) {
    j["topology"]["nodes"].push_back({{"name", h}, {"kind", "host"}});
    j["topology"]["links"].push_back(
        {{"a", h}, {"b", "sw"}, {"rate", "400Gbps"}, {"latency", "100ns"}});
  }
  j["fabric"] = "infiniband";
  j["infiniband"]["vl_buffer"] = "64KiB";
  j["infiniband"]["cc"] = {{"enabled", true}, {"threshold", "16KiB"}, {"ccti_timer", "5us"}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "r"}, {"size", "2MB"}},
                            {{"src", "h1"}, {"dst", "r"}, {"size", "2MB"}},
                            {{"src", "h2"}, {"dst", "r"}, {"size", "2MB"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  const int64_t threshold = 16 * 1024;
  uint64_t marks = 0;
  for (const auto& l : out.links) {
    INFO(l.from << " -> " << l.to << ": max queue " << l.class_max_queue_bytes[0] << ", marks "
                << l.fecn_marks);
    // A packet is marked only if the queue it joined held more than the threshold, so the
    // queue with it passed threshold + one packet's bytes.
    if (l.class_max_queue_bytes[0] <= static_cast<uint64_t>(threshold)) {
      CHECK(l.fecn_marks == 0);
    }
    CHECK(l.fecn_marks <= l.class_packets[0]);
    marks += l.fecn_marks;
  }
  const scen::LinkResult& root = test_support::link_between(out, "sw", "r");
  CHECK(root.class_max_queue_bytes[0] > static_cast<uint64_t>(threshold));
  CHECK(root.fecn_marks > 0);
  CHECK(marks == root.fecn_marks);  // NIC ports never mark
  // Every mark comes back as exactly one BECN.
  const scen::Json& cc = out.results["infiniband"]["cc"];
  CHECK(cc["fecn_marks"].get<uint64_t>() == marks);
  CHECK(cc["fecn_received"].get<uint64_t>() == marks);
  CHECK(cc["becns_received"].get<uint64_t>() == marks);
  CHECK(out.results["infiniband"]["per_vl"][0]["fecn_marks"].get<uint64_t>() == marks);

  // Above any queue the switch can hold (3 inputs x 64 KiB): nothing is marked, nobody slows.
  j["infiniband"]["cc"]["threshold"] = "1MiB";
  const scen::RunOutcome calm = scen::run_scenario(test_support::load(j));
  CHECK(calm.results["infiniband"]["cc"]["fecn_marks"].get<uint64_t>() == 0);
  CHECK(calm.results["infiniband"]["cc"]["becns_received"].get<uint64_t>() == 0);
  CHECK(scen::flows_csv(calm) == scen::flows_csv(scen::run_scenario(test_support::load([&] {
          scen::Json off = j;
          off["infiniband"].erase("cc");
          return off;
        }()))));

  // Marking_Rate 3: at most one eligible packet in four is marked.
  j["infiniband"]["cc"]["threshold"] = "16KiB";
  j["infiniband"]["cc"]["marking_rate"] = 3;
  const scen::RunOutcome sparse = scen::run_scenario(test_support::load(j));
  const uint64_t sparse_marks = test_support::link_between(sparse, "sw", "r").fecn_marks;
  CHECK(sparse_marks > 0);
  CHECK(sparse_marks < root.fecn_marks);
}

// The test: a 16-to-1 incast with a victim flow that shares an upstream link with four of
// the incast flows but goes to an idle receiver; with congestion control its FCT must be at
// least 30 % lower than without.
TEST_CASE("ib cc: the victim of a 16-to-1 incast finishes at least 30 % sooner with CC",
          "[mechanism][infiniband][ibcc]") {
  scen::Json j = victim_scenario();
  j.erase("outputs");
  const scen::RunOutcome with_cc = scen::run_scenario(test_support::load(j));
  j["infiniband"]["cc"]["enabled"] = false;
  const scen::RunOutcome without = scen::run_scenario(test_support::load(j));
  const scen::FlowResult& v_cc = flow_from(with_cc, "v");
  const scen::FlowResult& v_off = flow_from(without, "v");
  REQUIRE(v_cc.completed);
  REQUIRE(v_off.completed);
  const double ratio = static_cast<double>(v_cc.fct.ps) / static_cast<double>(v_off.fct.ps);
  INFO("victim FCT with CC " << sim::format_time(v_cc.fct) << ", without "
                             << sim::format_time(v_off.fct) << " (ratio " << ratio << ")");
  CHECK(ratio <= 0.70);
  // The mechanism did it: marks at r's port, the root (and a few at L0's uplink in the first
  // microseconds, when five senders at line rate made it a root too), none at the spine's port
  // to L1, which only waits for credit (a victim port); one BECN per mark.
  const scen::Json& cc = with_cc.results["infiniband"]["cc"];
  const auto marks = cc["fecn_marks"].get<uint64_t>();
  CHECK(marks > 0);
  CHECK(cc["becns_received"].get<uint64_t>() == marks);
  CHECK(test_support::link_between(with_cc, "L1", "r").fecn_marks >= marks * 9 / 10);
  CHECK(test_support::link_between(with_cc, "S", "L1").fecn_marks == 0);
  CHECK(test_support::link_between(with_cc, "S", "L1").credit_stalled.ps > 0);
  CHECK(cc["victim_packets_unmarked"].get<uint64_t>() > 0);
  CHECK(without.results["infiniband"].count("cc") == 0);
  // Every incast flow still completes, and the fabric stays lossless.
  for (const auto& f : with_cc.flows) CHECK(f.completed);

  // With the victim mask the backed-up spine port marks too.
  j["infiniband"]["cc"]["enabled"] = true;
  j["infiniband"]["cc"]["victim_mask"] = true;
  const scen::RunOutcome masked = scen::run_scenario(test_support::load(j));
  CHECK(test_support::link_between(masked, "S", "L1").fecn_marks > 0);
  CHECK(masked.results["infiniband"]["cc"]["victim_packets_unmarked"].get<uint64_t>() == 0);
}

TEST_CASE("ib cc: same scenario and seed give identical outputs", "[mechanism][infiniband][ibcc]") {
  scen::Json j = victim_scenario();
  // Half the incast, to keep it short; the CCTI trace of two flows.
  for (auto& f : j["workload"]["flows"]) {
    if (f["dst"] == "r") f["size"] = "1MB";
  }
  j["workload"]["flows"].back()["size"] = "512KB";
  const scen::Scenario s = test_support::load(j);
  const scen::RunOutcome a = scen::run_scenario(s);
  const scen::RunOutcome b = scen::run_scenario(s);
  CHECK(scen::flows_csv(a) == scen::flows_csv(b));
  CHECK(scen::links_csv(a) == scen::links_csv(b));
  CHECK(scen::classes_csv(a) == scen::classes_csv(b));
  CHECK(scen::timeseries_csv(a) == scen::timeseries_csv(b));
  CHECK(scen::summary_json(s, a) == scen::summary_json(s, b));
  CHECK(!a.ccti_changes.empty());
  CHECK(scen::ib_cc_csv(a) == scen::ib_cc_csv(b));
}

TEST_CASE("ib cc: refused settings name the path", "[mechanism][infiniband][ibcc][input]") {
  const auto error_path = [](const scen::Json& cc) {
    scen::Json j = victim_scenario();
    j["infiniband"]["cc"] = cc;
    try {
      (void)test_support::load(j);
    } catch (const scen::InputError& e) {
      return e.path;
    }
    return std::string("accepted");
  };
  CHECK(error_path({{"ccti_limit", 128}}) == "infiniband.cc.ccti_limit");
  CHECK(error_path({{"ccti_limit", 10}, {"ccti_min", 11}}) == "infiniband.cc.ccti_min");
  CHECK(error_path({{"cct", {"0:0", "4:1"}}}) == "infiniband.cc.cct[1]");
  CHECK(error_path({{"cct", {"0:16384"}}}) == "infiniband.cc.cct[0]");
  CHECK(error_path({{"cct", {"x"}}}) == "infiniband.cc.cct[0]");
  CHECK(error_path({{"cct", {"0:0", "1:1"}}, {"ccti_limit", 2}}) == "infiniband.cc.ccti_limit");
  CHECK(error_path({{"threshhold", "1KiB"}}) == "infiniband.cc.threshhold");
  CHECK(error_path({{"ccti_timer", "0us"}}) == "infiniband.cc.ccti_timer");
  CHECK(error_path({{"cct", {"0:0", "1:1"}}, {"ccti_limit", 1}}) == "accepted");
}

TEST_CASE("ib cc: parameters are listed and echoed", "[mechanism][infiniband][ibcc]") {
  const std::string list = scen::list_parameters();
  for (const std::string key :
       {"enabled", "threshold", "marking_rate", "packet_size", "victim_mask", "ccti_increase",
        "ccti_limit", "ccti_min", "ccti_timer", "cct"}) {
    INFO(key);
    CHECK(list.find("\ninfiniband.cc." + key + " ") != std::string::npos);
  }
  scen::Json j = victim_scenario();
  j["infiniband"]["cc"]["cct"] = {"0:0", "1:1", "2:3"};
  j["infiniband"]["cc"]["ccti_limit"] = 2;
  const scen::Scenario s = test_support::load(j);
  const scen::Json echo = s.effective["infiniband"]["cc"];
  CHECK(echo["enabled"] == true);
  CHECK(echo["ccti_timer"] == "10us");
  CHECK(echo["cct"] == scen::Json({"0:0", "1:1", "2:3"}));
}

// The inter-packet delay reaches the wire: with a table whose every notified entry is 0:3
// (IPD = 3 packet times) and CCTI_Min = CCTI_Limit = 1, the first BECN pins each sender at
// packet starts 4 packet times apart, a quarter of line rate, for the rest of its flow.
TEST_CASE("ib cc: a QP held at a table entry sends at line x 2^shift / (2^shift + multiplier)",
          "[mechanism][infiniband][ibcc]") {
  scen::Json j;
  j["topology"]["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (const std::string h : {"h0", "h1", "r"}) {
    j["topology"]["nodes"].push_back({{"name", h}, {"kind", "host"}});
    j["topology"]["links"].push_back(
        {{"a", h}, {"b", "sw"}, {"rate", "400Gbps"}, {"latency", "100ns"}});
  }
  j["fabric"] = "infiniband";
  j["infiniband"]["nic"] = {{"mtu", "4KiB"}};
  j["infiniband"]["cc"] = {{"enabled", true},    {"threshold", "0B"}, {"cct", {"0:0", "0:3"}},
                           {"ccti_limit", 1},    {"ccti_min", 1},     {"ccti_increase", 1},
                           {"ccti_timer", "1us"}};
  const int64_t packets = 2048;
  j["workload"]["flows"] = {
      {{"src", "h0"}, {"dst", "r"}, {"size", std::to_string(packets * 4096) + "B"}},
      {{"src", "h1"}, {"dst", "r"}, {"size", std::to_string(packets * 4096) + "B"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  // Start to start: packet time (4122 wire bytes at 400 Gb/s, 82.44 ns) + IPD (3 x 82.44 ns).
  const double spacing_ps = 4 * 82'440.0;
  for (const auto& f : out.flows) {
    REQUIRE(f.completed);
    const double expected = packets * spacing_ps;
    INFO(f.src << ": FCT " << f.fct.ps << " ps, paced " << expected << " ps");
    // The few packets before the first BECN went at line rate: within 1 %.
    CHECK(std::abs(static_cast<double>(f.fct.ps) / expected - 1.0) < 0.01);
    CHECK(out.results["infiniband"]["cc"]["becns_received"].get<uint64_t>() > 0);
  }
  // Without congestion control both share the receiver's link: 2 x packets at line rate.
  j["infiniband"]["cc"]["enabled"] = false;
  const scen::RunOutcome off = scen::run_scenario(test_support::load(j));
  CHECK(static_cast<double>(off.flows[0].fct.ps) < 0.6 * packets * spacing_ps);
}
