// DCQCN: the reaction point's arithmetic against hand-computed values, the notification
// point's CNP interval, and end-to-end behaviour on one bottleneck (fairness, recovery, rate
// bounds, nothing without marking) with the presets of docs/references.md.
#include "models/roce/dcqcn.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "rate_control_rig.hpp"
#include "scenario_helpers.hpp"

namespace {

using namespace sim::literals;
constexpr int64_t kLine = 100'000'000'000;

// One QP of a long flow and a DCQCN controller; a notification is a CNP reaching the QP.
struct Rig : test_support::RateControlRig<models::Dcqcn> {
  explicit Rig(const models::DcqcnParams& p) : RateControlRig(kLine, p) {}
  void notify_at(sim::Time t) {
    run_to(t);
    controller->on_notification(qp(), kLine);
  }
};

models::DcqcnParams preset(const std::string& name) {
  models::DcqcnParams p;
  REQUIRE(models::dcqcn_preset(name, p));
  p.enabled = true;
  return p;
}

}  // namespace

TEST_CASE("dcqcn: paper preset cuts by alpha/2 at once and raises alpha", "[mechanism][dcqcn]") {
  Rig rig(preset("dcqcn-paper"));
  rig.notify_at(10_us);
  // alpha starts at 1: the first CNP halves the rate; alpha = (1-g) + g = 1.
  CHECK(rig.qp().rate_bps == kLine / 2);
  CHECK(rig.controller->target_rate(0) == kLine);  // target := current before the cut
  CHECK(rig.controller->alpha(0) == Approx(1.0));
  // A second CNP 10 us later (inside the 55 us alpha period): cut with alpha 1 again.
  rig.notify_at(20_us);
  CHECK(rig.qp().rate_bps == kLine / 4);
  CHECK(rig.controller->target_rate(0) == kLine / 2);
  // 3 alpha periods with no CNP: alpha decays by (1 - 1/256)^3 before the next cut.
  rig.notify_at(20_us + 55_us * 3 + 1_us);
  const double g = 1.0 / 256, alpha = std::pow(1 - g, 3);
  // Between the cuts the increase timer (60 us) fired twice (80, 140 us): fast recovery toward
  // the target kLine/2.
  int64_t rate = kLine / 4;
  for (int i = 0; i < 2; ++i) rate = (rate + kLine / 2 + 1) / 2;
  CHECK(rig.qp().rate_bps == static_cast<int64_t>(static_cast<double>(rate) * (1 - alpha / 2)));
  CHECK(rig.controller->alpha(0) == Approx((1 - g) * alpha + g));
}

TEST_CASE("dcqcn: firmware alpha updates once per period, flagged by notifications",
          "[mechanism][dcqcn]") {
  models::DcqcnParams p = preset("nvidia-default");
  p.rate_to_set_on_first_cnp_bps = 0;
  p.rate_reduce_monitor_period = 1000_us;  // keep decreases out of the way
  Rig rig(p);
  rig.notify_at(0_us);     // limiter allocated: alpha = 1023/1024, epoch 0
  rig.notify_at(2500_ns);  // in period [2, 3) us
  rig.run_to(10_us);
  rig.notify_at(10_us);  // closes periods up to 10 us, opens [10, 11)
  const double keep = 1019.0 / 1024, g = 1 - keep;
  // Explicit per-period iteration: period 0 and 1 had no flag (the allocating CNP's flag was
  // set in period 0 -- it counts), period 2 flagged, 3..9 not.
  double a = 1023.0 / 1024;
  a = keep * a + g;  // [0,1): the first notification
  a = keep * a;      // [1,2)
  a = keep * a + g;  // [2,3)
  for (int k = 3; k < 10; ++k) a = keep * a;
  CHECK(rig.controller->alpha(0) == Approx(a).epsilon(1e-12));
}

