#include "models/link.hpp"

namespace models {

Link::Link(Context& ctx, sim::Time propagation, double loss_rate, uint64_t rng_stream,
           PacketReceiver* receiver, uint16_t receiver_port, sim::Time receiver_latency,
           bool wait_last_bit)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      receiver_(receiver),
      propagation_(propagation),
      receiver_latency_(receiver_latency),
      loss_rate_(loss_rate),
      receiver_port_(receiver_port),
      wait_last_bit_(wait_last_bit),
      rng_(ctx.sim.rng(rng_stream)) {}

// Inlined into transmit: one call per packet-hop.
[[gnu::always_inline]] inline void Link::put_in_flight(Ring<InFlight>& ring, Kind kind,
                                                       PacketHandle h, sim::Time now,
                                                       sim::Time serialization,
                                                       uint32_t arrival_hint) {
  // Taken in the sender's event list; pushed into the link's own (its receiver's partition).
  const sim::Place p = ctx_.sim.scheduler().take_place(now + delay(kind, serialization));
  if (cut_) {  // into the receiver's partition's mailbox: an event of its own
    ctx_.pool[h].ser_in = serialization;
    ctx_.sim.at(p, this, kind + kCutOffset, h);
    return;
  }
  const bool idle = ring.empty();
  ring.push_back({p.pushed, p.stamp, serialization, h, arrival_hint});
  if (idle) {
    if (kind == kData) front_hint_ = arrival_hint;
    ctx_.sim.at(p, this, kind, 0);
  }
}

void Link::transmit(PacketHandle h, sim::Time serialization, uint32_t wire_bytes, bool control,
                    uint32_t arrival_hint) {
  ++stats_.packets;  // the run's packet-hops are their sum (Network::packet_hops)
  stats_.wire_bytes += wire_bytes;
  const sim::Time start = ctx_.sim.now();
  if (start < wire_free_at_) ++stats_.overlapping_packets;
  wire_free_at_ = start + serialization;
  // A link that is down, or a loss drawn for this packet, still occupies the sender's
  // serialiser (it was sent); it simply never arrives.
  if (!up_ || (loss_rate_ > 0.0 && rng_.uniform() < loss_rate_)) {
    ++stats_.lost_packets;
    ctx_.pool.release(h);
    return;
  }
  put_in_flight(control ? control_in_flight_ : in_flight_, control ? kControl : kData, h, start,
                serialization, arrival_hint);
}

// One packet per event: the front, whose place this event holds; then the next one's place.
void Link::on_event(uint32_t kind, uint64_t arg) {
  sim::Simulator& s = ctx_.sim;
  if (kind >= kCutOffset) {
    receiver_->receive(static_cast<PacketHandle>(arg), receiver_port_);
    return;
  }
  if (kind == kControl) {
    const InFlight f = control_in_flight_.front();
    control_in_flight_.pop_front();
    if (!control_in_flight_.empty()) {
      s.at(place(control_in_flight_.front(), kControl), this, kControl, 0);
    }
    receiver_->receive(f.packet, receiver_port_);
    return;
  }
  const InFlight f = in_flight_.front();
  in_flight_.pop_front();
  if (!in_flight_.empty()) {
    front_hint_ = in_flight_.front().arrival_hint;
    s.at(place(in_flight_.front(), kData), this, kData, 0);
  }
  ctx_.pool[f.packet].ser_in = f.serialization;
  receiver_->receive(f.packet, receiver_port_);
}

void Link::pack_event(uint32_t kind, uint64_t arg, sim::Bytes& out) {
  if (kind < kCutOffset) {
    sim::EventHandler::pack_event(kind, arg, out);  // a link's own FIFO never crosses: refused
    return;
  }
  const auto h = static_cast<PacketHandle>(arg);
  const Packet& p = ctx_.pool[h];
  sim::put_bytes(out, p);
  if (p.int_slot != 0) sim::put_bytes(out, ctx_.pool.telemetry(p.int_slot));
  ctx_.pool.release(h);
}

uint64_t Link::unpack_event(uint32_t kind, sim::ByteReader& in) {
  if (kind < kCutOffset) return sim::EventHandler::unpack_event(kind, in);
  auto p = in.get<Packet>();
  if (p.int_slot != 0) {
    p.int_slot = ctx_.pool.alloc_telemetry();
    ctx_.pool.telemetry(p.int_slot) = in.get<IntRecord>();
  }
  const bool counted = (p.flags & kFlagQpCounted) != 0;
  p.flags = static_cast<uint8_t>(p.flags & ~kFlagQpCounted);
  const PacketHandle h = ctx_.pool.alloc_arrived();
  ctx_.pool[h] = p;
  if (counted) ctx_.pool.count_qp_packet(ctx_.pool[h]);
  return h;
}

}  // namespace models
