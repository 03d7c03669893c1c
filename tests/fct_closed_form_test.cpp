// A single flow on an unloaded path completes exactly when the pipeline recursion says, to the
// picosecond: D(i, j) = max(D(i, j-1) + d_j, D(i-1, j)) + s_j(i), plus the ACK's return.
// The oracle below is written from that formula, independently of models/ideal_fct.cpp.
#include <catch2/catch.hpp>

#include "models/ideal_fct.hpp"
#include "scenario_helpers.hpp"
#include "sim/rng.hpp"
#include "sim/units.hpp"

namespace {

using sim::Time;

int64_t ser_ps(int64_t bytes, int64_t rate_bps) {
  const __int128 num = static_cast<__int128>(bytes) * 8 * 1000000000000LL;
  return static_cast<int64_t>((num + rate_bps - 1) / rate_bps);
}

struct Path {
  std::vector<int64_t> rate;  // per hop, bits/s
  std::vector<int64_t> prop;  // per hop, ps
  int64_t switch_latency = 0;
  bool cut_through = true;
};

// Time from post until the receiver has the last bit of the last packet; and the ACK's trip.
// start(i,j): first bit of packet i leaves hop j's sender; D(i,j) = start + s_j(i).
int64_t delivery(const Path& p, const std::vector<int64_t>& wire) {
  const size_t h = p.rate.size();
  std::vector<int64_t> d_prev(h, 0);  // D(i-1, j)
  int64_t deliver = 0;
  for (size_t i = 0; i < wire.size(); ++i) {
    int64_t start_prev = 0, d_hop_prev = 0;
    for (size_t j = 0; j < h; ++j) {
      const int64_t s = ser_ps(wire[i], p.rate[j]);
      int64_t ready;
      if (j == 0) {
        ready = 0;
      } else if (p.cut_through && p.rate[j] <= p.rate[j - 1]) {
        ready = start_prev + p.prop[j - 1] + p.switch_latency;  // first bit in + latency
      } else {
        ready = d_hop_prev + p.prop[j - 1] + p.switch_latency;  // last bit in + latency
      }
      const int64_t start = std::max(ready, d_prev[j]);
      d_prev[j] = start + s;
      start_prev = start;
      d_hop_prev = start + s;
    }
    deliver = d_hop_prev + p.prop[h - 1];
  }
  return deliver;
}

struct Case {
  std::vector<std::string> rates;
  std::string latency;
  bool cut_through;
  int64_t bytes;
};

void check_case(const Case& c) {
  const int64_t mtu = 1000, header = 62, framing = 20, ack_wire = 62 + 4 + 20;
  std::vector<std::string> lats(c.rates.size(), "1us");
  scen::Json j;
  j["name"] = "closed-form";
  j["topology"] = test_support::chain_topology(c.rates, lats);
  j["fabric"]["switch"] = {{"latency", c.latency},
                           {"forwarding", c.cut_through ? "cut-through" : "store-and-forward"}};
  // Only the last packet is acknowledged: the final ACK never queues behind earlier ones.
  j["fabric"]["nic"] = {{"mtu", "1000B"}, {"ack_every", 1 << 20}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", c.bytes}, {"start", "3us"}}};
  const scen::Scenario s = test_support::load(j);
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.flows.size() == 1);
  REQUIRE(out.flows[0].completed);

  Path fwd, rev;
  for (size_t i = 0; i < c.rates.size(); ++i) {
    fwd.rate.push_back(sim::parse_rate_bps(c.rates[i]));
    fwd.prop.push_back(1'000'000);
  }
  rev.rate.assign(fwd.rate.rbegin(), fwd.rate.rend());
  rev.prop = fwd.prop;
  fwd.switch_latency = rev.switch_latency = sim::parse_time(c.latency).ps;
  fwd.cut_through = rev.cut_through = c.cut_through;
  std::vector<int64_t> wire;
  for (int64_t left = c.bytes; left > 0; left -= mtu)
    wire.push_back(std::min(left, mtu) + header + framing);
  const int64_t expected = delivery(fwd, wire) + delivery(rev, {ack_wire});
  INFO("rates " << c.rates.size() << " hops, bytes " << c.bytes << ", cut-through "
                << c.cut_through);
  CHECK(out.flows[0].fct.ps == expected);
  // The ideal FCT reported in flows.csv is the same closed form.
  CHECK(out.flows[0].ideal_fct.ps == expected);
}

}  // namespace

