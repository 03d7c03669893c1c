// Switch packet memory, accounted per (ingress port, priority) and per (egress port,
// priority) as merchant-silicon MMUs do. The lossy baseline admits a packet while the shared
// buffer and the egress queue's limit have room, else tail-drops it. Flow-control models plug
// in as an IngressListener (PFC watches the per-ingress counters; IB credits are granted
// from them) without changing the switch.
#pragma once

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

class SwitchBuffer {
 public:
  SwitchBuffer(const SwitchBufferParams& p, int ports)
      : params_(p),
        ingress_bytes_(static_cast<size_t>(ports) * kPriorities, 0),
        egress_bytes_(static_cast<size_t>(ports) * kPriorities, 0),
        queue_limit_(static_cast<size_t>(ports) * kPriorities, p.queue_limit_bytes) {}

  void set_listener(IngressListener* l) { listener_ = l; }
  // Per-port, per-priority override of the egress queue cap (0 = no cap).
  void set_queue_limit(uint16_t out_port, uint8_t prio, int64_t bytes) {
    queue_limit_[slot(out_port, prio)] = bytes;
  }
  int64_t queue_limit(uint16_t out_port, uint8_t prio) const {
    return queue_limit_[slot(out_port, prio)];
  }

  // Admits and accounts `bytes`, or refuses (tail drop).
  bool admit(uint16_t in_port, uint16_t out_port, uint8_t prio, int64_t bytes) {
    const size_t e = slot(out_port, prio);
    if (used_ + bytes > params_.buffer_bytes) return false;
    if (queue_limit_[e] > 0 && egress_bytes_[e] + bytes > queue_limit_[e]) return false;
    used_ += bytes;
    egress_bytes_[e] += bytes;
    int64_t& in = ingress_bytes_[slot(in_port, prio)];
    in += bytes;
    peak_used_ = used_ > peak_used_ ? used_ : peak_used_;
    if (listener_ != nullptr) listener_->on_ingress_bytes(in_port, prio, in);
    return true;
  }

  void release(uint16_t in_port, uint16_t out_port, uint8_t prio, int64_t bytes) {
    used_ -= bytes;
    egress_bytes_[slot(out_port, prio)] -= bytes;
    int64_t& in = ingress_bytes_[slot(in_port, prio)];
    in -= bytes;
    if (listener_ != nullptr) listener_->on_ingress_bytes(in_port, prio, in);
  }

  int64_t used() const { return used_; }
  int64_t peak_used() const { return peak_used_; }
  int64_t ingress_bytes(uint16_t in_port, uint8_t prio) const {
    return ingress_bytes_[slot(in_port, prio)];
  }
  int64_t egress_bytes(uint16_t out_port, uint8_t prio) const {
    return egress_bytes_[slot(out_port, prio)];
  }
  const SwitchBufferParams& params() const { return params_; }

 private:
  static size_t slot(uint16_t port, uint8_t prio) {
    return static_cast<size_t>(port) * kPriorities + prio;
  }
  SwitchBufferParams params_;
  std::vector<int64_t> ingress_bytes_;
  std::vector<int64_t> egress_bytes_;
  std::vector<int64_t> queue_limit_;
  int64_t used_ = 0;
  int64_t peak_used_ = 0;
  IngressListener* listener_ = nullptr;
};

}  // namespace models
