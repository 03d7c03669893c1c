// Small messages on the NIC: inline sends post sooner by exactly `inline_saving` (never below
// zero, never above the threshold), the send engine's message rate spaces message starts by
// exactly 1/rate and leaves a large message's packets alone, the ideal FCT knows inline sends;
// params.json carries both; and calibration on the real ConnectX-6 traces over all sizes
// (../shared via RDMASIM_SHARED) fits them and brings the all-size MAPE down to the bounds
// below, which the fit without them misses by far.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>

#include "scenarios/builder/build_network.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "tests/scenario_helpers.hpp"
#include "tests/temp_dir.hpp"
#include "tests/test_support.hpp"
#include "tools/calibration/calibration.hpp"

namespace {

// Two hosts on one switch at 100 Gb/s; `nic` merged into fabric.nic; flows (src h0, dst h1)
// of the given sizes at the given start times (us).
scen::Scenario two_hosts(const scen::Json& nic, const std::vector<std::pair<int64_t, int>>& flows) {
  scen::Json j;
  j["topology"] = test_support::star(2, "100Gbps", "1us");
  j["fabric"]["nic"] = nic;
  for (const auto& [bytes, start_us] : flows) {
    j["workload"]["flows"].push_back({{"src", "h0"},
                                      {"dst", "h1"},
                                      {"size", std::to_string(bytes) + "B"},
                                      {"start", std::to_string(start_us) + "us"}});
  }
  return test_support::load(j);
}

// One-way latency (post to last byte delivered) and finish time of every flow, in ps.
struct Times {
  std::vector<int64_t> latency, finish;
};
Times run(const scen::Scenario& s) {
  sim::Simulator sim(s.seed);
  auto net = scen::build_network(s, sim);
  net->transport->schedule_starts();
  sim.run(sim::Time::max());
  Times t;
  for (uint32_t f = 0; f < net->transport->flow_count(); ++f) {
    const models::FlowState& st = net->transport->flow(f);
    REQUIRE(st.done);
    t.latency.push_back((net->transport->qp(st.first_qp).delivered_at - st.spec.start).ps);
    t.finish.push_back(st.finish.ps);
  }
  return t;
}

}  // namespace

