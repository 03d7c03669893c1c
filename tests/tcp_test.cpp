// Kernel TCP (models/tcp): the congestion window against the formulas of its RFCs (slow
// start, Reno, Cubic RFC 9438, DCTCP RFC 8257, the timeout), the SACK scoreboard's pipe and
// loss marking (RFC 6675, RACK RFC 8985), and end to end: a flow's throughput bounded by its
// host's CPU (per-segment costs and copy bandwidth) and by the host's core budget, loss
// recovered by SACK within a few RTTs, a lost tail by the RTO (200 ms floor, doubled per
// timeout in a row), DCTCP holding the queue near K where Cubic fills the buffer, and bad
// input refused with its path.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/tcp/sack_scoreboard.hpp"
#include "models/tcp/tcp_window.hpp"
#include "scenario_helpers.hpp"

using models::SackScoreboard;
using models::TcpCc;
using models::TcpParams;
using models::TcpWindow;

namespace {

constexpr int64_t kMss = 1000;

TcpParams params(TcpCc cc) {
  TcpParams p;
  p.cc = cc;
  p.mss = kMss;
  return p;
}

// One round trip of a window-limited sender at time `t`: every byte of the window is
// acknowledged, one segment per ACK.
void round_trip(TcpWindow& w, sim::Time t, sim::Time rtt) {
  const int64_t segments = w.cwnd() / kMss;
  for (int64_t i = 0; i < segments; ++i) w.on_ack(kMss, t, rtt);
}

scen::Json tcp_star(int hosts, const scen::Json& tcp = scen::Json::object()) {
  scen::Json j;
  j["name"] = "tcp";
  j["topology"] = test_support::star(hosts);
  j["fabric"]["transport"] = "tcp";
  j["fabric"]["switch"] = {{"latency", "500ns"}, {"buffer", "32MB"}};
  if (!tcp.empty()) j["fabric"]["tcp"] = tcp;
  return j;
}

double goodput_gbps(const scen::RunOutcome& out) {
  return out.results["goodput_Gbps"].get<double>();
}

}  // namespace

TEST_CASE("tcp window: slow start doubles per RTT, Reno adds a segment per RTT", "[unit][tcp]") {
  TcpWindow w;
  w.reset(params(TcpCc::Reno));
  CHECK(w.cwnd() == 10 * kMss);  // RFC 6928
  const sim::Time rtt(10'000'000);
  round_trip(w, sim::Time(0), rtt);
  CHECK(w.cwnd() == 20 * kMss);
  round_trip(w, rtt, rtt);
  CHECK(w.cwnd() == 40 * kMss);
  w.on_loss();  // Reno halves
  CHECK(w.cwnd() == 20 * kMss);
  CHECK(w.ssthresh() == 20 * kMss);
  for (int r = 0; r < 5; ++r) round_trip(w, rtt * (2 + r), rtt);
  CHECK(w.cwnd() == 25 * kMss);
  w.on_timeout(30 * kMss);  // RFC 5681: ssthresh = max(flight / 2, 2 MSS), cwnd = 1 MSS
  CHECK(w.cwnd() == kMss);
  CHECK(w.ssthresh() == 15 * kMss);
}

