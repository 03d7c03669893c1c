// PFC (IEEE 802.1Qbb): lossless incast, exact pause timing, pause propagation hop by hop,
// headroom admission, determinism.
#include <algorithm>
#include <catch2/catch.hpp>

#include "models/link.hpp"
#include "models/roce/pfc_gate.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "sim/units.hpp"

namespace {

uint64_t u(const scen::Json& j) {
  return j.get<uint64_t>();
}

// n senders and receiver h0 on one switch; PFC on priority 3.
scen::Json incast(int senders, bool pfc, const std::string& rate = "100Gbps",
                  const std::string& cable = "10m") {
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (int h = 0; h <= senders; ++h) {
    t["nodes"].push_back({{"name", "h" + std::to_string(h)}, {"kind", "host"}});
    t["links"].push_back(
        {{"a", "h" + std::to_string(h)}, {"b", "sw"}, {"rate", rate}, {"cable", cable}});
  }
  scen::Json j;
  j["topology"] = t;
  j["fabric"]["switch"] = {{"latency", "500ns"}, {"buffer", "4MB"}, {"queue_limit", "500KB"}};
  j["fabric"]["nic"] = {{"mtu", "4KiB"}, {"rto", "200us"}};
  j["fabric"]["pfc"] = {
      {"enabled", pfc}, {"priorities", {3}}, {"xoff", "40KB"}, {"xon_offset", "8KB"}};
  for (int h = 1; h <= senders; ++h) {
    j["workload"]["flows"].push_back(
        {{"src", "h" + std::to_string(h)}, {"dst", "h0"}, {"size", "500KB"}});
  }
  return j;
}

struct Sink final : models::PacketReceiver {
  models::PacketPool& pool;
  std::vector<std::pair<int64_t, uint32_t>> arrivals;  // (time ps, psn)
  sim::Simulator& sim;
  Sink(models::PacketPool& p, sim::Simulator& s) : pool(p), sim(s) {}
  void receive(models::PacketHandle h, uint16_t) override {
    arrivals.emplace_back(sim.now().ps, pool[h].psn);
    pool.release(h);
  }
};

}  // namespace

