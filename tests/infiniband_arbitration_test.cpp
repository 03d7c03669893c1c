// InfiniBand VL arbitration (IBA 7.6.9): two saturated VLs on one output share it in the ratio
// of their table weights; high priority yields to low after its limit.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"

namespace {

// a (SL 0 -> VL 0) and b (SL 1 -> VL 1) send without end through sw to r; every link at
// 400 Gb/s, so sw -> r is the bottleneck and both VL queues there stay full (credits hold the
// senders). Packets are 1024 bytes on the wire (16 blocks). Returns VL 0 / VL 1 wire bytes on
// sw -> r over the first 100 us.
double vl_ratio(const scen::Json& arbitration) {
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}},
                                  {{"name", "a"}, {"kind", "host"}},
                                  {{"name", "b"}, {"kind", "host"}},
                                  {{"name", "r"}, {"kind", "host"}}});
  for (const char* h : {"a", "b", "r"}) {
    t["links"].push_back({{"a", h}, {"b", "sw"}, {"rate", "400Gbps"}, {"latency", "50ns"}});
  }
  scen::Json j;
  j["name"] = "vl-arbitration";
  j["topology"] = t;
  j["fabric"] = "infiniband";
  j["infiniband"] = {{"data_vls", 2},
                     {"sl_to_vl", {0, 1}},
                     {"vl_buffer", "32KiB"},
                     {"vl_arbitration", arbitration},
                     {"nic", {{"mtu", "998B"}, {"ack_every", 1 << 20}}}};
  j["workload"]["flows"] = {{{"src", "a"}, {"dst", "r"}, {"size", "1GB"}, {"priority", 0}},
                            {{"src", "b"}, {"dst", "r"}, {"size", "1GB"}, {"priority", 1}}};
  j["stop"] = {{"until", "time"}, {"time", "100us"}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  const scen::LinkResult& l = test_support::link_between(out, "sw", "r");
  REQUIRE(l.class_wire_bytes[1] > 0);
  return static_cast<double>(l.class_wire_bytes[0]) / static_cast<double>(l.class_wire_bytes[1]);
}

scen::Json entry(int vl, int weight) {
  return {{"vl", vl}, {"weight", weight}};
}

}  // namespace

TEST_CASE("infiniband: two saturated VLs share a link in the ratio of their weights",
          "[mechanism][infiniband][arbitration]") {
  struct Case {
    int w0, w1;
  };
  for (const Case c : {Case{48, 16}, Case{32, 32}, Case{160, 32}, Case{16, 80}}) {
    const scen::Json arb = {{"low", {entry(0, c.w0), entry(1, c.w1)}}};
    const double ratio = vl_ratio(arb);
    const double expected = static_cast<double>(c.w0) / c.w1;
    INFO("weights " << c.w0 << ":" << c.w1 << ", VL0/VL1 bytes " << ratio);
    CHECK(std::abs(ratio / expected - 1.0) < 0.02);
  }
}

TEST_CASE("infiniband: high-priority VL yields to low priority after its limit",
          "[mechanism][infiniband][arbitration]") {
  // VL 1 high, VL 0 low. Limit L x 4 KiB: 4L packets of 1 KiB, then one low-priority packet.
  // Limit 0: one high packet at a time. 255: no limit, low priority starves.
  for (const int limit : {0, 1, 2}) {
    const scen::Json arb = {
        {"high", {entry(1, 255)}}, {"low", {entry(0, 255)}}, {"high_limit", limit}};
    const double low_over_high = vl_ratio(arb);
    const double expected = limit == 0 ? 1.0 : 1.0 / (4.0 * limit);
    INFO("high_limit " << limit << ", low/high bytes " << low_over_high);
    CHECK(std::abs(low_over_high / expected - 1.0) < 0.02);
  }
  const scen::Json unlimited = {
      {"high", {entry(1, 255)}}, {"low", {entry(0, 255)}}, {"high_limit", 255}};
  // Without a limit the low-priority VL only gets packets in while VL 1's queue is empty.
  CHECK(vl_ratio(unlimited) < 0.01);
}
