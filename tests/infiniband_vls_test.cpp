// InfiniBand with up to 15 data VLs (VL0..VL14, IBA 7.6.3) and per-port SL -> VL tables
// (IBA 7.6.6). Oracles: the arbitration weights (IBA 7.6.9) for the bytes of 15 saturated VLs
// on one link; the spare capacity of a link for a VL beside a credit-stalled VL >= 8; the VL
// each hop's table names, read from per-VL counters of every link.
#include <catch2/catch.hpp>

#include "models/ib/credit_gate.hpp"
#include "models/ib/credit_return.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"

namespace {

scen::Json identity_table(int vls) {
  scen::Json t = scen::Json::array();
  for (int sl = 0; sl < vls; ++sl) t.push_back(sl);
  return t;
}

}  // namespace

// Senders a0..a14 send without end to r through sw, sender i on SL i -> VL i; every link at
// 400 Gb/s, so sw -> r is the bottleneck and each VL queue there stays full (credits hold the
// senders). Packets are 1024 bytes on the wire (16 blocks) and the weights multiples of 16
// blocks, so each table entry sends whole packets: VL i gets weight_i / sum of weights.
TEST_CASE("infiniband: 15 VLs share a link in the ratio of their arbitration weights",
          "[mechanism][infiniband][vl16]") {
  constexpr int kVls = 15;
  auto weight = [](int vl) { return 16 * (1 + vl % 4); };
  scen::Json t;
  t["nodes"] =
      scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}, {{"name", "r"}, {"kind", "host"}}});
  t["links"].push_back({{"a", "r"}, {"b", "sw"}, {"rate", "400Gbps"}, {"latency", "50ns"}});
  scen::Json flows = scen::Json::array(), low = scen::Json::array();
  for (int vl = 0; vl < kVls; ++vl) {
    const std::string a = "a" + std::to_string(vl);
    t["nodes"].push_back({{"name", a}, {"kind", "host"}});
    t["links"].push_back({{"a", a}, {"b", "sw"}, {"rate", "400Gbps"}, {"latency", "50ns"}});
    flows.push_back({{"src", a}, {"dst", "r"}, {"size", "1GB"}, {"priority", vl}});
    low.push_back({{"vl", vl}, {"weight", weight(vl)}});
  }
  scen::Json j;
  j["name"] = "vl15-arbitration";
  j["topology"] = t;
  j["fabric"] = "infiniband";
  j["infiniband"] = {{"data_vls", kVls},
                     {"sl_to_vl", identity_table(kVls)},
                     {"vl_buffer", "32KiB"},
                     {"vl_arbitration", {{"low", low}}},
                     {"nic", {{"mtu", "998B"}, {"ack_every", 1 << 20}}}};
  j["workload"]["flows"] = flows;
  j["stop"] = {{"until", "time"}, {"time", "200us"}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  CHECK(out.results["infiniband"]["data_vls"].get<int>() == kVls);
  CHECK(out.results["infiniband"]["per_vl"].size() == static_cast<size_t>(kVls));
  const scen::LinkResult& l = test_support::link_between(out, "sw", "r");
  REQUIRE(l.class_wire_bytes[0] > 0);
  for (int vl = 1; vl < kVls; ++vl) {
    const double ratio =
        static_cast<double>(l.class_wire_bytes[vl]) / static_cast<double>(l.class_wire_bytes[0]);
    const double expected = static_cast<double>(weight(vl)) / weight(0);
    INFO("VL " << vl << " / VL 0 bytes " << ratio << ", weights " << expected);
    CHECK(std::abs(ratio / expected - 1.0) < 0.02);
  }
  CHECK(l.class_wire_bytes[15] == 0);  // VL 15 carries no data
  // Each sender's own link carries its VL only.
  const scen::LinkResult& a12 = test_support::link_between(out, "a12", "sw");
  for (int vl = 0; vl < 16; ++vl) CHECK((a12.class_wire_bytes[vl] > 0) == (vl == 12));
}