TEST_CASE("tcp window: Cubic follows W(t) = C (t - K)^3 + W_max after a loss", "[unit][tcp]") {
  CHECK(models::cube_root(27.0) == Approx(3.0).epsilon(1e-12));
  CHECK(models::cube_root(1e6) == Approx(100.0).epsilon(1e-12));
  CHECK(models::cube_root(0.125) == Approx(0.5).epsilon(1e-12));
  TcpWindow w;
  w.reset(params(TcpCc::Cubic));
  // Grow to 100 segments in slow start, then lose: W_max 100, cwnd 70 (beta 0.7).
  for (int i = 0; i < 90; ++i) w.on_ack(kMss, sim::Time(0), sim::Time(0));
  REQUIRE(w.cwnd() == 100 * kMss);
  w.on_loss();
  CHECK(w.cwnd() == 70 * kMss);
  // A long RTT (100 ms) keeps Cubic out of its Reno-friendly region.
  const double rtt_s = 0.1;
  const sim::Time rtt(static_cast<int64_t>(rtt_s * 1e12));
  round_trip(w, sim::Time(0), rtt);             // the epoch starts with the first ACK
  const double k = std::cbrt(100 * 0.3 / 0.4);  // RFC 9438 (4.2): K = cbrt(W_max (1-beta) / C)
  CHECK(w.cubic_k() == Approx(k).epsilon(1e-9));
  CHECK(w.cubic_w_max() == Approx(100.0));
  auto w_cubic = [&](double t) { return 0.4 * (t - k) * (t - k) * (t - k) + 100; };
  int rounds = 1;
  // (Past K + 1 s the Reno-friendly W_est, 1 segment per RTT beyond W_max, overtakes it.)
  for (double check_at : {1.0, 2.0, k, k + 1.0}) {
    while (rounds * rtt_s < check_at) {
      round_trip(w, rtt * rounds, rtt);
      ++rounds;
    }
    // After a round at t the window has reached the target W_cubic(t + RTT).
    const double t = (rounds - 1) * rtt_s;
    INFO("t = " << t << " s: cwnd " << w.cwnd() / kMss << " segments, W_cubic(t + RTT) "
                << w_cubic(t + rtt_s));
    CHECK(static_cast<double>(w.cwnd()) / kMss == Approx(w_cubic(t + rtt_s)).margin(1.0));
  }
  // Concave below W_max, convex above: slower growth near K than far from it.
  CHECK(w_cubic(k + 2.0) - w_cubic(k + 1.0) > w_cubic(k) - w_cubic(k - 1.0));
}

TEST_CASE("tcp window: Cubic at a data-centre RTT grows as Reno-friendly W_est", "[unit][tcp]") {
  TcpWindow w;
  w.reset(params(TcpCc::Cubic));
  for (int i = 0; i < 90; ++i) w.on_ack(kMss, sim::Time(0), sim::Time(0));
  w.on_loss();
  const sim::Time rtt(20'000'000);  // 20 us: W_cubic barely moves in 100 RTTs
  for (int r = 0; r < 100; ++r) round_trip(w, rtt * r, rtt);
  // RFC 9438 (4.3): alpha_cubic = 3 (1 - beta) / (1 + beta) segments per RTT up to W_max,
  // then 1.
  const double alpha = 3 * 0.3 / 1.7;
  const double rounds_to_w_max = 30 / alpha;
  CHECK(static_cast<double>(w.cwnd()) / kMss == Approx(100 + (100 - rounds_to_w_max)).margin(2.0));
}

TEST_CASE("tcp window: DCTCP's alpha and its cut", "[unit][tcp]") {
  TcpWindow w;
  w.reset(params(TcpCc::Dctcp));
  CHECK(w.dctcp_alpha() == 1.0);              // Linux starts at 1
  w.dctcp_window_end(100 * kMss, 25 * kMss);  // F = 1/4
  CHECK(w.dctcp_alpha() == Approx(15.0 / 16 + 1.0 / 16 * 0.25));
  for (int i = 0; i < 400; ++i) w.dctcp_window_end(100 * kMss, 25 * kMss);
  CHECK(w.dctcp_alpha() == Approx(0.25).margin(1e-9));
  // cwnd x (1 - alpha / 2)
  const int64_t before = w.cwnd();
  w.dctcp_reduce();
  CHECK(w.cwnd() == before - static_cast<int64_t>(static_cast<double>(before) * 0.125));
}

