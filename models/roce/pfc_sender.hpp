// The sending side of PFC on one port, shared by switch ports (PfcIngress) and NICs: XOFF for
// a priority sends the upstream a pause frame and refreshes it at half the pause time while
// XOFF holds (so the upstream never resumes early), XON sends a resume (quanta 0). One timer
// per priority, re-armed by each refresh and cancelled by XON. When to XOFF and XON is the
// owner's: the switch's MMU (static or dynamic thresholds) or the NIC's receive buffer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/context.hpp"
#include "models/egress_port.hpp"
#include "models/roce/pfc_params.hpp"

namespace models {

struct PfcSendStats {
  uint64_t pause_frames_sent = 0;  // pause and refresh frames
  uint64_t resume_frames_sent = 0;
  uint64_t xoff_transitions = 0;
  sim::Time asserted_time;  // sum over priorities of the time XOFF held (finish_accounting)
};

// What the owner's buffer holds of a priority, for the log of a refresh.
class PfcHeldBytes {
 public:
  virtual int64_t pfc_held_bytes(uint8_t priority) const = 0;

 protected:
  ~PfcHeldBytes() = default;
};

class PfcSender final : public sim::EventHandler {
 public:
  // Frames leave through `port`, ahead of its data, carrying `quanta`; each is counted and,
  // with `log`, logged as sent by (`node`, `port_index`). A NIC's frames carry its `src_host`
  // (-1: a switch's, which carry none).
  PfcSender(Context& ctx, EgressPort& port, uint32_t quanta, const PfcHeldBytes& held, int node,
            uint16_t port_index, int src_host, PartitionLog<PfcEvent>* log)
      : EventHandler(ctx.sim),
        ctx_(ctx),
        port_(port),
        held_(held),
        log_(log),
        quanta_(quanta),
        node_(node),
        src_host_(src_host),
        port_index_(port_index) {}

  void xoff(uint8_t priority, int64_t held_bytes);
  void xon(uint8_t priority, int64_t held_bytes);
  bool asserted(uint8_t priority) const { return xoff_[priority]; }
  const PfcSendStats& stats() const { return stats_; }
  // Adds the time each priority still in XOFF has held it up to now (end of run).
  void finish_accounting();

  void on_event(uint32_t, uint64_t priority) override;  // a refresh came due: XOFF holds

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  void send(uint8_t priority, uint32_t quanta, PfcEvent::Kind kind, int64_t held_bytes);
  void arm_refresh(uint8_t priority);

  Context& ctx_;
  EgressPort& port_;
  const PfcHeldBytes& held_;
  PartitionLog<PfcEvent>* log_;
  uint32_t quanta_;
  int node_;
  int src_host_;
  uint16_t port_index_;
  std::array<bool, kPriorities> xoff_{};
  std::array<sim::Time, kPriorities> xoff_since_{};
  // Made at a priority's first XOFF (only lossless priorities ever have one).
  std::array<std::unique_ptr<sim::OrderedTimer>, kPriorities> refresh_;
  PfcSendStats stats_;
};

}  // namespace models
