// One direction of a cable: propagation delay, random loss, and the hand-over to the
// receiving node. The link owns the receiver's latency, set in the wiring, so a port never
// knows its peer (DESIGN.md, SST's links). Packets in flight sit in a FIFO ring with at most
// one pending event: delivery times along one link never decrease, because each packet
// starts after the previous one finished. Each packet's delivery keeps the place in the event
// order that an event pushed for it by the sender at transmission would have (scheduler.hpp,
// take_place): the ring's places increase, so the pending event is always its front's. Where a
// delivery falls among equal-time events then depends on the sender's history only, not on
// whether the link had a delivery pending — what a run split over partitions, where a link
// between two of them hands packets over by value, can reproduce (ARCHITECTURE.md).
#pragma once

#include <cstdint>

#include "models/context.hpp"
#include "models/ring.hpp"
#include "sim/rng.hpp"

namespace models {

struct LinkStats {
  uint64_t packets = 0;
  uint64_t wire_bytes = 0;
  uint64_t lost_packets = 0;  // random loss on the wire
  // Packets whose first bit went out before the previous one's last bit: a sender with two
  // packets on its wire at once. Always 0 in a correct model (the run checks it).
  uint64_t overlapping_packets = 0;
};

class Link final : public sim::EventHandler {
 public:
  // `receiver_latency`: added to the first-bit arrival (a switch's first bit in → first
  // bit out latency, header reception included). `wait_last_bit`: deliver only once the
  // last bit is in (NICs, and switches in store-and-forward mode).
  Link(Context& ctx, sim::Time propagation, double loss_rate, uint64_t rng_stream,
       PacketReceiver* receiver, uint16_t receiver_port, sim::Time receiver_latency,
       bool wait_last_bit);

  // Called by the sending port when the first bit of `h` goes on the wire.
  // `arrival_hint`: what the receiver reads first for it (packet.hpp), for the prefetch below.
  void transmit(PacketHandle h, sim::Time serialization, uint32_t wire_bytes, bool control = false,
                uint32_t arrival_hint = kNoArrivalHint);

  void on_event(uint32_t kind, uint64_t arg) override;
  // A cut link's packet crossing processes (sim/rank_exchange.hpp): its contents and its
  // telemetry record travel; the sending process frees its copy, the receiving one takes a
  // slot of its own (and counts it for its queue pair, as the sender had).
  void pack_event(uint32_t kind, uint64_t arg, sim::Bytes& out) override;
  uint64_t unpack_event(uint32_t kind, sim::ByteReader& in) override;
  // Depth 0: the ring slot of the packet due next, the receiver, and what the receiver reads
  // first for it (its arrival hint, kept here for the packet at the front); depth 1: the
  // packet, and one level further in the receiver (packet_receiver.hpp).
  void prefetch(uint32_t kind, uint64_t arg, int depth) const override {
    if (kind == kCutData) {
      if (depth == 0) {
        __builtin_prefetch(receiver_);
      } else {
        __builtin_prefetch(&ctx_.pool[static_cast<PacketHandle>(arg)]);
      }
      return;
    }
    if (kind != kData || in_flight_.empty()) return;
    if (depth == 0) {
      __builtin_prefetch(&in_flight_.front());
      __builtin_prefetch(receiver_);
    } else {
      __builtin_prefetch(&ctx_.pool[in_flight_.front().packet]);
    }
    if (front_hint_ != kNoArrivalHint) {
      receiver_->prefetch_arrival(front_hint_, receiver_port_, depth);
    }
  }

  // The sending port's partition (a split run): a link between two partitions hands each packet
  // over as an event of its own through the simulator's mailboxes, its FIFO being written by
  // one thread and read by another otherwise (sim/simulator.hpp).
  void set_sender_partition(uint32_t p) { cut_ = p != partition(); }
  bool cut() const { return cut_; }

  const LinkStats& stats() const { return stats_; }
  sim::Time propagation() const { return propagation_; }
  bool up() const { return up_; }
  void set_up(bool up) { up_ = up; }

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  // A cut link's events carry their packet (kCut = kData or kControl + kCutOffset).
  enum Kind : uint32_t { kData = 0, kControl = 1, kCutData = 2, kCutControl = 3 };
  static constexpr uint32_t kCutOffset = 2;
  // A packet in flight and the place of its delivery in the event order, less the time due,
  // which its sending time and serialisation give (flipped times add as plain ones: the sign
  // flip is a constant added modulo 2^64).
  struct InFlight {
    uint64_t pushed;          // the place's time pushed (flipped): when it was sent
    uint64_t stamp;           // the place's stamp: the sender's number and count
    sim::Time serialization;  // stamped on the packet at delivery, when it is touched anyway
    PacketHandle packet;
    uint32_t arrival_hint;  // (packet.hpp) the front's is kept in front_hint_
  };
  static_assert(sizeof(InFlight) == 32, "four words per packet in flight");
  sim::Time delay(Kind kind, sim::Time serialization) const {
    if (kind == kControl) return propagation_ + serialization;
    return propagation_ + receiver_latency_ + (wait_last_bit_ ? serialization : sim::Time(0));
  }
  sim::Place place(const InFlight& f, Kind kind) const {
    return sim::Place{f.pushed + static_cast<uint64_t>(delay(kind, f.serialization).ps), f.pushed,
                      f.stamp};
  }
  // Puts `h` in flight on `ring`; its event is pushed when it is the front.
  void put_in_flight(Ring<InFlight>& ring, Kind kind, PacketHandle h, sim::Time now,
                     sim::Time serialization, uint32_t arrival_hint);
  // Hot fields first (every packet reads them); the random stream only matters with loss.
  Context& ctx_;
  PacketReceiver* receiver_;
  sim::Time propagation_;
  sim::Time receiver_latency_;
  double loss_rate_;
  uint16_t receiver_port_;
  bool wait_last_bit_;
  uint32_t front_hint_ = kNoArrivalHint;  // in_flight_.front()'s arrival hint (read ahead)
  bool up_ = true;
  bool cut_ = false;
  sim::Time wire_free_at_;  // the last bit of the latest packet sent leaves the sender then
  Ring<InFlight> in_flight_;
  // MAC control frames (PFC) are consumed by the receiving MAC at their last bit, without
  // the switching latency, so they have their own FIFO (their delays differ from data's).
  Ring<InFlight> control_in_flight_;
  sim::Rng rng_;
  LinkStats stats_;
};

}  // namespace models
