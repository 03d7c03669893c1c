#include "models/roce/pfc_ingress.hpp"

#include "models/control_frames.hpp"
#include "models/roce/pfc_headroom.hpp"

namespace models {

PfcIngress::PfcIngress(Context& ctx, Switch& sw, const PfcParams& params,
                       std::vector<PfcEvent>* log)
    : ctx_(ctx),
      switch_(sw),
      params_(params),
      log_(log),
      state_(sw.port_count() * kPriorities),
      port_stats_(sw.port_count()) {}

void PfcIngress::on_xoff(uint16_t in_port, uint8_t priority, int64_t held_bytes) {
  State& st = state_[static_cast<size_t>(in_port) * kPriorities + priority];
  st.xoff = true;
  ++port_stats_[in_port].xoff_transitions;
  send_frame(in_port, priority, static_cast<uint32_t>(params_.quanta), PfcEvent::Pause, held_bytes);
  arm_refresh(in_port, priority);
}

void PfcIngress::on_xon(uint16_t in_port, uint8_t priority, int64_t held_bytes) {
  State& st = state_[static_cast<size_t>(in_port) * kPriorities + priority];
  st.xoff = false;
  if (st.refresh) st.refresh->cancel();
  send_frame(in_port, priority, 0, PfcEvent::Resume, held_bytes);
}

void PfcIngress::arm_refresh(uint16_t port, uint8_t priority) {
  const size_t slot = static_cast<size_t>(port) * kPriorities + priority;
  State& st = state_[slot];
  if (!st.refresh) st.refresh = std::make_unique<sim::OrderedTimer>(ctx_.sim, this, 0, slot);
  const sim::Time pause =
      sim::serialization_time(params_.quanta * 64, switch_.port(port).rate_bps());
  st.refresh->arm(ctx_.sim.now() + sim::Time(pause.ps / 2));
}

// A refresh timer came due: XOFF still holds (XON cancels the timer).
void PfcIngress::on_event(uint32_t, uint64_t arg) {
  const size_t slot = static_cast<size_t>(arg);
  const uint16_t port = static_cast<uint16_t>(slot / kPriorities);
  const uint8_t priority = static_cast<uint8_t>(slot % kPriorities);
  send_frame(port, priority, static_cast<uint32_t>(params_.quanta), PfcEvent::Refresh,
             switch_.buffer().ingress_bytes(port, priority));
  arm_refresh(port, priority);
}

void PfcIngress::send_frame(uint16_t port, uint8_t priority, uint32_t quanta, PfcEvent::Kind kind,
                            int64_t held_bytes) {
  PacketHandle h{};
  Packet& frame = make_pfc_frame(ctx_.pool, h, priority, quanta);
  if (quanta == 0) {
    ++port_stats_[port].resume_frames_sent;
  } else {
    ++port_stats_[port].pause_frames_sent;
  }
  if (log_ != nullptr)
    log_->push_back({ctx_.sim.now(), switch_.node(), port, priority, kind, held_bytes});
  switch_.port(port).send_control(h, frame);
}

}  // namespace models
