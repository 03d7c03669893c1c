// The lossy Ethernet baseline: tail drops at a bottleneck, go-back-N recovery, the
// retransmission timeout for a lost tail, conservation of packets and bytes.
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "sim/units.hpp"

namespace {

// n senders and one receiver (h0) on one switch.
scen::Json star(int senders, const std::string& receiver_rate, const std::string& queue_limit) {
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (int h = 0; h <= senders; ++h) {
    t["nodes"].push_back({{"name", "h" + std::to_string(h)}, {"kind", "host"}});
    t["links"].push_back({{"a", "h" + std::to_string(h)},
                          {"b", "sw"},
                          {"rate", h == 0 ? receiver_rate : "100Gbps"},
                          {"latency", "1us"}});
  }
  scen::Json j;
  j["topology"] = t;
  j["fabric"]["switch"] = {{"latency", "300ns"}, {"queue_limit", queue_limit}};
  j["fabric"]["nic"] = {{"mtu", "1000B"}, {"rto", "50us"}};
  return j;
}

uint64_t u(const scen::Json& j) {
  return j.get<uint64_t>();
}

}  // namespace

TEST_CASE("lossy: flows into one bottleneck with tail drop deliver every byte exactly once",
          "[mechanism][lossy]") {
  for (int senders : {2, 8}) {
    scen::Json j = star(senders, "100Gbps", "50KB");
    for (int h = 1; h <= senders; ++h) {
      j["workload"]["flows"].push_back(
          {{"src", "h" + std::to_string(h)}, {"dst", "h0"}, {"size", "300KB"}});
    }
    const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
    INFO(senders << " senders");
    // run_scenario itself throws if a completed flow delivered more or fewer bytes than sent.
    CHECK(u(out.results["flows_completed"]) == static_cast<uint64_t>(senders));
    CHECK(u(out.results["payload_bytes_delivered"]) == static_cast<uint64_t>(senders) * 300'000);
    const uint64_t drops = u(out.results["drops"]["tail"]);
    CHECK(drops > 0);
    // Go-back-N resends every dropped data packet at least once (ACKs travel uncongested).
    CHECK(u(out.results["retransmitted_packets"]) >= drops);
    // The bottleneck never idles while it holds packets (work-conserving), and was busy for
    // at least the time its bytes need at line rate.
    const scen::LinkResult& b = test_support::link_between(out, "sw", "h0");
    CHECK(b.busy.ps >= 99 * (b.busy.ps + b.stalled.ps) / 100);
    CHECK(b.busy.ps == static_cast<int64_t>(b.wire_bytes) * 80);  // 100 Gb/s: 80 ps per byte
    // ... and the queue never exceeded its limit.
    CHECK(b.max_queue_bytes <= 50'000);
  }
}

TEST_CASE("lossy: a dropped last packet is recovered by the retransmission timeout",
          "[mechanism][lossy]") {
  // h2 bursts 100 packets at 100 Gb/s into a 10 Gb/s egress whose queue holds 4 packets; h1's
  // single-packet message arrives while that queue is full. With no later packet there is no
  // gap for the receiver to NACK: only the timeout can recover it.
  scen::Json j = star(2, "10Gbps", "5KB");
  j["workload"]["flows"] = {{{"src", "h2"}, {"dst", "h0"}, {"size", "100KB"}, {"start", "0us"}},
                            {{"src", "h1"}, {"dst", "h0"}, {"size", "1000B"}, {"start", "3us"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  const scen::FlowResult& tail = out.flows[1];
  REQUIRE(tail.completed);
  CHECK(tail.timeouts >= 1);
  CHECK(tail.retransmitted_packets >= 1);
  CHECK(tail.fct >= sim::parse_time("50us"));
  CHECK(out.flows[0].completed);
}

TEST_CASE("lossy: packets are conserved: created = consumed + dropped + in flight",
          "[mechanism][lossy]") {
  scen::Json j = star(8, "100Gbps", "30KB");
  for (int h = 1; h <= 8; ++h) {
    j["workload"]["flows"].push_back(
        {{"src", "h" + std::to_string(h)}, {"dst", "h0"}, {"size", "2MB"}});
  }
  for (const char* stop : {"40us", "1s"}) {  // cut mid-run (packets in flight) and to the end
    j["stop"] = {{"until", "time"}, {"time", stop}};
    const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
    const auto& r = out.results;
    const uint64_t dropped = u(r["drops"]["tail"]) + u(r["drops"]["ttl"]) +
                             u(r["drops"]["no_route"]) + u(r["drops"]["link_loss"]);
    INFO("stop at " << stop);
    CHECK(u(out.counters["packets_created"]) ==
          u(out.counters["packets_consumed"]) + dropped + u(r["packets_in_flight_at_end"]));
    if (std::string(stop) == "40us") CHECK(u(r["packets_in_flight_at_end"]) > 0);
    CHECK(dropped > 0);
  }
}

TEST_CASE("lossy: random link loss is recovered and counted", "[mechanism][lossy]") {
  scen::Json j = star(1, "100Gbps", "0B");
  j["fabric"]["link"] = {{"loss_rate", 0.01}};
  j["workload"]["flows"] = {{{"src", "h1"}, {"dst", "h0"}, {"size", "1MB"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  CHECK(u(out.results["flows_completed"]) == 1);
  const uint64_t lost = u(out.results["drops"]["link_loss"]);
  CHECK(lost > 0);
  // ~1000 data packets + ~1000 ACKs each crossing two links at 1 %: tens of losses, not hundreds.
  CHECK(lost < 200);
  CHECK(u(out.results["retransmitted_packets"]) > 0);
}

TEST_CASE("lossy: a routing loop drains through the TTL", "[mechanism][lossy]") {
  // Explicit route bouncing between two switches longer than the hop limit allows.
  scen::Json t;
  t["nodes"] = {{{"name", "h0"}, {"kind", "host"}},
                {{"name", "h1"}, {"kind", "host"}},
                {{"name", "s1"}, {"kind", "switch"}},
                {{"name", "s2"}, {"kind", "switch"}}};
  t["links"] = {{{"a", "h0"}, {"b", "s1"}, {"rate", "100Gbps"}, {"latency", "1us"}},
                {{"a", "s1"}, {"b", "s2"}, {"rate", "100Gbps"}, {"latency", "1us"}},
                {{"a", "s2"}, {"b", "h1"}, {"rate", "100Gbps"}, {"latency", "1us"}}};
  scen::Json route = scen::Json::array();
  for (int k = 0; k < 10; ++k) {
    route.push_back("s1");
    route.push_back("s2");
  }
  scen::Json j;
  j["topology"] = t;
  j["fabric"]["nic"] = {{"ttl", 8}, {"rto", "20us"}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "8KB"}, {"route", route}}};
  j["stop"] = {{"until", "time"}, {"time", "100us"}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  CHECK(u(out.results["flows_completed"]) == 0);
  CHECK(u(out.results["drops"]["ttl"]) > 0);
  CHECK(u(out.results["packets_in_flight_at_end"]) <= 2);  // nothing circulates for ever
}
