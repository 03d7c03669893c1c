// Switch packet memory, accounted per (ingress port, priority) and per (egress port,
// priority) as merchant-silicon MMUs do. The lossy baseline admits a packet while the shared
// buffer and the egress queue's limit have room, else tail-drops it. Flow-control models plug
// in as an IngressListener (PFC watches the per-ingress counters; IB credits are granted
// from them) without changing the switch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/context.hpp"

namespace models {

struct SwitchBufferParams {
  int64_t buffer_bytes = 32'000'000;  // shared packet memory (Tomahawk-class: 32–64 MB)
  int64_t queue_limit_bytes = 0;      // per egress (port, priority) cap; 0 = no cap
};

class IngressListener {
 public:
  // Ingress (port, priority) occupancy changed to `bytes`.
  virtual void on_ingress_bytes(uint16_t in_port, uint8_t priority, int64_t bytes) = 0;

 protected:
  ~IngressListener() = default;
};

enum class Admission : uint8_t {
  Admitted,
  TailDrop,           // lossy class: shared buffer or egress queue cap full
  HeadroomExhausted,  // lossless class: more arrived after XOFF than its headroom holds
};

class SwitchBuffer {
 public:
  SwitchBuffer(const SwitchBufferParams& p, int ports)
      : params_(p), slots_(static_cast<size_t>(ports) * kPriorities) {
    for (auto& sl : slots_) sl.queue_limit = p.queue_limit_bytes;
  }

  void set_listener(IngressListener* l) { listener_ = l; }
  // Per-port, per-priority override of the egress queue cap (0 = no cap).
  void set_queue_limit(uint16_t out_port, uint8_t prio, int64_t bytes) {
    slots_[slot(out_port, prio)].queue_limit = bytes;
  }
  int64_t queue_limit(uint16_t out_port, uint8_t prio) const {
    return slots_[slot(out_port, prio)].queue_limit;
  }

  // A lossless (ingress port, priority) may hold up to `limit` bytes (XOFF threshold +
  // headroom), whatever the shared buffer and egress caps say: PFC, not dropping, bounds it.
  void set_lossless_limit(uint16_t in_port, uint8_t prio, int64_t limit) {
    slots_[slot(in_port, prio)].lossless_limit = limit;
  }
  int64_t lossless_limit(uint16_t in_port, uint8_t prio) const {
    return slots_[slot(in_port, prio)].lossless_limit;
  }

  // Admits and accounts `bytes`, or refuses.
  Admission admit(uint16_t in_port, uint16_t out_port, uint8_t prio, int64_t bytes) {
    Slot& e = slots_[slot(out_port, prio)];
    Slot& in = slots_[slot(in_port, prio)];
    if (in.lossless_limit > 0) {
      if (in.ingress_bytes + bytes > in.lossless_limit) return Admission::HeadroomExhausted;
    } else {
      if (used_ + bytes > params_.buffer_bytes) return Admission::TailDrop;
      if (e.queue_limit > 0 && e.egress_bytes + bytes > e.queue_limit) return Admission::TailDrop;
    }
    used_ += bytes;
    e.egress_bytes += bytes;
    in.ingress_bytes += bytes;
    in.peak_ingress_bytes = std::max(in.peak_ingress_bytes, in.ingress_bytes);
    peak_used_ = std::max(peak_used_, used_);
    if (listener_ != nullptr) listener_->on_ingress_bytes(in_port, prio, in.ingress_bytes);
    return Admission::Admitted;
  }

  void release(uint16_t in_port, uint16_t out_port, uint8_t prio, int64_t bytes) {
    used_ -= bytes;
    slots_[slot(out_port, prio)].egress_bytes -= bytes;
    int64_t& in = slots_[slot(in_port, prio)].ingress_bytes;
    in -= bytes;
    if (listener_ != nullptr) listener_->on_ingress_bytes(in_port, prio, in);
  }

  int64_t used() const { return used_; }
  int64_t peak_used() const { return peak_used_; }
  int64_t ingress_bytes(uint16_t in_port, uint8_t prio) const {
    return slots_[slot(in_port, prio)].ingress_bytes;
  }
  int64_t peak_ingress_bytes(uint16_t in_port, uint8_t prio) const {
    return slots_[slot(in_port, prio)].peak_ingress_bytes;
  }
  int64_t egress_bytes(uint16_t out_port, uint8_t prio) const {
    return slots_[slot(out_port, prio)].egress_bytes;
  }
  const SwitchBufferParams& params() const { return params_; }

 private:
  // Everything accounted for one (port, priority), together in one cache line's worth.
  struct Slot {
    int64_t ingress_bytes = 0;  // bytes that arrived on this port and priority, still held
    int64_t egress_bytes = 0;   // bytes queued for this port and priority
    int64_t queue_limit = 0;
    int64_t lossless_limit = 0;  // 0 = lossy
    int64_t peak_ingress_bytes = 0;
  };
  static size_t slot(uint16_t port, uint8_t prio) {
    return static_cast<size_t>(port) * kPriorities + prio;
  }
  SwitchBufferParams params_;
  std::vector<Slot> slots_;
  int64_t used_ = 0;
  int64_t peak_used_ = 0;
  IngressListener* listener_ = nullptr;
};

}  // namespace models
