#include "models/egress_port.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace models {

EgressPort::EgressPort(Context& ctx, int64_t rate_bps, uint16_t index)
    : EventHandler(ctx.sim), ctx_(ctx), rate_bps_(rate_bps), index_(index) {}

void EgressPort::set_class_count(int classes) {
  if (classes < 1 || classes > kMaxClasses || total_queue_bytes_ != 0 || sent_packets_ != 0) {
    throw std::logic_error("EgressPort::set_class_count(" + std::to_string(classes) + "): 1.." +
                           std::to_string(kMaxClasses) + " classes, before traffic");
  }
  class_count_ = std::max(classes, kPriorities);
  extra_classes_.reset();
  if (class_count_ > kPriorities) {
    extra_classes_ =
        std::make_unique<ClassState[]>(static_cast<size_t>(class_count_ - kPriorities));
  }
}

void EgressPort::enqueue(PacketHandle h, const Packet& p, uint16_t in_port, sim::Time ready_at,
                         uint8_t in_priority) {
  if (discard_classes_ != 0 && ((discard_classes_ >> p.priority) & 1u) != 0) {
    return discard(QueuedPacket{h, p.wire_bytes, ready_at, in_port, p.priority, in_priority});
  }
  ClassState& c = cls(p.priority);
  QueuedPacket& q = c.queue.push_back_slot();
  q.handle = h;
  q.wire_bytes = p.wire_bytes;
  q.ready_at = ready_at;
  q.in_port = in_port;
  q.priority = p.priority;
  q.in_priority = in_priority;
  q.arrival_hint = arrival_hint(p);  // read here, where the packet is in cache
  nonempty_classes_ |= static_cast<uint16_t>(1u << p.priority);
  c.bytes += p.wire_bytes;
  total_queue_bytes_ += p.wire_bytes;
  c.max_bytes = std::max(c.max_bytes, c.bytes);
  if (marker_ != nullptr) marker_->on_enqueue(*this, q);
  request_send();
}

void EgressPort::set_discard(uint8_t priority, bool discarding) {
  if (discarding) {
    discard_classes_ |= static_cast<uint8_t>(1u << priority);
  } else {
    discard_classes_ &= static_cast<uint8_t>(~(1u << priority));
  }
}

void EgressPort::discard_queued(uint8_t priority) {
  QueuedPacket q;
  while (!cls(priority).queue.empty()) {
    take(priority, q);
    discard(q);
  }
}

// The buffer is released as on a dequeue (the observer), not marked (no marker): the packet
// never leaves.
void EgressPort::discard(const QueuedPacket& q) {
  ++discarded_packets_;
  discarded_bytes_ += q.wire_bytes;
  if (observer_ != nullptr) observer_->on_dequeue(*this, q);
  ctx_.pool.release(q.handle);
}

void EgressPort::send_control(PacketHandle h, const Packet& p) {
  control_.push_back(
      QueuedPacket{h, p.wire_bytes, sim::Time(0), 0, p.priority, p.priority, arrival_hint(p)});
  request_send();
}

void EgressPort::wake() {
  request_send();  // the source has work again
}

// Something may go: start it now if the serialiser is free, else ask again at the end of the
// current transmission (as an end event would). A request made while this port is choosing or
// starting a packet — a buffer release in the observer that sends a PFC frame out of this same
// port (a packet leaving by the port it came in), or a rate change the source makes while it
// builds its packet — is served by that choice: without this guard the port would start a
// second packet before the first, and put two on its wire at once.
void EgressPort::request_send() {
  if (in_try_send_) {
    send_requested_ = true;
    return;
  }
  if (!transmitting()) {
    try_send();
  } else if (!tx_done_pushed_) {
    push_tx_done();
  }
}

// Whether class `prio`'s head may start now: not held by the gate, and ready (a cut-through
// head waiting for its last bit is not; the earliest such time is kept for a wake-up).
bool EgressPort::may_start(int prio, sim::Time now, sim::Time& earliest_ready) {
  const QueuedPacket& head = cls(prio).queue.front();
  if (gate_ != nullptr && !gate_->may_send(static_cast<uint8_t>(prio), head.wire_bytes)) {
    return false;
  }
  if (head.ready_at > now) {
    earliest_ready = std::min(earliest_ready, head.ready_at);
    return false;
  }
  return true;
}

void EgressPort::take(int prio, QueuedPacket& out) {
  ClassState& c = cls(prio);
  out = c.queue.front();
  c.queue.pop_front();
  if (c.queue.empty()) nonempty_classes_ &= static_cast<uint16_t>(~(1u << prio));
  c.bytes -= out.wire_bytes;
  total_queue_bytes_ -= out.wire_bytes;
}

