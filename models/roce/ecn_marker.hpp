// ECN marking at a switch egress (RFC 3168), RED-style on the bytes queued in the packet's
// (port, priority): probability 0 up to Kmin, rising linearly to Pmax at Kmax, 1 above Kmax
// (docs/references.md). Kmin, Kmax, Pmax and whether to mark at all may differ per port and
// priority (the overrides' "ecn" object). Only ECN-capable packets are marked (CE); the decision is
// taken at enqueue (the queue the packet joins) or at dequeue (the queue it leaves), per
// configuration.
#pragma once

#include <array>
#include <cstdint>

#include "models/egress_port.hpp"
#include "sim/param_spec_fwd.hpp"
#include "sim/rng.hpp"

namespace models {

struct EcnParams {
  bool enabled = false;
  // ns-3 HPCC simulator run script at 100 Gb/s (docs/references.md): 400 KB / 1600 KB / 0.2.
  int64_t kmin_bytes = 400'000;
  int64_t kmax_bytes = 1'600'000;
  double pmax = 0.2;
  bool mark_at_dequeue = false;
};

// The parameters of EcnParams a scenario sets (models/roce/ecn_params.cpp): those an override
// may set per port and priority, and all of fabric.ecn (with mark_at).
const sim::ParamTable<EcnParams>& ecn_port_param_table();
const sim::ParamTable<EcnParams>& ecn_param_table();

// One (port, priority)'s marking curve, resolved from fabric.ecn and the overrides.
struct EcnCurve {
  bool enabled = false;
  int64_t kmin_bytes = 0;
  int64_t kmax_bytes = 1;
  double pmax = 0.0;

  static EcnCurve from(const EcnParams& p) {
    return {p.enabled, p.kmin_bytes, p.kmax_bytes, p.pmax};
  }
  double probability(int64_t queue_bytes) const {
    if (queue_bytes <= kmin_bytes) return 0.0;
    if (queue_bytes >= kmax_bytes) return 1.0;
    return pmax * static_cast<double>(queue_bytes - kmin_bytes) /
           static_cast<double>(kmax_bytes - kmin_bytes);
  }
};

// The marker of one port: a curve per priority (RED "per port and priority", so that a class
// with shallow queues, e.g. latency-sensitive RDMA, can mark earlier than a bulk class on the
// same port), looked up by the packet's class in a small array.
class EcnMarker final : public EgressMarker {
 public:
  // Every priority starts with `params`; set_curve changes one.
  EcnMarker(Context& ctx, const EcnParams& params, uint64_t rng_stream)
      : ctx_(ctx), mark_at_dequeue_(params.mark_at_dequeue), rng_(ctx.sim.rng(rng_stream)) {
    curves_.fill(EcnCurve::from(params));
  }
  void set_curve(uint8_t priority, const EcnCurve& c) { curves_[priority] = c; }
  const EcnCurve& curve(uint8_t priority) const { return curves_[priority]; }

  void on_enqueue(EgressPort& port, const QueuedPacket& q) override {
    // The queue the packet joins, itself excluded.
    if (!mark_at_dequeue_) {
      decide(q.priority, port.queue_bytes(q.priority) - q.wire_bytes, q.handle);
    }
  }
  void on_dequeue(EgressPort& port, const QueuedPacket& q) override {
    if (mark_at_dequeue_) decide(q.priority, port.queue_bytes(q.priority), q.handle);
  }

  // RED marking probability of `priority` at `queue_bytes`.
  double probability(uint8_t priority, int64_t queue_bytes) const {
    return curves_[priority].probability(queue_bytes);
  }
  uint64_t marks() const { return marks_; }
  uint64_t marks(uint8_t priority) const { return marks_by_priority_[priority]; }

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  void decide(uint8_t priority, uint64_t queue_bytes, PacketHandle h) {
    const EcnCurve& c = curves_[priority];
    if (!c.enabled) return;
    Packet& p = ctx_.pool[h];
    if (p.ecn == Ecn::NotEct || p.ecn == Ecn::Ce) return;
    const double prob = c.probability(static_cast<int64_t>(queue_bytes));
    if (prob > 0.0 && (prob >= 1.0 || rng_.uniform() < prob)) {
      p.ecn = Ecn::Ce;
      ++marks_;
      ++marks_by_priority_[p.priority];
    }
  }

  Context& ctx_;
  bool mark_at_dequeue_;
  std::array<EcnCurve, kPriorities> curves_;
  sim::Rng rng_;
  uint64_t marks_ = 0;
  std::array<uint64_t, kPriorities> marks_by_priority_{};
};

}  // namespace models
