// InfiniBand link-level flow control: credits per virtual lane, returned in flow-control packets.
// Oracles: the credit-loop throughput formula (docs/references.md "InfiniBand link layer"), the
// cut-through latency closed form, conservation and the buffer bound under incast, and the
// independence of VLs.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "sim/units.hpp"

namespace {

int64_t ser_ps(int64_t bytes, int64_t rate_bps) {
  const __int128 num = static_cast<__int128>(bytes) * 8 * 1000000000000LL;
  return static_cast<int64_t>((num + rate_bps - 1) / rate_bps);
}

// n senders h0..h{n-1} and receivers on one switch "sw".
scen::Json star(int hosts, const std::string& rate, const std::string& latency) {
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (int i = 0; i < hosts; ++i) {
    t["nodes"].push_back({{"name", "h" + std::to_string(i)}, {"kind", "host"}});
    t["links"].push_back(
        {{"a", "h" + std::to_string(i)}, {"b", "sw"}, {"rate", rate}, {"latency", latency}});
  }
  return t;
}

}  // namespace

// Credit loop: h0 -> s1 -> h1. The s1 buffer for (port from h0, VL0) holds N packets of P
// blocks and drains at line rate (s1's egress to h1 is as fast and idle). A packet's credit
// comes back when it leaves s1's buffer (cut-through: first bit in + switching latency L),
// in an 8-byte flow-control packet delivered at its last bit: the credit round trip from a
// block's first bit sent to its credit received is 2 x propagation + L + ser(8 B). The sender
// then moves N x P blocks per round trip: throughput = min(line rate, N x P / RTT) blocks/s.
TEST_CASE("infiniband: credit-loop throughput equals min(line rate, buffer / credit RTT)",
          "[mechanism][infiniband][credits]") {
  const int64_t rate = 400'000'000'000;
  const int64_t wire = 4096 + 64;  // 65 blocks exactly: header_bytes 64
  const int64_t blocks = wire / 64;
  const int64_t latency_ps = 130'000;
  const sim::Time run = sim::parse_time("200us");
  for (const std::string cable : {"100ns", "500ns", "1us"}) {
    const int64_t prop = sim::parse_time(cable).ps;
    const int64_t rtt = 2 * prop + latency_ps + ser_ps(8, rate);
    const int64_t bdp_packets = rtt / ser_ps(wire, rate);
    for (const int64_t n :
         {int64_t{2}, bdp_packets / 2, bdp_packets, bdp_packets + 1, bdp_packets + 8}) {
      if (n < 2) continue;
      scen::Json j;
      j["name"] = "credit-loop";
      j["topology"] = test_support::chain_topology({"400Gbps", "400Gbps"}, {cable, "10ns"});
      j["fabric"] = "infiniband";
      j["infiniband"]["vl_buffer"] = std::to_string(n * blocks * 64) + "B";
      j["infiniband"]["switch"] = {{"latency", "130ns"}};
      j["infiniband"]["nic"] = {{"header_bytes", 64}, {"ack_every", 1 << 20}};
      j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1GB"}}};
      j["stop"] = {{"until", "time"}, {"time", "200us"}};
      const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
      const scen::LinkResult& l = test_support::link_between(out, "h0", "s1");
      // Blocks per second, measured and by the formula (as doubles: a ratio is compared).
      const double measured =
          static_cast<double>(l.class_packets[0] * blocks) / (static_cast<double>(run.ps) * 1e-12);
      const double line = static_cast<double>(blocks) / (ser_ps(wire, rate) * 1e-12);
      const double loop = static_cast<double>(n * blocks) / (rtt * 1e-12);
      const double expected = std::min(line, loop);
      INFO("cable " << cable << ", buffer " << n << " packets (BDP " << bdp_packets
                    << "), measured " << measured << " blocks/s, expected " << expected);
      CHECK(std::abs(measured / expected - 1.0) < 0.01);
      // Below the bandwidth-delay product the sender's port idles only while it waits for
      // credit: the reported stall is the fraction 1 - loop / line of the run.
      if (loop < line) {
        const double stalled = static_cast<double>(l.credit_stalled.ps) / run.ps;
        CHECK(std::abs(stalled - (1.0 - loop / line)) < 0.01);
        CHECK(l.credit_stalls > 0);
      } else {
        CHECK(l.credit_stalled.ps < run.ps / 100);
      }
      CHECK(out.results["infiniband"]["peak_vl_buffer_blocks"].get<int64_t>() <= n * blocks);
    }
  }
}

