// NVLink is its own link layer, lossless by credits whatever the scale-out fabric
// (scenarios/builder/build_nvlink.hpp): on a lossy RoCE fabric with aggressive ECN an incast
// inside the server neither drops nor is marked, it waits for credit; the automatic buffer
// keeps a link at line rate and a small one throttles it; on InfiniBand NVLink keeps its own
// buffers, not the fabric's VL buffers.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "scenarios/builder/build_nvlink.hpp"

namespace {

uint64_t u(const scen::Json& j) {
  return j.get<uint64_t>();
}

// One dgx-h100 server on a single leaf; `fabric` as given; `workload` as given.
scen::Json one_server(const scen::Json& fabric, const scen::Json& workload,
                      const scen::Json& nodes_extra = scen::Json::object()) {
  scen::Json nodes = {{"count", 1}, {"preset", "dgx-h100"}};
  for (const auto& [k, v] : nodes_extra.items()) nodes[k] = v;
  scen::Json j;
  j["name"] = "nvlink-credits";
  j["topology"] = {{"generator", "leaf-spine"},
                   {"nodes", nodes},
                   {"leaves", 1},
                   {"spines", 1},
                   {"hosts_per_leaf", 8}};
  j["fabric"] = fabric;
  j["workload"] = workload;
  j["stop"] = {{"until", "workload-done"}, {"time", "100ms"}};
  return j;
}

// A lossy Ethernet fabric whose switches would drop and mark at once: a 64 KB queue limit and
// ECN from 5 KB, no PFC.
const scen::Json kHarshRoce = {
    {"switch", {{"buffer", "1MB"}, {"queue_limit", "64KB"}}},
    {"ecn", {{"enabled", true}, {"kmin", "5KB"}, {"kmax", "10KB"}, {"pmax", 1.0}}},
    {"pfc", {{"enabled", false}}}};

const scen::Json kIncast = {{"incast",
                             {{"receiver", "n0g0"},
                              {"senders", {"n0g1", "n0g2", "n0g3", "n0g4", "n0g5", "n0g6", "n0g7"}},
                              {"size", "4MiB"}}}};

scen::Json one_flow(const std::string& size) {
  return {{"flows", {{{"src", "n0g1"}, {"dst", "n0g0"}, {"size", size}}}}};
}

}  // namespace

TEST_CASE("an NVLink incast on a lossy, marking RoCE fabric waits for credit: no drop, no mark",
          "[mechanism][gpu][nvlink]") {
  const scen::Scenario s = test_support::load(one_server(kHarshRoce, kIncast));
  const scen::RunOutcome out = scen::run_scenario(s);
  const scen::Json& r = out.results;
  for (const auto& [kind, n] : r["drops"].items()) {
    INFO(kind);
    CHECK(u(n) == 0);
  }
  CHECK(u(r["retransmitted_packets"]) == 0);
  const scen::LinkResult& down = test_support::link_between(out, "n0_nvswitch", "n0g0");
  CHECK(down.ecn_marks == 0);
  CHECK(down.pause_frames_received == 0);
  // The seven senders' ports wait for the NVSwitch's buffer to drain towards n0g0.
  CHECK(u(r["nvlink"]["credit_stalls"]) > 0);
  CHECK(u(r["nvlink"]["flow_control_packets_sent"]) > 0);
  CHECK(u(r["nvlink"]["peak_buffer_bytes"]) <= u(r["nvlink"]["buffer_bytes"]));
  // The receiver's NVLink stays busy: 7 x 4 MiB at its payload rate, within 5 %.
  const double frame = static_cast<double>(s.nic.mtu + s.nic.header_bytes + s.nic.framing_bytes);
  const double ideal_ps =
      7.0 * 4 * 1048576 * (frame / static_cast<double>(s.nic.mtu)) * 8 / 3600e9 * 1e12;
  const double got = static_cast<double>(out.end_time.ps);
  INFO("incast " << got / 1e6 << " us, the receiver's link alone " << ideal_ps / 1e6 << " us");
  CHECK(got >= ideal_ps);
  CHECK(got <= 1.05 * ideal_ps);
}

TEST_CASE("NVLink's automatic credit buffer keeps a link at line rate, a small one throttles it",
          "[mechanism][gpu][nvlink]") {
  const scen::Json roce = {{"pfc", {{"enabled", false}}}};
  const scen::Scenario s = test_support::load(one_server(roce, one_flow("16MiB")));
  // 1.25 x 450 GB/s x (2 x 100 ns + 200 ns + 40 ns) + 2 frames, rounded up to 1 KiB.
  const int64_t frame = s.nic.mtu + s.nic.header_bytes + s.nic.framing_bytes;
  CHECK(scen::nvlink_buffer_bytes(s) == (247'500 + 2 * frame + 1023) / 1024 * 1024);
  const scen::RunOutcome line = scen::run_scenario(s);
  REQUIRE(line.flows.size() == 1);
  const double ideal_ps = 16.0 * 1048576 * static_cast<double>(frame) /
                          static_cast<double>(s.nic.mtu) * 8 / 3600e9 * 1e12;
  const double fct = static_cast<double>(line.flows[0].fct.ps);
  INFO("auto buffer: FCT " << fct / 1e6 << " us, serialisation " << ideal_ps / 1e6 << " us");
  CHECK(fct <= 1.03 * ideal_ps + 2e6);  // + the path's few hundred ns and the ACK
  // Two frames of buffer: a frame per credit loop at most, about a fifth of the line rate.
  const scen::RunOutcome small = scen::run_scenario(test_support::load(
      one_server(roce, one_flow("16MiB"), {{"nvlink_buffer", std::to_string(2 * frame)}})));
  const double slow = static_cast<double>(small.flows[0].fct.ps);
  INFO("two-frame buffer: FCT " << slow / 1e6 << " us");
  CHECK(slow > 3 * fct);
  CHECK(u(small.results["nvlink"]["credit_stalls"]) > 0);
}

TEST_CASE("NVLink keeps its own buffers on InfiniBand, and a buffer below a frame is refused",
          "[mechanism][gpu][nvlink]") {
  scen::Json j = one_server(scen::Json::object(), kIncast);
  j["fabric"] = "infiniband";
  j["infiniband"] = {{"vl_buffer", "32KiB"}};
  const scen::Scenario s = test_support::load(j);
  const scen::RunOutcome out = scen::run_scenario(s);
  CHECK(u(out.results["infiniband"]["vl_buffer_blocks"]) * 64 == 32768);
  CHECK(u(out.results["nvlink"]["buffer_bytes"]) ==
        static_cast<uint64_t>(scen::nvlink_buffer_bytes(s)));
  CHECK(u(out.results["nvlink"]["credit_stalls"]) > 0);
  // The fabric's credits are the fabric's: the NVLink incast stalls no fabric port.
  CHECK(u(out.results["infiniband"]["credit_stalls"]) == 0);

  scen::Json bad = one_server(scen::Json::object(), kIncast, {{"nvlink_buffer", "1KiB"}});
  CHECK_THROWS_WITH(
      scen::run_scenario(test_support::load(bad)),
      Catch::Contains("topology.nodes.nvlink_buffer") && Catch::Contains("at least one frame"));
}
