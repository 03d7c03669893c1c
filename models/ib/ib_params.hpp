// InfiniBand link-layer parameters (IBA specification volume 1, chapter 7; docs/references.md
// "InfiniBand link layer"), with their defaults and why.
#pragma once

#include <array>
#include <cstdint>

#include "models/context.hpp"
#include "models/ib/ib_cc_params.hpp"
#include "models/ib/vl_arbiter.hpp"
#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

// Credits count 64-byte blocks (IBA 7.9.4).
constexpr int64_t kIbBlockBytes = 64;
// A flow-control packet is 4 bytes of fields (op, FCTBS, VL, FCCL) + a 2-byte LPCRC (IBA 7.9.4.1)
// plus the start and end delimiters of the physical layer: 8 bytes on the wire.
constexpr uint32_t kIbFlowControlWireBytes = 8;
// Data virtual lanes of a port: VL0..VL14 (IBA 7.6.3; VL15 is for subnet management only).
constexpr int kIbMaxDataVls = 15;
static_assert(kIbMaxDataVls <= kMaxClasses);
constexpr int kIbServiceLevels = 16;

// Blocks a packet of `wire_bytes` occupies in a receive buffer.
constexpr uint32_t ib_blocks(uint32_t wire_bytes) {
  return static_cast<uint32_t>((wire_bytes + kIbBlockBytes - 1) / kIbBlockBytes);
}

struct IbParams {
  // Data VLs per port (the spec's ports have 1, 2, 4, 8 or 15; any of 1..15 here).
  int data_vls = 1;
  // Receive buffer per (input port, VL), switches and NICs alike. 64 KiB: a few MTU packets
  // above the bandwidth-delay product of a 400 Gb/s link of up to ~100 m (2 x 0.5 us x 50 GB/s
  // = 50 KB plus switching latency).
  int64_t vl_buffer_bytes = 65'536;
  // SL -> VL, the default table of every port (switch ports may override it, per port:
  // scenarios/loader/sl_to_vl_overrides.hpp); default SL mod data_vls.
  std::array<uint8_t, kIbServiceLevels> sl_to_vl{};
  bool sl_to_vl_given = false;  // the scenario wrote the table (else the default above)
  // A receiver re-sends each VL's credit limit this often while its port has seen traffic
  // (IBA 7.9.4.2 bounds the gap by 65,536 symbol times; a lost update heals within a period).
  sim::Time fc_period{10'000'000};  // 10 us
  // Updates on change are at least this far apart per (port, VL); changes in between are
  // carried by one update at the end of the interval. 40 ns is under a 4 KiB packet's time at
  // 800 Gb/s (41 ns), so packets of full MTU each return their credit at once.
  sim::Time fc_min_interval{40'000};
  // "ndr" (400 Gb/s) | "xdr" (800 Gb/s): every link of the topology at that rate; "" = the
  // topology's rates.
  int64_t preset_rate_bps = 0;
  // VL arbitration at every output port. Default (not given): no high-priority entries and one
  // low-priority entry of weight 64 (4 KiB) per data VL, i.e. round robin by the MTU.
  VlArbitrationParams arbitration;
  bool arbitration_given = false;
  // credits.csv lists the stalls at least this long (every stall still counts in the
  // counters). On a large busy fabric nearly every packet waits a little for credit, and a
  // row per wait makes a file of hundreds of MB; 0 = every stall.
  sim::Time credit_log_min_stall{0};
  // Congestion control (annex A10), off by default: infiniband.cc.
  IbCcParams cc;
  // Adaptive routing (models/adaptive_routing.cpp): switches send each packet out of the least
  // loaded port of its destination's equal-cost set, and NICs accept packets out of order.
  // Off by default, as OpenSM leaves it unless configured.
  bool adaptive_routing = false;

  uint8_t vl_of(uint8_t sl) const {
    return sl_to_vl_given ? sl_to_vl[sl] : static_cast<uint8_t>(sl % data_vls);
  }
};

// One credit stall of a sending port's VL (credits.csv): packets waited for credit from
// `start` to `end` (end == start for none yet, closed at the end of the run).
struct CreditStall {
  sim::Time start, end;
  int node = -1;
  uint16_t port = 0;
  uint8_t vl = 0;
};

// The parameters of IbParams a scenario sets (infiniband; models/ib/ib_params.cpp).
const sim::ParamTable<IbParams>& ib_param_table();

}  // namespace models