TEST_CASE("dcqcn: decreases respect the monitor period, min decrease factor and min rate",
          "[mechanism][dcqcn]") {
  models::DcqcnParams p = preset("nvidia-default");
  Rig rig(p);
  rig.notify_at(0_us);
  // First notification: the limiter starts at rate_to_set_on_first_cnp (85 Gb/s).
  CHECK(rig.qp().rate_bps == 85'000'000'000);
  // The first decrease waits one monitor period (4 us); then factor alpha/2 is bounded below by
  // rpg_min_dec_fac 50 %: never less than half.
  rig.run_to(3_us);
  CHECK(rig.qp().rate_bps == 85'000'000'000);
  rig.run_to(4_us);
  const int64_t after_first = rig.qp().rate_bps;
  CHECK(after_first < 85'000'000'000);
  CHECK(after_first >= 85'000'000'000 / 2);
  // Notifications 1 us apart: one decrease per 4 us at most.
  uint64_t before = rig.controller->stats().rate_decreases;
  for (int k = 5; k <= 12; ++k) rig.notify_at(sim::Time(k * 1'000'000));
  rig.run_to(12_us);
  CHECK(rig.controller->stats().rate_decreases - before == 2);  // at 8 us and 12 us
  // Many more: the rate stops at rpg_min_rate (1 Mb/s) and never goes below.
  for (int k = 13; k < 400; ++k) rig.notify_at(sim::Time(k * 4'000'000));
  CHECK(rig.qp().rate_bps == p.rpg_min_rate_bps);
}

TEST_CASE("dcqcn: increase stages run fast recovery, additive, then hyper increase",
          "[mechanism][dcqcn]") {
  models::DcqcnParams p = preset("hpcc-ns3");  // timer only, 1 fast-recovery stage
  Rig rig(p);
  rig.notify_at(0_us);      // limiter at line rate, alpha 1
  rig.run_to(4_us + 1_ns);  // first decrease after the monitor period
  // alpha: 1, updated at 1 us with the flag ((1-g) + g = 1), then decayed at 2, 3, 4 us.
  const double alpha = std::pow(1.0 - 1.0 / 256, 3);
  REQUIRE(rig.qp().rate_bps == static_cast<int64_t>(static_cast<double>(kLine) * (1 - alpha / 2)));
  const int64_t target = rig.controller->target_rate(0);
  REQUIRE(target == kLine);  // no clamp: the timer had not raised the rate
  // 300 us: fast recovery (stage 0 < threshold 1) halves the distance to the target.
  rig.run_to(4_us + 300_us + 2_ns);
  const int64_t cut = static_cast<int64_t>(static_cast<double>(kLine) * (1 - alpha / 2));
  int64_t rate = (cut + target + 1) / 2;
  CHECK(rig.qp().rate_bps == rate);
  CHECK(rig.controller->target_rate(0) == target);
  // Next: stage 1 == threshold: additive increase of the target (capped at line rate).
  rig.run_to(4_us + 600_us + 2_ns);
  rate = (rate + kLine + 1) / 2;
  CHECK(rig.qp().rate_bps == rate);
  // Until the rate reaches the line rate and the limiter is released.
  rig.run_to(100'000_us);
  CHECK(rig.qp().rate_bps == kLine);
  CHECK_FALSE(rig.controller->limited(0));
  CHECK(rig.controller->stats().limiters_released == 1);
}

TEST_CASE("dcqcn: additive and hyper steps of the target below line rate", "[mechanism][dcqcn]") {
  models::DcqcnParams p = preset("dcqcn-paper");
  p.rpg_byte_reset = 0;  // the timer alone, for exact stages
  p.rpg_threshold = 2;
  Rig rig(p);
  rig.notify_at(0_us);  // 50 G, target 100 G
  rig.notify_at(1_us);  // 25 G, target 50 G (clamp_tgt_rate)
  REQUIRE(rig.controller->target_rate(0) == kLine / 2);
  const auto t = [](int k) { return 1_us + sim::Time(k * 60'000'000) + 1_ns; };
  rig.run_to(t(2));  // two fast-recovery steps: the target does not move
  CHECK(rig.controller->target_rate(0) == kLine / 2);
  rig.run_to(t(3));  // stage 2 == threshold: additive
  CHECK(rig.controller->target_rate(0) == kLine / 2 + p.rpg_ai_rate_bps);
  rig.run_to(t(4));  // stage 3 > threshold: hyper
  CHECK(rig.controller->target_rate(0) == kLine / 2 + p.rpg_ai_rate_bps + p.rpg_hai_rate_bps);
}

TEST_CASE("dcqcn: the notification point sends at most one CNP per QP per interval",
          "[mechanism][dcqcn]") {
  Rig rig(preset("dcqcn-paper"));  // 50 us
  int sent = 0;
  for (int k = 0; k < 1000; ++k) {  // a marked packet every 1 us for 1 ms
    rig.run_to(sim::Time(k * 1'000'000));
    if (rig.controller->cnp_due(0)) ++sent;
  }
  CHECK(sent == 20);
  CHECK(rig.controller->cnp_due(1));  // another QP has its own interval
}

namespace {

// Hosts h0..h(n-1) and a receiver r behind one switch, 100 Gb/s, 1 us links, PFC, ECN, DCQCN.
scen::Json bottleneck(int senders, const std::string& preset_name) {
  scen::Json j;
  j["name"] = "dcqcn-bottleneck";
  for (int i = 0; i < senders; ++i) {
    j["topology"]["nodes"].push_back({{"name", "h" + std::to_string(i)}, {"kind", "host"}});
    j["topology"]["links"].push_back({{"a", "h" + std::to_string(i)}, {"b", "sw"}});
  }
  j["topology"]["nodes"].push_back({{"name", "r"}, {"kind", "host"}});
  j["topology"]["nodes"].push_back({{"name", "sw"}, {"kind", "switch"}});
  j["topology"]["links"].push_back({{"a", "r"}, {"b", "sw"}});
  j["topology"]["defaults"] = {{"rate", "100Gbps"}, {"latency", "1us"}};
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  j["fabric"]["pfc"] = {{"enabled", true}, {"xoff", "500KB"}};
  j["fabric"]["ecn"] = {{"enabled", true}, {"kmin", "100KB"}, {"kmax", "400KB"}, {"pmax", 0.2}};
  j["fabric"]["dcqcn"] = {{"enabled", true}, {"preset", preset_name}};
  j["stop"] = {{"until", "time"}, {"time", "20ms"}};
  return j;
}

double jain(const std::vector<double>& x) {
  double s = 0, s2 = 0;
  for (double v : x) {
    s += v;
    s2 += v * v;
  }
  return s * s / (static_cast<double>(x.size()) * s2);
}

}  // namespace

TEST_CASE("dcqcn: two flows on one bottleneck converge to a fair share, queue below Kmax",
          "[mechanism][dcqcn][slow]") {
  scen::Json j = bottleneck(2, "dcqcn-paper");
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "r"}, {"size", "1GB"}, {"start", "0us"}},
                            {{"src", "h1"}, {"dst", "r"}, {"size", "1GB"}, {"start", "1ms"}}};
  j["outputs"]["timeseries"] = {{"ports", {"sw:2"}}, {"flows", {0, 1}}, {"interval", "10us"}};
  const auto out = scen::run_scenario(test_support::load(j));
  // Over the last 5 ms: bytes delivered per flow, and the bottleneck queue on average.
  std::vector<double> delivered(2, 0.0);
  double queue_sum = 0;
  int queue_samples = 0;
  for (const auto& smp : out.flow_samples) {
    if (smp.time > 15'000_us) delivered[smp.flow] += static_cast<double>(smp.delivered_bytes);
  }
  for (const auto& smp : out.samples) {
    if (smp.time > 15'000_us) {
      queue_sum += static_cast<double>(smp.queue_bytes);
      ++queue_samples;
    }
  }
  const double fairness = jain(delivered);
  INFO("delivered " << delivered[0] << " / " << delivered[1] << ", Jain " << fairness);
  CHECK(fairness >= 0.95);
  CHECK(queue_sum / queue_samples < 400'000);
  CHECK(out.results["dcqcn"]["rate_decreases"].get<uint64_t>() > 0);
  // The link stays busy: together the flows use most of it.
  CHECK((delivered[0] + delivered[1]) * 8 / 5e-3 > 0.8 * 100e9);
  // Rates stay within [min rate, line rate] in every change.
  for (const auto& c : out.rate_changes) {
    CHECK(c.rate_bps <= kLine);
    CHECK(c.rate_bps >= 1'000'000);
  }
  // Per NIC (nics.csv): the receiver sent every CNP, the two senders received them all.
  REQUIRE(out.nics.size() == 3);  // h0, h1, r
  const uint64_t cnps = out.results["dcqcn"]["cnps_sent"].get<uint64_t>();
  CHECK(out.nics[2].cnps_sent == cnps);
  CHECK(out.nics[0].cnps_received + out.nics[1].cnps_received == cnps);
  CHECK(out.nics[0].cnps_received > 0);
  CHECK(out.nics[1].cnps_received > 0);
  // At most one CNP per QP per 50 us interval: CNPs received <= flows x (span / 50 us + 1).
  CHECK(out.results["dcqcn"]["cnps_sent"].get<uint64_t>() <= 2 * (20'000 / 50 + 1));
}

TEST_CASE("dcqcn: a flow returns to 95 % of line rate within 5 ms after congestion ends",
          "[mechanism][dcqcn][slow]") {
  scen::Json j = bottleneck(2, "dcqcn-paper");
  // A long flow, and a 20 MB one that congests the bottleneck from 1 ms until it completes.
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "r"}, {"size", "1GB"}, {"start", "0us"}},
                            {{"src", "h1"}, {"dst", "r"}, {"size", "20MB"}, {"start", "1ms"}}};
  j["outputs"]["timeseries"] = {{"flows", {0}}, {"interval", "10us"}};
  j["stop"]["time"] = "15ms";
  const auto out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.flows[1].completed);
  const sim::Time ended = out.flows[1].finish;
  CHECK(out.results["dcqcn"]["rate_decreases"].get<uint64_t>() > 0);
  sim::Time recovered = sim::Time::max();
  for (const auto& c : out.rate_changes) {
    if (c.time >= ended && c.rate_bps >= kLine * 95 / 100) {
      recovered = c.time;
      break;
    }
  }
  // The rate limiter may already be above 95 % when the short flow ends.
  for (auto it = out.rate_changes.rbegin(); it != out.rate_changes.rend(); ++it) {
    if (it->time <= ended) {
      if (it->rate_bps >= kLine * 95 / 100) recovered = ended;
      break;
    }
  }
  INFO("short flow ended at " << ended.us() << " us, 95 % reached at " << recovered.us());
  CHECK(recovered - ended <= 5'000_us);
}

TEST_CASE("dcqcn: without ECN marking rates stay at line rate", "[mechanism][dcqcn]") {
  scen::Json j = bottleneck(2, "nvidia-default");
  j["fabric"]["ecn"]["enabled"] = false;
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "r"}, {"size", "20MB"}},
                            {{"src", "h1"}, {"dst", "r"}, {"size", "20MB"}}};
  j["outputs"]["timeseries"] = {{"flows", {0, 1}}, {"interval", "10us"}};
  j["stop"] = {{"until", "workload-done"}};
  const auto out = scen::run_scenario(test_support::load(j));
  CHECK(out.results["dcqcn"]["cnps_sent"] == 0);
  CHECK(out.results["dcqcn"]["rate_decreases"] == 0);
  CHECK(out.rate_changes.empty());
  for (const auto& smp : out.flow_samples) {
    CHECK((smp.rate_limit_bps == 0 || smp.rate_limit_bps == kLine));
  }
  CHECK(out.results["pfc"]["pause_frames"].get<uint64_t>() > 0);  // PFC alone held the queue
}

