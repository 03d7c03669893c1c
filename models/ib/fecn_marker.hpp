// The congestion point of InfiniBand congestion control (IBA annex A10) at one switch output
// port: a data packet joining a VL queue that already holds more than Threshold bytes gets the
// FECN bit (kFlagFecn), subject to the annex's other switch settings:
//   - Packet_Size: packets of fewer 64-byte blocks are not marked;
//   - Marking_Rate: after a mark, that many eligible packets of the VL pass unmarked (the annex
//     gives the mean number between marks; a counter makes it exact and deterministic);
//   - Victim_Mask: a port whose VL waits for credit is backed up by congestion further
//     downstream (a victim, not the root); it marks only when its mask bit is set. A root port
//     drains its queue at its own line rate; so a VL that waited for credit within the time the
//     port takes to send `threshold` bytes is a victim now (an instantaneous test would call a
//     backed-up port a root in the moment after each credit update, while it has credit).
// The decision is taken at enqueue, on the queue the packet joins (itself excluded), like the
// ECN marker's default; it plugs into the port's marker slot (an InfiniBand port has no ECN).
#pragma once

#include <array>
#include <cstdint>

#include "models/egress_port.hpp"
#include "models/ib/credit_gate.hpp"
#include "models/ib/ib_cc_params.hpp"

namespace models {

class FecnMarker final : public EgressMarker {
 public:
  // `gate`: the port's credit gate (victim detection); null = never a victim.
  FecnMarker(Context& ctx, const IbCcParams& params, const IbCreditGate* gate, int64_t rate_bps)
      : ctx_(ctx),
        threshold_bytes_(static_cast<uint64_t>(params.threshold_bytes)),
        victim_window_(sim::serialization_time(params.threshold_bytes, rate_bps)),
        marking_rate_(params.marking_rate),
        packet_size_blocks_(static_cast<uint32_t>(params.packet_size_blocks)),
        victim_mask_(params.victim_mask),
        gate_(gate) {}

  void on_enqueue(EgressPort& port, const QueuedPacket& q) override {
    if (port.queue_bytes(q.priority) - q.wire_bytes <= threshold_bytes_) return;
    Packet& p = ctx_.pool[q.handle];
    if (p.type != PacketType::Data || ib_blocks(q.wire_bytes) < packet_size_blocks_) return;
    if (!victim_mask_ && gate_ != nullptr &&
        gate_->last_stalled(q.priority) + victim_window_ >= ctx_.sim.now()) {
      ++victim_skips_[q.priority];
      return;
    }
    int64_t& skip = skip_[q.priority];
    if (skip > 0) {
      --skip;
      return;
    }
    skip = marking_rate_;
    if ((p.flags & kFlagFecn) == 0) {  // marked once on its way, counted where it happened
      p.flags |= kFlagFecn;
      ++marks_[q.priority];
    }
  }
  void on_dequeue(EgressPort&, const QueuedPacket&) override {}

  uint64_t marks(uint8_t vl) const { return marks_[vl]; }
  // Packets over the threshold not marked because the port was a victim (out of credit).
  uint64_t victim_skips(uint8_t vl) const { return victim_skips_[vl]; }

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  Context& ctx_;
  uint64_t threshold_bytes_;
  sim::Time victim_window_;
  int64_t marking_rate_;
  uint32_t packet_size_blocks_;
  bool victim_mask_;
  const IbCreditGate* gate_;
  std::array<int64_t, kMaxClasses> skip_{};  // per VL (up to 15 data VLs)
  std::array<uint64_t, kMaxClasses> marks_{};
  std::array<uint64_t, kMaxClasses> victim_skips_{};
};

}  // namespace models
