#include "models/egress_port.hpp"

#include <algorithm>

namespace models {

EgressPort::EgressPort(Context& ctx, int64_t rate_bps, uint16_t index)
    : ctx_(ctx), rate_bps_(rate_bps), index_(index) {}

void EgressPort::enqueue(PacketHandle h) {
  const Packet& p = ctx_.pool[h];
  queues_[p.priority].push_back(h);
  nonempty_classes_ |= 1u << p.priority;
  uint64_t& q = queue_bytes_[p.priority];
  q += p.wire_bytes;
  total_queue_bytes_ += p.wire_bytes;
  stats_.max_queue_bytes[p.priority] = std::max(stats_.max_queue_bytes[p.priority], q);
  if (observer_ != nullptr) observer_->on_enqueue(*this, h);
  if (!busy_) try_send();
}

void EgressPort::wake() {
  if (!busy_) try_send();
}

// Strict priority, highest class first; a class whose head is not yet ready (store-and-
// forward) or is held by the gate is skipped. Packets of a class leave in FIFO order.
PacketHandle EgressPort::pick() {
  const sim::Time now = ctx_.sim.now();
  sim::Time earliest_ready = sim::Time::max();
  // Only non-empty classes are visited, highest first (most ports carry one or two classes).
  for (uint32_t mask = nonempty_classes_; mask != 0;) {
    const int prio = 31 - __builtin_clz(mask);
    mask &= ~(1u << prio);
    auto& q = queues_[prio];
    const PacketHandle h = q.front();
    const Packet& p = ctx_.pool[h];
    if (gate_ != nullptr && !gate_->may_send(static_cast<uint8_t>(prio), p)) continue;
    if (p.ready_at > now) {
      earliest_ready = std::min(earliest_ready, p.ready_at);
      continue;
    }
    q.pop_front();
    if (q.empty()) nonempty_classes_ &= ~(1u << prio);
    queue_bytes_[prio] -= p.wire_bytes;
    total_queue_bytes_ -= p.wire_bytes;
    return h;
  }
  if (earliest_ready != sim::Time::max() && !ready_event_pending_) {
    ready_event_pending_ = true;
    ctx_.sim.at(earliest_ready, this, kReady);
  }
  return kNoPacket;
}

void EgressPort::try_send() {
  PacketHandle h = pick();
  if (h == kNoPacket && source_ != nullptr) h = source_->next_packet(gate_);
  if (h == kNoPacket) {
    // Packets waiting but none may go out now: the port is stalled.
    if (!stalled_ && total_queue_bytes() > 0) {
      stalled_ = true;
      stalled_since_ = ctx_.sim.now();
    }
    return;
  }
  start(h);
}

void EgressPort::start(PacketHandle h) {
  if (stalled_) {
    stalled_ = false;
    stats_.stalled_time += ctx_.sim.now() - stalled_since_;
  }
  Packet& p = ctx_.pool[h];
  if (observer_ != nullptr) observer_->on_dequeue(*this, h);
  if (gate_ != nullptr) gate_->on_send(p);
  const sim::Time ser = sim::serialization_time(p.wire_bytes, rate_bps_);
  ++stats_.packets;
  stats_.wire_bytes += p.wire_bytes;
  stats_.busy_time += ser;
  busy_ = true;
  ctx_.sim.after(ser, this, kTxDone);
  link_->transmit(h, ser);
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
