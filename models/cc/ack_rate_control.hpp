// Sender-side congestion control that reacts to ACKs (HPCC, DCTCP, TIMELY; cc_params.hpp).
// One controller serves every NIC of a network; its per-QP state is indexed by QP id and reset
// when the QP is posted (ids of finished collective messages are reused). A controller drives
// the QP's `rate_bps` (the NIC paces by it, and scales the window by it when
// `window_follows_rate`); it never sends a packet itself.
//
// The three follow their papers as the ns-3 HPCC simulator implements them for RDMA NICs
// (rdma-hw.cc: HandleAckHp, HandleAckDctcp, HandleAckTimely): a full update once per RTT — on
// the first ACK beyond the PSN that was next to send at the previous update — and, for HPCC,
// a fast reaction on the ACKs in between. docs/roce.md, "Congestion control beyond DCQCN".
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/cc/cc_params.hpp"
#include "models/context.hpp"
#include "models/transport.hpp"
#include "sim/stable_vector.hpp"

namespace models {

struct CcStats {
  uint64_t updates = 0;         // once-per-RTT updates
  uint64_t fast_reactions = 0;  // HPCC per-ACK reactions between them
  uint64_t decreases = 0;       // updates that lowered a QP's rate
  uint64_t increases = 0;       // updates that raised it
  int64_t min_rate_bps = 0;     // lowest rate any QP was set to (0 = never lowered)

  CcStats& operator+=(const CcStats& o);  // another partition's
};

class AckRateControl {
 public:
  AckRateControl(Context& ctx, const CcParams& params, Transport& transport)
      : ctx_(ctx), params_(params), transport_(transport) {
    stats_.resize(ctx.sim.partitions());
  }
  virtual ~AckRateControl() = default;
  AckRateControl(const AckRateControl&) = delete;
  AckRateControl& operator=(const AckRateControl&) = delete;

  const CcParams& params() const { return params_; }
  // The partitions' statistics together.
  CcStats stats() const;
  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);
  // State for QP ids below `n` allocated now: a split run's partitions then never grow the
  // vector another one reads (before the run, once the flows are added).
  virtual void reserve_qps(size_t n) = 0;
  // The QP is posted at `line_rate_bps`: its state starts afresh.
  virtual void on_post(const QueuePair& qp, int64_t line_rate_bps) = 0;
  // An ACK or NACK of `qp` arrived (snd_una already advanced); `line_rate_bps` is its NIC's.
  virtual void on_ack(QueuePair& qp, const Packet& ack, int64_t line_rate_bps) = 0;

 protected:
  // Sets the QP's rate (bounded to [min_rate, line rate]) and re-paces it.
  void set_rate(QueuePair& qp, int64_t rate_bps, int64_t line_rate_bps);
  // `rate_bps` within [min_rate, line rate] (the line rate when it is below min_rate).
  int64_t bounded(int64_t rate_bps, int64_t line_rate_bps) const {
    return std::clamp(rate_bps, std::min(params_.min_rate_bps, line_rate_bps), line_rate_bps);
  }

  Context& ctx_;
  CcParams params_;
  Transport& transport_;
  sim::PerPartition<CcStats> stats_;  // the sending NIC's partition
};

// HPCC (Li et al., SIGCOMM 2019, Algorithm 1). Per hop of the newest ACK's telemetry, against
// the previous sample of that hop: u = min(qlen, qlen') / (B T) + txRate / B; U the largest.
// The QP's estimate averages U over the base RTT T (weight dt/T), and the rate follows
// R = Rc / (U / eta) + W_AI (multiplicative) or Rc + W_AI (additive, for max_stage updates
// while U < eta). Rc, the reference, is committed once per RTT; the ACKs in between react
// from it without committing (fast reaction).
class Hpcc final : public AckRateControl {
 public:
  // `window_bytes`: the base window B x T of the queue term (resolved by the builder).
  Hpcc(Context& ctx, const CcParams& params, Transport& transport, int64_t window_bytes);
  void on_post(const QueuePair& qp, int64_t line_rate_bps) override;
  void on_ack(QueuePair& qp, const Packet& ack, int64_t line_rate_bps) override;
  void reserve_qps(size_t n) override { state_.grow_to(n); }
  // The QP's utilisation estimate (tests).
  double utilisation(uint32_t qp) const { return qp < state_.size() ? state_[qp].u : 0.0; }

 private:
  struct State {
    uint32_t last_update_psn = 0;  // 0 = no ACK yet: the first one only records the hops
    int64_t reference_bps = 0;     // Rc
    int64_t stage = 0;
    double u = 1.0;
    uint32_t hops = 0;
    IntHop hop[kMaxIntHops];
  };
  void update(State& s, QueuePair& qp, const IntRecord& rec, bool fast, int64_t line_rate_bps);
  int64_t window_bytes_;
  sim::StableVector<State, 1024> state_;  // by QP id (reserve_qps)
};

// DCTCP for RDMA (Alizadeh et al., SIGCOMM 2010; rate form of ns-3 HPCC): once per RTT
// alpha = (1 - g) alpha + g F, F the fraction of the RTT's ACKs that echoed a CE mark; the
// first echo of a window cuts the rate to R (1 - alpha / 2) and opens a CWR period until that
// window is acknowledged; each RTT without a cut adds rate_ai.
class Dctcp final : public AckRateControl {
 public:
  using AckRateControl::AckRateControl;
  void on_post(const QueuePair& qp, int64_t line_rate_bps) override;
  void on_ack(QueuePair& qp, const Packet& ack, int64_t line_rate_bps) override;
  void reserve_qps(size_t n) override { state_.grow_to(n); }
  double alpha(uint32_t qp) const { return qp < state_.size() ? state_[qp].alpha : 0.0; }

 private:
  struct State {
    uint32_t last_update_psn = 0;
    uint32_t batch = 0;  // ACKs expected in the current RTT (F's denominator)
    uint32_t marked = 0;
    double alpha = 1.0;
    bool cwr = false;
    uint32_t cwr_until = 0;  // the PSN that ends the CWR period once acknowledged
  };
  sim::StableVector<State, 1024> state_;  // by QP id (reserve_qps)
};

// TIMELY (Mittal et al., SIGCOMM 2015): once per RTT, from the ACK's RTT sample (now minus the
// echoed send time of the data it answers): below T_low increase by delta; above T_high
// decrease by 1 - beta (1 - T_high / rtt); in between follow the gradient of the smoothed RTT
// difference, normalised by min_rtt — increase when it is <= 0 (by N x delta after
// `hai_after` increases in a row), else decrease by 1 - beta x gradient.
class Timely final : public AckRateControl {
 public:
  using AckRateControl::AckRateControl;
  void on_post(const QueuePair& qp, int64_t line_rate_bps) override;
  void on_ack(QueuePair& qp, const Packet& ack, int64_t line_rate_bps) override;
  void reserve_qps(size_t n) override { state_.grow_to(n); }

 private:
  struct State {
    uint32_t last_update_psn = 0;
    int64_t reference_bps = 0;
    int64_t stage = 0;
    sim::Time last_rtt;
    double rtt_diff_ps = 0;
  };
  sim::StableVector<State, 1024> state_;  // by QP id (reserve_qps)
};

}  // namespace models
