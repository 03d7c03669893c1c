// HPCC, DCTCP and TIMELY (models/cc/ack_rate_control.hpp): each update against values computed
// by hand from the papers' formulas, on a rig with one QP and no network; then the oracles on
// packet-level runs: HPCC holds the bottleneck queue near zero at >= 90 % utilisation, DCTCP's
// queue stays in its fluid model's band around K, TIMELY keeps the link busy with a bounded
// queue, and all three share a bottleneck fairly (Jain >= 0.99).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>

#include "models/cc/ack_rate_control.hpp"
#include "rate_control_rig.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/write_outputs.hpp"

namespace {

constexpr int64_t k100G = 100'000'000'000;

// An ACK of PSN `psn` whose telemetry holds `hops` (HPCC).
models::Packet ack_with(models::PacketPool& pool, uint32_t psn,
                        std::initializer_list<models::IntHop> hops) {
  models::Packet a;
  a.type = models::PacketType::Ack;
  a.psn = psn;
  a.int_slot = pool.alloc_telemetry();
  for (const auto& h : hops) pool.telemetry(a.int_slot).push(h);
  return a;
}

models::IntHop hop(int64_t us, uint64_t tx, uint64_t queue) {
  return {sim::Time(us * 1'000'000), tx, queue, k100G};
}

bool near(int64_t a, int64_t b) {
  return std::llabs(a - b) <= 2;
}

}  // namespace

