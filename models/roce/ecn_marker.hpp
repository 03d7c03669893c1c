// ECN marking at a switch egress (RFC 3168), RED-style on the bytes queued in the packet's
// (port, priority): probability 0 up to Kmin, rising linearly to Pmax at Kmax, 1 above Kmax
// (REFERENCES.md). Only ECN-capable packets are marked (CE); the decision is taken at enqueue
// (the queue the packet joins) or at dequeue (the queue it leaves), per configuration.
#pragma once

#include <cstdint>
#include <vector>

#include "models/egress_port.hpp"
#include "sim/rng.hpp"

namespace models {

struct EcnParams {
  bool enabled = false;
  // ns-3 HPCC simulator run script at 100 Gb/s (REFERENCES.md): 400 KB / 1600 KB / 0.2.
  int64_t kmin_bytes = 400'000;
  int64_t kmax_bytes = 1'600'000;
  double pmax = 0.2;
  bool mark_at_dequeue = false;
};

class EcnMarker final : public EgressObserver {
 public:
  EcnMarker(Context& ctx, const EcnParams& params, uint64_t rng_stream)
      : ctx_(ctx), params_(params), rng_(ctx.sim.rng(rng_stream)) {}

  void on_enqueue(EgressPort& port, const QueuedPacket& q) override {
    // The queue the packet joins, itself excluded.
    if (!params_.mark_at_dequeue) decide(port.queue_bytes(q.priority) - q.wire_bytes, q.handle);
  }
  void on_dequeue(EgressPort& port, const QueuedPacket& q) override {
    if (params_.mark_at_dequeue) decide(port.queue_bytes(q.priority), q.handle);
  }

  // RED marking probability at `queue_bytes`.
  double probability(int64_t queue_bytes) const {
    if (queue_bytes <= params_.kmin_bytes) return 0.0;
    if (queue_bytes >= params_.kmax_bytes) return 1.0;
    return params_.pmax * static_cast<double>(queue_bytes - params_.kmin_bytes) /
           static_cast<double>(params_.kmax_bytes - params_.kmin_bytes);
  }
  uint64_t marks() const { return marks_; }

 private:
  void decide(uint64_t queue_bytes, PacketHandle h) {
    Packet& p = ctx_.pool[h];
    if (p.ecn == Ecn::NotEct || p.ecn == Ecn::Ce) return;
    const double prob = probability(static_cast<int64_t>(queue_bytes));
    if (prob > 0.0 && (prob >= 1.0 || rng_.uniform() < prob)) {
      p.ecn = Ecn::Ce;
      ++marks_;
    }
  }

  Context& ctx_;
  EcnParams params_;
  sim::Rng rng_;
  uint64_t marks_ = 0;
};

}  // namespace models
