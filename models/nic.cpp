#include "models/nic.hpp"

#include <cmath>

#include "models/tcp/tcp_stack.hpp"

namespace models {

Nic::Nic(Context& ctx, Transport& transport, uint32_t host, int64_t rate_bps)
    : ctx_(ctx),
      transport_(transport),
      params_(transport.params()),
      host_(host),
      port_(ctx, rate_bps, 0),
      rx_(ctx, params_, shared_dma_, *this) {
  port_.set_source(this);
  set_host_path(params_.host);
  update_engine_rate();
}

void Nic::update_engine_rate() {
  engine_rate_bps_ = params_.max_send_rate_bps;
  if (params_.send_efficiency < 1.0) {
    const auto share = static_cast<int64_t>(
        std::llround(params_.send_efficiency * static_cast<double>(port_.rate_bps())));
    if (engine_rate_bps_ == 0 || share < engine_rate_bps_) engine_rate_bps_ = share;
  }
}

void Nic::enable_rx_pfc(uint8_t lossless, uint32_t quanta, int node, std::vector<PfcEvent>* log) {
  rx_.enable_pfc(port_, lossless, quanta, node, host_, log);
}

NicStats Nic::stats() const {
  NicStats s = stats_;
  s.rx_overflow_drops = rx_.stats().overflow_drops;
  s.rx_buffer_peak_bytes = rx_.stats().peak_bytes;
  if (const PfcSender* pfc = rx_.pfc()) {
    const PfcSendStats& p = pfc->stats();
    s.pause_frames_sent = p.pause_frames_sent;
    s.resume_frames_sent = p.resume_frames_sent;
    s.xoff_transitions = p.xoff_transitions;
    s.pause_asserted_time = p.asserted_time;
  }
  return s;
}

void Nic::finish_accounting() {
  rx_.finish_accounting();
}

void Nic::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kPosted: {
      QueuePair& qp = transport_.qp(static_cast<uint32_t>(arg));
      qp.posted = true;
      activate(qp);
      break;
    }
    case kRto: {
      QueuePair& qp = transport_.qp(static_cast<uint32_t>(arg));
      if (qp.tcp) {
        tcp_->on_timeout(*this, qp);
        break;
      }
      if (qp.done || qp.snd_nxt == qp.snd_una) break;  // nothing outstanding
      ++qp.timeouts;
      qp.retransmitted_packets += qp.snd_nxt - qp.snd_una;
      qp.snd_nxt = qp.snd_una;
      qp.rto->arm(ctx_.sim.now() + params_.rto);
      activate(qp);
      break;
    }
    case kPacingWake:
      pacing_wake_pending_ = false;
      port_.wake();
      break;
    case kDmaWritten:
      dma_written();
      break;
  }
}

}  // namespace models