TEST_CASE("pfc: a 64-to-1 incast is lossless with PFC and lossy without", "[mechanism][pfc]") {
  // Static thresholds (xoff 40 KB), and the dynamic MMU (alpha x free shared pool).
  for (const char* mode : {"static", "dynamic"}) {
    INFO(mode);
    scen::Json j = incast(64, true);
    j["fabric"]["switch"]["threshold_mode"] = mode;
    // The receiver's queue holds 64 ingresses' worth (about 2.6 MB, 210 us at 100 Gb/s with
    // the dynamic thresholds): a longer RTO than that keeps go-back-N from firing spuriously.
    j["fabric"]["nic"]["rto"] = "1ms";
    const scen::RunOutcome with = scen::run_scenario(test_support::load(j));
    const auto& r = with.results;
    CHECK(u(r["flows_completed"]) == 64);
    CHECK(u(r["payload_bytes_delivered"]) == 64 * 500'000);
    CHECK(u(r["drops"]["tail"]) + u(r["drops"]["lossless"]) == 0);
    CHECK(u(r["pfc"]["headroom_exhaustions"]) == 0);
    CHECK(u(r["retransmitted_packets"]) == 0);
    CHECK(u(r["pfc"]["pause_frames"]) > 0);
    // Every (port, priority) stayed within its headroom, and the pools within their sizes.
    CHECK(r["pfc"]["headroom_peaks"].size() > 0);
    for (const auto& hp : r["pfc"]["headroom_peaks"]) {
      CHECK(hp["peak_bytes"].get<int64_t>() <= hp["headroom_bytes"].get<int64_t>());
    }
    const auto& pool = r["pfc"]["pools"][0];
    CHECK(pool["shared_pool_peak_bytes"].get<int64_t>() <=
          pool["shared_pool_bytes"].get<int64_t>());
    CHECK(pool["headroom_pool_peak_bytes"].get<int64_t>() > 0);
    CHECK(pool["headroom_pool_peak_bytes"].get<int64_t>() <=
          pool["headroom_pool_bytes"].get<int64_t>());
    // Every sender's NIC was held by pause frames from the switch.
    for (int h = 1; h <= 64; ++h) {
      const auto& up = test_support::link_between(with, "h" + std::to_string(h), "sw");
      INFO("h" << h);
      CHECK(up.pause_frames_received > 0);
      CHECK(up.paused.ps > 0);
    }
    j["fabric"]["pfc"]["enabled"] = false;
    const scen::RunOutcome without = scen::run_scenario(test_support::load(j));
    CHECK(u(without.results["drops"]["tail"]) > 0);
    CHECK(u(without.results["payload_bytes_delivered"]) == 64 * 500'000);  // go-back-N recovered
    CHECK_FALSE(without.results.contains("pfc"));
  }
}

TEST_CASE("pfc: a dynamic threshold pauses earlier the more ingress ports are congested",
          "[mechanism][pfc][mmu]") {
  // Choudhury-Hahne: with N ingress ports filling together each pauses near
  // alpha S / (1 + N alpha) of a shared pool of S bytes; alone, near alpha S / (1 + alpha).
  auto xoff_bytes = [](const scen::RunOutcome& out) {
    std::vector<int64_t> held;
    for (const auto& e : out.pfc_events) {
      if (e.kind == models::PfcEvent::Pause) held.push_back(e.ingress_bytes);
    }
    return held;
  };
  // One sender into a receiver on a 25 Gb/s link: a single congested ingress.
  scen::Json one = incast(1, true);
  one["topology"]["links"][0]["rate"] = "25Gbps";
  one["fabric"]["switch"]["threshold_mode"] = "dynamic";
  one["workload"]["flows"][0]["size"] = "2MB";
  const scen::RunOutcome alone = scen::run_scenario(test_support::load(one));
  const int64_t pool_alone = alone.results["pfc"]["pools"][0]["shared_pool_bytes"].get<int64_t>();
  const auto held_alone = xoff_bytes(alone);
  REQUIRE(held_alone.size() > 0);
  // The first pause, with only this ingress (and a few ACKs) in the pool: S / 9 at alpha 1/8,
  // less at most one frame (the one that would cross) and a few queued ACKs.
  CHECK(held_alone[0] <= pool_alone / 9);
  CHECK(held_alone[0] >= pool_alone / 9 - 2 * 4178);

  scen::Json many = incast(64, true);
  many["fabric"]["switch"]["threshold_mode"] = "dynamic";
  const scen::RunOutcome crowd = scen::run_scenario(test_support::load(many));
  const int64_t pool_crowd = crowd.results["pfc"]["pools"][0]["shared_pool_bytes"].get<int64_t>();
  const auto held_crowd = xoff_bytes(crowd);
  REQUIRE(held_crowd.size() >= 64);
  // The first pauses, all 64 ingress filling together: near S / 72.
  CHECK(held_crowd[0] <= pool_crowd / 72 + 4178);
  CHECK(held_crowd[0] >= pool_crowd / 72 - 2 * 4178);
  const int64_t most_crowd = *std::max_element(held_crowd.begin(), held_crowd.end());
  const int64_t least_alone = *std::min_element(held_alone.begin(), held_alone.end());
  INFO("alone: pool " << pool_alone << ", first XOFF at " << held_alone[0] << ", least "
                      << least_alone << "; 64 ports: pool " << pool_crowd << ", first XOFF at "
                      << held_crowd[0] << ", most " << most_crowd);
  CHECK(most_crowd * 2 < least_alone);
}

TEST_CASE("pfc: a pause of Q quanta holds the class for exactly Q x 512 bit times",
          "[mechanism][pfc]") {
  using namespace sim::literals;
  for (int64_t rate :
       {int64_t{100'000'000'000}, int64_t{400'000'000'000}, int64_t{25'000'000'000}}) {
    sim::Simulator sim(1);
    models::PacketPool pool;
    models::Context ctx{sim, pool};
    Sink sink(pool, sim);
    models::Link wire(ctx, 1_us, 0.0, 1, &sink, 0, sim::Time(0), true);
    models::EgressPort port(ctx, rate, 0);
    port.connect(&wire);
    models::PfcGate gate(ctx, port, sim::Time(0));
    port.set_gate(&gate);
    for (uint32_t i = 0; i < 3; ++i) {
      const models::PacketHandle h = pool.alloc();
      pool[h].psn = i;
      pool[h].priority = 3;
      pool[h].wire_bytes = 1000;
      port.enqueue(h, pool[h]);
    }
    // 10 ns into the first packet, a pause of 100 quanta arrives (no refresh follows).
    struct Pause final : sim::EventHandler {
      using EventHandler::EventHandler;
      models::PfcGate* g;
      void on_event(uint32_t, uint64_t) override { g->on_pause_frame(3, 100); }
    } pause{sim};
    pause.g = &gate;
    sim.at(10_ns, &pause, 0);
    sim.run();
    REQUIRE(sink.arrivals.size() == 3);
    const int64_t ser = sim::serialization_time(1000, rate).ps;
    const int64_t hold = sim::serialization_time(100 * 64, rate).ps;  // 100 x 512 bits
    INFO("rate " << rate);
    CHECK(sink.arrivals[0].first == ser + 1'000'000);  // the packet in progress completes
    CHECK(sink.arrivals[1].first == 10'000 + hold + ser + 1'000'000);
    CHECK(sink.arrivals[2].first == 10'000 + hold + 2 * ser + 1'000'000);
    gate.finish_accounting();
    CHECK(gate.stats().paused_time.ps == hold);
  }
}

TEST_CASE("pfc: congestion at one leaf pauses the spine, the far leaf and its senders",
          "[mechanism][pfc]") {
  // Fast fabric links: the only bottleneck is leaf0 -> h0, so every pause upstream of it is
  // propagation, hop by hop.
  scen::Json j;
  j["topology"] = {{"generator", "leaf-spine"},
                   {"leaves", 2},
                   {"spines", 1},
                   {"hosts_per_leaf", 8},
                   {"host_rate", "100Gbps"},
                   {"fabric_rate", "800Gbps"},
                   {"host_latency", "1us"},
                   {"fabric_latency", "1us"}};
  j["fabric"]["nic"] = {{"mtu", "4KiB"}};
  j["fabric"]["pfc"] = {{"enabled", true}, {"xoff", "40KB"}, {"xon_offset", "8KB"}};
  j["workload"]["incast"] = {{"receiver", "h0"},
                             {"senders", {"h8", "h9", "h10", "h11", "h12", "h13", "h14", "h15"}},
                             {"size", "1MB"}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  CHECK(u(out.results["drops"]["tail"]) + u(out.results["drops"]["lossless"]) == 0);
  CHECK(test_support::link_between(out, "leaf0", "spine0").pause_frames_sent > 0);  // hop 1
  CHECK(test_support::link_between(out, "spine0", "leaf0").paused.ps > 0);
  CHECK(test_support::link_between(out, "spine0", "leaf1").pause_frames_sent > 0);  // hop 2
  CHECK(test_support::link_between(out, "leaf1", "spine0").paused.ps > 0);
  for (int h = 8; h < 16; ++h) {  // hop 3: the NICs
    CHECK(test_support::link_between(out, "leaf1", "h" + std::to_string(h)).pause_frames_sent > 0);
    CHECK(test_support::link_between(out, "h" + std::to_string(h), "leaf1").paused.ps > 0);
  }
  // Nothing pauses the receiver's side: its leaf never congests toward it.
  CHECK(test_support::link_between(out, "leaf0", "h0").pause_frames_sent == 0);
}

TEST_CASE("pfc: headroom below the need is reported, the formula's headroom never runs out",
          "[mechanism][pfc]") {
  for (const char* rate : {"100Gbps", "400Gbps"}) {
    for (const char* cable : {"1m", "10m", "100m"}) {
      INFO(rate << " " << cable);
      scen::Json j = incast(8, true, rate, cable);
      // Traffic both ways, so the switch's egress toward a sender is busy with data frames
      // when a pause must go out (the worst case the formula allows for).
      for (int h = 1; h <= 8; ++h) {
        j["workload"]["flows"].push_back(
            {{"src", "h0"}, {"dst", "h" + std::to_string(h)}, {"size", "500KB"}});
      }
      const scen::RunOutcome ok = scen::run_scenario(test_support::load(j));
      CHECK(u(ok.results["pfc"]["headroom_exhaustions"]) == 0);
      CHECK(u(ok.results["drops"]["lossless"]) == 0);
      j["fabric"]["pfc"]["headroom"] = "4KB";  // less than one frame in flight
      const scen::RunOutcome short_hr = scen::run_scenario(test_support::load(j));
      const auto& events = short_hr.results["pfc"]["headroom_exhaustion_events"];
      CHECK(events.size() > 0);
      CHECK(u(short_hr.results["drops"]["lossless"]) == events.size());
      CHECK(events[0]["switch"] == "sw");
      CHECK(events[0]["priority"] == 3);
      // Lost lossless packets are still recovered end to end.
      CHECK(u(short_hr.results["payload_bytes_delivered"]) == 16 * 500'000);
    }
  }
}

TEST_CASE("pfc: runs with PFC are deterministic", "[mechanism][pfc][determinism]") {
  const scen::Scenario s = test_support::load(incast(16, true));
  const scen::RunOutcome a = scen::run_scenario(s), b = scen::run_scenario(s);
  CHECK(scen::pfc_csv(a) == scen::pfc_csv(b));
  CHECK(scen::links_csv(a) == scen::links_csv(b));
  CHECK(scen::summary_json(s, a) == scen::summary_json(s, b));
  CHECK(a.pfc_events.size() > 0);
}

TEST_CASE("pfc: per-class counters add up to the link's and sit in the lossless class",
          "[mechanism][pfc][counters]") {
  scen::LoadOptions o;
  o.sets = {"fabric.dcqcn.enabled=true", "stop.time=5ms", "fabric.switch.queue_limit=150KB"};
  const auto out = scen::run_scenario(scen::load_scenario_file(
      std::string(RDMASIM_SOURCE_DIR) + "/scenarios/roce-victim-flow.json", o));
  uint64_t frames_received = 0, frames_sent = 0, marks = 0;
  for (const auto& l : out.links) {
    uint64_t received = 0, sent = 0, ecn = 0, drops = 0;
    sim::Time paused;
    for (int c = 0; c < models::kPriorities; ++c) {
      received += l.class_pause_frames_received[c];
      sent += l.class_pause_frames_sent[c] + l.class_resume_frames_sent[c];
      ecn += l.class_ecn_marks[c];
      drops += l.class_tail_drops[c];
      paused += l.class_paused[c];
      if (c != 3) {  // only priority 3 is lossless here; only data (class 3) is marked
        CHECK(l.class_pause_frames_received[c] == 0);
        CHECK(l.class_pause_frames_sent[c] == 0);
        CHECK(l.class_ecn_marks[c] == 0);
      }
      CHECK(l.class_xoff_transitions[c] <= l.class_pause_frames_sent[c]);
    }
    CHECK(received == l.pause_frames_received);
    CHECK(sent == l.pause_frames_sent);
    CHECK(ecn == l.ecn_marks);
    CHECK(drops == l.tail_drops);
    CHECK(paused == l.paused);
    frames_received += received;
    frames_sent += sent;
    marks += ecn;
  }
  CHECK(frames_received > 0);
  CHECK(frames_sent == frames_received);  // every frame sent arrived and was obeyed
  CHECK(marks == out.results["ecn"]["marks"].get<uint64_t>());
}

TEST_CASE("pfc: headroom set per port through overrides replaces the formula there only",
          "[mechanism][pfc]") {
  const std::string file = std::string(RDMASIM_SOURCE_DIR) + "/scenarios/roce-incast-pfc.json";
  const auto plain = scen::run_scenario(scen::load_scenario_file(file));
  CHECK(plain.results["pfc"]["headroom_exhaustions"] == 0);
  scen::LoadOptions o;
  o.sets = {
      R"(overrides=[{"switch": "sw", "port": 2, "priority": 3, "set": {"headroom": "2KB"}}])"};
  const auto out = scen::run_scenario(scen::load_scenario_file(file, o));
  const auto& events = out.results["pfc"]["headroom_exhaustion_events"];
  REQUIRE(events.size() > 0);
  for (const auto& e : events) {
    CHECK(e["port"] == 2);
    CHECK(e["priority"] == 3);
  }
  CHECK(out.results["flows_completed"] == 16);  // go-back-N recovers the lossless drops
}
