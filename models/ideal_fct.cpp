#include "models/ideal_fct.hpp"

#include <algorithm>

namespace models {

sim::Time pipeline_delivery_time(const std::vector<PathHop>& hops, int64_t packets,
                                 int64_t full_wire_bytes, int64_t last_wire_bytes) {
  const size_t h = hops.size();
  std::vector<sim::Time> end_prev(h, sim::Time(0));  // when hop j finished the previous packet
  sim::Time delivered;
  for (int64_t i = 0; i < packets; ++i) {
    const int64_t wire = i + 1 == packets ? last_wire_bytes : full_wire_bytes;
    sim::Time start;  // start of packet i on the current hop
    sim::Time ser;
    for (size_t j = 0; j < h; ++j) {
      const sim::Time ser_j = sim::serialization_time(wire, hops[j].rate_bps);
      sim::Time ready;
      if (j == 0) {
        ready = sim::Time(0);
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
    }
    const PathHop& last = hops[h - 1];
    delivered = start + last.propagation + last.receiver_latency + ser;
  }
  return delivered;
}

sim::Time ideal_fct(const std::vector<PathHop>& data_path, const std::vector<PathHop>& ack_path,
                    int64_t message_bytes, const NicParams& nic) {
  const int64_t packets = (message_bytes + nic.mtu - 1) / nic.mtu;
  const int64_t overhead = nic.header_bytes + nic.framing_bytes;
  const int64_t last_payload = message_bytes - (packets - 1) * nic.mtu;
  const sim::Time data =
      pipeline_delivery_time(data_path, packets, nic.mtu + overhead, last_payload + overhead);
  const int64_t ack_wire = nic.header_bytes + nic.ack_payload_bytes + nic.framing_bytes;
  const sim::Time ack = pipeline_delivery_time(ack_path, 1, ack_wire, ack_wire);
  return post_latency(nic, message_bytes) + data + ack;  // inline messages post sooner
}

}  // namespace models
