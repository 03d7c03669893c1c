// ECN marking (RFC 3168, RED-style): the fraction marked at each queue depth follows the RED
// curve; nothing below Kmin; non-ECT packets are never marked.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/link.hpp"
#include "models/roce/ecn_marker.hpp"
#include "models/roce/pfc_gate.hpp"
#include "scenario_helpers.hpp"

namespace {

struct Sink final : models::PacketReceiver {
  models::PacketPool& pool;
  explicit Sink(models::PacketPool& p) : pool(p) {}
  void receive(models::PacketHandle h, uint16_t) override { pool.release(h); }
};

uint64_t u(const scen::Json& j) {
  return j.get<uint64_t>();
}

}  // namespace

TEST_CASE("ecn: marks follow the RED curve of the queue each packet joins", "[ecn]") {
  using namespace sim::literals;
  sim::Simulator sim(7);
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  Sink sink(pool);
  models::Link wire(ctx, 1_us, 0.0, 1, &sink, 0, sim::Time(0), true);
  models::EgressPort port(ctx, 100'000'000'000, 0);
  port.connect(&wire);
  // Hold the class with a pause so that the queue grows by one packet per enqueue.
  models::PfcGate gate(ctx, port, sim::Time(0));
  port.set_gate(&gate);
  gate.on_pause_frame(3, 65535);
  models::EcnParams params;
  params.enabled = true;
  params.kmin_bytes = 100'000;
  params.kmax_bytes = 400'000;
  params.pmax = 0.3;
  models::EcnMarker marker(ctx, params, 99);
  port.set_marker(&marker);

  // Many passes over the same depths: the expected count is the sum of the RED probabilities.
  const int passes = 40, per_pass = 500, wire_bytes = 1000;
  double expected = 0, variance = 0;
  uint64_t marked = 0, marked_below_kmin = 0, non_ect_marked = 0;
  for (int pass = 0; pass < passes; ++pass) {
    std::vector<models::PacketHandle> handles;
    for (int i = 0; i < per_pass; ++i) {
      const models::PacketHandle h = pool.alloc();
      models::Packet& p = pool[h];
      p.priority = 3;
      p.wire_bytes = wire_bytes;
      p.ecn = i % 10 == 9 ? models::Ecn::NotEct : models::Ecn::Ect0;
      const int64_t depth = static_cast<int64_t>(port.queue_bytes(3));
      port.enqueue(h, p);
      handles.push_back(h);
      if (p.ecn == models::Ecn::NotEct) continue;
      const double prob = marker.probability(depth);
      expected += prob;
      variance += prob * (1 - prob);
    }
    for (size_t i = 0; i < handles.size(); ++i) {
      const models::Packet& p = pool[handles[i]];
      const int64_t depth = static_cast<int64_t>(i) * wire_bytes;
      if (p.ecn == models::Ecn::Ce) {
        ++marked;
        if (depth <= params.kmin_bytes) ++marked_below_kmin;
        if (i % 10 == 9) ++non_ect_marked;
      }
    }
    // Release the queue and start again from empty.
    gate.on_pause_frame(3, 0);
    sim.run();
    gate.on_pause_frame(3, 65535);
  }
  CHECK(marked_below_kmin == 0);
  CHECK(non_ect_marked == 0);
  CHECK(marker.marks() == marked);
  // Within 4 standard deviations of the binomial sum (fixed seed).
  INFO("marked " << marked << " expected " << expected << " sd " << std::sqrt(variance));
  CHECK(std::abs(static_cast<double>(marked) - expected) <= 4 * std::sqrt(variance));
  CHECK(marked > 0);
}

TEST_CASE("ecn: an incast marks packets at the bottleneck and none without ECN", "[ecn]") {
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (int h = 0; h <= 4; ++h) {
    t["nodes"].push_back({{"name", "h" + std::to_string(h)}, {"kind", "host"}});
    t["links"].push_back(
        {{"a", "h" + std::to_string(h)}, {"b", "sw"}, {"rate", "100Gbps"}, {"latency", "1us"}});
  }
  scen::Json j;
  j["topology"] = t;
  j["fabric"]["pfc"] = {{"enabled", true}, {"xoff", "200KB"}};
  j["fabric"]["ecn"] = {{"enabled", true}, {"kmin", "20KB"}, {"kmax", "100KB"}, {"pmax", 0.1}};
  j["workload"]["incast"] = {
      {"receiver", "h0"}, {"senders", {"h1", "h2", "h3", "h4"}}, {"size", "1MB"}};
  const scen::RunOutcome on = scen::run_scenario(test_support::load(j));
  const uint64_t marks = u(on.results["ecn"]["marks"]);
  CHECK(marks > 0);
  CHECK(u(on.results["ecn"]["ce_packets_received"]) == marks);  // every mark reaches the receiver
  uint64_t at_bottleneck = 0;
  for (const auto& l : on.links) {
    if (l.from == "sw" && l.to == "h0") at_bottleneck = l.ecn_marks;
  }
  CHECK(at_bottleneck == marks);
  j["fabric"]["ecn"]["enabled"] = false;
  const scen::RunOutcome off = scen::run_scenario(test_support::load(j));
  CHECK_FALSE(off.results.contains("ecn"));
}
