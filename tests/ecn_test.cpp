// ECN marking (RFC 3168, RED-style): the fraction marked at each queue depth follows the RED
// curve; nothing below Kmin; non-ECT packets are never marked.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/link.hpp"
#include "models/roce/ecn_marker.hpp"
#include "models/roce/pfc_gate.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"

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

TEST_CASE("ecn: marks follow the RED curve of the queue each packet joins", "[mechanism][ecn]") {
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
      const double prob = marker.probability(3, depth);
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

TEST_CASE("ecn: an incast marks packets at the bottleneck and none without ECN",
          "[mechanism][ecn]") {
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

TEST_CASE("ecn: two priorities on one port each follow their own RED curve", "[mechanism][ecn]") {
  using namespace sim::literals;
  // Fabric default: Kmin 100 KB, Kmax 400 KB, Pmax 0.3. An override gives priority 5 of one
  // port of s1 a shallower curve: Kmin 20 KB, Kmax 200 KB, Pmax 0.5.
  scen::Json j;
  j["topology"] =
      test_support::chain_topology({"100Gbps", "100Gbps", "100Gbps"}, {"1us", "1us", "1us"});
  j["fabric"]["ecn"] = {{"enabled", true}, {"kmin", "100KB"}, {"kmax", "400KB"}, {"pmax", 0.3}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1KB"}}};
  j["overrides"] = {{{"switch", "s1"},
                     {"port", 1},
                     {"priority", 5},
                     {"set", {{"ecn", {{"kmin", "20KB"}, {"kmax", "200KB"}, {"pmax", 0.5}}}}}}};
  const scen::Scenario s = test_support::load(j);
  sim::Simulator build_sim(1);
  const auto net = scen::build_network(s, build_sim);
  const int s1 = s.fabric.node_by_name("s1"), s2 = s.fabric.node_by_name("s2");
  const models::EcnMarker* overridden = nullptr;
  for (size_t i = 0; i < net->links.size(); ++i) {
    const topo::Link& l = s.fabric.topo.links[i / 2];
    const int from = i % 2 == 0 ? l.a : l.b, port = i % 2 == 0 ? l.a_port : l.b_port;
    if (from != s1 && from != s2) continue;
    const models::EcnMarker* m = net->link_marker[i];
    REQUIRE(m != nullptr);
    const bool target = from == s1 && port == 1;
    if (target) overridden = m;
    INFO("switch node " << from << " port " << port);
    // Only the targeted (port, priority) differs; s2 and s1's other port keep the default.
    CHECK(m->curve(5).kmin_bytes == (target ? 20'000 : 100'000));
    CHECK(m->curve(5).kmax_bytes == (target ? 200'000 : 400'000));
    CHECK(m->curve(5).pmax == (target ? 0.5 : 0.3));
    CHECK(m->curve(3).kmin_bytes == 100'000);
    CHECK(m->curve(3).pmax == 0.3);
  }
  REQUIRE(overridden != nullptr);

  // Hold both classes of a port whose marker has the two resolved curves, and fill them
  // alternately: each class's marks follow its own curve at its own depth.
  sim::Simulator sim(11);
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  Sink sink(pool);
  models::Link wire(ctx, 1_us, 0.0, 1, &sink, 0, sim::Time(0), true);
  models::EgressPort port(ctx, 100'000'000'000, 0);
  port.connect(&wire);
  models::PfcGate gate(ctx, port, sim::Time(0));
  port.set_gate(&gate);
  models::EcnMarker marker(ctx, s.ecn, 99);
  for (uint8_t p = 0; p < models::kPriorities; ++p) marker.set_curve(p, overridden->curve(p));
  port.set_marker(&marker);
  const uint8_t classes[2] = {3, 5};
  const int passes = 40, per_class = 450, wire_bytes = 1000;
  double expected[2] = {0, 0}, variance[2] = {0, 0};
  uint64_t marked[2] = {0, 0}, below_kmin[2] = {0, 0};
  for (int pass = 0; pass < passes; ++pass) {
    for (uint8_t c : classes) gate.on_pause_frame(c, 65535);
    std::vector<std::pair<int, models::PacketHandle>> sent;  // (class index, handle)
    std::vector<int64_t> depths;
    for (int i = 0; i < 2 * per_class; ++i) {
      const int k = i % 2;
      const models::PacketHandle h = pool.alloc();
      models::Packet& p = pool[h];
      p.priority = classes[k];
      p.wire_bytes = wire_bytes;
      p.ecn = models::Ecn::Ect0;
      const auto depth = static_cast<int64_t>(port.queue_bytes(classes[k]));
      port.enqueue(h, p);
      sent.emplace_back(k, h);
      depths.push_back(depth);
      const double prob = marker.probability(classes[k], depth);
      expected[k] += prob;
      variance[k] += prob * (1 - prob);
    }
    for (size_t i = 0; i < sent.size(); ++i) {
      const auto [k, h] = sent[i];
      if (pool[h].ecn != models::Ecn::Ce) continue;
      ++marked[k];
      if (depths[i] <= marker.curve(classes[k]).kmin_bytes) ++below_kmin[k];
    }
    for (uint8_t c : classes) gate.on_pause_frame(c, 0);
    sim.run();
  }
  for (int k = 0; k < 2; ++k) {
    INFO("priority " << int{classes[k]} << ": marked " << marked[k] << ", expected " << expected[k]
                     << ", sd " << std::sqrt(variance[k]));
    CHECK(below_kmin[k] == 0);
    CHECK(std::abs(static_cast<double>(marked[k]) - expected[k]) <= 4 * std::sqrt(variance[k]));
  }
  // The shallow class marks far more at the same depths (up to 450 KB each).
  CHECK(marked[1] > 2 * marked[0]);
  CHECK(marked[0] > 0);
}

TEST_CASE("ecn: an override can enable marking on one switch only", "[mechanism][ecn]") {
  scen::Json j;
  j["topology"] =
      test_support::chain_topology({"100Gbps", "100Gbps", "100Gbps"}, {"1us", "1us", "1us"});
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1KB"}}};
  j["overrides"] = {{{"switch", "s2"}, {"set", {{"ecn", {{"enabled", true}, {"kmin", "10KB"}}}}}}};
  const scen::Scenario s = test_support::load(j);
  sim::Simulator sim(1);
  const auto net = scen::build_network(s, sim);
  const int s2 = s.fabric.node_by_name("s2");
  for (size_t i = 0; i < net->links.size(); ++i) {
    const topo::Link& l = s.fabric.topo.links[i / 2];
    const int from = i % 2 == 0 ? l.a : l.b;
    INFO("link direction " << i);
    if (from == s2) {
      REQUIRE(net->link_marker[i] != nullptr);
      CHECK(net->link_marker[i]->curve(3).enabled);
      CHECK(net->link_marker[i]->curve(3).kmin_bytes == 10'000);
      CHECK(net->link_marker[i]->curve(3).kmax_bytes == 1'600'000);  // fabric default
    } else {
      CHECK(net->link_marker[i] == nullptr);  // ECN is off elsewhere
    }
  }
}
