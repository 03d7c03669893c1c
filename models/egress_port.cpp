#include "models/egress_port.hpp"

#include <algorithm>

namespace models {

EgressPort::EgressPort(Context& ctx, int64_t rate_bps, uint16_t index)
    : ctx_(ctx), rate_bps_(rate_bps), index_(index) {}

void EgressPort::enqueue(PacketHandle h, const Packet& p, uint16_t in_port, sim::Time ready_at) {
  const QueuedPacket q{h, p.wire_bytes, ready_at, in_port, p.priority};
  queues_[p.priority].push_back(q);
  nonempty_classes_ |= 1u << p.priority;
  uint64_t& bytes = queue_bytes_[p.priority];
  bytes += p.wire_bytes;
  total_queue_bytes_ += p.wire_bytes;
  stats_.max_queue_bytes[p.priority] = std::max(stats_.max_queue_bytes[p.priority], bytes);
  if (observer_ != nullptr) observer_->on_enqueue(*this, q);
  if (marker_ != nullptr) marker_->on_enqueue(*this, q);
  if (!busy_) try_send();
}

void EgressPort::send_control(PacketHandle h, const Packet& p) {
  control_.push_back(QueuedPacket{h, p.wire_bytes, sim::Time(0), 0, p.priority});
  if (!busy_) try_send();
}

void EgressPort::wake() {
  if (!busy_) try_send();
}

// Strict priority, highest class first; a class whose head is not yet ready (cut-through into
// a faster egress) or is held by the gate is skipped. Packets of a class leave in FIFO order.
bool EgressPort::pick(QueuedPacket& out) {
  if (!control_.empty()) {
    out = control_.front();
    control_.pop_front();
    out.priority = kControlClass;
    return true;
  }
  const sim::Time now = ctx_.sim.now();
  sim::Time earliest_ready = sim::Time::max();
  // Only non-empty classes are visited, highest first (most ports carry one or two classes).
  for (uint32_t mask = nonempty_classes_; mask != 0;) {
    const int prio = 31 - __builtin_clz(mask);
    mask &= ~(1u << prio);
    auto& q = queues_[prio];
    const QueuedPacket& head = q.front();
    if (gate_ != nullptr && !gate_->may_send(static_cast<uint8_t>(prio), head.wire_bytes)) continue;
    if (head.ready_at > now) {
      earliest_ready = std::min(earliest_ready, head.ready_at);
      continue;
    }
    out = head;
    q.pop_front();
    if (q.empty()) nonempty_classes_ &= ~(1u << prio);
    queue_bytes_[prio] -= out.wire_bytes;
    total_queue_bytes_ -= out.wire_bytes;
    return true;
  }
  if (earliest_ready != sim::Time::max() && !ready_event_pending_) {
    ready_event_pending_ = true;
    ctx_.sim.at(earliest_ready, this, kReady);
  }
  return false;
}

void EgressPort::try_send() {
  QueuedPacket q;
  if (!pick(q) && source_ != nullptr) {
    q.handle = source_->next_packet(gate_);
    if (q.handle != kNoPacket) {
      const Packet& p = ctx_.pool[q.handle];
      q.wire_bytes = p.wire_bytes;
      q.priority = p.priority;
    }
  }
  if (q.handle == kNoPacket) {
    // Packets waiting but none may go out now: the port is stalled.
    if (!stalled_ && total_queue_bytes_ > 0) {
      stalled_ = true;
      stalled_since_ = ctx_.sim.now();
    }
    return;
  }
  start(q);
}

void EgressPort::start(const QueuedPacket& q) {
  if (stalled_) {
    stalled_ = false;
    stats_.stalled_time += ctx_.sim.now() - stalled_since_;
  }
  if (q.priority != kControlClass) {
    if (observer_ != nullptr) observer_->on_dequeue(*this, q);
    if (marker_ != nullptr) marker_->on_dequeue(*this, q);
    if (gate_ != nullptr) gate_->on_send(q.priority, q.wire_bytes);
  }
  const sim::Time ser = sim::serialization_time(q.wire_bytes, rate_bps_);
  ++stats_.packets;
  stats_.wire_bytes += q.wire_bytes;
  stats_.busy_time += ser;
  busy_ = true;
  ctx_.sim.after(ser, this, kTxDone);
  link_->transmit(q.handle, ser, q.wire_bytes, q.priority == kControlClass);
}

void EgressPort::on_event(uint32_t kind, uint64_t) {
  if (kind == kTxDone) {
    busy_ = false;
  } else {
    ready_event_pending_ = false;
  }
  if (!busy_) try_send();
}

void EgressPort::finish_accounting() {
  if (stalled_) {
    stalled_ = false;
    stats_.stalled_time += ctx_.sim.now() - stalled_since_;
  }
}

}  // namespace models
