// The sending side of PFC at a switch: when the MMU (SwitchBuffer) decides XOFF for an
// (ingress port, lossless priority), that port's PfcSender pauses the upstream, refreshes the
// pause while XOFF holds and resumes it at XON (pfc_sender.hpp, shared with the NICs). The
// thresholds themselves (static or dynamic) are the MMU's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/roce/pfc_params.hpp"
#include "models/roce/pfc_sender.hpp"
#include "models/switch.hpp"

namespace models {

using PfcPortStats = PfcSendStats;

class PfcIngress final : public XoffListener {
 public:
  PfcIngress(Context& ctx, Switch& sw, const PfcParams& params, PartitionLog<PfcEvent>* log);

  void on_xoff(uint16_t in_port, uint8_t priority, int64_t held_bytes) override;
  void on_xon(uint16_t in_port, uint8_t priority, int64_t held_bytes) override;

  const PfcPortStats& port_stats(size_t port) const { return ports_[port]->sender.stats(); }

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  // One port's sender, and what its refreshes log: the port's ingress bytes of the priority.
  struct Port final : PfcHeldBytes {
    Port(Context& ctx, Switch& sw, uint16_t index, uint32_t quanta, PartitionLog<PfcEvent>* log)
        : buffer(sw.buffer()),
          index(index),
          sender(ctx, sw.port(index), quanta, *this, sw.node(), index, -1, log) {}
    int64_t pfc_held_bytes(uint8_t priority) const override {
      return buffer.ingress_bytes(index, priority);
    }
    const SwitchBuffer& buffer;
    uint16_t index;
    PfcSender sender;
  };
  std::vector<std::unique_ptr<Port>> ports_;
};

}  // namespace models
