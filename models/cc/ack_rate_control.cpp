#include "models/cc/ack_rate_control.hpp"

#include <algorithm>

#include "models/lowest_rate.hpp"

namespace models {

CcStats& CcStats::operator+=(const CcStats& o) {
  updates += o.updates;
  fast_reactions += o.fast_reactions;
  decreases += o.decreases;
  increases += o.increases;
  keep_lowest_rate(min_rate_bps, o.min_rate_bps);
  return *this;
}

CcStats AckRateControl::stats() const {
  return stats_.sum();
}

void AckRateControl::set_rate(QueuePair& qp, int64_t rate_bps, int64_t line_rate_bps) {
  rate_bps = bounded(rate_bps, line_rate_bps);
  if (rate_bps == qp.rate_bps) return;
  CcStats& st = stats_.local();
  if (rate_bps < qp.rate_bps) {
    ++st.decreases;
  } else {
    ++st.increases;
  }
  if (st.min_rate_bps == 0 || rate_bps < st.min_rate_bps) st.min_rate_bps = rate_bps;
  qp.rate_bps = rate_bps;
  transport_.rate_changed(qp);
}

// A rate as a double, rounded to the bit per second (exact IEEE arithmetic: the same on every
// machine).
static int64_t to_bps(double r) {
  return static_cast<int64_t>(r + 0.5);
}

// ---------------------------------------------------------------------------------- HPCC

Hpcc::Hpcc(Context& ctx, const CcParams& params, Transport& transport, int64_t window_bytes)
    : AckRateControl(ctx, params, transport), window_bytes_(window_bytes) {}

void Hpcc::on_post(const QueuePair& qp, int64_t line_rate_bps) {
  if (qp.id >= state_.size()) state_.grow_to(static_cast<size_t>(qp.id) + 1);
  state_[qp.id] = State{};
  state_[qp.id].reference_bps = line_rate_bps;
}

void Hpcc::on_ack(QueuePair& qp, const Packet& ack, int64_t line_rate_bps) {
  if (ack.int_slot == 0 || qp.id >= state_.size()) return;
  State& s = state_[qp.id];
  const IntRecord& rec = ctx_.pool.telemetry(ack.int_slot);
  if (ack.psn > s.last_update_psn) {
    update(s, qp, rec, /*fast=*/false, line_rate_bps);
  } else if (params_.hpcc_fast_react) {
    update(s, qp, rec, /*fast=*/true, line_rate_bps);
  }
}

void Hpcc::update(State& s, QueuePair& qp, const IntRecord& rec, bool fast, int64_t line_rate_bps) {
  const uint32_t next_psn = qp.snd_nxt;
  const uint32_t n = rec.count();
  if (rec.hops > kMaxIntHops) {  // the header overflowed: no sample is trusted (as ns-3)
    if (!fast && next_psn > s.last_update_psn) s.last_update_psn = next_psn;
    return;
  }
  if (s.last_update_psn == 0) {  // the first ACK: a reference sample per hop, no update
    s.last_update_psn = next_psn;
    s.hops = n;
    std::copy(rec.hop, rec.hop + n, s.hop);
    return;
  }
  const double t_ps = static_cast<double>(params_.base_rtt.ps);
  double max_u = 0;
  int64_t dt_ps = 0;
  bool sampled = false;
  for (uint32_t i = 0; i < n && i < s.hops; ++i) {
    const IntHop& now = rec.hop[i];
    IntHop& before = s.hop[i];
    const int64_t tau = now.time.ps - before.time.ps;
    if (tau > 0) {
      const double b = static_cast<double>(now.rate_bps);
      const double tx_rate = static_cast<double>(now.tx_bytes - before.tx_bytes) * 8.0 * 1e12 /
                             static_cast<double>(tau);
      const double queue = static_cast<double>(std::min(now.queue_bytes, before.queue_bytes));
      // The queue term is qlen / (B x T): qlen x line rate / (B x window), window = line x T.
      const double u = tx_rate / b + queue * static_cast<double>(line_rate_bps) / b /
                                         static_cast<double>(window_bytes_);
      if (u > max_u) {
        max_u = u;
        dt_ps = tau;
      }
      sampled = true;
    }
    before = now;
  }
  if (sampled) {
    const double dt = static_cast<double>(std::min<int64_t>(dt_ps, params_.base_rtt.ps));
    s.u = (s.u * (t_ps - dt) + max_u * dt) / t_ps;
    const double c = s.u / params_.hpcc_eta;
    int64_t rate = 0;
    int64_t stage = 0;
    if (c >= 1.0 || s.stage >= params_.hpcc_max_stage) {
      rate = to_bps(static_cast<double>(s.reference_bps) / c) + params_.rate_ai_bps;
    } else {
      rate = s.reference_bps + params_.rate_ai_bps;
      stage = s.stage + 1;
    }
    rate = bounded(rate, line_rate_bps);  // also the reference kept below
    set_rate(qp, rate, line_rate_bps);
    if (fast) {
      ++stats_.local().fast_reactions;
    } else {
      ++stats_.local().updates;
      s.reference_bps = rate;
      s.stage = stage;
    }
  }
  if (!fast && next_psn > s.last_update_psn) s.last_update_psn = next_psn;
}

// --------------------------------------------------------------------------------- DCTCP

void Dctcp::on_post(const QueuePair& qp, int64_t) {
  if (qp.id >= state_.size()) state_.grow_to(static_cast<size_t>(qp.id) + 1);
  state_[qp.id] = State{};
}

void Dctcp::on_ack(QueuePair& qp, const Packet& ack, int64_t line_rate_bps) {
  if (qp.id >= state_.size()) return;
  State& s = state_[qp.id];
  const bool echo = (ack.flags & kFlagCongestion) != 0;
  const uint32_t ack_psn = ack.psn;
  bool new_round = false;
  if (echo) ++s.marked;
  if (ack_psn > s.last_update_psn) {  // a full RTT of feedback: update alpha
    new_round = true;
    if (s.last_update_psn == 0) {
      s.last_update_psn = qp.snd_nxt;
      s.batch = qp.snd_nxt + 1;
    } else {
      const double fraction =
          std::min(1.0, static_cast<double>(s.marked) / static_cast<double>(s.batch));
      s.alpha = (1.0 - params_.dctcp_g) * s.alpha + params_.dctcp_g * fraction;
      s.last_update_psn = qp.snd_nxt;
      s.marked = 0;
      s.batch = qp.snd_nxt - ack_psn + 1;
      ++stats_.local().updates;
    }
  }
  if (s.cwr && ack_psn > s.cwr_until) s.cwr = false;  // the marked window is acknowledged
  if (echo && !s.cwr) {
    set_rate(qp, to_bps(static_cast<double>(qp.rate_bps) * (1.0 - s.alpha / 2.0)), line_rate_bps);
    s.cwr = true;
    s.cwr_until = qp.snd_nxt;
  }
  if (!s.cwr && new_round) set_rate(qp, qp.rate_bps + params_.rate_ai_bps, line_rate_bps);
}

// -------------------------------------------------------------------------------- TIMELY

void Timely::on_post(const QueuePair& qp, int64_t line_rate_bps) {
  if (qp.id >= state_.size()) state_.grow_to(static_cast<size_t>(qp.id) + 1);
  state_[qp.id] = State{};
  state_[qp.id].reference_bps = line_rate_bps;
}

void Timely::on_ack(QueuePair& qp, const Packet& ack, int64_t line_rate_bps) {
  if (qp.id >= state_.size()) return;
  State& s = state_[qp.id];
  if (ack.psn <= s.last_update_psn) return;  // once per RTT (no per-ACK reaction)
  const uint32_t next_psn = qp.snd_nxt;
  const sim::Time rtt = ctx_.sim.now() - ack.sent_at;
  if (s.last_update_psn != 0) {
    const double new_diff = static_cast<double>(rtt.ps - s.last_rtt.ps);
    const double diff =
        (1.0 - params_.timely_alpha) * s.rtt_diff_ps + params_.timely_alpha * new_diff;
    const double gradient = diff / static_cast<double>(params_.timely_min_rtt.ps);
    bool increase = false;
    double factor = 0;
    if (rtt < params_.timely_t_low) {
      increase = true;
    } else if (rtt > params_.timely_t_high) {
      factor = 1.0 - params_.timely_beta * (1.0 - static_cast<double>(params_.timely_t_high.ps) /
                                                      static_cast<double>(rtt.ps));
    } else if (gradient <= 0) {
      increase = true;
    } else {
      factor = std::max(0.0, 1.0 - params_.timely_beta * gradient);
    }
    int64_t rate = 0;
    if (increase) {
      rate = s.reference_bps +
             (s.stage < params_.timely_hai_after ? params_.rate_ai_bps : params_.rate_hai_bps);
      ++s.stage;
    } else {
      rate = to_bps(static_cast<double>(s.reference_bps) * factor);
      s.stage = 0;
    }
    rate = bounded(rate, line_rate_bps);  // also the reference kept below
    set_rate(qp, rate, line_rate_bps);
    s.reference_bps = rate;
    s.rtt_diff_ps = diff;
    ++stats_.local().updates;
  }
  if (next_psn > s.last_update_psn) {
    s.last_update_psn = next_psn;
    s.last_rtt = rtt;
  }
}

}  // namespace models