TEST_CASE("dcqcn: hpcc-ns3 flags the ACK of every marked packet instead of sending CNPs",
          "[mechanism][dcqcn]") {
  scen::Json j = bottleneck(4, "hpcc-ns3");
  j["workload"]["incast"] = {
      {"receiver", "r"}, {"senders", {"h0", "h1", "h2", "h3"}}, {"size", "4MB"}};
  j["stop"] = {{"until", "workload-done"}};
  const auto out = scen::run_scenario(test_support::load(j));
  const auto& d = out.results["dcqcn"];
  CHECK(d["cnps_sent"] == 0);
  const uint64_t ce = out.results["ecn"]["ce_packets_received"].get<uint64_t>();
  CHECK(ce > 0);
  // One flagged ACK per marked packet (every packet is acknowledged; no loss).
  CHECK(d["congestion_flagged_acks"].get<uint64_t>() == ce);
  CHECK(d["rate_decreases"].get<uint64_t>() > 0);
  CHECK(out.results["flows_completed"] == 4);
}

TEST_CASE("dcqcn: the victim of PFC congestion spreading gets its share back with DCQCN",
          "[mechanism][dcqcn][slow]") {
  // roce-victim-flow.json: flow 12 (v -> w) crosses L0's uplink with the four incast flows from
  // L0. Max-min fair shares: the 12 incast flows split r's 100 Gb/s (8.33 each); the victim gets
  // what the four leave of the uplink: 100 - 4 x 8.33 = 66.7 Gb/s.
  const double fair_gbps = 100.0 - 4 * 100.0 / 12;
  auto victim_gbps = [](bool dcqcn) {
    scen::LoadOptions o;
    o.sets = {std::string("fabric.dcqcn.enabled=") + (dcqcn ? "true" : "false")};
    const auto s = scen::load_scenario_file(
        std::string(RDMASIM_SOURCE_DIR) + "/scenarios/roce-victim-flow.json", o);
    const auto out = scen::run_scenario(s);
    // Payload delivered to w over the last 20 ms (after DCQCN's start-up transient).
    uint64_t bytes = 0;
    for (const auto& smp : out.flow_samples) {
      if (out.sampled_flows[smp.flow] == 12 && smp.time > 20'000_us) bytes += smp.delivered_bytes;
    }
    CHECK(out.results["drops"]["lossless"] == 0);
    return static_cast<double>(bytes) * 8 / 20e-3 / 1e9;
  };
  const double pfc_only = victim_gbps(false);
  const double with_dcqcn = victim_gbps(true);
  INFO("victim: PFC only " << pfc_only << " Gb/s, with DCQCN " << with_dcqcn << " Gb/s, fair "
                           << fair_gbps);
  CHECK(pfc_only < 0.5 * fair_gbps);
  CHECK(with_dcqcn >= 0.8 * fair_gbps);
}

TEST_CASE("dcqcn: the shipped RoCE scenarios show what their descriptions say",
          "[mechanism][dcqcn]") {
  const auto run = [](const std::string& name) {
    return scen::run_scenario(
        scen::load_scenario_file(std::string(RDMASIM_SOURCE_DIR) + "/scenarios/" + name));
  };
  // The HPCC peer's incast with a 32 MB buffer: DCQCN alone acts, nothing pauses or drops.
  const auto deep = run("roce-incast-8to1-dcqcn.json");
  CHECK(deep.results["flows_completed"] == 8);
  CHECK(deep.results["dcqcn"]["rate_decreases"].get<uint64_t>() > 0);
  CHECK(deep.results["pfc"]["pause_frames"] == 0);
  CHECK(deep.results["retransmitted_packets"] == 0);
  // With 1 MB, PFC acts too, and still nothing is lost.
  const auto shallow = run("roce-incast-8to1-dcqcn-1mb.json");
  CHECK(shallow.results["flows_completed"] == 8);
  CHECK(shallow.results["pfc"]["pause_frames"].get<uint64_t>() > 0);
  CHECK(shallow.results["drops"]["lossless"] == 0);
  CHECK(shallow.results["retransmitted_packets"] == 0);
  // Lossy: the same 16 -> 1 incast as roce-incast-pfc drops and recovers every byte.
  const auto lossy = run("roce-vs-lossy.json");
  const auto pfc = run("roce-incast-pfc.json");
  CHECK(lossy.results["flows_completed"] == 16);
  CHECK(lossy.results["drops"]["tail"].get<uint64_t>() > 0);
  CHECK(lossy.results["retransmitted_packets"].get<uint64_t>() > 0);
  CHECK(pfc.results["drops"]["tail"] == 0);
  CHECK(pfc.results["retransmitted_packets"] == 0);
  CHECK(pfc.end_time < lossy.end_time);
}