TEST_CASE("inline sends post sooner by exactly inline_saving, up to the threshold only",
          "[mechanism][small_messages]") {
  const std::vector<std::pair<int64_t, int>> flows = {{64, 0}, {128, 100}, {129, 200}, {256, 300}};
  const scen::Json base = {{"tx_latency", "1us"}, {"rx_latency", "500ns"}};
  scen::Json with = base;
  with["inline_threshold"] = "128B";
  with["inline_saving"] = "400ns";
  const Times off = run(two_hosts(base, flows));
  const Times on = run(two_hosts(with, flows));
  CHECK(off.latency[0] - on.latency[0] == 400'000);  // 64 B: inline
  CHECK(off.latency[1] - on.latency[1] == 400'000);  // 128 B: at the threshold, inline
  CHECK(off.latency[2] == on.latency[2]);            // 129 B: a DMA read as before
  CHECK(off.latency[3] == on.latency[3]);
  // A saving beyond tx_latency: the payload can be posted no sooner than at once.
  scen::Json more = with;
  more["inline_saving"] = "3us";
  const Times clamp = run(two_hosts(more, flows));
  CHECK(off.latency[0] - clamp.latency[0] == 1'000'000);
  // The ideal FCT knows inline sends: an inline flow alone on an idle path meets it exactly.
  const scen::RunOutcome out = scen::run_scenario(two_hosts(with, {{64, 0}}));
  REQUIRE(out.flows.size() == 1);
  CHECK(out.flows[0].fct == out.flows[0].ideal_fct);
  // Off by default: a scenario without the keys is what it was.
  CHECK(models::NicParams{}.inline_threshold_bytes == 0);
  CHECK(models::NicParams{}.max_message_rate == 0);
}

TEST_CASE("the message rate spaces message starts by 1/rate and leaves packets of a message alone",
          "[mechanism][small_messages]") {
  // 20 messages of 64 B posted together: 146 wire bytes take 11.68 ns at 100 Gb/s, so without
  // a cap they finish ~12 ns apart; at 10 M messages/s exactly 100 ns apart.
  std::vector<std::pair<int64_t, int>> stream(20, {64, 0});
  const Times free_run = run(two_hosts(scen::Json::object(), stream));
  const Times capped = run(two_hosts({{"max_message_rate", 10'000'000}}, stream));
  std::vector<int64_t> a = free_run.finish, b = capped.finish;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  for (size_t i = 1; i < b.size(); ++i) {
    CHECK(b[i] - b[i - 1] == 100'000);
    CHECK(a[i] - a[i - 1] < 20'000);
  }
  CHECK(a.front() == b.front());  // the first message never waits
  // A 64 KiB message (16 packets) alone: its packets are not spaced by the message gap.
  const Times big_free = run(two_hosts(scen::Json::object(), {{65536, 0}}));
  const Times big_capped = run(two_hosts({{"max_message_rate", 1'000'000}}, {{65536, 0}}));
  CHECK(big_free.finish[0] == big_capped.finish[0]);
}

TEST_CASE("a perftest stream at the message-rate cap and params.json carrying the small keys",
          "[mechanism][small_messages]") {
  const scen::Json j = scen::Json::parse(R"({
    "name": "pair", "nodes": 2, "nics_per_node": 1, "link_rate": "200Gbps", "fabric": "infiniband",
    "topology": {"nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
                           {"name": "sw0", "kind": "switch"}],
                 "links": [{"a": "h0", "b": "sw0", "rate": "200Gbps", "latency": "10ns"},
                           {"a": "sw0", "b": "h1", "rate": "200Gbps", "latency": "10ns"}]},
    "pair": ["h0", "h1"]})");
  const calib::ClusterSpec c = calib::read_cluster_json(j, "pair.json", ".");
  calib::FabricParams p = calib::network_params(2000, 130, 0.98, 100);
  p.small = {128, 700, 386};
  calib::Experiment e;
  e.file = "bw";
  e.latency = false;
  e.mtu = 4096;
  e.bytes = {2, 64, 1024};
  e.iterations = {5000, 5000, 5000};
  // Hand computation: one message per 386 ns (its engine time, 100 ns + wire at 196 Gb/s,
  // is shorter): bytes / 386 ns, less the first message's latency over 5000 messages.
  const std::vector<double> bw = calib::simulate(c, p, e);
  for (size_t i = 0; i < bw.size(); ++i) {
    CHECK(bw[i] == Approx(static_cast<double>(e.bytes[i]) / 386e-9).epsilon(0.01));
  }
  // The overlay holds the keys and reads back.
  const test_support::TempDir dir("rdmasim_small_params");
  const std::string path = (dir / "params.json").string();
  std::ofstream(path) << calib::params_overlay(c, p).dump(2);
  const calib::FabricParams back = calib::read_params_overlay(path, c);
  CHECK(back.small.inline_threshold_bytes == 128);
  CHECK(back.small.inline_saving_ns == Approx(700));
  CHECK(back.small.message_gap_ns == Approx(386).epsilon(1e-6));
  // Without them the overlay is what it was (no small-message keys).
  const scen::Json plain = calib::params_overlay(c, calib::network_params(2000, 130, 0.98, 100));
  CHECK_FALSE(plain["fabric"]["nic"].contains("inline_threshold"));
  CHECK_FALSE(plain["fabric"]["nic"].contains("max_message_rate"));
}

TEST_CASE("calibrating the ConnectX-6 traces over all sizes fits inline sends and message rate",
          "[mechanism][slow][small_messages][calibrate]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const calib::ClusterSpec c =
      calib::read_cluster_file(RDMASIM_SOURCE_DIR "/scenarios/clusters/cx6-hdr-2node.json");
  std::vector<calib::Experiment> ex;
  for (const char* f :
       {"perftest_ib_write_lat_cx6_2node.txt", "perftest_ib_write_bw_cx6_2node.txt"}) {
    ex.push_back(
        calib::experiment_from_trace(traces::read_trace_file(shared + "/traces/" + f), c, "", ""));
  }
  const calib::CalibrationResult r = calib::calibrate(c, ex, 4096);
  INFO(calib::format_report(r));
  REQUIRE(r.curves.size() == 2);
  // The trace's step: 128 B at 1.96 us, 256 B at 2.87 us; the bandwidth floor ~2.59 M msg/s.
  CHECK(r.params.small.inline_threshold_bytes == 128);
  CHECK(r.params.small.inline_saving_ns > 500);
  CHECK(r.params.small.message_gap_ns == Approx(1e9 / 2.59e6).epsilon(0.03));
  CHECK(r.curves[0].mape_all <= 8.0);       // 6.32 % measured (35.25 % without)
  CHECK(r.curves[1].mape_all <= 3.0);       // 1.08 % measured (91.95 % without)
  CHECK(r.curves[0].mape_in_range <= 5.0);  // the large sizes stay where they were
  CHECK(r.curves[1].mape_in_range <= 5.0);
  // The same parameters without the two mechanisms: the small sizes are far off again.
  calib::FabricParams without = r.params;
  without.small = {};
  const calib::CalibrationResult w = calib::predict(c, ex, without, 4096);
  CHECK(w.curves[0].mape_all > 20.0);
  CHECK(w.curves[1].mape_all > 50.0);
}

TEST_CASE(
    "at the message-rate cap a stream goes in post order with a few round-robin turns a packet",
    "[mechanism][small_messages]") {
  // 1,500 messages posted together: the cap (10 M messages/s) holds every message not yet
  // started, and the round robin starts them in the order they were posted, 100 ns apart. While
  // the cap holds, only the last QP's turn can differ from a rotation of the waiting ones
  // (nic_sender.cpp): one-packet messages cost the round robin a few turns a packet, where a
  // pass over every waiting message took ~750 a packet on average. With 20 KB messages (5
  // packets) among them, still in post order.
  for (const bool mixed : {false, true}) {
    std::vector<std::pair<int64_t, int>> stream(1500, {64, 0});
    if (mixed) {
      for (int k = 0; k < 8; ++k) stream[static_cast<size_t>(100 * k + 50)] = {20'000, 0};
    }
    const scen::Scenario s = two_hosts({{"max_message_rate", 10'000'000}}, stream);
    sim::Simulator sim(s.seed);
    auto net = scen::build_network(s, sim);
    net->transport->schedule_starts();
    sim.run(sim::Time::max());
    std::vector<int64_t> finish;
    for (uint32_t f = 0; f < net->transport->flow_count(); ++f) {
      const models::FlowState& st = net->transport->flow(f);
      REQUIRE(st.done);
      finish.push_back(st.finish.ps);
    }
    for (size_t i = 1; i < 50; ++i) CHECK(finish[i] - finish[i - 1] == 100'000);
    int64_t previous = -1;
    for (size_t i = 0; i < stream.size(); ++i) {
      if (stream[i].first != 64) continue;
      CHECK(finish[i] > previous);  // one-packet messages end in the order they were posted
      previous = finish[i];
    }
    const uint64_t packets = net->nics[0]->stats().data_packets_sent;
    CHECK(packets == (mixed ? 1492 + 8 * 5 : 1500));
    if (!mixed) CHECK(net->nics[0]->round_robin_turns() < 3 * packets);
  }
}
