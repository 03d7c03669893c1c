// The channel-adapter side of InfiniBand congestion control (IBA annex A10): the receiver turns
// FECN-marked data into BECNs, the sender keeps a congestion control table index (CCTI) per QP.
//
// BECN travels in a congestion notification packet (CNP), one per FECN-marked data packet, to
// the QP's sender, on the NIC's CNP class (nic.cnp_priority as SL). The annex lets a responder
// set BECN on an ACK instead; this engine coalesces ACKs (nic.ack_every), so an ACK-borne BECN
// would carry one of several FECNs and make CCTI's climb depend on the ACK setting. A CNP per
// mark keeps one FECN -> one BECN -> one CCTI_Increase, and, as a packet of its own, it takes
// link bandwidth, credits and latency like any other.
//
// Sender, per QP: a BECN raises CCTI by CCTI_Increase up to CCTI_Limit and starts the QP's
// CCTI_Timer if it is not running; each expiry lowers CCTI by one and re-arms while
// CCTI > CCTI_Min (as the hfi1 driver's cca_timer does). The QP's rate becomes
// line x 2^shift / (2^shift + multiplier) of CCT[CCTI] (ib_cc_params.hpp), which the NIC's
// per-QP pacer applies: packet start to packet start = packet time + inter-packet delay. State is
// allocated on a QP's first BECN; a QP never notified costs nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/context.hpp"
#include "models/ib/ib_cc_params.hpp"
#include "models/transport.hpp"
#include "sim/stable_vector.hpp"

namespace models {

// One CCTI change of a traced QP (ib_cc.csv).
struct CctiChange {
  sim::Time time;
  uint32_t flow = 0;
  uint32_t qp = 0;
  int64_t ccti = 0;
  sim::Time ipd;  // inter-packet delay after an MTU packet at line rate
  int64_t rate_bps = 0;
};

// Per NIC (host).
struct IbCcNicStats {
  uint64_t fecn_received = 0;  // FECN-marked data packets that arrived (= BECNs sent)
  uint64_t becns_received = 0;
  int64_t max_ccti = 0;      // highest CCTI any of its QPs reached
  int64_t min_rate_bps = 0;  // lowest rate that set (0 = never throttled)
};

class IbCongestionControl final : public sim::EventHandler {
 public:
  // `mtu_wire_bytes`: the packet whose inter-packet delay the trace reports.
  IbCongestionControl(Context& ctx, const IbCcParams& params, Transport& transport, size_t hosts,
                      uint32_t mtu_wire_bytes);

  const IbCcParams& params() const { return params_; }

  // Receiver `host` got a FECN-marked data packet (it returns a BECN).
  void on_fecn(uint32_t host) { ++stats_[host].fecn_received; }
  // Sender: a BECN for `qp`, whose NIC sends at `line_rate_bps`.
  void on_becn(QueuePair& qp, int64_t line_rate_bps);

  int64_t ccti(uint32_t qp) const { return qp < state_.size() ? state_[qp].ccti : 0; }
  const IbCcNicStats& nic_stats(uint32_t host) const { return stats_[host]; }
  uint64_t becns_received() const;
  // State for QP ids below `n` allocated now (a split run: before it runs, once the flows are
  // added), so that no partition grows the vector another one reads.
  void reserve_qps(size_t n) { state_.grow_to(n); }

  // Record every CCTI change of `qp` into `log`.
  void trace(uint32_t qp, PartitionLog<CctiChange>* log);

  void on_event(uint32_t kind, uint64_t arg) override;

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(uint32_t host, sim::ResultArchive& a);  // `host`'s counts

 private:
  struct QpState {
    int64_t ccti = 0;
    int64_t line_bps = 0;
    bool traced = false;
    bool applied = false;  // the QP's rate follows the table (from its first BECN on)
    std::unique_ptr<sim::Timer> timer;
  };
  QpState& state(uint32_t qp);
  void apply(QpState& s, QueuePair& qp);

  Context& ctx_;
  IbCcParams params_;
  Transport& transport_;
  uint32_t mtu_wire_bytes_;
  sim::StableVector<QpState, 1024> state_;  // by QP id (reserve_qps)
  std::vector<IbCcNicStats> stats_;
  PartitionLog<CctiChange>* log_ = nullptr;
};

}  // namespace models