TEST_CASE("tcp scoreboard: pipe, SACK losses and RACK", "[unit][tcp]") {
  SackScoreboard b;
  for (int i = 0; i < 10; ++i) b.sent_new(sim::Time(i * 1000));
  CHECK(b.pipe() == 10);
  b.advance(2);  // 0 and 1 acknowledged
  CHECK(b.pipe() == 8);
  for (uint32_t p = 5; p < 10; ++p) CHECK(b.sack(p));
  CHECK_FALSE(b.sack(7));  // known
  CHECK(b.pipe() == 3);    // 2, 3, 4 still believed in flight
  // RFC 6675: 2, 3, 4 each have 5 SACKed segments above (>= DupThresh 3).
  CHECK(b.mark_losses(3) == 3);
  CHECK(b.pipe() == 0);
  CHECK(b.next_lost() == 2);
  b.retransmitted(2, sim::Time(20'000));
  CHECK(b.pipe() == 1);
  CHECK(b.next_lost() == 3);
  CHECK(b.recount_pipe() == b.pipe());
  // RACK: a segment sent at 30 ns was delivered: the retransmission of 2 (sent at 20 ns) was
  // lost too, beyond a 5 ns reordering window.
  b.retransmitted(3, sim::Time(25'000));
  CHECK(b.rack_mark(sim::Time(30'000), sim::Time(5'000)) == 1);
  CHECK(b.is_lost(2));
  CHECK(b.next_lost() == 2);
  CHECK(b.pipe() == 1);  // 3's retransmission is still in flight
  CHECK(b.recount_pipe() == b.pipe());
  b.mark_all_lost();  // the timeout
  CHECK(b.pipe() == 0);
  CHECK(b.next_lost() == 2);
}

TEST_CASE("tcp: one flow is bounded by its receiver's core", "[mechanism][tcp]") {
  // One connection, one receive core: mss x 8 / (rx_segment_cost + mss / copy_rate).
  scen::Json j = tcp_star(2);
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "20MB"}}};
  const auto out = scen::run_scenario(test_support::load(j));
  const TcpParams p;
  const double per_segment_s = p.rx_segment_cost.seconds() + 8.0 * p.mss / 96e9;
  const double bound = 8.0 * p.mss / per_segment_s / 1e9;  // 41.96 Gb/s
  CHECK(goodput_gbps(out) == Approx(bound).epsilon(0.03));
  CHECK(goodput_gbps(out) < bound);
  // Copy bandwidth alone (no per-segment cost): the copy rate bounds it.
  scen::Json copy = tcp_star(
      2, {{"rx_segment_cost", "0ns"}, {"tx_segment_cost", "0ns"}, {"copy_rate", "50Gbps"}});
  copy["workload"] = j["workload"];
  const double copy_bound = goodput_gbps(scen::run_scenario(test_support::load(copy)));
  CHECK(copy_bound == Approx(50.0).epsilon(0.03));
  CHECK(copy_bound < 50.0);
  // Free CPU: the link, less TCP's headers and framing.
  scen::Json free_cpu = tcp_star(
      2, {{"rx_segment_cost", "0ns"}, {"tx_segment_cost", "0ns"}, {"copy_rate", "10Tbps"}});
  free_cpu["workload"] = j["workload"];
  const double wire = 100.0 * 8948 / (8948 + 70 + 20);
  CHECK(goodput_gbps(scen::run_scenario(test_support::load(free_cpu))) ==
        Approx(wire).epsilon(0.03));
}

TEST_CASE("tcp: a host's core budget bounds its connections together", "[mechanism][tcp]") {
  // Four senders into one receiver: with one core it receives at one core's rate; with four,
  // each connection has its own core and the link is the limit.
  auto run = [](int cores) {
    scen::Json j = tcp_star(5, {{"cores", cores}});
    j["workload"]["incast"] = {
        {"receiver", "h0"}, {"senders", {"h1", "h2", "h3", "h4"}}, {"size", "8MB"}};
    return goodput_gbps(scen::run_scenario(test_support::load(j)));
  };
  const double one = run(1), four = run(4);
  INFO("1 core " << one << " Gb/s, 4 cores " << four << " Gb/s");
  CHECK(one == Approx(41.96).epsilon(0.05));
  CHECK(four > 90.0);
}

TEST_CASE("tcp: SACK recovers drops within a few RTTs, no timeout", "[mechanism][tcp]") {
  // Eight Cubic senders overflow a shallow lossy buffer in slow start.
  scen::Json j = tcp_star(9);
  j["fabric"]["switch"]["buffer"] = "2MB";
  j["workload"]["incast"] = {{"receiver", "h0"},
                             {"senders", {"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"}},
                             {"size", "8MB"}};
  const auto out = scen::run_scenario(test_support::load(j));
  const auto& t = out.results["tcp"];
  INFO(t.dump());
  CHECK(out.results["drops"]["tail"].get<uint64_t>() > 0);
  CHECK(t["fast_recoveries"].get<uint64_t>() > 0);
  CHECK(t["timeouts"] == 0);
  CHECK(out.results["flows_completed"] == 8);
  // 64 MB through 100 Gb/s: 5.4 ms at the wire; far from the 200 ms of a timeout.
  CHECK(out.results["fct_max_ns"].get<double>() < 8e6);
}

TEST_CASE("tcp: a lost tail waits for the RTO, doubled while it keeps failing",
          "[mechanism][tcp]") {
  // h0 -> h1 across leaf0 - spine0, which fails at 500 us (the flow is half sent) and returns
  // at `up`: nothing after the loss reaches h1, no SACK comes back, only the timer recovers.
  auto run = [](const std::string& up) {
    scen::Json j;
    j["name"] = "rto";
    j["topology"] = {{"generator", "leaf-spine"},
                     {"leaves", 2},
                     {"spines", 1},
                     {"hosts_per_leaf", 1},
                     {"host_rate", "100Gbps"},
                     {"fabric_rate", "100Gbps"},
                     {"host_latency", "1us"},
                     {"fabric_latency", "1us"}};
    j["fabric"]["transport"] = "tcp";
    j["link_events"] = {{"convergence_delay", "0s"},
                        {"events",
                         {{{"at", "500us"}, {"a", "leaf0"}, {"b", "spine0"}, {"state", "down"}},
                          {{"at", up}, {"a", "leaf0"}, {"b", "spine0"}, {"state", "up"}}}}};
    j["workload"]["flows"] = {{{"src", 0}, {"dst", 1}, {"size", "4MB"}}};
    return scen::run_scenario(test_support::load(j));
  };
  // RTO = SRTT + max(4 RTTVAR, 200 ms): the first timeout ~200 ms after the last ACK.
  const auto once = run("2ms");
  CHECK(once.results["tcp"]["timeouts"] == 1);
  const double fct1 = once.results["fct_max_ns"].get<double>();
  CHECK(fct1 > 200.5e6);
  CHECK(fct1 < 201.5e6);
  // Still down at the first timeout: the second waits twice as long (RFC 6298 5.5).
  const auto twice = run("300ms");
  CHECK(twice.results["tcp"]["timeouts"] == 2);
  const double fct2 = twice.results["fct_max_ns"].get<double>();
  CHECK(fct2 - fct1 == Approx(400e6).epsilon(0.01));
}

TEST_CASE("tcp: DCTCP holds the queue near K, Cubic fills the buffer", "[mechanism][tcp]") {
  auto run = [](const std::string& cc) {
    scen::Json j = tcp_star(5, {{"cc", cc}});
    j["fabric"]["switch"]["buffer"] = "4MB";
    j["fabric"]["ecn"] = {{"enabled", true}, {"kmin", "100KB"}, {"kmax", "100001B"}, {"pmax", 1.0}};
    j["workload"]["incast"] = {
        {"receiver", "h0"}, {"senders", {"h1", "h2", "h3", "h4"}}, {"size", "16MB"}};
    const auto out = scen::run_scenario(test_support::load(j));
    return std::make_pair(out.results, test_support::link_between(out, "s0", "h0").max_queue_bytes);
  };
  const auto [dctcp, dctcp_queue] = run("dctcp");
  const auto [cubic, cubic_queue] = run("cubic");
  INFO("max queue: DCTCP " << dctcp_queue << " B, Cubic " << cubic_queue << " B");
  CHECK(dctcp["tcp"]["ecn_reductions"].get<uint64_t>() > 0);
  CHECK(dctcp["drops"]["tail"] == 0);
  // K plus what the four senders put in flight in the RTT before they react.
  CHECK(dctcp_queue < 400'000);
  CHECK(cubic["ecn"]["marks"] == 0);  // Cubic's segments are not ECN-capable
  CHECK(cubic["drops"]["tail"].get<uint64_t>() > 0);
  CHECK(cubic_queue > 2 * dctcp_queue);
}

TEST_CASE("tcp: bad settings are refused with their path", "[unit][tcp]") {
  const auto error_of = test_support::refused_path;
  scen::Json j = tcp_star(2, {{"cubic_beta", 2.0}});
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1MB"}}};
  CHECK(error_of(j) == "fabric.tcp.cubic_beta");
  j["fabric"]["tcp"] = {{"cc", "bbr"}};
  CHECK(error_of(j) == "fabric.tcp.cc");
  j["fabric"].erase("tcp");
  j["fabric"]["dcqcn"] = {{"enabled", true}};
  CHECK(error_of(j) == "fabric.dcqcn.enabled");
  j["fabric"].erase("dcqcn");
  j["fabric"]["cc"] = {{"algorithm", "hpcc"}};
  CHECK(error_of(j) == "fabric.cc.algorithm");
  // A TCP flow on an InfiniBand fabric.
  scen::Json ib;
  ib["name"] = "ib";
  ib["topology"] = test_support::star(2);
  ib["fabric"] = "infiniband";
  ib["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1MB"}, {"transport", "tcp"}}};
  CHECK(error_of(ib) == "workload.flows[0].transport");
  ib["workload"]["flows"][0]["transport"] = "rdma";
  CHECK(error_of(ib) == "accepted");
}

