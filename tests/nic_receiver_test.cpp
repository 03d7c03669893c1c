// The NIC's receiver on its own (models/nic_receiver.hpp): data packets handed to it directly,
// its ACKs, NACKs and re-ACKs read off the wire toward the sender. Go-back-N (one NACK per gap,
// duplicates re-acknowledged), ACK coalescing every `ack_every`, and the out-of-order receiver
// of adaptive routing (no NACK, cumulative ACK once the gap closes).
#include "models/nic_receiver.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "models/egress_port.hpp"
#include "models/link.hpp"
#include "models/nic.hpp"
#include "models/transport.hpp"

namespace {

struct Reply {
  models::PacketType type;
  uint32_t psn;
};

class Wire final : public models::PacketReceiver {
 public:
  explicit Wire(models::PacketPool& pool) : pool_(pool) {}
  void receive(models::PacketHandle h, uint16_t) override {
    replies.push_back({pool_[h].type, pool_[h].psn});
    pool_.release(h);
  }
  std::vector<Reply> replies;

 private:
  models::PacketPool& pool_;
};

// A receiver for one 8-packet message (QP 0, host 0 -> host 1); `deliver` hands it the PSNs
// in order and runs the simulator until its replies are on the sender's side.
struct Bench {
  sim::Simulator sim{1};
  models::PacketPool pool;
  models::Context ctx{sim, pool};
  models::NicParams params = [] {
    models::NicParams p;
    p.mtu = 1000;
    p.ack_every = 4;
    return p;
  }();
  models::Transport transport{ctx, params};
  Wire wire{pool};
  models::Link link{ctx, sim::Time(1000), 0.0, 1, &wire, 0, sim::Time(0), true};
  models::EgressPort port{ctx, 100'000'000'000, 0};
  models::NicSettings settings;
  models::NicStats stats;
  models::NicReceiver receiver{ctx, transport, port, 1, params, settings, stats};

  Bench() {
    port.connect(&link);
    models::FlowSpec spec;
    spec.src_host = 0;
    spec.dst_host = 1;
    spec.bytes = 8 * params.mtu;
    transport.add_flow(spec, 0, 1000);
  }
  void deliver(std::initializer_list<uint32_t> psns) {
    for (const uint32_t psn : psns) {
      const models::PacketHandle h = pool.alloc();
      models::Packet& p = pool[h];
      p.type = models::PacketType::Data;
      p.qp = 0;
      p.src_host = 0;
      p.dst_host = 1;
      p.psn = psn;
      p.payload_bytes = static_cast<uint32_t>(params.mtu);
      p.wire_bytes = p.payload_bytes + 100;
      receiver.on_data(p);
      pool.release(h);
    }
    sim.run(sim::Time(1'000'000'000));
  }
  std::vector<Reply> take() { return std::exchange(wire.replies, {}); }
};

bool is(const Reply& r, models::PacketType type, uint32_t psn) {
  return r.type == type && r.psn == psn;
}

}  // namespace

TEST_CASE("nic receiver: in-order data is acknowledged every ack_every packets and at the end",
          "[unit][nic]") {
  Bench b;
  b.deliver({0, 1, 2, 3, 4, 5, 6, 7});
  const auto r = b.take();
  REQUIRE(r.size() == 2);
  CHECK(is(r[0], models::PacketType::Ack, 4));
  CHECK(is(r[1], models::PacketType::Ack, 8));  // the last packet is acknowledged at once
  CHECK(b.stats.acks_sent == 2);
  CHECK(b.transport.qp(0).delivered);
  CHECK(b.transport.qp(0).delivered_bytes == 8000);
}

TEST_CASE("nic receiver: go-back-N NACKs a gap once, discards what follows and re-ACKs duplicates",
          "[unit][nic]") {
  Bench b;
  b.deliver({0, 2, 3});  // 1 is missing: one NACK for it, 2 and 3 are discarded
  auto r = b.take();
  REQUIRE(r.size() == 1);
  CHECK(is(r[0], models::PacketType::Nack, 1));
  CHECK(b.stats.nacks_sent == 1);
  CHECK(b.stats.out_of_order_received == 2);
  CHECK(b.transport.qp(0).delivered_bytes == 1000);
  b.deliver({1, 2, 3});  // the sender went back: accepted, ACK at the 4th packet
  r = b.take();
  REQUIRE(r.size() == 1);
  CHECK(is(r[0], models::PacketType::Ack, 4));
  b.deliver({2});  // a duplicate: re-acknowledged so that a lost ACK heals
  r = b.take();
  REQUIRE(r.size() == 1);
  CHECK(is(r[0], models::PacketType::Ack, 4));
  CHECK(b.transport.qp(0).duplicate_packets == 1);
}

TEST_CASE("nic receiver: out of order (adaptive routing) places early packets without a NACK",
          "[unit][nic]") {
  Bench b;
  b.receiver.accept_out_of_order(true);
  b.deliver({0, 2, 3, 1});
  auto r = b.take();
  // No NACK; when 1 closes the gap, 2 and 3 are already placed: the ACK covers all four.
  REQUIRE(r.size() == 0);
  CHECK(b.stats.nacks_sent == 0);
  CHECK(b.transport.qp(0).expected_psn == 4);
  CHECK(b.transport.qp(0).delivered_bytes == 4000);
  b.deliver({5, 6, 7, 4});
  r = b.take();
  REQUIRE(r.size() == 1);
  CHECK(is(r[0], models::PacketType::Ack, 8));
  CHECK(b.transport.qp(0).delivered);
}
