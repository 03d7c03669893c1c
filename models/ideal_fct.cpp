#include "models/ideal_fct.hpp"

#include <algorithm>

namespace models {

namespace {

// Delay from packet start on hop j to its start on hop j + 1 when nothing waits: the first bit
// (or the last, when the switch stores and forwards or the egress is faster than the ingress,
// as cut-through would underrun) crosses the cable and the receiver's latency.
sim::Time hop_delay(const PathHop& in, const PathHop& out, sim::Time ser_in) {
  const bool wait_last = in.receiver_waits_last_bit || out.rate_bps > in.rate_bps;
  return in.propagation + in.receiver_latency + (wait_last ? ser_in : sim::Time(0));
}

}  // namespace

// Packet i starts on hop j at S(i, j) = max(S(i, j-1) + d(j-1), S(i-1, j) + s(j)) (it must have
// reached the hop, and the hop must have sent packet i-1), S(0, 0) = 0. For packets of one size
// (constant d and s) this is a longest path through an (i, j) grid whose horizontal steps cost
// d and vertical steps at column k cost s(k): all i vertical steps go to the slowest hop so far,
// S(i, j) = sum_{m<j} d(m) + i x max_{k<=j} s(k). So the full packets cost O(hops), not
// O(packets x hops), and the last (shorter) packet takes one step of the recursion.
sim::Time pipeline_delivery_time(const std::vector<PathHop>& hops, int64_t packets,
                                 int64_t full_wire_bytes, int64_t last_wire_bytes) {
  if (packets <= 0) return sim::Time(0);
  const size_t h = hops.size();
  const int64_t full = packets - 1;  // packets before the last
  sim::Time start;                   // S(last, j)
  sim::Time ser;                     // the last packet's serialization on hop j
  sim::Time full_reach;              // sum_{m<j} d(m) for a full packet
  int64_t slowest_full_ps = 0;       // max_{k<=j} s(k) for a full packet
  for (size_t j = 0; j < h; ++j) {
    const sim::Time ser_full = sim::serialization_time(full_wire_bytes, hops[j].rate_bps);
    const sim::Time ser_last = sim::serialization_time(last_wire_bytes, hops[j].rate_bps);
    if (j > 0) {
      const sim::Time ser_full_prev =
          sim::serialization_time(full_wire_bytes, hops[j - 1].rate_bps);
      full_reach = full_reach + hop_delay(hops[j - 1], hops[j], ser_full_prev);
    }
    slowest_full_ps = std::max(slowest_full_ps, ser_full.ps);
    const sim::Time ready = j == 0 ? sim::Time(0) : start + hop_delay(hops[j - 1], hops[j], ser);
    if (full > 0) {
      // Hop j is free once it has sent full packet full - 1: S(full - 1, j) + s(j).
      const sim::Time free_at = full_reach + sim::Time((full - 1) * slowest_full_ps) + ser_full;
      start = std::max(ready, free_at);
    } else {
      start = ready;
    }
    ser = ser_last;
  }
  const PathHop& last = hops[h - 1];
  return start + last.propagation + last.receiver_latency + ser;
}

sim::Time pipeline_delivery_time(const std::vector<PathHop>& hops, int64_t packets,
                                 int64_t full_payload, int64_t last_payload, int64_t overhead,
                                 int64_t src_pcie_bps, int64_t dst_drain_bps,
                                 sim::Time dst_write_latency) {
  if (packets <= 0) return sim::Time(0);
  if (src_pcie_bps == 0 && dst_drain_bps == 0) {
    // No PCIe rate on either side: the closed form above, the last packet written at once.
    return pipeline_delivery_time(hops, packets, full_payload + overhead, last_payload + overhead) +
           dst_write_latency;
  }
  // The read and write channels add two more pipeline stages whose service depends on the
  // previous packet's wire start: stepped packet by packet.
  const int64_t full_wire_bytes = full_payload + overhead;
  const int64_t last_wire_bytes = last_payload + overhead;
  sim::Time read_done, prev_start, written;  // PCIe read of the previous packet, its wire start
  const size_t h = hops.size();
  std::vector<sim::Time> end_prev(h, sim::Time(0));  // when hop j finished the previous packet
  sim::Time delivered;
  for (int64_t i = 0; i < packets; ++i) {
    const int64_t wire = i + 1 == packets ? last_wire_bytes : full_wire_bytes;
    const int64_t payload = i + 1 == packets ? last_payload : full_payload;
    if (src_pcie_bps > 0) {
      read_done = std::max(read_done, prev_start) + sim::serialization_time(payload, src_pcie_bps);
    }
    sim::Time start;  // start of packet i on the current hop
    sim::Time ser;
    for (size_t j = 0; j < h; ++j) {
      const sim::Time ser_j = sim::serialization_time(wire, hops[j].rate_bps);
      sim::Time ready;
      if (j == 0) {
        ready = read_done;
      } else {
        const PathHop& in = hops[j - 1];
        // First bit in + latency; the last bit too when the switch stores and forwards or
        // the egress is faster than the ingress (cut-through would underrun).
        const bool wait_last = in.receiver_waits_last_bit || hops[j].rate_bps > in.rate_bps;
        ready = start + in.propagation + in.receiver_latency + (wait_last ? ser : sim::Time(0));
      }
      start = std::max(ready, end_prev[j]);
      end_prev[j] = start + ser_j;
      ser = ser_j;
      if (j == 0) prev_start = start;
    }
    const PathHop& last = hops[h - 1];
    delivered = start + last.propagation + last.receiver_latency + ser + dst_write_latency;
    if (dst_drain_bps > 0) {
      written = std::max(written, delivered) + sim::serialization_time(payload, dst_drain_bps);
      delivered = written;
    }
  }
  return delivered;
}

sim::Time ideal_delivery(const std::vector<PathHop>& data_path, int64_t message_bytes,
                         const NicParams& nic, const HostPathParams& src,
                         const HostPathParams& dst) {
  const int64_t packets = (message_bytes + nic.mtu - 1) / nic.mtu;
  const int64_t overhead = nic.header_bytes + nic.framing_bytes;
  const int64_t last_payload = message_bytes - (packets - 1) * nic.mtu;
  int64_t drain = 0;  // as Nic::set_host_path: the PCIe write, or a slower host drain
  if (dst.pcie_rate_bps > 0) {
    drain = nic.rx_drain_rate_bps > 0 ? std::min(nic.rx_drain_rate_bps, dst.pcie_rate_bps)
                                      : dst.pcie_rate_bps;
  }
  const sim::Time data = pipeline_delivery_time(data_path, packets, nic.mtu, last_payload, overhead,
                                                src.pcie_rate_bps, drain, dst.dma_write_latency);
  return post_latency(nic, message_bytes, src) + data;  // inline messages post sooner
}

sim::Time ideal_fct(const std::vector<PathHop>& data_path, const std::vector<PathHop>& ack_path,
                    int64_t message_bytes, const NicParams& nic, const HostPathParams& src,
                    const HostPathParams& dst) {
  const int64_t ack_wire = nic.header_bytes + nic.ack_payload_bytes + nic.framing_bytes;
  const sim::Time ack = pipeline_delivery_time(ack_path, 1, ack_wire, ack_wire);
  return ideal_delivery(data_path, message_bytes, nic, src, dst) + ack;
}

}  // namespace models
