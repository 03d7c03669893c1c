// The run loop's prefetch pipeline (sim/simulator.cpp) asks a link, two events and one event
// before its packet arrives, to load what the receiver will read first; a link keeps for that the
// arrival hint of the packet at its front (models/packet.hpp), taken where the packet was last
// read (the egress queue), so that the packet need not be read to know its destination. A hint
// changes no result (the golden fingerprints); these tests check that it reaches the receiver,
// for the right packet, and would fail if it were dropped on the way.
#include <catch2/catch.hpp>
#include <tuple>
#include <vector>

#include "models/link.hpp"
#include "sim/units.hpp"

using namespace sim::literals;

namespace {

struct HintedSink final : models::PacketReceiver {
  models::PacketPool& pool;
  std::vector<models::PacketHandle> arrived;
  mutable std::vector<std::tuple<uint32_t, uint16_t, int>> hints;  // (hint, port, depth)
  explicit HintedSink(models::PacketPool& p) : pool(p) {}
  void receive(models::PacketHandle h, uint16_t) override { arrived.push_back(h); }
  void prefetch_arrival(uint32_t hint, uint16_t in_port, int depth) const override {
    hints.emplace_back(hint, in_port, depth);
  }
};

models::PacketHandle packet_to(models::PacketPool& pool, uint32_t dst, uint8_t priority) {
  const models::PacketHandle h = pool.alloc();
  pool[h].wire_bytes = 1000;
  pool[h].dst_host = dst;
  pool[h].priority = priority;
  return h;
}

// A 100 Gb/s port (1,000 B take 80 ns) on a 1 us link into port 7 of the sink.
struct HintRig {
  sim::Simulator sim{1};
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  HintedSink sink{pool};
  models::Link wire{ctx, 1'000'000_ps, 0.0, 1, &sink, 7, sim::Time(0), true};
  models::EgressPort port{ctx, 100'000'000'000, 0};
  HintRig() { port.connect(&wire); }
  // The pipeline's two calls for the link's next data event (a link's data event is its kind 0).
  void ask_ahead() {
    wire.prefetch(0, 0, 0);
    wire.prefetch(0, 0, 1);
  }
};

}  // namespace

TEST_CASE("prefetch: the arrival hint encodes destination and class", "[unit][prefetch]") {
  models::Packet p;
  p.dst_host = 300'001;
  p.priority = 3;
  CHECK(models::arrival_hint(p) == (300'001u | (3u << 24)));
  p.priority = 14;  // an InfiniBand VL
  CHECK(models::arrival_hint(p) >> 24 == 14u);
  CHECK((models::arrival_hint(p) & 0xffffff) == 300'001u);
}

TEST_CASE("prefetch: a link asks its receiver ahead for the packet at its front, queued or not",
          "[mechanism][prefetch]") {
  HintRig rig;
  const models::PacketHandle first = packet_to(rig.pool, 5, 3);
  const models::PacketHandle second = packet_to(rig.pool, 9, 1);
  // Through the port: the first starts at once, the second waits in the queue for 80 ns.
  rig.port.enqueue(first, rig.pool[first]);
  rig.port.enqueue(second, rig.pool[second]);
  rig.ask_ahead();
  using Hint = std::tuple<uint32_t, uint16_t, int>;
  const uint32_t hint_first = 5u | (3u << 24), hint_second = 9u | (1u << 24);
  CHECK(rig.sink.hints == std::vector<Hint>{{hint_first, 7, 0}, {hint_first, 7, 1}});
  // After the first arrives, the second is at the front (sent meanwhile, from the queue).
  rig.sim.run(1'080'001_ps);
  REQUIRE(rig.sink.arrived == std::vector<models::PacketHandle>{first});
  rig.sink.hints.clear();
  rig.ask_ahead();
  CHECK(rig.sink.hints == std::vector<Hint>{{hint_second, 7, 0}, {hint_second, 7, 1}});
  // Nothing in flight: nothing asked.
  rig.sim.run();
  CHECK(rig.sink.arrived.size() == 2);
  rig.sink.hints.clear();
  rig.ask_ahead();
  CHECK(rig.sink.hints.empty());
}