// Four senders on SL 1 congest r's 100 Gb/s link; SL 1 travels on VL 12, so VL 12 backs up to
// s1 and its s1 -> s2 credits run out. A victim on SL 0 (VL 0) crosses the same s1 -> s2 link
// to w: on its own VL it keeps the link's spare 300 Gb/s; with SL 0 also on VL 12 it waits
// behind the credit-stalled packets.
TEST_CASE("infiniband: a congested VL above 7 does not stall VL 0 on the same link",
          "[mechanism][infiniband][vl16]") {
  auto victim_gbps = [](int victim_vl, int64_t& vl12_stalled_ps) {
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
    j["name"] = "vl12-isolation";
    j["topology"] = t;
    j["fabric"] = "infiniband";
    // SL 0 -> victim_vl, SL 1 -> VL 12; the rest (ACKs on SL 0) as SL 0.
    j["infiniband"] = {{"data_vls", 15}, {"vl_buffer", "32KiB"}, {"sl_to_vl", {victim_vl, 12}}};
    j["workload"]["flows"] = flows;
    const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
    for (const auto& f : out.flows) REQUIRE(f.completed);
    vl12_stalled_ps = 0;
    for (const auto& c : out.credit_stalls) {
      if (out.node_names[c.node] == "s1" && c.vl == 12) vl12_stalled_ps += (c.end - c.start).ps;
    }
    const scen::LinkResult& s1s2 = test_support::link_between(out, "s1", "s2");
    CHECK(s1s2.class_wire_bytes[12] > 0);
    const scen::FlowResult& victim = out.flows.back();
    return 1e6 * 8.0 / static_cast<double>(victim.fct.ps) * 1e12 / 1e9;  // Gb/s
  };
  int64_t stalled_isolated = 0, stalled_shared = 0;
  const double isolated = victim_gbps(0, stalled_isolated);
  const double shared = victim_gbps(12, stalled_shared);
  INFO("victim " << isolated << " Gb/s on VL 0, " << shared << " Gb/s sharing VL 12");
  CHECK(stalled_isolated > 0);  // VL 12 really ran out of credit
  CHECK(isolated > 250.0);      // the link's spare capacity (300 Gb/s) less the start-up
  CHECK(shared < 150.0);        // without isolation the victim shares the stalled VL
}

