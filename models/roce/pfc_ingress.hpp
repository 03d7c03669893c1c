// The sending side of PFC at a switch: when the MMU (SwitchBuffer) decides XOFF for an
// (ingress port, lossless priority) it sends the upstream a pause frame, refreshes it while
// XOFF holds (at half the pause time, so the upstream never resumes early), and sends a resume
// (quanta 0) at XON. The thresholds themselves (static or dynamic) are the MMU's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/roce/pfc_params.hpp"
#include "models/switch.hpp"

namespace models {

struct PfcPortStats {
  uint64_t pause_frames_sent = 0;  // pause and refresh frames
  uint64_t resume_frames_sent = 0;
  uint64_t xoff_transitions = 0;
};

class PfcIngress final : public XoffListener, public sim::EventHandler {
 public:
  PfcIngress(Context& ctx, Switch& sw, const PfcParams& params, std::vector<PfcEvent>* log);

  void on_xoff(uint16_t in_port, uint8_t priority, int64_t held_bytes) override;
  void on_xon(uint16_t in_port, uint8_t priority, int64_t held_bytes) override;
  void on_event(uint32_t kind, uint64_t arg) override;  // refresh timers

  const PfcPortStats& port_stats(size_t port) const { return port_stats_[port]; }

 private:
  // Per (ingress port, priority): the refresh timer, made at the first XOFF (only lossless
  // priorities ever have one); armed while XOFF holds.
  struct State {
    bool xoff = false;
    std::unique_ptr<sim::OrderedTimer> refresh;
  };
  void send_frame(uint16_t port, uint8_t priority, uint32_t quanta, PfcEvent::Kind kind,
                  int64_t held_bytes);
  void arm_refresh(uint16_t port, uint8_t priority);

  Context& ctx_;
  Switch& switch_;
  PfcParams params_;
  std::vector<PfcEvent>* log_;
  std::vector<State> state_;  // [port * kPriorities + priority]
  std::vector<PfcPortStats> port_stats_;
};

}  // namespace models
