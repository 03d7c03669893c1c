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

void Link::transmit(PacketHandle h, sim::Time serialization, uint32_t wire_bytes, bool control) {
  ++stats_.packets;
  ++ctx_.packet_hops;
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
  const sim::Time now = ctx_.sim.now();
  if (control) {
    const sim::Time at = now + propagation_ + serialization;
    control_in_flight_.push_back({h, at, serialization});
    if (!control_event_pending_) {
      control_event_pending_ = true;
      ctx_.sim.at(at, this, kControl);
    }
    return;
  }
  const sim::Time deliver_at =
      now + propagation_ + receiver_latency_ + (wait_last_bit_ ? serialization : sim::Time(0));
  in_flight_.push_back({h, deliver_at, serialization});
  if (!event_pending_) {
    event_pending_ = true;
    ctx_.sim.at(deliver_at, this, 0);
  }
}

void Link::on_event(uint32_t kind, uint64_t) {
  const sim::Time now = ctx_.sim.now();
  if (kind == kControl) {
    while (!control_in_flight_.empty() && control_in_flight_.front().deliver_at <= now) {
      const InFlight f = control_in_flight_.front();
      control_in_flight_.pop_front();
      receiver_->receive(f.packet, receiver_port_);
    }
    if (!control_in_flight_.empty()) {
      ctx_.sim.at(control_in_flight_.front().deliver_at, this, kControl);
    } else {
      control_event_pending_ = false;
    }
    return;
  }
  // Deliver every packet due now (several can share a picosecond on a very fast link).
  while (!in_flight_.empty() && in_flight_.front().deliver_at <= now) {
    const InFlight f = in_flight_.front();
    in_flight_.pop_front();
    ctx_.pool[f.packet].ser_in = f.serialization;
    receiver_->receive(f.packet, receiver_port_);
  }
  if (!in_flight_.empty()) {
    ctx_.sim.at(in_flight_.front().deliver_at, this, 0);
  } else {
    event_pending_ = false;
  }
}

}  // namespace models