TEST_CASE("HPCC: one full update per RTT from the reference rate, fast reactions in between",
          "[unit][cc]") {
  models::CcParams p;
  p.algorithm = models::CcAlgorithm::Hpcc;
  p.base_rtt = sim::Time(10'000'000);  // T = 10 us
  p.hpcc_eta = 0.95;
  p.hpcc_max_stage = 0;  // every update multiplicative
  p.rate_ai_bps = 40'000'000;
  p.min_rate_bps = 1'000'000'000;
  // Window B x T = 125,000 bytes: the queue term is qlen / 125,000.
  test_support::RateControlRig<models::Hpcc> rig(k100G, p, int64_t{125'000});
  auto& qp = rig.qp();
  rig.controller->on_post(qp, k100G);

  // The first ACK only takes a reference sample of each hop.
  qp.snd_nxt = 10;
  rig.controller->on_ack(qp, ack_with(rig.pool, 1, {hop(1, 0, 12'500)}), k100G);
  CHECK(qp.rate_bps == k100G);
  // One RTT later (PSN 11 > 10): 12,500 bytes in 1 us = the line rate, a 12,500-byte queue:
  // u = 1 + 0.1; U = (1 x (10 - 1) + 1.1 x 1) / 10 = 1.01; R = 100G / (1.01 / 0.95) + W_AI.
  qp.snd_nxt = 20;
  rig.controller->on_ack(qp, ack_with(rig.pool, 11, {hop(2, 12'500, 12'500)}), k100G);
  CHECK(near(qp.rate_bps, 94'099'405'941));
  CHECK(rig.controller->utilisation(qp.id) == Approx(1.01));
  // PSN 12 <= 20: a fast reaction from the reference, not committed. Queue gone: u = 1.0,
  // U = (1.01 x 9 + 1.0) / 10 = 1.009, R = 94,099,405,941 / (1.009 / 0.95) + W_AI.
  rig.controller->on_ack(qp, ack_with(rig.pool, 12, {hop(3, 25'000, 0)}), k100G);
  CHECK(near(qp.rate_bps, 88'637'062'085));
  // The next full update starts from the committed reference again (not from the fast
  // reaction's rate): U = (1.009 x 9 + 1.0) / 10 = 1.0081.
  qp.snd_nxt = 30;
  rig.controller->on_ack(qp, ack_with(rig.pool, 21, {hop(4, 37'500, 0)}), k100G);
  CHECK(near(qp.rate_bps, 88'716'158'758));
  CHECK(rig.controller->stats().updates == 2);
  CHECK(rig.controller->stats().fast_reactions == 1);
}

TEST_CASE("HPCC: additive steps while below eta, then multiplicative, never below min_rate",
          "[unit][cc]") {
  models::CcParams p;
  p.algorithm = models::CcAlgorithm::Hpcc;
  p.base_rtt = sim::Time(10'000'000);
  p.hpcc_max_stage = 2;
  p.rate_ai_bps = 1'000'000'000;
  p.min_rate_bps = 1'000'000'000;
  test_support::RateControlRig<models::Hpcc> rig(k100G, p, int64_t{125'000});
  auto& qp = rig.qp();
  rig.controller->on_post(qp, k100G);
  qp.rate_bps = 50'000'000'000;
  rig.controller->on_post(qp, 50'000'000'000);  // reference 50G
  qp.snd_nxt = 10;
  rig.controller->on_ack(qp, ack_with(rig.pool, 1, {hop(1, 0, 0)}), k100G);
  // Half the line rate, no queue, over a whole T: U = 0.5 < eta: two additive steps (+1G each).
  uint64_t tx = 0;
  for (int step = 1; step <= 2; ++step) {
    qp.snd_nxt = 10 + 10 * static_cast<uint32_t>(step);
    tx += 62'500;
    rig.controller->on_ack(
        qp, ack_with(rig.pool, 1 + 10 * static_cast<uint32_t>(step), {hop(1 + 10 * step, tx, 0)}),
        k100G);
    CHECK(qp.rate_bps == 50'000'000'000 + step * 1'000'000'000);
  }
  // The third is multiplicative: 52G / (0.5 / 0.95) + 1G.
  qp.snd_nxt = 40;
  tx += 62'500;
  rig.controller->on_ack(qp, ack_with(rig.pool, 31, {hop(31, tx, 0)}), k100G);
  CHECK(near(qp.rate_bps, 99'800'000'000));
  // The line rate over T and a queue of 10 BDPs, but the queue term takes the smaller of this
  // sample's and the previous one's (0): U = 1, R = 99.8G x 0.95 + 1G.
  qp.snd_nxt = 50;
  tx += 125'000;
  rig.controller->on_ack(qp, ack_with(rig.pool, 41, {hop(41, tx, 1'250'000)}), k100G);
  CHECK(near(qp.rate_bps, 95'810'000'000));
  // The queue persists: U = 1 + 10, R = 95.81G / (11 / 0.95) + 1G.
  qp.snd_nxt = 60;
  tx += 125'000;
  rig.controller->on_ack(qp, ack_with(rig.pool, 51, {hop(51, tx, 1'250'000)}), k100G);
  CHECK(near(qp.rate_bps, 9'274'500'000));
  // A path longer than the INT header holds (6 hops > 5): no sample is trusted.
  qp.snd_nxt = 70;
  const int64_t before = qp.rate_bps;
  rig.controller->on_ack(qp,
                         ack_with(rig.pool, 61,
                                  {hop(61, tx, 0), hop(61, tx, 0), hop(61, tx, 0), hop(61, tx, 0),
                                   hop(61, tx, 0), hop(61, tx, 0)}),
                         k100G);
  CHECK(qp.rate_bps == before);
}

TEST_CASE("DCTCP: alpha from the marked fraction once per RTT, one cut per window, AI per RTT",
          "[unit][cc]") {
  models::CcParams p;
  p.algorithm = models::CcAlgorithm::Dctcp;
  p.dctcp_g = 1.0 / 16;
  p.rate_ai_bps = 1'000'000'000;
  p.min_rate_bps = 100'000'000;
  test_support::RateControlRig<models::Dctcp> rig(k100G, p);
  auto& qp = rig.qp();
  rig.controller->on_post(qp, k100G);
  models::Packet ack;
  ack.type = models::PacketType::Ack;
  auto send = [&](uint32_t psn, bool echo) {
    ack.psn = psn;
    ack.flags = echo ? models::kFlagCongestion : 0;
    rig.controller->on_ack(qp, ack, k100G);
  };
  qp.snd_nxt = 10;
  send(1, false);  // the first RTT: a batch of 11 ACKs begins; +AI (capped at the line rate)
  CHECK(qp.rate_bps == k100G);
  send(2, true);  // the first echo: cut by alpha / 2 = 1/2 (alpha starts at 1), CWR to PSN 10
  CHECK(qp.rate_bps == 50'000'000'000);
  send(3, true);  // within the CWR window: no second cut
  CHECK(qp.rate_bps == 50'000'000'000);
  CHECK(rig.controller->alpha(qp.id) == 1.0);
  qp.snd_nxt = 20;
  send(11, false);  // a new RTT: alpha = 15/16 + 1/16 x 2/11; CWR over; +AI
  CHECK(rig.controller->alpha(qp.id) == Approx(15.0 / 16 + 1.0 / 16 * 2.0 / 11));
  CHECK(qp.rate_bps == 51'000'000'000);
  send(12, true);  // cut by the new alpha / 2
  const double alpha = 15.0 / 16 + 1.0 / 16 * 2.0 / 11;
  CHECK(near(qp.rate_bps, static_cast<int64_t>(51e9 * (1 - alpha / 2) + 0.5)));
}

TEST_CASE("TIMELY: T_low, T_high and the RTT gradient decide, once per RTT", "[unit][cc]") {
  models::CcParams p;
  p.algorithm = models::CcAlgorithm::Timely;
  p.rate_ai_bps = 10'000'000;
  p.rate_hai_bps = 50'000'000;
  p.timely_hai_after = 2;
  p.min_rate_bps = 100'000'000;
  test_support::RateControlRig<models::Timely> rig(k100G, p);
  auto& qp = rig.qp();
  rig.controller->on_post(qp, k100G);
  models::Packet ack;
  ack.type = models::PacketType::Ack;
  sim::Time now;
  // An ACK of PSN `psn` whose data left `rtt_us` ago.
  auto send = [&](uint32_t psn, int64_t rtt_us) {
    now += sim::Time(1'000'000'000);  // 1 ms apart
    rig.run_to(now);
    ack.psn = psn;
    ack.sent_at = now - sim::Time(rtt_us * 1'000'000);
    rig.controller->on_ack(qp, ack, k100G);
  };
  qp.snd_nxt = 10;
  send(1, 600);  // the first sample: no update
  CHECK(qp.rate_bps == k100G);
  qp.snd_nxt = 20;
  send(5, 600);  // PSN 5 <= 10: the same RTT, ignored
  CHECK(qp.rate_bps == k100G);
  send(11, 600);  // above T_high: x (1 - 0.8 (1 - 500/600))
  CHECK(near(qp.rate_bps, 86'666'666'667));
  qp.snd_nxt = 30;
  send(21, 30);  // below T_low: + delta
  CHECK(near(qp.rate_bps, 86'676'666'667));
  qp.snd_nxt = 40;
  send(31, 30);  // + delta (second in a row)
  qp.snd_nxt = 50;
  send(41, 30);  // hyper-active: + N x delta after two increases
  CHECK(near(qp.rate_bps, 86'666'666'667 + 10'000'000 + 10'000'000 + 50'000'000));
  // Between T_low and T_high with a rising RTT: the smoothed difference is about
  // 0.875 x (100 - 30) us, the gradient (/ 20 us) about 3: 1 - 0.8 x 3 < 0, the rate falls to
  // min_rate.
  qp.snd_nxt = 60;
  send(51, 100);
  CHECK(qp.rate_bps == p.min_rate_bps);
}

namespace {

// `senders` hosts h0.. send `size` each to the last host through one switch s0 (100 Gb/s, 1 us
// links, the ns-3 HPCC simulator's packet format), with congestion control `cc`; the
// bottleneck port and every flow sampled every `interval`.
scen::Json cc_star(int senders, const scen::Json& cc, const std::string& size,
                   const std::string& interval = "10us") {
  scen::Json j;
  j["name"] = "cc";
  j["topology"] = test_support::star(senders + 1);
  j["fabric"] = {{"switch", {{"latency", "0ns"}, {"buffer", "32MB"}}},
                 {"nic", {{"mtu", "1000B"}, {"header_bytes", "48B"}, {"framing_bytes", "0B"}}},
                 {"pfc", {{"enabled", true}, {"xoff", "2MB"}}},
                 {"cc", cc}};
  const std::string dst = "h" + std::to_string(senders);
  scen::Json flows = scen::Json::array(), sampled = scen::Json::array();
  for (int h = 0; h < senders; ++h) {
    flows.push_back({{"src", "h" + std::to_string(h)}, {"dst", dst}, {"size", size}});
    sampled.push_back(h);
  }
  j["workload"] = {{"flows", flows}};
  j["outputs"] = {
      {"timeseries",
       {{"ports", {"s0:" + std::to_string(senders)}}, {"flows", sampled}, {"interval", interval}}}};
  return j;
}

struct Steady {
  double mean_queue = 0, max_queue = 0, min_queue = 1e18;
  double utilisation = 0;  // wire bytes sent / what the link could send
};

// The bottleneck's samples from `from` until the first flow stops sending (all flows are
// active throughout).
Steady steady_state(const scen::RunOutcome& out, sim::Time from, int64_t rate_bps,
                    sim::Time interval) {
  sim::Time until = sim::Time::max();
  for (const auto& f : out.flows) until = std::min(until, f.finish);
  Steady s;
  double n = 0, tx = 0;
  for (const auto& p : out.samples) {
    if (p.time <= from || p.time + interval >= until) continue;
    const auto q = static_cast<double>(p.queue_bytes);
    s.mean_queue += q;
    s.max_queue = std::max(s.max_queue, q);
    s.min_queue = std::min(s.min_queue, q);
    tx += static_cast<double>(p.tx_bytes);
    ++n;
  }
  REQUIRE(n > 10);
  s.mean_queue /= n;
  s.utilisation =
      tx * 8 / (n * static_cast<double>(interval.ps) * 1e-12 * static_cast<double>(rate_bps));
  return s;
}

// Jain's index of the flows' delivered bytes from `from` until the first flow stops sending.
double jain(const scen::RunOutcome& out, sim::Time from, sim::Time interval) {
  sim::Time until = sim::Time::max();
  for (const auto& f : out.flows) until = std::min(until, f.finish);
  std::vector<double> bytes(out.sampled_flows.size(), 0.0);
  for (const auto& s : out.flow_samples) {
    if (s.time > from && s.time + interval < until)
      bytes[s.flow] += static_cast<double>(s.delivered_bytes);
  }
  double sum = 0, squares = 0;
  for (double b : bytes) {
    sum += b;
    squares += b * b;
  }
  REQUIRE(sum > 0);
  return sum * sum / (static_cast<double>(bytes.size()) * squares);
}

}  // namespace

TEST_CASE("HPCC holds the bottleneck queue near zero at >= 90 % utilisation", "[mechanism][cc]") {
  const sim::Time interval(10'000'000);
  for (int senders : {2, 8}) {
    INFO(senders << " senders");
    const auto out =
        scen::run_scenario(test_support::load(cc_star(senders, {{"algorithm", "hpcc"}}, "4MB")));
    REQUIRE(out.results["flows_completed"] == senders);
    CHECK(out.results["cc"]["updates"].get<uint64_t>() > 100);
    // After the first RTTs at line rate (8 senders: a 7-BDP burst), eta = 95 %: the queue is
    // a packet or two (1,090 bytes each with the INT header) and the link ~95 % busy.
    const Steady s = steady_state(out, sim::Time(200'000'000), 100'000'000'000, interval);
    CHECK(s.mean_queue < 2 * 1090);
    CHECK(s.utilisation >= 0.90);
    CHECK(s.utilisation <= 0.97);
  }
  // Without the switches' telemetry HPCC has nothing to react to: the same run with DCQCN's
  // absence of feedback (no congestion control) queues hundreds of kilobytes.
  const auto none =
      scen::run_scenario(test_support::load(cc_star(2, {{"algorithm", "none"}}, "4MB")));
  CHECK(steady_state(none, sim::Time(200'000'000), 100'000'000'000, interval).mean_queue > 100'000);
}

TEST_CASE("DCTCP: the queue oscillates around K within the fluid model's amplitude",
          "[mechanism][cc]") {
  // K = 30 KB (marking every packet above it, kmin = K, pmax 1), two long flows.
  scen::Json j = cc_star(2, {{"algorithm", "dctcp"}}, "10MB");
  j["fabric"]["ecn"] = {{"enabled", true},
                        {"kmin", "30KB"},
                        {"kmax", "30001B"},
                        {"pmax", 1.0},
                        {"mark_at", "dequeue"}};
  const auto out = scen::run_scenario(test_support::load(j));
  const Steady s =
      steady_state(out, sim::Time(500'000'000), 100'000'000'000, sim::Time(10'000'000));
  // DCTCP's fluid model (Alizadeh et al., SIGCOMM 2010, section 3.3), in packets of 1,048
  // bytes: Q_max = K + N, amplitude A = 1/2 sqrt(2 N (C x RTT + K)); C x RTT = 100 Gb/s x
  // 4.088 us (the base RTT) = 48.8 packets, K = 28.6, N = 2: A = 8.8 packets, so the queue
  // stays within [K + N - A, K + N] = [22.9 KB, 32.1 KB].
  const double pkt = 1048, k = 30'000 / pkt, n = 2, bdp = 100e9 * 4.088e-6 / 8 / pkt;
  const double a = 0.5 * std::sqrt(2 * n * (bdp + k));
  CHECK(s.max_queue <= (k + n) * pkt + pkt);  // one packet of sampling slack
  CHECK(s.min_queue >= (k + n - a) * pkt - pkt);
  CHECK(s.mean_queue == Approx(30'000).margin(a * pkt));
  CHECK(s.utilisation >= 0.95);
}

TEST_CASE("TIMELY keeps the link busy with the RTT between its thresholds", "[mechanism][cc]") {
  // The ns-3 HPCC simulator's TIMELY settings (delta 100 Mb/s, HAI 500 Mb/s).
  const auto out = scen::run_scenario(
      test_support::load(cc_star(2, {{"algorithm", "timely"}, {"preset", "hpcc-ns3"}}, "20MB")));
  const Steady s =
      steady_state(out, sim::Time(500'000'000), 100'000'000'000, sim::Time(10'000'000));
  CHECK(s.utilisation >= 0.85);
  // The queueing delay never exceeds T_high (500 us = 6.25 MB at 100 Gb/s): the rate
  // converges below it; a queue that grew without bound would not.
  CHECK(s.max_queue < 6'250'000);
  CHECK(out.results["cc"]["rate_decreases"].get<uint64_t>() > 0);
}

TEST_CASE("HPCC, DCTCP and TIMELY share a bottleneck fairly: Jain >= 0.99", "[mechanism][cc]") {
  const sim::Time interval(100'000'000);
  for (int senders : {2, 4}) {
    for (const std::string algo : {"hpcc", "dctcp", "timely"}) {
      INFO(senders << " flows, " << algo);
      scen::Json cc = {{"algorithm", algo}};
      // TIMELY with the ns-3 simulator's steps (the paper's 10 Mb/s delta needs ~100 ms to
      // climb back from a cut at 100 Gb/s); HPCC's 40 Mb/s W_AI evens four flows out only
      // over tens of ms (docs/roce.md): 200 Mb/s here.
      if (algo == "timely") cc["preset"] = "hpcc-ns3";
      if (algo == "hpcc" && senders == 4) cc["rate_ai"] = "200Mbps";
      scen::Json j = cc_star(senders, cc, senders == 2 ? "20MB" : "40MB", "100us");
      if (algo == "dctcp") {
        j["fabric"]["ecn"] = {{"enabled", true},
                              {"kmin", "30KB"},
                              {"kmax", "30001B"},
                              {"pmax", 1.0},
                              {"mark_at", "dequeue"}};
      }
      const auto out = scen::run_scenario(test_support::load(j));
      CHECK(jain(out, sim::Time(1'000'000'000), interval) >= 0.99);
    }
  }
}

TEST_CASE("fabric.cc: bad settings are refused with their path", "[unit][cc]") {
  const auto error_of = test_support::refused_path;
  CHECK(error_of(cc_star(2, {{"algorithm", "hpcc"}, {"hpcc_eta", 1.5}}, "1MB")) ==
        "fabric.cc.hpcc_eta");
  CHECK(error_of(cc_star(2, {{"algorithm", "quic"}}, "1MB")) == "fabric.cc.algorithm");
  CHECK(error_of(cc_star(2, {{"algorithm", "timely"}, {"preset", "fast"}}, "1MB")) ==
        "fabric.cc.preset");
  CHECK(error_of(cc_star(2, {{"algorithm", "timely"}, {"timely_t_high", "10us"}}, "1MB")) ==
        "fabric.cc.timely_t_high");
  CHECK(error_of(cc_star(2, {{"algorithm", "dctcp"}, {"window", "0B"}}, "1MB")) ==
        "fabric.cc.window");
  scen::Json both = cc_star(2, {{"algorithm", "hpcc"}}, "1MB");
  both["fabric"]["dcqcn"] = {{"enabled", true}};
  CHECK(error_of(both) == "fabric.cc.algorithm");
  // `algorithm: dcqcn` is DCQCN's switch.
  const scen::Scenario d = test_support::load(cc_star(2, {{"algorithm", "dcqcn"}}, "1MB"));
  CHECK(d.dcqcn.enabled);
  // HPCC on InfiniBand: the congestion control of that fabric is another one.
  scen::Json j;
  j["topology"] = test_support::star(3);
  j["fabric"] = "infiniband";
  j["infiniband"] = {{"cc", {{"algorithm", "hpcc"}}}};
  j["workload"] = {{"flows", {{{"src", "h0"}, {"dst", "h2"}, {"size", "1MB"}}}}};
  CHECK(error_of(j) == "infiniband.cc.algorithm");
}

TEST_CASE("outputs.fct_by_size: slowdown percentiles per flow-size bucket", "[scenario][cc]") {
  scen::Json j = cc_star(2, {{"algorithm", "hpcc"}}, "1MB");
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h2"}, {"size", "5KB"}},
                            {{"src", "h1"}, {"dst", "h2"}, {"size", "50KB"}},
                            {{"src", "h0"}, {"dst", "h2"}, {"size", "2MB"}, {"start", "10us"}}};
  j["outputs"] = {{"fct_by_size", {"10KB", "1MB"}}};
  const scen::Scenario s = test_support::load(j);
  REQUIRE(s.fct_size_edges == std::vector<int64_t>{10'000, 1'000'000});
  const auto out = scen::run_scenario(s);
  const std::string csv = scen::fct_by_size_csv(s.fct_size_edges, out);
  // One flow per bucket; a flow alone on its path runs at its ideal FCT or a little above.
  std::istringstream in(csv);
  std::string header, row;
  std::getline(in, header);
  CHECK(header.rfind("from_bytes,to_bytes,flows,slowdown_p50", 0) == 0);
  int rows = 0;
  while (std::getline(in, row)) {
    ++rows;
    CHECK(row.find(",1,") != std::string::npos);  // one flow in each bucket
  }
  CHECK(rows == 3);
  j["outputs"] = {{"fct_by_size", {"1MB", "10KB"}}};
  CHECK_THROWS_AS(test_support::load(j), scen::InputError);
}

TEST_CASE("fabric.cc per traffic class: HPCC on one class, DCQCN on another", "[mechanism][cc]") {
  // Two senders into h2: h0's flow in priority 3 under HPCC, h1's in priority 1 under DCQCN,
  // both classes lossless.
  scen::Json j = cc_star(2, {{"algorithm", "hpcc"}, {"classes", {3}}}, "4MB");
  j["fabric"]["pfc"]["priorities"] = {1, 3};
  j["fabric"]["ecn"] = {{"enabled", true}, {"kmin", "40KB"}, {"kmax", "160KB"}, {"pmax", 0.2}};
  j["fabric"]["dcqcn"] = {{"enabled", true}, {"preset", "hpcc-ns3"}, {"classes", {1}}};
  j["workload"]["flows"][0]["priority"] = 3;
  j["workload"]["flows"][1]["priority"] = 1;
  const auto out = scen::run_scenario(test_support::load(j));
  INFO(out.results.dump());
  CHECK(out.results["flows_completed"] == 2);
  CHECK(out.results["cc"]["updates"].get<uint64_t>() > 0);            // HPCC ran (h0's QP)
  CHECK(out.results["dcqcn"]["rate_decreases"].get<uint64_t>() > 0);  // DCQCN ran (h1's)
  // HPCC's INT header rides only on its class: a class-1 flow alone sends the same wire bytes
  // as without HPCC, and 42 more per packet when HPCC controls every class.
  auto wire_of_class1_flow = [](const scen::Json& classes) {
    scen::Json k = cc_star(1, {{"algorithm", "hpcc"}, {"classes", classes}}, "1MB");
    k["fabric"]["pfc"]["priorities"] = {1, 3};
    k["workload"]["flows"][0]["priority"] = 1;
    const auto o = scen::run_scenario(test_support::load(k));
    return std::make_pair(test_support::link_between(o, "h0", "s0").wire_bytes,
                          o.results["cc"]["updates"].get<uint64_t>());
  };
  const auto [other_class, other_updates] = wire_of_class1_flow({3});
  const auto [every_class, every_updates] = wire_of_class1_flow("all");
  CHECK(other_updates == 0);
  CHECK(every_updates > 0);
  CHECK(every_class - other_class == 1000 * 42);  // 1,000 packets of 1,000 B
  // Refused: overlapping classes, a class out of range.
  j["fabric"]["dcqcn"]["classes"] = {1, 3};
  CHECK(test_support::refused_path(j) == "fabric.cc.algorithm");
  j["fabric"]["dcqcn"]["classes"] = {9};
  CHECK(test_support::refused_path(j) == "fabric.dcqcn.classes");
}
