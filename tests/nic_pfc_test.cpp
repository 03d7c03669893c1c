// NICs that send PFC (receive-buffer pressure): a host that drains slower than its link pauses
// its switch, goodput follows the host, nothing is dropped; without NIC PFC a bounded receive
// buffer overflows and go-back-N recovers; pauses propagate back to the sender hop by hop.
#include <catch2/catch.hpp>
#include <cmath>

#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"

namespace {

uint64_t u(const scen::Json& j) {
  return j.get<uint64_t>();
}

double goodput_gbps(const scen::RunOutcome& out) {
  return out.results["goodput_Gbps"].get<double>();
}

// Sender h1 -> switch -> receiver h0, 100 Gb/s links; every host drains at `drain`.
scen::Json slow_receiver(const std::string& drain, const std::string& nic_xoff,
                         const std::string& size = "4MB") {
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (int h = 0; h <= 1; ++h) {
    t["nodes"].push_back({{"name", "h" + std::to_string(h)}, {"kind", "host"}});
    t["links"].push_back(
        {{"a", "h" + std::to_string(h)}, {"b", "sw"}, {"rate", "100Gbps"}, {"cable", "10m"}});
  }
  scen::Json j;
  j["topology"] = t;
  j["fabric"]["switch"] = {{"latency", "500ns"}, {"buffer", "4MB"}};
  j["fabric"]["nic"] = {{"mtu", "4KiB"},
                        {"rto", "200us"},
                        {"rx_drain_rate", drain},
                        {"pfc_xoff", nic_xoff},
                        {"pfc_xon_offset", "8KB"}};
  j["fabric"]["pfc"] = {
      {"enabled", true}, {"priorities", {3}}, {"xoff", "40KB"}, {"xon_offset", "8KB"}};
  j["workload"]["flows"] = {{{"src", "h1"}, {"dst", "h0"}, {"size", size}}};
  return j;
}

uint64_t all_drops(const scen::Json& r) {
  uint64_t n = 0;
  for (const auto& [k, v] : r["drops"].items()) n += v.get<uint64_t>();
  return n;
}

}  // namespace

TEST_CASE("nic pfc: a host draining at 50 Gb/s pauses its switch and sets the goodput",
          "[mechanism][pfc][nic_pfc]") {
  scen::Scenario s = test_support::load(slow_receiver("50Gbps", "40KB"));
  // A receive buffer of exactly XOFF + the formula's headroom: it must never overflow.
  s.nic.rx_buffer_bytes = s.nic.pfc_xoff_bytes + scen::nic_pfc_headroom(s, 0);
  const scen::RunOutcome out = scen::run_scenario(s);
  const auto& r = out.results;
  CHECK(u(r["flows_completed"]) == 1);
  CHECK(u(r["payload_bytes_delivered"]) == 4'000'000);
  CHECK(all_drops(r) == 0);
  CHECK(u(r["drops"]["nic_rx_overflow"]) == 0);
  CHECK(u(r["retransmitted_packets"]) == 0);
  // The receiver's NIC paused the switch, and the switch's egress toward it was held.
  CHECK(u(r["pfc"]["nic_pause_frames"]) > 0);
  CHECK(u(r["nic_rx"]["pause_frames"]) == u(r["pfc"]["nic_pause_frames"]));
  CHECK(u(r["nic_rx"]["resume_frames"]) > 0);
  CHECK(r["nic_rx"]["pause_asserted_ns"] != "0");
  CHECK(r["nic_rx"]["rx_buffer_peak_bytes"].get<int64_t>() <= s.nic.rx_buffer_bytes);
  const auto& up = test_support::link_between(out, "h0", "sw");
  const auto& down = test_support::link_between(out, "sw", "h0");
  CHECK(up.pause_frames_sent > 0);
  CHECK(down.pause_frames_received == up.pause_frames_sent);
  CHECK(down.paused.ps > 0);
  // pfc.csv rows carry the host as the node.
  size_t host_rows = 0;
  for (const auto& e : out.pfc_events) host_rows += out.node_names[e.node] == "h0" ? 1 : 0;
  CHECK(host_rows == up.pause_frames_sent);
  // Goodput is the host's drain rate (payload), within 2 % (start-up and the last RTT).
  const double g = goodput_gbps(out);
  INFO("goodput " << g << " Gb/s");
  CHECK(g <= 50.0);
  CHECK(g >= 49.0);

  // The same host without a drain limit: no pauses, line-rate goodput.
  scen::Json fast = slow_receiver("0", "0");
  const scen::RunOutcome quick = scen::run_scenario(test_support::load(fast));
  CHECK(u(quick.results["pfc"]["nic_pause_frames"]) == 0);
  CHECK_FALSE(quick.results.contains("nic_rx"));
  CHECK(goodput_gbps(quick) > 90.0);
}