TEST_CASE("tcp: per-flow transport beside RDMA, the same results every run", "[scenario][tcp]") {
  // A TCP flow and an RDMA flow on one RoCE fabric: each keeps its own transport.
  scen::Json j;
  j["name"] = "mixed";
  j["topology"] = test_support::star(4);
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "4MB"}, {"transport", "tcp"}},
                            {{"src", "h2"}, {"dst", "h3"}, {"size", "4MB"}}};
  const auto a = scen::run_scenario(test_support::load(j));
  REQUIRE(a.flows.size() == 2);
  CHECK(a.results["tcp"]["connections"] == 1);
  // The TCP flow is CPU-bound near 42 Gb/s; the RDMA flow runs at the line rate.
  CHECK(a.flows[0].fct > a.flows[1].fct * 2);
  const auto b = scen::run_scenario(test_support::load(j));
  CHECK(a.results.dump() == b.results.dump());
}

TEST_CASE("tcp: GPU servers stage their data through host memory", "[scenario][tcp][slow]") {
  // rdma-vs-tcp-scaling on 2 dgx-h100 servers over TCP: GPUDirect RDMA is off, said in a
  // warning, and the servers' host memory carries the data (a slower memory, a slower step).
  auto run = [](const std::string& memory) {
    scen::LoadOptions o;
    o.sets = {"fabric=tcp", "workload.training.layers=4"};
    if (!memory.empty()) o.sets.push_back("topology.nodes.host_memory_rate=" + memory);
    const auto s = scen::load_scenario_file(
        std::string(RDMASIM_SOURCE_DIR) + "/scenarios/rdma-vs-tcp-scaling.json", o);
    CHECK_FALSE(s.fabric.topo.gpus.params.gpudirect_rdma);
    CHECK(s.tcp_staged_gpus);
    return scen::run_scenario(s);
  };
  const auto fast = run("");
  bool warned = false;
  for (const auto& w : fast.warnings) warned = warned || w.code == "tcp-stages-gpu-data";
  CHECK(warned);
  const auto slow = run("200Gbps");
  const double fast_comm = fast.results["training"]["communication_us"].get<double>();
  const double slow_comm = slow.results["training"]["communication_us"].get<double>();
  INFO("communication: default memory " << fast_comm << " us, 200 Gb/s " << slow_comm << " us");
  CHECK(slow_comm > 1.2 * fast_comm);
}

