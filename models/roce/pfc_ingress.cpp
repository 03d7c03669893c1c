#include "models/roce/pfc_ingress.hpp"

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
  ++st.generation;
  ++port_stats_[in_port].xoff_transitions;
  send_frame(in_port, priority, static_cast<uint32_t>(params_.quanta), PfcEvent::Pause, held_bytes);
  arm_refresh(in_port, priority);
}

void PfcIngress::on_xon(uint16_t in_port, uint8_t priority, int64_t held_bytes) {
  State& st = state_[static_cast<size_t>(in_port) * kPriorities + priority];
  st.xoff = false;
  ++st.generation;
  send_frame(in_port, priority, 0, PfcEvent::Resume, held_bytes);
}

void PfcIngress::arm_refresh(uint16_t port, uint8_t priority) {
  const State& st = state_[static_cast<size_t>(port) * kPriorities + priority];
  const sim::Time pause =
      sim::serialization_time(params_.quanta * 64, switch_.port(port).rate_bps());
  const uint64_t arg = (static_cast<uint64_t>(st.generation) << 32) |
                       (static_cast<uint64_t>(port) * kPriorities + priority);
  ctx_.sim.after(sim::Time(pause.ps / 2), this, 0, arg);
}

void PfcIngress::on_event(uint32_t, uint64_t arg) {
  const size_t slot = arg & 0xffffffffu;
  const State& st = state_[slot];
  if (!st.xoff || st.generation != (arg >> 32)) return;  // resumed since
  const uint16_t port = static_cast<uint16_t>(slot / kPriorities);
  const uint8_t priority = static_cast<uint8_t>(slot % kPriorities);
  send_frame(port, priority, static_cast<uint32_t>(params_.quanta), PfcEvent::Refresh,
             switch_.buffer().ingress_bytes(port, priority));
  arm_refresh(port, priority);
}

void PfcIngress::send_frame(uint16_t port, uint8_t priority, uint32_t quanta, PfcEvent::Kind kind,
                            int64_t held_bytes) {
  const PacketHandle h = ctx_.pool.alloc();
  Packet& p = ctx_.pool[h];
  p.type = PacketType::Pause;
  p.priority = priority;
  p.psn = quanta;
  p.wire_bytes = static_cast<uint32_t>(kPfcFrameWireBytes);
  if (quanta == 0) {
    ++port_stats_[port].resume_frames_sent;
  } else {
    ++port_stats_[port].pause_frames_sent;
  }
  if (log_ != nullptr)
    log_->push_back({ctx_.sim.now(), switch_.node(), port, priority, kind, held_bytes});
  switch_.port(port).send_control(h, p);
}

}  // namespace models
