#include "models/roce/dcqcn.hpp"

#include <algorithm>
#include <cmath>

#include "models/lowest_rate.hpp"
#include "sim/exact_math.hpp"

namespace models {

Dcqcn::Dcqcn(Context& ctx, const DcqcnParams& params, Transport& transport)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      params_(params),
      transport_(transport),
      one_minus_g_(static_cast<double>(params.dce_tcp_g) / 1024.0) {
  transport.keep_qp_ids();  // rate state and CNP times by QP id outlive the QPs
  stats_.resize(ctx.sim.partitions());
}

DcqcnStats& DcqcnStats::operator+=(const DcqcnStats& o) {
  notifications += o.notifications;
  rate_decreases += o.rate_decreases;
  rate_increases += o.rate_increases;
  limiters_released += o.limiters_released;
  keep_lowest_rate(min_rate_bps, o.min_rate_bps);
  return *this;
}

DcqcnStats Dcqcn::stats() const {
  return stats_.sum();
}

void Dcqcn::reserve_qps(size_t n) {
  rp_.grow_to(n);
  last_cnp_.grow_to(n);
  cnp_sent_.grow_to(n);
}

bool Dcqcn::cnp_due(uint32_t qp) {
  if (qp >= last_cnp_.size()) reserve_qps(static_cast<size_t>(qp) + 1);
  const sim::Time now = ctx_.sim.now();
  if (cnp_sent_[qp] && now - last_cnp_[qp] < params_.min_time_between_cnps) return false;
  cnp_sent_[qp] = 1;
  last_cnp_[qp] = now;
  return true;
}

Dcqcn::Rp& Dcqcn::state(uint32_t qp) {
  if (qp >= rp_.size()) reserve_qps(static_cast<size_t>(qp) + 1);
  Rp& s = rp_[qp];
  if (!s.increase_timer) {
    // The reaction point is the sending NIC's: its timers act for it (a split run's partition).
    sim::EventHandler* nic = transport_.nic_handler(transport_.qp(qp).src_host);
    s.increase_timer = std::make_unique<sim::Timer>(ctx_.sim, this, kIncreaseTimer, qp, nic);
    s.decrease_timer = std::make_unique<sim::Timer>(ctx_.sim, this, kDecreaseTimer, qp, nic);
  }
  return s;
}

void Dcqcn::trace(uint32_t qp, PartitionLog<RateChange>* log) {
  log_ = log;
  state(qp).traced = true;
}

// Alpha as the periodic update would have left it at `now`, computed on demand: whole periods
// since the epoch are applied at once (the first with the notification flag), so no event runs
// per period and the result equals a timer firing every period.
void Dcqcn::advance_alpha(Rp& s, sim::Time now) {
  const sim::Time period = params_.dce_tcp_rtt;
  if (now < s.alpha_epoch + period) return;
  const int64_t n = (now - s.alpha_epoch).ps / period.ps;
  const double g = 1.0 - one_minus_g_;
  if (params_.alpha_update == DcqcnParams::AlphaUpdate::Periodic) {
    s.alpha = s.notified_in_period ? one_minus_g_ * s.alpha + g : one_minus_g_ * s.alpha;
    if (n > 1) s.alpha *= sim::pow_int(one_minus_g_, static_cast<uint64_t>(n - 1));
  } else {
    s.alpha *= sim::pow_int(one_minus_g_, static_cast<uint64_t>(n));  // no CNP in n periods
  }
  s.notified_in_period = false;
  s.alpha_epoch = s.alpha_epoch + sim::Time(n * period.ps);
}

void Dcqcn::on_notification(QueuePair& qp, int64_t line_rate_bps) {
  ++stats_.local().notifications;
  if (qp.done) return;
  const sim::Time now = ctx_.sim.now();
  Rp& s = state(qp.id);
  if (!s.active) {
    // A rate limiter is allocated on the first notification (and again after release).
    s.active = true;
    s.max_rate = params_.rpg_max_rate_bps > 0 ? std::min(params_.rpg_max_rate_bps, line_rate_bps)
                                              : line_rate_bps;
    s.alpha = static_cast<double>(params_.initial_alpha_value) / 1024.0;
    s.alpha_epoch = now;
    s.notified_in_period = false;
    s.current = std::min(qp.rate_bps, s.max_rate);
    if (params_.rate_to_set_on_first_cnp_bps > 0) {
      s.current = std::min(params_.rate_to_set_on_first_cnp_bps, s.max_rate);
    }
    s.target = s.current;
    s.time_stage = s.byte_stage = 0;
    s.bytes = 0;
    s.decrease_pending = false;
    // The first decrease waits one monitor period (the allocation set the rate just now).
    s.last_decrease = now;
    apply(s, qp);
  }
  advance_alpha(s, now);
  if (params_.alpha_update == DcqcnParams::AlphaUpdate::Periodic) {
    s.notified_in_period = true;
  }
  const sim::Time allowed = s.last_decrease + params_.rate_reduce_monitor_period;
  if (params_.rate_reduce_monitor_period.ps == 0 || now >= allowed) {
    decrease(s, qp);
  } else if (!s.decrease_pending) {
    s.decrease_pending = true;
    s.decrease_timer->arm(allowed);
  }
  if (params_.alpha_update == DcqcnParams::AlphaUpdate::OnCnp) {
    // Paper: cut with the old alpha, then raise it and restart the alpha timer.
    s.alpha = one_minus_g_ * s.alpha + (1.0 - one_minus_g_);
    s.alpha_epoch = now;
  }
}

void Dcqcn::decrease(Rp& s, QueuePair& qp) {
  const sim::Time now = ctx_.sim.now();
  advance_alpha(s, now);
  s.decrease_pending = false;
  if (params_.clamp_tgt_rate || (params_.clamp_tgt_rate_after_time_inc && s.time_stage > 0)) {
    s.target = s.current;
  }
  // rate x (1 - alpha_fixed / 2^rpg_gd), alpha_fixed = alpha x 1024.
  const double factor = s.alpha * 1024.0 / std::ldexp(1.0, static_cast<int>(params_.rpg_gd));
  int64_t next = static_cast<int64_t>(static_cast<double>(s.current) * (1.0 - factor));
  const int64_t floor_dec =
      static_cast<int64_t>(static_cast<__int128>(s.current) * params_.rpg_min_dec_fac / 100);
  next = std::max({next, floor_dec, std::min(params_.rpg_min_rate_bps, s.max_rate)});
  s.current = std::min(next, s.current);
  s.time_stage = s.byte_stage = 0;
  s.bytes = 0;
  s.last_decrease = now;
  ++stats_.local().rate_decreases;
  s.increase_timer->cancel();
  s.increase_timer->arm(now + params_.rpg_time_reset);
  apply(s, qp);
}

void Dcqcn::increase(Rp& s, QueuePair& qp, bool by_timer) {
  // Stages before this event: fast recovery while both are below the threshold, hyper
  // increase once both are above it, additive increase in between. Without a byte counter the
  // timer stage decides alone.
  const uint32_t t = s.time_stage;
  const uint32_t bc = params_.rpg_byte_reset > 0 ? s.byte_stage : s.time_stage;
  const auto threshold = static_cast<uint32_t>(params_.rpg_threshold);
  if (std::max(t, bc) < threshold) {
    // fast recovery: current halves its distance to the target
  } else if (std::min(t, bc) > threshold) {
    s.target = std::min(s.target + params_.rpg_hai_rate_bps, s.max_rate);
  } else {
    s.target = std::min(s.target + params_.rpg_ai_rate_bps, s.max_rate);
  }
  s.current = (s.current + s.target + 1) / 2;  // rounds up, so it reaches the target
  if (by_timer) {
    ++s.time_stage;
  } else {
    ++s.byte_stage;
  }
  ++stats_.local().rate_increases;
  if (s.current >= s.max_rate) {
    release(s, qp);
  } else {
    apply(s, qp);
  }
}

void Dcqcn::count_bytes(uint32_t id, int64_t bytes) {
  Rp& s = rp_[id];
  s.bytes += bytes;
  while (s.active && s.bytes >= params_.rpg_byte_reset) {
    s.bytes -= params_.rpg_byte_reset;
    increase(s, transport_.qp(id), false);
  }
}

// The QP is back at its max rate: the rate limiter is freed (firmware behaviour) and its
// timers stop; the next notification allocates a fresh one.
void Dcqcn::release(Rp& s, QueuePair& qp) {
  s.active = false;
  s.current = s.target = s.max_rate;
  s.increase_timer->cancel();
  s.decrease_timer->cancel();
  s.decrease_pending = false;
  ++stats_.local().limiters_released;
  apply(s, qp);
}

void Dcqcn::apply(Rp& s, QueuePair& qp) {
  qp.rate_bps = s.current;
  transport_.rate_changed(qp);
  DcqcnStats& st = stats_.local();
  if (st.min_rate_bps == 0 || s.current < st.min_rate_bps) st.min_rate_bps = s.current;
  if (s.traced && log_ != nullptr) {
    log_->local().push_back({ctx_.sim.now(), qp.flow, qp.id, s.current, s.target, s.alpha});
  }
}

void Dcqcn::on_event(uint32_t kind, uint64_t arg) {
  const auto id = static_cast<uint32_t>(arg);
  Rp& s = rp_[id];
  QueuePair& qp = transport_.qp(id);
  if (!s.active) return;
  if (qp.done) {
    release(s, qp);
    return;
  }
  if (kind == kIncreaseTimer) {
    increase(s, qp, true);
    if (s.active) s.increase_timer->arm(ctx_.sim.now() + params_.rpg_time_reset);
  } else if (s.decrease_pending) {
    decrease(s, qp);
  }
}

}  // namespace models
