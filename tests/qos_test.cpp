// Traffic classes: DWRR shares by weight, strict priority over DWRR, a PFC-paused class that
// does not block the other weighted class, DSCP classification at NICs and switches, and
// per-class counters.
#include <catch2/catch.hpp>

#include "models/link.hpp"
#include "models/network.hpp"
#include "models/roce/pfc_gate.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"
#include "scenarios/outputs/write_outputs.hpp"

namespace {

// Senders h0.. and receiver hR on one switch "sw", every link 100 Gb/s and 1 us; one 8 MB
// flow per sender at the given priority, all starting at 0, run for 300 us: every sender is
// still busy then, so the switch port towards hR is saturated by all classes together
// (3.75 MB queue per sender at most, far below the 32 MB buffer: nothing is dropped).
scen::Json star(const std::vector<int>& priorities) {
  const int n = static_cast<int>(priorities.size());
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (int h = 0; h <= n; ++h) {
    const std::string name = h == n ? "hR" : "h" + std::to_string(h);
    t["nodes"].push_back({{"name", name}, {"kind", "host"}});
    t["links"].push_back({{"a", name}, {"b", "sw"}, {"rate", "100Gbps"}, {"latency", "1us"}});
  }
  scen::Json j;
  j["topology"] = t;
  for (int h = 0; h < n; ++h) {
    j["workload"]["flows"].push_back({{"src", "h" + std::to_string(h)},
                                      {"dst", "hR"},
                                      {"size", "8MB"},
                                      {"priority", priorities[h]}});
  }
  j["stop"] = {{"until", "time"}, {"time", "300us"}};
  return j;
}

// Share of class c in the wire bytes the bottleneck sw -> hR carried.
double share(const scen::LinkResult& l, int c) {
  uint64_t total = 0;
  for (auto b : l.class_wire_bytes) total += b;
  return total == 0 ? 0.0 : static_cast<double>(l.class_wire_bytes[c]) / total;
}

struct Sink final : models::PacketReceiver {
  models::PacketPool& pool;
  std::vector<uint8_t> classes;  // priority of each packet, in arrival order
  std::vector<int64_t> times;
  sim::Simulator& sim;
  Sink(models::PacketPool& p, sim::Simulator& s) : pool(p), sim(s) {}
  void receive(models::PacketHandle h, uint16_t) override {
    classes.push_back(pool[h].priority);
    times.push_back(sim.now().ps);
    pool.release(h);
  }
};

}  // namespace

