// The sending side of InfiniBand link-level flow control at one port (IBA 7.9.4): per virtual
// lane, the total blocks sent (FCTBS) and the credit limit (FCCL) last advertised by the
// receiver, both absolute counters modulo 2^32 (the spec's are 12-bit; wider counters change
// nothing but the largest advertisable buffer). A packet may start only when
// FCCL - FCTBS covers its blocks; a flow-control packet raising FCCL wakes the port.
//
// At link-up the receiver's first flow-control packets advertise its whole buffer; the gate
// starts from that state (`initial_limit_blocks`) instead of modelling link initialisation.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/egress_port.hpp"
#include "models/ib/ib_params.hpp"

namespace models {

struct IbVlStats {
  uint64_t blocks_sent = 0;
  uint64_t wire_bytes_sent = 0;
  uint64_t stalls = 0;     // intervals with a packet waiting for credit
  sim::Time stalled_time;  // time with a packet waiting for credit
};

class IbCreditGate final : public FlowControlGate {
 public:
  // Stalls of at least `log_min_stall` are appended to `log` (when not null).
  IbCreditGate(Context& ctx, EgressPort& port, int node, int vls, uint32_t initial_limit_blocks,
               PartitionLog<CreditStall>* log, sim::Time log_min_stall = sim::Time(0))
      : ctx_(ctx),
        port_(port),
        node_(node),
        vls_(static_cast<size_t>(vls)),
        log_(log),
        log_min_stall_(log_min_stall) {
    for (Vl& v : vls_) v.limit = initial_limit_blocks;
  }

  bool may_send(uint8_t vl, uint32_t wire_bytes) override {
    Vl& v = lane(vl);
    const uint32_t need = ib_blocks(wire_bytes);
    if (v.limit - v.sent >= need) {  // modulo 2^32, as the spec's 12-bit arithmetic
      if (v.stalled) end_stall(vl, v);
      return true;
    }
    v.need = need;
    if (!v.stalled) {
      v.stalled = true;
      v.stall_start = ctx_.sim.now();
    }
    return false;
  }

  void on_send(uint8_t vl, uint32_t wire_bytes) override {
    Vl& v = lane(vl);
    const uint32_t blocks = ib_blocks(wire_bytes);
    v.sent += blocks;
    v.stats.blocks_sent += blocks;
    v.stats.wire_bytes_sent += wire_bytes;
  }

  // A flow-control packet from the receiver: its credit limit for `vl`. A limit never goes
  // back (an older update overtaken by a newer one is ignored).
  void on_flow_control(uint8_t vl, uint32_t fccl) {
    ++flow_control_received_;
    Vl& v = lane(vl);
    if (static_cast<int32_t>(fccl - v.limit) <= 0) return;
    v.limit = fccl;
    if (v.stalled && v.limit - v.sent >= v.need) end_stall(vl, v);
    port_.wake();
  }

  // Closes open stalls at the end of a run.
  void finish_accounting() {
    for (size_t i = 0; i < vls_.size(); ++i) {
      if (vls_[i].stalled) end_stall(static_cast<uint8_t>(i), vls_[i]);
    }
  }

  uint32_t blocks_sent(uint8_t vl) const { return vls_[vl].sent; }
  uint32_t credit_limit(uint8_t vl) const { return vls_[vl].limit; }
  uint32_t credits(uint8_t vl) const { return vls_[vl].limit - vls_[vl].sent; }
  const IbVlStats& vl_stats(uint8_t vl) const { return vls_[vl].stats; }
  size_t vl_count() const { return vls_.size(); }
  uint64_t flow_control_received() const { return flow_control_received_; }
  // When `vl` last had a packet waiting for credit: now while it does, else the end of its last
  // stall (long before the run if it never had one). Congestion control tells a victim port by
  // it.
  sim::Time last_stalled(uint8_t vl) const {
    const Vl& v = vls_[vl];
    return v.stalled ? ctx_.sim.now() : v.last_stall_end;
  }
  sim::Time stalled_time() const {
    sim::Time t;
    for (const Vl& v : vls_) t += v.stats.stalled_time;
    return t;
  }

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  struct Vl {
    uint32_t sent = 0;   // FCTBS
    uint32_t limit = 0;  // FCCL
    uint32_t need = 0;   // blocks of the packet waiting, while stalled
    bool stalled = false;
    sim::Time stall_start;
    sim::Time last_stall_end{-(int64_t{1} << 62)};
    IbVlStats stats;
  };
  // Inlined into the per-packet calls (may_send, on_send); the message is built out of line.
  Vl& lane(uint8_t vl) {
    if (vl >= vls_.size()) bad_vl(vl);
    return vls_[vl];
  }
  [[noreturn, gnu::cold, gnu::noinline]] void bad_vl(uint8_t vl) const {
    throw std::logic_error("InfiniBand: a packet on VL " + std::to_string(vl) + " at node " +
                           std::to_string(node_) + " port " + std::to_string(port_.index()) +
                           ", which has " + std::to_string(vls_.size()) + " data VLs");
  }
  void end_stall(uint8_t vl, Vl& v) {
    v.stalled = false;
    const sim::Time now = ctx_.sim.now();
    v.last_stall_end = now;
    ++v.stats.stalls;
    v.stats.stalled_time += now - v.stall_start;
    if (log_ != nullptr && now - v.stall_start >= log_min_stall_) {
      log_->local().push_back({v.stall_start, now, node_, port_.index(), vl});
    }
  }

  Context& ctx_;
  EgressPort& port_;
  int node_;
  std::vector<Vl> vls_;
  PartitionLog<CreditStall>* log_;
  sim::Time log_min_stall_;
  uint64_t flow_control_received_ = 0;
};

}  // namespace models