// h0 -> s1 -> s2 -> h1 on SL 2. The fabric's table puts SL 2 on VL 2; an override gives s1's
// port towards s2 SL 2 -> VL 5. Data then crosses h0 -> s1 on VL 2, s1 -> s2 on VL 5 and
// s2 -> h1 on VL 2 again (s2's ports keep the fabric's table); s2 accounts what arrives on VL 5
// in its VL 5 buffer and returns that credit to s1.
TEST_CASE("infiniband: a per-port SL to VL table moves a flow's VL on that hop only",
          "[mechanism][infiniband][vl16]") {
  auto run = [](bool with_override) {
    scen::Json j;
    j["name"] = "sl-to-vl-override";
    j["topology"] =
        test_support::chain_topology({"400Gbps", "400Gbps", "400Gbps"}, {"50ns", "50ns", "50ns"});
    j["fabric"] = "infiniband";
    j["infiniband"] = {{"data_vls", 9}, {"vl_buffer", "16KiB"}};
    // SL 2 -> VL 2 by default (SL mod data_vls); ACKs (SL 7) on VL 7 everywhere.
    if (with_override) {
      j["overrides"] = {
          {{"switch", "s1"}, {"port", 1}, {"set", {{"sl_to_vl", {0, 1, 5, 3, 4, 5, 6, 7, 8}}}}}};
    }
    j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "400KB"}, {"priority", 2}}};
    return scen::run_scenario(test_support::load(j));
  };
  const scen::RunOutcome out = run(true);
  REQUIRE(out.flows.size() == 1);
  CHECK(out.flows[0].completed);
  CHECK(out.flows[0].bytes == 400'000);
  const scen::LinkResult& first = test_support::link_between(out, "h0", "s1");
  const scen::LinkResult& middle = test_support::link_between(out, "s1", "s2");
  const scen::LinkResult& last = test_support::link_between(out, "s2", "h1");
  REQUIRE(middle.from_port == 1);
  CHECK(first.class_wire_bytes[2] > 400'000);
  CHECK(first.class_wire_bytes[5] == 0);
  CHECK(middle.class_wire_bytes[5] == first.class_wire_bytes[2]);
  CHECK(middle.class_wire_bytes[2] == 0);
  CHECK(last.class_wire_bytes[2] == first.class_wire_bytes[2]);
  CHECK(last.class_wire_bytes[5] == 0);
  // The ACKs' way back does not use the overridden port: VL 7 on every hop.
  const scen::LinkResult& back = test_support::link_between(out, "s1", "h0");
  CHECK(back.class_wire_bytes[7] > 0);
  CHECK(back.class_wire_bytes[5] == 0);
  // s2's VL 5 buffer held the data (its credit went back to s1 on VL 5).
  CHECK(middle.class_peak_ingress_bytes[5] > 0);
  CHECK(middle.class_peak_ingress_bytes[2] == 0);
  // Without the override the middle hop is VL 2 like the others.
  const scen::RunOutcome plain = run(false);
  CHECK(test_support::link_between(plain, "s1", "s2").class_wire_bytes[2] ==
        first.class_wire_bytes[2]);
  CHECK(test_support::link_between(plain, "s1", "s2").class_wire_bytes[5] == 0);
}

TEST_CASE("infiniband: refused VL counts and SL to VL tables name their JSON path",
          "[mechanism][infiniband][vl16][input]") {
  auto base = [] {
    scen::Json j;
    j["topology"] = test_support::chain_topology({"400Gbps", "400Gbps"}, {"10ns", "10ns"});
    j["fabric"] = "infiniband";
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
    j["infiniband"]["data_vls"] = 16;  // VL 15 is the management lane
    refused(j, "infiniband.data_vls");
  }
  {
    scen::Json j = base();
    j["infiniband"]["data_vls"] = 15;
    j["infiniband"]["sl_to_vl"] = {0, 15};
    refused(j, "infiniband.sl_to_vl[1]");
  }
  {
    scen::Json j = base();
    j["infiniband"]["data_vls"] = 15;
    j["infiniband"]["vl_arbitration"] = {{"low", {{{"vl", 15}, {"weight", 1}}}}};
    refused(j, "infiniband.vl_arbitration.low[0].vl");
  }
  {
    scen::Json j = base();
    j["infiniband"]["data_vls"] = 4;
    j["overrides"] = {{{"switch", "s1"}, {"port", 1}, {"set", {{"sl_to_vl", {0, 4}}}}}};
    refused(j, "overrides[0].set.sl_to_vl[1]");
  }
  {
    scen::Json j = base();
    j["overrides"] = {{{"switch", "s1"}, {"set", {{"sl_to_vl", scen::Json::array()}}}}};
    refused(j, "overrides[0].set.sl_to_vl");
  }
  {
    scen::Json j = base();
    j["fabric"] = "roce";
    j["overrides"] = {{{"switch", "s1"}, {"set", {{"sl_to_vl", {0}}}}}};
    refused(j, "overrides[0].set.sl_to_vl");
  }
  {
    scen::Json j = base();
    j["workload"]["flows"][0]["priority"] = 16;  // SLs are 0..15
    refused(j, "workload.flows[0].priority");
  }
  {
    scen::Json j = base();
    j["fabric"] = "roce";
    j["workload"]["flows"][0]["priority"] = 8;  // Ethernet priorities are 0..7
    refused(j, "workload.flows[0].priority");
  }
  {
    // 15 VLs and SL 14 load.
    scen::Json j = base();
    j["infiniband"]["data_vls"] = 15;
    j["workload"]["flows"][0]["priority"] = 14;
    CHECK(test_support::load(j).ib.vl_of(14) == 14);
  }
}

// A packet on a VL its port does not have means the model put it there: an internal error that
// names the VL, the node and port, and the port's VLs — from the sender's credit gate and from
// the receiver's buffers alike (each checked on the per-packet path).
TEST_CASE("a packet on a VL the port does not have is an internal error naming it",
          "[unit][infiniband]") {
  sim::Simulator sim{1};
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  models::EgressPort port{ctx, 400'000'000'000, 0};
  models::IbCreditGate gate{ctx, port, 7, 2, 1024, nullptr};
  CHECK(gate.may_send(1, 4096));
  CHECK_THROWS_WITH(gate.may_send(2, 4096),
                    Catch::Contains("VL 2 at node 7 port 0") && Catch::Contains("2 data VLs"));
  CHECK_THROWS_WITH(gate.on_send(5, 4096), Catch::Contains("VL 5"));
  models::IbParams params;
  params.data_vls = 2;
  models::IbCreditReturn buffers{ctx, {&port}, "sw3", params};
  buffers.on_ingress_bytes(0, 1, 4096);
  CHECK(buffers.blocks(0, 1) == 64);
  CHECK_THROWS_WITH(buffers.on_ingress_bytes(0, 3, 4096),
                    Catch::Contains("VL 3 arrived at sw3 port 0") && Catch::Contains("2 data VLs"));
}