TEST_CASE("qos: DWRR weights 1:3 share a saturated bottleneck 25 % / 75 %", "[mechanism][qos]") {
  scen::Json j = star({1, 2});
  j["fabric"]["qos"]["scheduler"] = {{"1", 1}, {"2", 3}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  const auto& bottleneck = test_support::link_between(out, "sw", "hR");
  CHECK(bottleneck.tail_drops == 0);
  // Busy all along after the first packet: 300 us at 100 Gb/s less the first packet's trip.
  CHECK(bottleneck.busy.ps > 295'000'000);
  // DRR's bound: each class is within one quantum (one frame) of its share per round; over
  // ~900 frames the shares are exact to well under 1 %.
  CHECK(share(bottleneck, 1) == Approx(0.25).margin(0.005));
  CHECK(share(bottleneck, 2) == Approx(0.75).margin(0.005));

  // The same schedule through an override of that one port (sw port 2 faces hR) ...
  scen::Json per_port = star({1, 2});
  per_port["overrides"] = {
      {{"switch", "sw"}, {"port", 2}, {"set", {{"scheduler", {{"1", 1}, {"2", 3}}}}}}};
  const scen::RunOutcome po = scen::run_scenario(test_support::load(per_port));
  CHECK(share(test_support::link_between(po, "sw", "hR"), 1) == Approx(0.25).margin(0.005));
  // ... and per priority, with the weights reversed.
  scen::Json per_prio = star({1, 2});
  per_prio["fabric"]["qos"]["scheduler"] = {{"1", 1}, {"2", 3}};
  per_prio["overrides"] = {{{"switch", "sw"}, {"priority", 1}, {"set", {{"scheduler", 9}}}}};
  const scen::RunOutcome pp = scen::run_scenario(test_support::load(per_prio));
  CHECK(share(test_support::link_between(pp, "sw", "hR"), 1) == Approx(0.75).margin(0.005));

  // Deterministic: the same run again gives the same per-class counts.
  const scen::RunOutcome again = scen::run_scenario(test_support::load(j));
  CHECK(scen::classes_csv(again) == scen::classes_csv(out));
  CHECK(scen::links_csv(again) == scen::links_csv(out));
}

TEST_CASE("qos: strict priority starves lower classes while the higher one is saturated",
          "[mechanism][qos]") {
  // Default schedule (all strict): class 5 takes the link, class 2 gets nothing but the first
  // packet or two that arrive before class 5's queue has formed.
  const scen::RunOutcome all_strict = scen::run_scenario(test_support::load(star({2, 5})));
  const auto& b = test_support::link_between(all_strict, "sw", "hR");
  CHECK(share(b, 5) > 0.99);
  CHECK(b.class_packets[2] <= 2);

  // A strict class over a DWRR group: the weighted classes share only what it leaves (nothing).
  scen::Json j = star({1, 2, 6});
  j["fabric"]["qos"]["scheduler"] = {{"1", 1}, {"2", 3}};
  const scen::RunOutcome mixed = scen::run_scenario(test_support::load(j));
  const auto& m = test_support::link_between(mixed, "sw", "hR");
  CHECK(share(m, 6) > 0.99);
  CHECK(m.class_packets[1] + m.class_packets[2] <= 3);
}

TEST_CASE("qos: a class paused by PFC does not block the other DWRR class, nor bank credit",
          "[mechanism][qos][pfc]") {
  using namespace sim::literals;
  sim::Simulator sim(1);
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  Sink sink(pool, sim);
  const int64_t rate = 100'000'000'000;
  models::Link wire(ctx, 1_us, 0.0, 1, &sink, 0, sim::Time(0), true);
  models::EgressPort port(ctx, rate, 0);
  port.connect(&wire);
  models::PfcGate gate(ctx, port, sim::Time(0));
  port.set_gate(&gate);
  const uint32_t frame = 4178;  // 4 KiB payload + RoCEv2 headers + framing
  models::ClassSchedule sched;
  sched.weight[1] = 1;
  sched.weight[2] = 3;
  sched.quantum_bytes = frame;
  port.set_schedule(sched);
  // Class 1 is paused for 3000 quanta (3000 x 512 bit times) from time 0.
  gate.on_pause_frame(1, 3000);
  const int per_class = 200;
  for (int i = 0; i < 2 * per_class; ++i) {
    const models::PacketHandle h = pool.alloc();
    pool[h].priority = static_cast<uint8_t>(i % 2 == 0 ? 1 : 2);
    pool[h].wire_bytes = frame;
    port.enqueue(h, pool[h]);
  }
  sim.run();
  REQUIRE(sink.classes.size() == 2 * per_class);
  const int64_t ser = sim::serialization_time(frame, rate).ps;
  const int64_t hold = sim::serialization_time(3000 * 64, rate).ps;
  // Work-conserving: class 2 kept the link busy during the pause, so the last packet arrives
  // after exactly 400 back-to-back frames (plus the cable).
  CHECK(sink.times.back() == 2 * per_class * ser + 1'000'000);
  CHECK(port.stats().stalled_time.ps == 0);
  // Class 1's first packet starts at the first frame boundary after the pause, or within
  // class 2's current turn (3 frames) of it.
  size_t first1 = 0;
  while (sink.classes[first1] != 1) ++first1;
  const size_t boundary = static_cast<size_t>((hold + ser - 1) / ser);
  CHECK(first1 >= boundary);
  CHECK(first1 <= boundary + 3);
  // From then on, 1:3: class 1 earned no credit while paused, so it does not burst.
  int class1 = 0;
  for (size_t k = first1; k < first1 + 80; ++k) class1 += sink.classes[k] == 1 ? 1 : 0;
  CHECK(class1 >= 19);
  CHECK(class1 <= 21);
  CHECK(port.stats().class_packets[1] == per_class);
  CHECK(port.stats().class_wire_bytes[2] == uint64_t{per_class} * frame);
}

TEST_CASE("qos: DWRR deficit counters follow Shreedhar and Varghese", "[mechanism][qos]") {
  models::ClassSchedule s;
  s.weight[0] = 1;
  s.weight[4] = 2;
  s.quantum_bytes = 1000;
  models::DwrrScheduler d;
  d.configure(s);
  const auto head = [](int) { return int64_t{600}; };
  // Class 0's turn: +1000, sends 600 (400 left, less than a head: the turn passes).
  CHECK(d.next(0b10001, head) == 0);
  d.on_sent(0, 600, false);
  CHECK(d.deficit(0) == 400);
  // Class 4: +2000, three packets (1800), then 200 left.
  for (int k = 0; k < 3; ++k) {
    CHECK(d.next(0b10001, head) == 4);
    d.on_sent(4, 600, false);
  }
  CHECK(d.deficit(4) == 200);
  // Back to class 0: 400 + 1000 = 1400, two packets; the second empties it: deficit reset.
  CHECK(d.next(0b10001, head) == 0);
  d.on_sent(0, 600, false);
  CHECK(d.next(0b10001, head) == 0);
  d.on_sent(0, 600, true);
  CHECK(d.deficit(0) == 0);
  // Class 4 alone (class 0 empty or held): it keeps the link, a quantum per round.
  CHECK(d.next(0b10000, head) == 4);
  CHECK(d.deficit(4) == 2200);
}

TEST_CASE("qos: DSCP picks the priority at the NIC, and at switches that trust DSCP",
          "[mechanism][qos]") {
  scen::Json j = star({3, 3});
  j["fabric"]["qos"] = {{"trust", "dscp"}, {"dscp_to_priority", {{"10", 5}}}};
  j["workload"]["flows"][0].erase("priority");
  j["workload"]["flows"][0]["dscp"] = 10;
  j["workload"]["flows"][0]["size"] = "400KB";
  j["workload"]["flows"][1]["priority"] = 4;
  j["workload"]["flows"][1]["size"] = "400KB";
  j["stop"] = {{"until", "workload-done"}};
  const scen::Scenario s = test_support::load(j);
  CHECK(s.flows[0].priority == 5);
  CHECK(s.flows[0].dscp == 10);
  CHECK(s.flows[1].priority == 4);
  CHECK(s.flows[1].dscp == 32);  // the lowest DSCP the table maps to 4
  const scen::RunOutcome out = scen::run_scenario(s);
  const uint64_t packets = (400'000 + 4095) / 4096;
  const auto& b = test_support::link_between(out, "sw", "hR");
  CHECK(b.class_packets[5] == packets);
  CHECK(b.class_packets[4] == packets);
  CHECK(b.class_packets[3] == 0);
  // ACKs travel back in their own class (7).
  CHECK(test_support::link_between(out, "hR", "sw").class_packets[7] > 0);
  CHECK(test_support::link_between(out, "hR", "sw").class_packets[7] ==
        test_support::link_between(out, "sw", "h0").class_packets[7] +
            test_support::link_between(out, "sw", "h1").class_packets[7]);

  // A switch that trusts DSCP reclassifies a packet whose tag disagrees with its DSCP; one
  // that trusts the tag keeps it.
  for (const std::string trust : {"dscp", "pcp"}) {
    j["fabric"]["qos"]["trust"] = trust;
    const scen::Scenario sc = test_support::load(j);
    sim::Simulator sim(1);
    auto net = scen::build_network(sc, sim);
    const models::PacketHandle h = net->pool.alloc();
    models::Packet& p = net->pool[h];
    p.src_host = 0;
    p.dst_host = 2;  // hR
    p.dscp = 10;
    p.priority = 0;
    p.wire_bytes = 1000;
    net->switches[0]->receive(h, 0);  // from h0
    const auto& egress = net->switches[0]->port(2).stats();
    INFO("trust " << trust);
    CHECK(egress.class_packets[trust == "dscp" ? 5 : 0] == 1);
  }
}
