// A NIC's receive buffer toward its host (NicParams::rx_drain_rate_bps, rx_buffer_bytes): with a
// finite drain rate, or DMA writes across links shared with other NICs (a GPU's PCIe link,
// staging memory), arriving data waits here until the host has taken it, one DMA write at a
// time. A packet that does not fit is dropped and counted. The NIC pauses lossless priorities
// upstream when the buffer fills (PFC sent by the NIC, NicParams::pfc_xoff / pfc_xon_offset), as
// real RDMA NICs do when their host cannot keep up (Guo et al., SIGCOMM 2016;
// docs/references.md). Wire bytes are what occupy the buffer, as in a switch's accounting, so
// the headroom formula applies unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/context.hpp"
#include "models/nic_params.hpp"
#include "models/ring.hpp"
#include "models/roce/pfc_sender.hpp"

namespace models {

class EgressPort;
class IngressListener;
class SharedDmaLink;

struct NicRxStats {
  uint64_t overflow_drops = 0;  // data packets that found the buffer full
  int64_t peak_bytes = 0;       // most wire bytes the buffer held
};

class NicRxBuffer final : public sim::EventHandler, private PfcHeldBytes {
 public:
  // Whoever takes the drained packets (the NIC's receiver): true when it keeps the packet,
  // false to have it released.
  class Consumer {
   public:
    virtual bool on_drained(PacketHandle h) = 0;

   protected:
    ~Consumer() = default;
  };

  // `params` and `shared` are the NIC's (they outlive the buffer and may change before the run).
  NicRxBuffer(Context& ctx, const NicParams& params, const std::vector<SharedDmaLink*>& shared,
              Consumer& consumer)
      : EventHandler(ctx.sim), ctx_(ctx), params_(params), shared_(shared), consumer_(consumer) {}

  // The host's drain rate on payload (the lower of rx_drain_rate and the PCIe rate; 0 = none).
  void set_drain_rate(int64_t bps) { drain_bps_ = bps; }
  // Whether received data waits here (a drain rate or a shared DMA link), or is the host's at
  // once.
  bool drains() const { return drain_bps_ > 0 || !shared_.empty(); }
  // InfiniBand: hears the buffer's bytes per VL (models/ib/credit_return.hpp).
  void set_credit_listener(IngressListener* rx) { credit_ = rx; }
  // NIC-sent PFC: the priorities in `lossless` pause upstream through `port` with `quanta`;
  // frames are logged as node `node`, port 0, from `host`.
  void enable_pfc(EgressPort& port, uint8_t lossless, uint32_t quanta, int node, uint32_t host,
                  PartitionLog<PfcEvent>* log);

  // A data packet arrives from the wire.
  void arrive(PacketHandle h);
  // Wire bytes of class (InfiniBand: VL) `c` in the buffer now.
  int64_t class_bytes(uint8_t c) const { return class_bytes_[c]; }
  const NicRxStats& stats() const { return stats_; }
  // The NIC's PFC sender (nullptr without NIC-sent PFC).
  const PfcSender* pfc() const { return pfc_.get(); }
  // Adds the time XOFF has been held up to now (end of run).
  void finish_accounting();

  void on_event(uint32_t, uint64_t) override;  // the head packet is drained

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  void start_drain();
  int64_t pfc_held_bytes(uint8_t priority) const override { return class_bytes_[priority]; }

  Context& ctx_;
  const NicParams& params_;
  const std::vector<SharedDmaLink*>& shared_;
  Consumer& consumer_;
  int64_t drain_bps_ = 0;
  IngressListener* credit_ = nullptr;
  Ring<PacketHandle> queue_;  // arrival order, drained one at a time by the host
  int64_t bytes_ = 0;
  std::array<int64_t, kMaxClasses> class_bytes_{};
  bool draining_ = false;
  uint8_t pfc_lossless_ = 0;  // NIC-sent PFC's lossless priorities (0 = off)
  std::unique_ptr<PfcSender> pfc_;
  NicRxStats stats_;
};

}  // namespace models
