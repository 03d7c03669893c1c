// The receiving side of InfiniBand link-level flow control at one node (a switch or a NIC):
// a receive buffer per (input port, VL) counted in 64-byte blocks, and the flow-control
// packets that return credit to the sender upstream (IBA 7.9.4).
//
// Per (port, VL) the receiver keeps ABR, the blocks received so far (modulo 2^32), and the
// blocks held now; it advertises the absolute credit limit FCCL = ABR + free blocks. FCCL only
// grows when blocks leave the buffer, so an update is sent then: at once if the last one for
// that (port, VL) went at least `fc_min_interval` ago, else one update at the end of that
// interval carries every change in between. While a port sees traffic, every VL's limit is
// also re-sent each `fc_period`, so a lost update heals. Flow-control packets are MAC control
// frames on the port's own egress: they go ahead of data, take link bandwidth and propagation.
//
// A packet that does not fit its VL's buffer means a sender ignored its credits: an internal
// error (std::logic_error naming the time, node, port and VL), never a drop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "models/egress_port.hpp"
#include "models/ib/ib_params.hpp"
#include "models/switch_buffer.hpp"

namespace models {

class IbCreditGate;

struct IbReceivePortStats {
  uint64_t flow_control_sent = 0;
  uint64_t peak_blocks = 0;  // most blocks any VL of the port held
};

class IbCreditReturn final : public IngressListener, public sim::EventHandler {
 public:
  // `ports[i]`: the egress of port i at this node (its flow-control packets go out there).
  IbCreditReturn(Context& ctx, std::vector<EgressPort*> ports, std::string name,
                 const IbParams& params);

  // The gate of this node's port i, whose FCTBS the flow-control packets carry.
  void set_gate(size_t port, const IbCreditGate* gate) { gates_[port] = gate; }

  // Called once per packet entering (bytes rose) or leaving (bytes fell) an input buffer.
  void on_ingress_bytes(uint16_t in_port, uint8_t vl, int64_t bytes) override;
  void on_event(uint32_t kind, uint64_t arg) override;

  uint32_t capacity_blocks() const { return capacity_blocks_; }
  uint32_t blocks(uint16_t port, uint8_t vl) const { return slot(port, vl).blocks; }
  uint32_t peak_blocks(uint16_t port, uint8_t vl) const { return slot(port, vl).peak_blocks; }
  uint32_t credit_limit(uint16_t port, uint8_t vl) const {
    const Slot& s = slot(port, vl);
    return s.received + (capacity_blocks_ - s.blocks);
  }
  // The port's peak is its VLs' highest peak: kept per VL only, so that a packet in touches
  // one slot (the per-port maximum was a second cache miss per packet on large fabrics).
  IbReceivePortStats port_stats(size_t port) const {
    IbReceivePortStats s;
    s.flow_control_sent = flow_control_sent_[port];
    for (int vl = 0; vl < vls_; ++vl) {
      s.peak_blocks = std::max<uint64_t>(
          s.peak_blocks, slot(static_cast<uint16_t>(port), static_cast<uint8_t>(vl)).peak_blocks);
    }
    return s;
  }
  size_t vl_count() const { return static_cast<size_t>(vls_); }

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  enum Kind : uint32_t { kDeferred = 0, kPeriodic = 1 };
  struct Slot {
    int64_t bytes = 0;      // wire bytes held (as the buffer accounting reports them)
    uint32_t blocks = 0;    // blocks held
    uint32_t received = 0;  // ABR
    uint32_t peak_blocks = 0;
    sim::Time next_allowed;  // earliest time of the next on-change update
    bool deferred = false;   // an update is scheduled at next_allowed
  };
  struct PortState {
    bool periodic_armed = false;
    bool active = false;  // credit changed since the last periodic refresh
  };
  Slot& slot(uint16_t port, uint8_t vl) { return slots_[static_cast<size_t>(port) * vls_ + vl]; }
  const Slot& slot(uint16_t port, uint8_t vl) const {
    return slots_[static_cast<size_t>(port) * vls_ + vl];
  }
  [[noreturn]] void overflow(uint16_t port, uint8_t vl, uint32_t blocks) const;
  [[noreturn, gnu::cold]] void bad_vl(uint16_t port, uint8_t vl) const;
  void changed(uint16_t port, uint8_t vl);
  void send_update(uint16_t port, uint8_t vl);

  Context& ctx_;
  std::vector<EgressPort*> ports_;
  std::string name_;
  int vls_;
  uint32_t capacity_blocks_;
  sim::Time min_interval_;
  sim::Time period_;
  std::vector<Slot> slots_;  // [port * vls + vl]
  std::vector<PortState> port_state_;
  std::vector<const IbCreditGate*> gates_;
  std::vector<uint64_t> flow_control_sent_;  // per port
};

}  // namespace models
