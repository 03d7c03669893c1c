#include "models/roce/pfc_sender.hpp"

#include "models/control_frames.hpp"

namespace models {

void PfcSender::xoff(uint8_t priority, int64_t held_bytes) {
  xoff_[priority] = true;
  xoff_since_[priority] = ctx_.sim.now();
  ++stats_.xoff_transitions;
  send(priority, quanta_, PfcEvent::Pause, held_bytes);
  arm_refresh(priority);
}

void PfcSender::xon(uint8_t priority, int64_t held_bytes) {
  xoff_[priority] = false;
  stats_.asserted_time += ctx_.sim.now() - xoff_since_[priority];
  if (refresh_[priority]) refresh_[priority]->cancel();
  send(priority, 0, PfcEvent::Resume, held_bytes);
}

void PfcSender::finish_accounting() {
  for (uint8_t p = 0; p < kPriorities; ++p) {
    if (!xoff_[p]) continue;
    stats_.asserted_time += ctx_.sim.now() - xoff_since_[p];
    xoff_since_[p] = ctx_.sim.now();
  }
}

void PfcSender::on_event(uint32_t, uint64_t arg) {
  const auto priority = static_cast<uint8_t>(arg);
  send(priority, quanta_, PfcEvent::Refresh, held_.pfc_held_bytes(priority));
  arm_refresh(priority);
}

// Half the pause time at the port's rate (1 quantum = 512 bit times = 64 bytes' time).
void PfcSender::arm_refresh(uint8_t priority) {
  if (!refresh_[priority]) {
    refresh_[priority] = std::make_unique<sim::OrderedTimer>(ctx_.sim, this, 0, priority);
  }
  const sim::Time pause =
      sim::serialization_time(static_cast<int64_t>(quanta_) * 64, port_.rate_bps());
  refresh_[priority]->arm(ctx_.sim.now() + sim::Time(pause.ps / 2));
}

void PfcSender::send(uint8_t priority, uint32_t quanta, PfcEvent::Kind kind, int64_t held_bytes) {
  PacketHandle h{};
  Packet& frame = make_pfc_frame(ctx_.pool, h, priority, quanta);
  if (src_host_ >= 0) frame.src_host = src_host_;
  if (quanta == 0) {
    ++stats_.resume_frames_sent;
  } else {
    ++stats_.pause_frames_sent;
  }
  if (log_ != nullptr) {
    log_->local().push_back({ctx_.sim.now(), node_, port_index_, priority, kind, held_bytes});
  }
  port_.send_control(h, frame);
}

}  // namespace models