// Control frames first; then the strict classes, highest first; then the DWRR group. A class
// that is held by the gate or whose head is not ready is skipped. Packets of a class leave in
// FIFO order. Only non-empty classes are visited (most ports carry one or two classes).
bool EgressPort::pick(QueuedPacket& out) {
  if (!control_.empty()) {
    out = control_.front();
    control_.pop_front();
    out.priority = kControlClass;
    return true;
  }
  if (arbiter_ != nullptr) return pick_arbitrated(out);
  const sim::Time now = ctx_.sim.now();
  sim::Time earliest_ready = sim::Time::max();
  for (uint32_t mask = nonempty_classes_ & ~uint32_t{weighted_classes_}; mask != 0;) {
    const int prio = 31 - __builtin_clz(mask);
    mask &= ~(1u << prio);
    if (!may_start(prio, now, earliest_ready)) continue;
    take(prio, out);
    return true;
  }
  if (const uint32_t weighted = nonempty_classes_ & weighted_classes_; weighted != 0) {
    uint32_t eligible = 0;
    for (uint32_t mask = weighted; mask != 0; mask &= mask - 1) {
      const int c = __builtin_ctz(mask);
      if (may_start(c, now, earliest_ready)) eligible |= 1u << c;
    }
    if (eligible != 0) {
      const int c =
          dwrr_.next(eligible, [this](int k) { return int64_t{cls(k).queue.front().wire_bytes}; });
      take(c, out);
      dwrr_.on_sent(c, out.wire_bytes, cls(c).queue.empty());
      return true;
    }
  }
  arm_ready(earliest_ready);
  return false;
}

// Every class whose head may start goes to the arbiter, which chooses one.
bool EgressPort::pick_arbitrated(QueuedPacket& out) {
  const sim::Time now = ctx_.sim.now();
  sim::Time earliest_ready = sim::Time::max();
  uint32_t eligible = 0;
  for (uint32_t mask = nonempty_classes_; mask != 0; mask &= mask - 1) {
    const int c = __builtin_ctz(mask);
    if (may_start(c, now, earliest_ready)) eligible |= 1u << c;
  }
  if (eligible == 0) {
    arm_ready(earliest_ready);
    return false;
  }
  const int c = arbiter_->pick(eligible, *this);
  take(c, out);
  arbiter_->on_sent(c, out.wire_bytes);
  return true;
}

// A wake-up when the earliest held-back head becomes ready (cut-through waiting for its last bit).
void EgressPort::arm_ready(sim::Time earliest_ready) {
  if (earliest_ready != sim::Time::max() && !ready_event_pending_) {
    ready_event_pending_ = true;
    ctx_.sim.at(earliest_ready, this, kReady);
  }
}

void EgressPort::try_send() {
  in_try_send_ = true;
  bool started = false;
  do {
    send_requested_ = false;
    started = try_send_once();
  } while (!started && send_requested_);
  in_try_send_ = false;
}

bool EgressPort::try_send_once() {
  QueuedPacket q;
  if (!pick(q) && source_ != nullptr) {
    q.handle = source_->next_packet(gate_);
    if (q.handle != kNoPacket) {
      const Packet& p = ctx_.pool[q.handle];
      q.wire_bytes = p.wire_bytes;
      q.priority = p.priority;
      q.arrival_hint = arrival_hint(p);
    }
  }
  if (q.handle == kNoPacket) {
    // Packets waiting but none may go out now: the port is stalled.
    if (!stalled_ && total_queue_bytes_ > 0) {
      stalled_ = true;
      stalled_since_ = ctx_.sim.now();
    }
    return false;
  }
  start(q);
  return true;
}

void EgressPort::start(const QueuedPacket& q) {
  if (stalled_) {
    stalled_ = false;
    stalled_time_ += ctx_.sim.now() - stalled_since_;
  }
  if (q.priority != kControlClass) {
    ClassState& c = cls(q.priority);
    ++c.packets;
    c.wire_bytes += q.wire_bytes;
    if (observer_ != nullptr) observer_->on_dequeue(*this, q);
    if (marker_ != nullptr) marker_->on_dequeue(*this, q);
    if (gate_ != nullptr) gate_->on_send(q.priority, q.wire_bytes);
  }
  const sim::Time ser = sim::serialization_time(q.wire_bytes, rate_bps_);
  ++sent_packets_;
  sent_wire_bytes_ += q.wire_bytes;
  busy_time_ += ser;
  busy_ = true;
  ctx_.sim.reserve(tx_done_, ctx_.sim.now() + ser);
  tx_done_pushed_ = false;
  if (nonempty_classes_ != 0 || !control_.empty() ||
      (source_ != nullptr && source_->may_have_packets())) {
    push_tx_done();
  }
  link_->transmit(q.handle, ser, q.wire_bytes, q.priority == kControlClass, q.arrival_hint);
}

void EgressPort::on_event(uint32_t kind, uint64_t) {
  if (kind == kTxDone) {
    busy_ = false;
    tx_done_pushed_ = false;
    ctx_.sim.release(tx_done_);
  } else {
    ready_event_pending_ = false;
  }
  if (!transmitting()) try_send();
}

void EgressPort::finish_accounting() {
  if (stalled_) {
    stalled_ = false;
    stalled_time_ += ctx_.sim.now() - stalled_since_;
  }
}

EgressStats EgressPort::stats() const {
  EgressStats s;
  s.packets = sent_packets_;
  s.wire_bytes = sent_wire_bytes_;
  s.tail_drops = tail_drops_;
  s.busy_time = busy_time_;
  s.stalled_time = stalled_time_;
  for (int p = 0; p < class_count_; ++p) {
    s.max_queue_bytes[p] = cls(p).max_bytes;
    s.class_packets[p] = cls(p).packets;
    s.class_wire_bytes[p] = cls(p).wire_bytes;
    s.class_tail_drops[p] = cls(p).tail_drops;
  }
  return s;
}

}  // namespace models
