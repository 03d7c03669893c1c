// A malfunctioning NIC that sends PFC pause frames continuously from a given time (a "pause
// storm"): a stuck receive pipeline or a firmware fault keeps asserting XOFF while nothing is
// drained (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016, section 4.3: one
// NIC's storm paused its ToR, then the ToR's upstream, spreading through the fabric). The
// frames go out on the NIC's port as MAC control frames, ahead of any data, whatever its
// receive buffer holds; the NIC's own receive-buffer PFC (if any) is left as it is.
#pragma once

#include <cstdint>
#include <vector>

#include "models/context.hpp"
#include "models/egress_port.hpp"
#include "models/roce/pfc_params.hpp"

namespace models {

struct PauseStormParams {
  uint32_t host = 0;                 // the NIC that storms
  sim::Time start;                   // first frame
  sim::Time end = sim::Time::max();  // no frame at or after this time (max = never stops)
  uint8_t priorities = 0;            // bit p: pause class p (0 = every lossless class)
  uint32_t quanta = 65535;           // pause time per frame, in 512-bit-time quanta
  sim::Time interval{0};             // between frames; 0 = half the pause time (a refresh)
};

class PauseStorm final : public sim::EventHandler {
 public:
  // `node` is the NIC's topology node (for pfc.csv); `log` may be null.
  PauseStorm(Context& ctx, EgressPort& nic_port, int node, const PauseStormParams& params,
             PartitionLog<PfcEvent>* log);
  void start() { ctx_.sim.at(params_.start, this, 0); }
  void on_event(uint32_t kind, uint64_t arg) override;
  uint64_t frames_sent() const { return frames_sent_; }
  int node() const { return node_; }
  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);
  const PauseStormParams& params() const { return params_; }

 private:
  Context& ctx_;
  EgressPort& port_;
  int node_;
  PauseStormParams params_;
  PartitionLog<PfcEvent>* log_;
  uint64_t frames_sent_ = 0;
};

}  // namespace models
