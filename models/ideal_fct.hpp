// The unloaded completion time of a message along a path: the store-and-forward / cut-through
// pipeline recursion, exact in picoseconds. flows.csv reports it as the ideal FCT that a
// flow's slowdown is measured against.
#pragma once

#include <cstdint>
#include <vector>

#include "models/nic_params.hpp"
#include "sim/time.hpp"

namespace models {

struct PathHop {
  int64_t rate_bps = 0;          // rate of the sending port of this hop
  sim::Time propagation;         // cable delay
  sim::Time receiver_latency;    // switch latency (first bit in → out), or the NIC's rx latency
  bool receiver_waits_last_bit;  // NIC receiver or store-and-forward switch
};

// Time from posting a message to the delivery of its last packet at the destination NIC.
// Packets: `packets - 1` of `full_wire_bytes` then one of `last_wire_bytes`.
sim::Time pipeline_delivery_time(const std::vector<PathHop>& hops, int64_t packets,
                                 int64_t full_wire_bytes, int64_t last_wire_bytes);

// Same, with the sender's and receiver's PCIe paths (host_path.hpp): packet i leaves once its
// payload is read, r(i) = max(r(i-1), start(i-1)) + payload(i) / src.pcie_rate (one packet read
// ahead), and is delivered once written, w(i) = max(arrival(i), w(i-1)) + payload(i) / drain,
// drain = the lower of nic.rx_drain_rate and dst.pcie_rate when dst.pcie_rate is set, and
// arrival(i) includes dst's DMA write latency. The tx latencies are ideal_fct's.
sim::Time pipeline_delivery_time(const std::vector<PathHop>& hops, int64_t packets,
                                 int64_t full_payload, int64_t last_payload, int64_t overhead,
                                 int64_t src_pcie_bps, int64_t dst_drain_bps,
                                 sim::Time dst_write_latency);

// Unloaded time from posting a message to the delivery of its last byte at the destination
// host: tx latency (+ doorbell and DMA read latency) + pipelined delivery + the receiver's
// DMA write (ideal_fct without the ACK's trip back).
sim::Time ideal_delivery(const std::vector<PathHop>& data_path, int64_t message_bytes,
                         const NicParams& nic, const HostPathParams& src = {},
                         const HostPathParams& dst = {});

// Ideal FCT: tx latency (+ doorbell and DMA read latency) + pipelined delivery of all packets
// + the receiver's DMA write + the final ACK's trip back.
sim::Time ideal_fct(const std::vector<PathHop>& data_path, const std::vector<PathHop>& ack_path,
                    int64_t message_bytes, const NicParams& nic, const HostPathParams& src = {},
                    const HostPathParams& dst = {});

}  // namespace models
