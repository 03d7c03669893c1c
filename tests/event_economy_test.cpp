// Events that would do nothing are not scheduled: a port's end of transmission with nothing
// queued, a PFC hold's end that a later frame moves, a refresh timer of a pause that ended.
// Each test fails if its saving is removed; the golden fingerprints show the results are the
// same with and without it (sim::Reservation keeps the order of events).
#include <catch2/catch.hpp>
#include <vector>

#include "models/link.hpp"
#include "models/roce/pfc_gate.hpp"
#include "sim/units.hpp"

using namespace sim::literals;

namespace {

struct Sink final : models::PacketReceiver {
  models::PacketPool& pool;
  sim::Simulator& sim;
  std::vector<int64_t> arrivals;  // ps
  Sink(models::PacketPool& p, sim::Simulator& s) : pool(p), sim(s) {}
  void receive(models::PacketHandle h, uint16_t) override {
    arrivals.push_back(sim.now().ps);
    pool.release(h);
  }
};

models::PacketHandle data_packet(models::PacketPool& pool, uint32_t wire_bytes) {
  const models::PacketHandle h = pool.alloc();
  pool[h].wire_bytes = wire_bytes;
  return h;
}

// A 100 Gb/s port (1,000 B take 80 ns) on a 1 us link to a sink.
struct PortRig {
  sim::Simulator sim{1};
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  Sink sink{pool, sim};
  models::Link wire{ctx, 1'000'000_ps, 0.0, 1, &sink, 0, sim::Time(0), true};
  models::EgressPort port{ctx, 100'000'000'000, 0};
  PortRig() { port.connect(&wire); }
};

// Enqueues a packet into `port` when it fires.
struct Feeder final : sim::EventHandler {
  using EventHandler::EventHandler;
  models::PacketPool* pool;
  models::EgressPort* port;
  void on_event(uint32_t, uint64_t) override {
    const models::PacketHandle h = data_packet(*pool, 1000);
    port->enqueue(h, (*pool)[h]);
  }
};

}  // namespace

TEST_CASE("events: a packet that finds its port idle and leaves it idle costs one event",
          "[mechanism][sim]") {
  PortRig rig;
  sim::Simulator& sim = rig.sim;
  models::PacketPool& pool = rig.pool;
  models::EgressPort& port = rig.port;
  Feeder feed{sim};
  feed.pool = &pool;
  feed.port = &port;
  // Ten lone packets 1 us apart, then two back to back (the second waits for the first).
  for (int k = 0; k < 10; ++k) sim.at(sim::Time(1'000'000 * k), &feed, 0);
  sim.at(20_us, &feed, 0);
  sim.at(20_us, &feed, 0);
  sim.run();
  REQUIRE(rig.sink.arrivals.size() == 12);
  for (int k = 0; k < 10; ++k) CHECK(rig.sink.arrivals[k] == 1'000'000 * k + 80'000 + 1'000'000);
  CHECK(rig.sink.arrivals[10] == 20'000'000 + 80'000 + 1'000'000);
  CHECK(rig.sink.arrivals[11] == 20'000'000 + 160'000 + 1'000'000);
  // 12 feeds and 12 deliveries; of the 12 transmissions only the one with a packet behind it
  // ends in an event (an end per transmission would make 36).
  CHECK(sim.events_executed() == 12 + 12 + 1);
  CHECK_FALSE(port.busy());
  CHECK(port.stats().busy_time.ps == 12 * 80'000);
}

TEST_CASE("events: a port is busy until its transmission ends, with or without an end event",
          "[mechanism][sim]") {
  PortRig rig;
  sim::Simulator& sim = rig.sim;
  models::PacketPool& pool = rig.pool;
  models::EgressPort& port = rig.port;
  struct Probe final : sim::EventHandler {
    using EventHandler::EventHandler;
    models::EgressPort* port;
    std::vector<bool> seen;
    void on_event(uint32_t, uint64_t) override { seen.push_back(port->busy()); }
  } probe{sim};
  probe.port = &port;
  Feeder feed{sim};
  feed.pool = &pool;
  feed.port = &port;
  sim.at(sim::Time(0), &feed, 0);
  sim.at(sim::Time(79'999), &probe, 0);
  // At 80 ns exactly: an event pushed at set-up (origin 0) runs before its end (busy), one
  // pushed by a handler numbered after the feeder that started the transmission runs after it
  // (idle): the order is (time, origin, origin's count), sim/scheduler.hpp.
  sim.at(sim::Time(80'000), &probe, 0);
  struct Later final : sim::EventHandler {
    using EventHandler::EventHandler;
    sim::Simulator* sim;
    sim::EventHandler* probe;
    void on_event(uint32_t, uint64_t) override { sim->at(sim::Time(80'000), probe, 0); }
  } later{sim};
  later.sim = &sim;
  later.probe = &probe;
  sim.at(sim::Time(1), &later, 0);
  sim.run();
  CHECK(probe.seen == std::vector<bool>{true, true, false});
}

TEST_CASE("events: refreshed PFC pauses leave one pending event per class, not one per frame",
          "[mechanism][pfc]") {
  PortRig rig;
  sim::Simulator& sim = rig.sim;
  models::PacketPool& pool = rig.pool;
  models::EgressPort& port = rig.port;
  // With a response time, a frame takes effect later than it arrives: still no event per frame.
  const sim::Time response = GENERATE(sim::Time(0), sim::Time(500'000));
  models::PfcGate gate(rig.ctx, port, response);
  port.set_gate(&gate);
  // A pause of 65,535 quanta (335 us at 100 Gb/s) refreshed every microsecond for 100 us, then
  // a resume; each frame schedules the next, so the frames themselves keep one event pending.
  struct Frames final : sim::EventHandler {
    using EventHandler::EventHandler;
    models::PfcGate* gate;
    sim::Simulator* sim;
    int sent = 0;
    size_t most_pending = 0;
    void on_event(uint32_t, uint64_t) override {
      gate->on_pause_frame(3, sent < 100 ? 65535 : 0);
      if (++sent <= 100) sim->after(1_us, this, 0);
      most_pending = std::max(most_pending, sim->pending_events());
    }
  } frames{sim};
  frames.gate = &gate;
  frames.sim = &sim;
  sim.at(sim::Time(0), &frames, 0);
  const models::PacketHandle h = data_packet(pool, 1000);
  pool[h].priority = 3;
  port.enqueue(h, pool[h]);  // goes at once: the first frame comes after it started
  const models::PacketHandle held = data_packet(pool, 1000);
  pool[held].priority = 3;
  struct Late final : sim::EventHandler {
    using EventHandler::EventHandler;
    models::PacketPool* pool;
    models::EgressPort* port;
    models::PacketHandle h;
    void on_event(uint32_t, uint64_t) override { port->enqueue(h, (*pool)[h]); }
  } late{sim};
  late.pool = &pool;
  late.port = &port;
  late.h = held;
  sim.at(50_us, &late, 0);
  sim.run();
  REQUIRE(rig.sink.arrivals.size() == 2);
  // Released by the resume, once its response time has passed.
  CHECK(rig.sink.arrivals[1] == 100'000'000 + response.ps + 80'000 + 1'000'000);
  // The next frame, the hold's end, the link and the late packet: a few events, where an event
  // per frame's hold would leave up to 100.
  CHECK(frames.most_pending <= 5);
  CHECK(gate.stats().pause_frames_received == 101);
  // 101 frames and a handful for the two packets and the hold's end; an event per frame (at
  // its hold's start or end) would add 100 more.
  CHECK(sim.events_executed() <= 101 + 20);
}