TEST_CASE("tcp: a small message's latency adds up the host's steps", "[mechanism][tcp]") {
  // One 1,000-byte message: send() (syscall, segment cost, copy), the wire, the interrupt,
  // the receive processing and copy, the wake-up and recv(). The ACK is back before the
  // application wakes, so each step's time adds to the FCT one for one.
  auto fct_ps = [](const scen::Json& tcp) {
    scen::Json j = tcp_star(2, tcp);
    j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1000B"}}};
    const auto out = scen::run_scenario(test_support::load(j));
    REQUIRE(out.flows.size() == 1);
    return out.flows[0].fct.ps;
  };
  const int64_t base = fct_ps(scen::Json::object());
  CHECK(fct_ps({{"wakeup_latency", "15us"}}) - base == 10'000'000);
  CHECK(fct_ps({{"interrupt_latency", "14us"}}) - base == 10'000'000);
  CHECK(fct_ps({{"syscall", "2us"}}) - base == 2'000'000);  // send() and recv()
  CHECK(fct_ps({{"tx_segment_cost", "1250ns"}}) - base == 1'000'000);
  CHECK(fct_ps({{"rx_segment_cost", "1960ns"}}) - base == 1'000'000);
  // The copies, one each way: 1,000 B at 12 GB/s against at 10 Tb/s.
  const int64_t copy = sim::serialization_time(1000, 96'000'000'000).ps -
                       sim::serialization_time(1000, 10'000'000'000'000).ps;
  CHECK(base - fct_ps({{"copy_rate", "10Tbps"}}) == 2 * copy);
}