TEST_CASE("nic pfc: without NIC PFC a bounded receive buffer overflows, go-back-N recovers",
          "[mechanism][pfc][nic_pfc]") {
  scen::Json j = slow_receiver("50Gbps", "0", "1MB");
  j["fabric"]["nic"]["rx_buffer"] = "64KB";
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  const auto& r = out.results;
  CHECK(u(r["drops"]["nic_rx_overflow"]) > 0);
  CHECK(u(r["nic_rx"]["nic_rx_overflow_drops"]) == u(r["drops"]["nic_rx_overflow"]));
  CHECK(u(r["nic_rx"]["pause_frames"]) == 0);
  CHECK(u(r["retransmitted_packets"]) > 0);
  CHECK(u(r["flows_completed"]) == 1);
  CHECK(u(r["payload_bytes_delivered"]) == 1'000'000);  // every byte, in order
}

TEST_CASE("nic pfc: the formula's headroom keeps the receive buffer from overflowing",
          "[mechanism][pfc][nic_pfc]") {
  for (const char* rate : {"100Gbps", "400Gbps"}) {
    for (const char* cable : {"1m", "10m", "100m"}) {
      INFO(rate << " " << cable);
      scen::Json j = slow_receiver("25Gbps", "20KB", "1MB");
      for (auto& l : j["topology"]["links"]) {
        l["rate"] = rate;
        l["cable"] = cable;
      }
      // Data back toward the sender too, so the receiver's port is busy with a full frame
      // when a pause must go out (the worst case the formula allows for).
      j["workload"]["flows"].push_back({{"src", "h0"}, {"dst", "h1"}, {"size", "1MB"}});
      scen::Scenario s = test_support::load(j);
      const int64_t headroom = scen::nic_pfc_headroom(s, 0);
      s.nic.rx_buffer_bytes = s.nic.pfc_xoff_bytes + headroom;
      const scen::RunOutcome ok = scen::run_scenario(s);
      CHECK(u(ok.results["drops"]["nic_rx_overflow"]) == 0);
      CHECK(u(ok.results["nic_rx"]["pause_frames"]) > 0);
      CHECK(u(ok.results["payload_bytes_delivered"]) == 2'000'000);
      CHECK(ok.results["nic_rx"]["rx_buffer_peak_bytes"].get<int64_t>() <= s.nic.rx_buffer_bytes);
      // A buffer a frame short of XOFF + one frame time of headroom does overflow: the bound
      // is needed, not slack.
      s.nic.rx_buffer_bytes = s.nic.pfc_xoff_bytes + 4178;
      const scen::RunOutcome short_buf = scen::run_scenario(s);
      CHECK(u(short_buf.results["drops"]["nic_rx_overflow"]) > 0);
      CHECK(u(short_buf.results["payload_bytes_delivered"]) == 2'000'000);
    }
  }
}

TEST_CASE("nic pfc: a slow receiver host pauses back to the sender NIC, hop by hop",
          "[mechanism][pfc][nic_pfc]") {
  // h0 - s1 - s2 - h1 at 100 Gb/s; h1's host drains at 40 Gb/s.
  scen::Json j;
  j["topology"] =
      test_support::chain_topology({"100Gbps", "100Gbps", "100Gbps"}, {"500ns", "500ns", "500ns"});
  j["fabric"]["nic"] = {{"mtu", "4KiB"}, {"rx_drain_rate", "40Gbps"}, {"pfc_xoff", "40KB"}};
  j["fabric"]["pfc"] = {
      {"enabled", true}, {"priorities", {3}}, {"xoff", "40KB"}, {"xon_offset", "8KB"}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "4MB"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  CHECK(all_drops(out.results) == 0);
  CHECK(u(out.results["payload_bytes_delivered"]) == 4'000'000);
  using test_support::link_between;
  // Hop 0: the receiver's NIC pauses s2.
  CHECK(link_between(out, "h1", "s2").pause_frames_sent > 0);
  CHECK(link_between(out, "s2", "h1").paused.ps > 0);
  // Hop 1: s2's ingress from s1 fills and s2 pauses s1.
  CHECK(link_between(out, "s2", "s1").pause_frames_sent > 0);
  CHECK(link_between(out, "s1", "s2").paused.ps > 0);
  // Hop 2: s1 pauses the sender's NIC.
  CHECK(link_between(out, "s1", "h0").pause_frames_sent > 0);
  CHECK(link_between(out, "h0", "s1").paused.ps > 0);
  // Nothing pauses in the other direction.
  CHECK(link_between(out, "h0", "s1").pause_frames_sent == 0);
  CHECK(link_between(out, "s1", "s2").pause_frames_sent == 0);

  // Without NIC PFC (an unbounded receive buffer) no switch ever congests: no pause anywhere.
  j["fabric"]["nic"]["pfc_xoff"] = 0;
  const scen::RunOutcome off = scen::run_scenario(test_support::load(j));
  CHECK(u(off.results["pfc"]["pause_frames"]) == 0);
  CHECK(u(off.results["pfc"]["nic_pause_frames"]) == 0);
  CHECK(u(off.results["payload_bytes_delivered"]) == 4'000'000);
}

TEST_CASE("nic pfc: runs with a slow host are deterministic",
          "[mechanism][pfc][nic_pfc][determinism]") {
  const scen::Scenario s = test_support::load(slow_receiver("30Gbps", "30KB", "1MB"));
  const scen::RunOutcome a = scen::run_scenario(s), b = scen::run_scenario(s);
  CHECK(a.results == b.results);
  CHECK(a.pfc_events.size() == b.pfc_events.size());
}