TEST_CASE("engine: single unloaded flow FCT equals the pipeline closed form",
          "[mechanism][engine][fct]") {
  const std::vector<std::vector<std::string>> rate_sets = {
      {"100Gbps", "100Gbps"},                                // one switch, equal rates
      {"100Gbps", "100Gbps", "100Gbps", "100Gbps"},          // three switches
      {"100Gbps", "40Gbps", "25Gbps"},                       // slowing down
      {"25Gbps", "100Gbps", "400Gbps"},                      // speeding up: CT falls back
      {"100Gbps", "37Gbps", "100Gbps", "13Gbps", "61Gbps"},  // rates that do not divide
  };
  for (const auto& rates : rate_sets) {
    for (bool ct : {true, false}) {
      for (int64_t bytes : {int64_t{1}, int64_t{1000}, int64_t{4500}, int64_t{100'001}}) {
        check_case({rates, "450ns", ct, bytes});
      }
    }
  }
}

TEST_CASE("engine: zero switching latency and store-and-forward differ by the serialisations",
          "[mechanism][engine][fct]") {
  // Store-and-forward adds one serialisation per switch for a single packet; cut-through adds
  // none. A mechanism check: removing the last-bit wait would make these equal.
  auto fct = [](bool ct) {
    scen::Json j;
    j["topology"] =
        test_support::chain_topology({"100Gbps", "100Gbps", "100Gbps"}, {"1us", "1us", "1us"});
    j["fabric"]["switch"] = {{"latency", "0ns"},
                             {"forwarding", ct ? "cut-through" : "store-and-forward"}};
    j["fabric"]["nic"] = {{"mtu", "1000B"}};
    j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", 1000}}};
    return scen::run_scenario(test_support::load(j)).flows[0].fct.ps;
  };
  const int64_t data_ser = ser_ps(1000 + 82, 100'000'000'000);
  const int64_t ack_ser = ser_ps(86, 100'000'000'000);
  CHECK(fct(false) - fct(true) == 2 * data_ser + 2 * ack_ser);
}

TEST_CASE("ideal FCT: the pipeline closed form equals the packet-by-packet recursion",
          "[mechanism][engine][fct]") {
  // Random paths (rates that do not divide, mixed cut-through and store-and-forward hops, per-hop
  // latencies) and packet counts; the oracle steps every packet through every hop.
  auto recursion = [](const std::vector<models::PathHop>& hops, int64_t packets, int64_t full,
                      int64_t last) {
    std::vector<int64_t> end_prev(hops.size(), 0);
    int64_t delivered = 0;
    for (int64_t i = 0; i < packets; ++i) {
      const int64_t wire = i + 1 == packets ? last : full;
      int64_t start = 0, ser = 0;
      for (size_t j = 0; j < hops.size(); ++j) {
        const int64_t ser_j = ser_ps(wire, hops[j].rate_bps);
        int64_t ready = 0;
        if (j > 0) {
          const models::PathHop& in = hops[j - 1];
          const bool wait_last = in.receiver_waits_last_bit || hops[j].rate_bps > in.rate_bps;
          ready = start + in.propagation.ps + in.receiver_latency.ps + (wait_last ? ser : 0);
        }
        start = std::max(ready, end_prev[j]);
        end_prev[j] = start + ser_j;
        ser = ser_j;
      }
      delivered = start + hops.back().propagation.ps + hops.back().receiver_latency.ps + ser;
    }
    return delivered;
  };
  sim::Rng rng(7);
  const int64_t rates[] = {25'000'000'000, 37'000'000'000, 100'000'000'000, 200'000'000'000,
                           400'000'000'000};
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<models::PathHop> hops(1 + rng.below(5));
    for (auto& hop : hops) {
      hop.rate_bps = rates[rng.below(5)];
      hop.propagation = Time(static_cast<int64_t>(rng.below(2'000'000)));
      hop.receiver_latency = Time(static_cast<int64_t>(rng.below(700'000)));
      hop.receiver_waits_last_bit = rng.below(3) == 0;
    }
    const int64_t packets = static_cast<int64_t>(rng.below(300));  // 0 .. 299
    const int64_t full = 1000 + static_cast<int64_t>(rng.below(4000));
    const int64_t last = 64 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(full)));
    INFO("trial " << trial << ": " << hops.size() << " hops, " << packets << " packets");
    CHECK(models::pipeline_delivery_time(hops, packets, full, last).ps ==
          recursion(hops, packets, full, last));
  }
}