TEST_CASE("infiniband: 64-to-1 incast drops nothing and no VL buffer passes its size",
          "[mechanism][infiniband][credits]") {
  scen::Json j;
  j["name"] = "ib-incast";
  j["topology"] = star(65, "400Gbps", "100ns");
  j["fabric"] = "infiniband";
  j["infiniband"]["vl_buffer"] = "32KiB";
  std::vector<std::string> senders;
  for (int i = 0; i < 64; ++i) senders.push_back("h" + std::to_string(i));
  j["workload"]["incast"] = {{"receiver", "h64"}, {"senders", senders}, {"size", "100000B"}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  int64_t delivered = 0;
  for (const auto& f : out.flows) {
    CHECK(f.completed);
    CHECK(f.retransmitted_packets == 0);
    delivered += f.bytes;
  }
  CHECK(delivered == 64 * 100000);
  CHECK(out.results["payload_bytes_delivered"].get<int64_t>() == 64 * 100000);
  for (const auto& [kind, n] : out.results["drops"].items()) CHECK(n.get<int64_t>() == 0);
  const scen::Json& ib = out.results["infiniband"];
  CHECK(ib["vl_buffer_blocks"].get<int64_t>() == 32 * 1024 / 64);
  CHECK(ib["peak_vl_buffer_blocks"].get<int64_t>() <= 32 * 1024 / 64);
  // The senders were held by credit (the bound above is the credits' doing, not spare room).
  CHECK(ib["credit_stalls"].get<int64_t>() > 0);
  CHECK(ib["peak_vl_buffer_blocks"].get<int64_t>() > 32 * 1024 / 64 - 2 * 65);
  CHECK(ib["flow_control_packets_sent"].get<int64_t>() > 0);
  // Every update sent arrived, but for those still on a wire when the last flow completed.
  CHECK(ib["flow_control_packets_received"].get<int64_t>() <=
        ib["flow_control_packets_sent"].get<int64_t>());
  CHECK(ib["flow_control_packets_received"].get<int64_t>() >=
        ib["flow_control_packets_sent"].get<int64_t>() - 2 * 65);
}

// A host that takes data out of its NIC at 100 Gb/s behind 400 Gb/s links: its NIC returns
// credit only as the host drains the VL buffer, so the switch's port toward it waits for credit
// and the flow runs at the drain rate, losslessly.
TEST_CASE("infiniband: a slow receiver host holds its switch by credit",
          "[mechanism][infiniband][credits]") {
  scen::Json j;
  j["name"] = "ib-slow-receiver";
  j["topology"] = test_support::chain_topology({"400Gbps", "400Gbps"}, {"100ns", "100ns"});
  j["fabric"] = "infiniband";
  j["infiniband"] = {{"vl_buffer", "32KiB"}, {"nic", {{"rx_drain_rate", "100Gbps"}}}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "2MB"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.flows[0].completed);
  CHECK(out.flows[0].retransmitted_packets == 0);
  // Payload at the host's rate, less the start-up and the last packet's trip.
  const double gbps = 2e6 * 8 / static_cast<double>(out.flows[0].fct.ps) * 1e3;
  INFO("goodput " << gbps << " Gb/s");
  CHECK(gbps > 97.0);
  CHECK(gbps <= 100.0);
  CHECK(test_support::link_between(out, "s1", "h1").credit_stalled.ps > 0);
  CHECK(test_support::link_between(out, "h0", "s1").credit_stalled.ps > 0);  // spread back
  CHECK(out.results["infiniband"]["peak_vl_buffer_blocks"].get<int64_t>() <= 512);
}

// Two switches joined by one 400 Gb/s link. Four senders on s1 send on SL 1 (VL 1) to r on s2,
// whose link runs at 100 Gb/s: VL 1 backs up to s1 and its s1 -> s2 credits run out. A victim
// on SL 0 (VL 0) crosses the same s1 -> s2 link to w. With its own VL the victim keeps the
// link's spare 300 Gb/s; on one shared VL it waits behind the credit-stalled packets.
TEST_CASE("infiniband: a congested VL does not stall another VL on the same link",
          "[mechanism][infiniband][vl]") {
  auto victim_gbps = [](int vls, int64_t& vl_stalled_ps) {
    scen::Json t;
    t["nodes"] = scen::Json::array({{{"name", "s1"}, {"kind", "switch"}},
                                    {{"name", "s2"}, {"kind", "switch"}},
                                    {{"name", "r"}, {"kind", "host"}},
                                    {{"name", "w"}, {"kind", "host"}},
                                    {{"name", "v"}, {"kind", "host"}}});
    t["links"].push_back({{"a", "s1"}, {"b", "s2"}, {"rate", "400Gbps"}, {"latency", "100ns"}});
    t["links"].push_back({{"a", "r"}, {"b", "s2"}, {"rate", "100Gbps"}, {"latency", "100ns"}});
    t["links"].push_back({{"a", "w"}, {"b", "s2"}, {"rate", "400Gbps"}, {"latency", "100ns"}});
    t["links"].push_back({{"a", "v"}, {"b", "s1"}, {"rate", "400Gbps"}, {"latency", "100ns"}});
    scen::Json flows = scen::Json::array();
    for (int i = 0; i < 4; ++i) {
      const std::string h = "a" + std::to_string(i);
      t["nodes"].push_back({{"name", h}, {"kind", "host"}});
      t["links"].push_back({{"a", h}, {"b", "s1"}, {"rate", "400Gbps"}, {"latency", "100ns"}});
      flows.push_back({{"src", h}, {"dst", "r"}, {"size", "2MB"}, {"priority", 1}});
    }
    flows.push_back(
        {{"src", "v"}, {"dst", "w"}, {"size", "1MB"}, {"priority", 0}, {"start", "20us"}});
    scen::Json j;
    j["name"] = "vl-isolation";
    j["topology"] = t;
    j["fabric"] = "infiniband";
    j["infiniband"] = {{"data_vls", vls}, {"vl_buffer", "32KiB"}};
    if (vls == 2) j["infiniband"]["sl_to_vl"] = {0, 1, 0, 1, 0, 1, 0, 1};
    j["workload"]["flows"] = flows;
    const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
    for (const auto& f : out.flows) REQUIRE(f.completed);
    // Credit stalls of the congested VL at s1's port towards s2.
    vl_stalled_ps = 0;
    for (const auto& c : out.credit_stalls) {
      if (out.node_names[c.node] == "s1" && c.vl == vls - 1) vl_stalled_ps += (c.end - c.start).ps;
    }
    const scen::FlowResult& victim = out.flows.back();
    return 1e6 * 8.0 / static_cast<double>(victim.fct.ps) * 1e12 / 1e9;  // Gb/s
  };
  int64_t stalled_two = 0, stalled_one = 0;
  const double isolated = victim_gbps(2, stalled_two);
  const double shared = victim_gbps(1, stalled_one);
  INFO("victim " << isolated << " Gb/s on its own VL, " << shared << " Gb/s sharing the VL");
  CHECK(stalled_two > 0);   // the congested VL really ran out of credit
  CHECK(isolated > 250.0);  // the link's spare capacity (300 Gb/s) less the start-up
  CHECK(shared < 150.0);    // without isolation the victim shares the stalled VL
}

// Single packet over h switches at equal rates, cut-through: one way = h x L + one
// serialisation + (h + 1) propagations; the FCT adds the ACK's way back.
TEST_CASE("infiniband: cut-through single-packet latency to the picosecond",
          "[mechanism][infiniband][latency]") {
  for (const std::string preset : {"ndr", "xdr"}) {
    const int64_t rate = preset == "ndr" ? 400'000'000'000 : 800'000'000'000;
    for (const int h : {1, 3}) {
      for (const bool store_and_forward : {false, true}) {
        std::vector<std::string> rates(h + 1, "100Gbps"), lats(h + 1, "20ns");
        scen::Json j;
        j["name"] = "ib-latency";
        j["topology"] = test_support::chain_topology(rates, lats);
        j["fabric"] = "infiniband";
        j["infiniband"]["preset"] = preset;
        if (store_and_forward) j["infiniband"]["switch"]["forwarding"] = "store-and-forward";
        j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", 1000}}};
        const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
        REQUIRE(out.flows[0].completed);
        const int64_t latency = 130'000, prop = 20'000;
        const int64_t data = ser_ps(1000 + 26, rate), ack = ser_ps(26 + 4, rate);
        const int64_t per_hop = store_and_forward ? 1 : 0;
        const int64_t one_way_data = h * (latency + per_hop * data) + data + (h + 1) * prop;
        const int64_t one_way_ack = h * (latency + per_hop * ack) + ack + (h + 1) * prop;
        INFO(preset << ", " << h << " switches, store-and-forward " << store_and_forward);
        CHECK(out.flows[0].fct.ps == one_way_data + one_way_ack);
        CHECK(out.flows[0].ideal_fct.ps == out.flows[0].fct.ps);
      }
    }
  }
}

TEST_CASE("infiniband: fabric selection and refused settings", "[mechanism][infiniband][input]") {
  auto base = [] {
    scen::Json j;
    j["topology"] = test_support::chain_topology({"400Gbps", "400Gbps"}, {"10ns", "10ns"});
    j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", 1000}}};
    return j;
  };
  auto refused = [](const scen::Json& j, const std::string& path) {
    try {
      (void)test_support::load(j);
      FAIL("accepted: " << j.dump());
    } catch (const scen::InputError& e) {
      CHECK(e.path == path);
    }
  };
  {
    scen::Json j = base();
    j["fabric"] = "ethernet";
    refused(j, "fabric");
  }
  {
    scen::Json j = base();
    j["fabric"] = {"infiniband", "roce", "infiniband"};
    refused(j, "fabric[2]");
  }
  {
    scen::Json j = base();
    j["fabric"] = "infiniband";
    j["infiniband"]["vl_buffer"] = "4KiB";  // below one 4 KiB packet with its headers
    refused(j, "infiniband.vl_buffer");
  }
  {
    scen::Json j = base();
    j["fabric"] = "infiniband";
    j["infiniband"]["data_vls"] = 2;
    j["infiniband"]["sl_to_vl"] = {0, 2};
    refused(j, "infiniband.sl_to_vl[1]");
  }
  {
    scen::Json j = base();
    j["fabric"] = "infiniband";
    j["infiniband"]["switch"]["buffer"] = "1MB";
    refused(j, "infiniband.switch.buffer");
  }
  {
    scen::Json j = base();
    j["fabric"] = "infiniband";
    j["overrides"] = {{{"switch", "s1"}, {"set", {{"latency", "100ns"}}}},
                      {{"switch", "s1"}, {"port", 0}, {"set", {{"queue_limit", "10KB"}}}}};
    refused(j, "overrides[1].set.queue_limit");
  }
  {
    scen::Json j = base();
    j["fabric"] = "infiniband";
    j["infiniband"]["link"]["loss_rate"] = 0.01;
    refused(j, "infiniband.link.loss_rate");
  }
  {
    // The object form is RoCE, unchanged; a "roce" section goes with "fabric": "roce".
    scen::Json j = base();
    j["fabric"] = {{"switch", {{"latency", "300ns"}}}};
    const scen::Scenario s = test_support::load(j);
    CHECK(s.fabric_kind == scen::FabricKind::Roce);
    CHECK(s.switch_defaults.latency.ps == 300'000);
    scen::Json k = base();
    k["fabric"] = "roce";
    k["roce"] = {{"switch", {{"latency", "300ns"}}}};
    CHECK(test_support::load(k).switch_defaults.latency.ps == 300'000);
    scen::Json both = base();
    both["fabric"] = {"infiniband", "roce"};
    both["roce"] = {{"switch", {{"latency", "300ns"}}}};
    const scen::Scenario first = test_support::load(both);
    CHECK(first.fabric_kind == scen::FabricKind::Infiniband);
    CHECK(first.switch_defaults.latency.ps == 130'000);
    CHECK(first.fabrics == std::vector<std::string>{"infiniband", "roce"});
    scen::LoadOptions o;
    o.fabric = "roce";
    CHECK(scen::load_scenario_json(both, ".", o).switch_defaults.latency.ps == 300'000);
  }
}

// With on-change updates held back (one per second), only the periodic refresh returns credit:
// a VL buffer of two packets then moves two packets per period, so a 256-packet flow takes 128
// periods. Without the refresh the flow would never finish: this is what heals a lost update.
TEST_CASE("infiniband: the periodic credit refresh alone keeps a link moving",
          "[mechanism][infiniband][credits]") {
  scen::Json j;
  j["name"] = "ib-refresh";
  j["topology"] = test_support::chain_topology({"400Gbps", "400Gbps"}, {"10ns", "10ns"});
  j["fabric"] = "infiniband";
  j["infiniband"] = {{"vl_buffer", std::to_string(2 * 65 * 64) + "B"},
                     {"fc_period", "1us"},
                     {"fc_min_interval", "1s"},
                     {"nic", {{"ack_every", 1 << 20}}}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", 256 * 4096}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.flows[0].completed);
  const double periods = static_cast<double>(out.flows[0].fct.ps) / 1e6;
  INFO("FCT " << periods << " periods");
  CHECK(std::abs(periods / 128.0 - 1.0) < 0.02);
}

TEST_CASE("infiniband: same scenario and seed give identical outputs",
          "[mechanism][infiniband][determinism]") {
  const scen::Scenario s =
      scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/ib-vs-roce-incast.json");
  REQUIRE(s.fabric_kind == scen::FabricKind::Infiniband);
  const scen::RunOutcome a = scen::run_scenario(s), b = scen::run_scenario(s);
  CHECK(scen::flows_csv(a) == scen::flows_csv(b));
  CHECK(scen::links_csv(a) == scen::links_csv(b));
  CHECK(scen::classes_csv(a) == scen::classes_csv(b));
  CHECK(scen::credits_csv(a) == scen::credits_csv(b));
  CHECK(scen::credits_csv(a).size() > 100);
  CHECK(a.results == b.results);
}

TEST_CASE("infiniband: credits.csv can leave out short stalls, the counters keep them",
          "[mechanism][infiniband][credits]") {
  scen::Json j;
  j["name"] = "ib-log";
  j["topology"] = star(9, "400Gbps", "100ns");
  j["fabric"] = "infiniband";
  j["infiniband"]["vl_buffer"] = "16KiB";
  std::vector<std::string> senders;
  for (int i = 0; i < 8; ++i) senders.push_back("h" + std::to_string(i));
  j["workload"]["incast"] = {{"receiver", "h8"}, {"senders", senders}, {"size", "200KB"}};
  const scen::RunOutcome all = scen::run_scenario(test_support::load(j));
  j["infiniband"]["credit_log_min_stall"] = "650ns";
  const scen::RunOutcome long_ones = scen::run_scenario(test_support::load(j));
  CHECK(all.results == long_ones.results);  // same run, same counters
  size_t long_enough = 0;
  for (const auto& c : all.credit_stalls) long_enough += (c.end - c.start).ps >= 650'000;
  CHECK(long_ones.credit_stalls.size() == long_enough);
  CHECK(long_enough > 0);
  CHECK(long_enough < all.credit_stalls.size());
}
