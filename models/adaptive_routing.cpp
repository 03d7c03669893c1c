// Adaptive routing at a switch: per packet, the output is the least loaded port of the
// destination's next-hop set (the equal-cost set the routing tables computed; min-hop or
// up*/down*), as InfiniBand switches with AR do: the subnet manager gives each destination an AR
// group (algorithm TREE: all ports with minimal hops to it) and the switch selects the output
// port out of the group by the ports' load (NVIDIA, "InfiniBand Cluster Bring-up Procedure",
// section Adaptive Routing). The receiving NIC then accepts packets out of order (ConnectX-5
// and later: "Out-of-Order Data Placement" for RC QPs, MLNX_OFED documentation; models/nic.cpp).
//
// Load of a candidate, lowest first: first whether the port can send the packet without waiting
// for credit (InfiniBand: its credit for the VL covers the bytes queued ahead plus this packet),
// then the bytes queued in the packet's class, then whether the serialiser is busy. Ties go to
// the static choice (linear forwarding table or per-flow hash), then to the next ports of the
// set after it in order: on an idle fabric every packet follows the static route, so AR only
// reorders packets when it avoids a queue. Everything read is switch state, so the same scenario
// and seed give the same choices.
//
// Cost per packet: one pass over the candidate ports (a few), no allocation, no lookup.
#include "models/ib/credit_gate.hpp"
#include "models/switch.hpp"

namespace models {
namespace {

constexpr uint64_t kCreditShort = uint64_t{1} << 63;

}  // namespace

int Switch::adaptive_route(const Packet& p, int static_port) {
  const auto hops = routing_->next_hops(node_, static_cast<int>(p.dst_host));
  const size_t n = hops.size();
  if (n < 2) return static_port;
  const bool credits = !credit_gates_.empty();
  auto load = [&](uint16_t port) {
    const EgressPort& e = *ports_[port];
    // The VL the packet would leave on by this port (its SL -> VL table, when it has one).
    const uint8_t cls =
        remap_vl_ ? sl_to_vl_[static_cast<size_t>(port) * kSlToVlEntries + p.sl] : p.priority;
    const uint64_t queued = e.queue_bytes(cls);
    uint64_t l = queued * 2 + (e.busy() ? 1 : 0);
    if (credits && credit_gates_[port] != nullptr) {
      const uint64_t need = (queued + p.wire_bytes + kIbBlockBytes - 1) / kIbBlockBytes;
      if (credit_gates_[port]->credits(cls) < need) l |= kCreditShort;
    }
    return l;
  };
  // Start at the static port's place in the set (it wins ties); a static port outside the set
  // (a table from before a link event) starts the scan at the set's first port.
  size_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    if (hops[i] == static_port) {
      start = i;
      break;
    }
  }
  uint16_t best = hops[start];
  uint64_t best_load = load(best);
  for (size_t k = 1; k < n && best_load != 0; ++k) {
    size_t i = start + k;
    if (i >= n) i -= n;
    const uint64_t l = load(hops[i]);
    if (l < best_load) {
      best_load = l;
      best = hops[i];
    }
  }
  if (best != static_port) ++stats_.adaptive_reroutes;
  return best;
}

}  // namespace models
