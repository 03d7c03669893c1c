#include "models/ib/ib_cc.hpp"

#include <algorithm>

namespace models {

IbCongestionControl::IbCongestionControl(Context& ctx, const IbCcParams& params,
                                         Transport& transport, size_t hosts,
                                         uint32_t mtu_wire_bytes)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      params_(params),
      transport_(transport),
      mtu_wire_bytes_(mtu_wire_bytes),
      stats_(hosts) {
  if (params_.cct.empty()) params_.cct = default_cct();
  transport_.keep_qp_ids();  // CCTI and its timer by QP id outlive the QPs
}

IbCongestionControl::QpState& IbCongestionControl::state(uint32_t qp) {
  if (qp >= state_.size()) state_.grow_to(static_cast<size_t>(qp) + 1);
  QpState& s = state_[qp];
  if (!s.timer) {
    // The QP's sending NIC holds its CCTI: the timer acts for it (a split run's partition).
    s.timer = std::make_unique<sim::Timer>(ctx_.sim, this, 0, qp,
                                           transport_.nic_handler(transport_.qp(qp).src_host));
    s.ccti = params_.ccti_min;
  }
  return s;
}

uint64_t IbCongestionControl::becns_received() const {
  uint64_t n = 0;
  for (const auto& s : stats_) n += s.becns_received;
  return n;
}

void IbCongestionControl::trace(uint32_t qp, PartitionLog<CctiChange>* log) {
  log_ = log;
  state(qp).traced = true;
}

void IbCongestionControl::on_becn(QueuePair& qp, int64_t line_rate_bps) {
  ++stats_[qp.src_host].becns_received;
  QpState& s = state(qp.id);
  s.line_bps = line_rate_bps;
  if (qp.done) return;
  const int64_t next = ccti_after_becn(s.ccti, params_);
  if (!s.timer->armed()) s.timer->arm_in(params_.ccti_timer);
  // The first BECN applies the table even when CCTI stays put (CCTI_Min = CCTI_Limit).
  if (next == s.ccti && s.applied) return;
  s.ccti = next;
  apply(s, qp);
}

void IbCongestionControl::on_event(uint32_t, uint64_t arg) {
  const auto id = static_cast<uint32_t>(arg);
  QpState& s = state_[id];
  QueuePair& qp = transport_.qp(id);
  const int64_t next = ccti_after_timer(s.ccti, params_);
  if (next != s.ccti) {
    s.ccti = next;
    apply(s, qp);
  }
  if (s.ccti > params_.ccti_min && !qp.done) s.timer->arm_in(params_.ccti_timer);
}

void IbCongestionControl::apply(QpState& s, QueuePair& qp) {
  s.applied = true;
  const CctEntry e = params_.cct[static_cast<size_t>(s.ccti)];
  qp.rate_bps = cct_rate_bps(s.line_bps, e);
  transport_.rate_changed(qp);
  IbCcNicStats& st = stats_[qp.src_host];
  st.max_ccti = std::max(st.max_ccti, s.ccti);
  if (st.min_rate_bps == 0 || qp.rate_bps < st.min_rate_bps) st.min_rate_bps = qp.rate_bps;
  if (s.traced && log_ != nullptr) {
    log_->local().push_back({ctx_.sim.now(), qp.flow, qp.id, s.ccti,
                             cct_ipd(s.line_bps, e, mtu_wire_bytes_), qp.rate_bps});
  }
}

}  // namespace models
