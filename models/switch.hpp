// An output-queued switch. Forwarding: classification (the priority from the DSCP when the
// switch trusts DSCP, else the sender's priority as tagged), TTL, then the explicit route if the
// packet has one, else ECMP over the routing table's next hops by a per-flow hash; then buffer
// admission (tail drop when full) and the egress queue.
//
// Switching latency is first bit in → first bit out, header reception included. The link
// into the switch delivers a packet at first bit + latency (cut-through) or at last bit +
// latency (store-and-forward). Cut-through only works when the egress is not faster than the
// ingress (else the egress would run out of bits), so such a packet waits for its last bit.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/context.hpp"
#include "models/egress_port.hpp"
#include "models/qos_params.hpp"
#include "models/switch_buffer.hpp"
#include "sim/param_spec_fwd.hpp"
#include "topologies/routing.hpp"

namespace models {

enum class Forwarding : uint8_t { CutThrough, StoreAndForward };

struct SwitchParams {
  // 500 ns: mid-range of Ethernet switches (350–600 ns, docs/references.md "Fabric figures").
  sim::Time latency{500'000};
  Forwarding forwarding = Forwarding::CutThrough;
  SwitchBufferParams buffer;
  // Adaptive routing (models/adaptive_routing.cpp) on an Ethernet switch (Spectrum-X style);
  // an InfiniBand fabric sets it from infiniband.adaptive_routing.
  bool adaptive_routing = false;
};

// The parameters of SwitchParams a scenario sets (models/switch_params.cpp): switch-wide ones,
// and those an override may also set per port (and per priority).
const sim::ParamTable<SwitchParams>& switch_param_table();
const sim::ParamTable<SwitchParams>& port_param_table();

// Explicit per-flow routes, resolved to egress ports: ports[route][k] is the port of the
// k-th switch on the route.
struct ExplicitRoutes {
  std::vector<std::vector<uint16_t>> ports;
};

class PfcGate;
class IbCreditGate;
class AggregationEngine;

struct SwitchStats {
  uint64_t received = 0;
  uint64_t tail_drops = 0;
  uint64_t lossless_drops = 0;  // headroom exhausted in a lossless class (never expected)
  uint64_t pause_frames_received = 0;
  uint64_t flow_control_received = 0;  // InfiniBand flow-control packets
  uint64_t ttl_drops = 0;
  uint64_t no_route_drops = 0;
  uint64_t valley_retags = 0;      // packets moved to another priority at a valley (Tagger)
  uint64_t adaptive_reroutes = 0;  // adaptive routing sent it off the static port
};

class Switch final : public PacketReceiver, public DequeueObserver {
 public:
  Switch(Context& ctx, int node, std::string name, const SwitchParams& params,
         const std::vector<int64_t>& port_rates, uint64_t ecmp_seed);

  EgressPort& port(size_t i) { return *ports_[i]; }
  const EgressPort& port(size_t i) const { return *ports_[i]; }
  size_t port_count() const { return ports_.size(); }
  SwitchBuffer& buffer() { return buffer_; }
  const SwitchBuffer& buffer() const { return buffer_; }
  const SwitchParams& params() const { return params_; }
  const std::string& name() const { return name_; }
  int node() const { return node_; }
  const SwitchStats& stats() const { return stats_; }

  void set_routing(const topo::RoutingTables* tables) { routing_ = tables; }
  // Trust DSCP: every arriving packet's priority becomes map[dscp] (IEEE 802.1Q ingress
  // classification; the packet leaves with that priority as its tag). Default: trust the tag.
  void trust_dscp(const DscpMap& map) {
    dscp_map_ = map;
    trust_dscp_ = true;
  }
  void set_explicit_routes(const ExplicitRoutes* routes) { explicit_routes_ = routes; }
  // Adaptive routing (models/adaptive_routing.cpp): each packet leaves by the least loaded
  // port of its destination's next-hop set instead of the static choice.
  void set_adaptive_routing(bool on) { adaptive_ = on; }
  bool adaptive_routing() const { return adaptive_; }
  // Tagger (topologies/valley_tagging.hpp): a packet that came in on a port towards a higher
  // rank (it went down) and leaves on one (it goes up again) takes next_priority[its priority]
  // before buffer admission. port_goes_up[p]: port p leads to a higher up*/down* rank.
  void set_valley_retag(std::vector<uint8_t> port_goes_up,
                        const std::array<uint8_t, kPriorities>& next_priority) {
    port_goes_up_ = std::move(port_goes_up);
    valley_next_ = next_priority;
    retag_valleys_ = true;
  }
  // The PFC gate of each port (pause frames arriving on that port hold its egress).
  void set_pfc_gate(size_t port, PfcGate* gate) {
    if (pfc_gates_.size() <= port) pfc_gates_.resize(ports_.size(), nullptr);
    pfc_gates_[port] = gate;
  }
  // The InfiniBand credit gate of each port (flow-control packets arriving on that port).
  void set_credit_gate(size_t port, IbCreditGate* gate) {
    if (credit_gates_.size() <= port) credit_gates_.resize(ports_.size(), nullptr);
    credit_gates_[port] = gate;
  }
  // InfiniBand SL -> VL tables, one per output port: table[port * kSlToVlEntries + SL] (IBA
  // 7.6.6). A forwarded packet leaves on its output port's VL for its SL; its buffer
  // accounting here (and so the credit returned upstream) stays on the VL it arrived on.
  static constexpr size_t kSlToVlEntries = 16;  // service levels
  void set_sl_to_vl(std::vector<uint8_t> table) {
    sl_to_vl_ = std::move(table);
    remap_vl_ = true;
  }
  // The aggregation node (SHARP) that takes the packets addressed to this switch.
  void set_aggregation(AggregationEngine* engine) { aggregation_ = engine; }
  // HPCC: every data packet that carries a telemetry record gets this switch's hop pushed as
  // it leaves an egress port (the port's time, bytes sent before it, queue after it, rate).
  // The counters go into the header in whole units of `byte_unit` and `queue_unit` bytes
  // (the INT fields' granularity; 1 = exact).
  void set_int_stamping(bool on, int64_t byte_unit = 1, int64_t queue_unit = 1) {
    int_stamping_ = on;
    int_byte_unit_ = static_cast<uint64_t>(byte_unit);
    int_queue_unit_ = static_cast<uint64_t>(queue_unit);
  }

  struct HeadroomExhaustion {
    sim::Time time;
    uint16_t port;
    uint8_t priority;
  };
  const std::vector<HeadroomExhaustion>& headroom_exhaustions() const { return exhaustions_; }

  void receive(PacketHandle h, uint16_t in_port) override;
  // Depth 0: the forwarding entry and the ingress buffer record of a packet about to arrive;
  // depth 1: where the entry sends it (when one port, or the table's), its egress record and port.
  void prefetch_arrival(uint32_t arrival_hint, uint16_t in_port, int depth) const override;
  void on_dequeue(EgressPort& port, const QueuedPacket& q) override;

  // The static egress port of this packet: its explicit route, else the linear forwarding
  // table's port when the tables have one, else ECMP by the per-flow hash (exposed for route
  // inspection and tests; adaptive routing may choose another).
  int route(const Packet& p) const;
  // Adaptive routing's choice for a packet whose static port is `static_port`.
  int adaptive_route(const Packet& p, int static_port);

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  void drop(PacketHandle h, uint64_t& counter);

  Context& ctx_;
  int node_;
  std::string name_;
  SwitchParams params_;
  std::vector<std::unique_ptr<EgressPort>> ports_;
  SwitchBuffer buffer_;
  // The ports' rates side by side: the cut-through check reads the ingress rate per packet,
  // and this saves a visit to the ingress port's object (a cache miss on a large fabric).
  std::vector<int64_t> port_rates_;
  const topo::RoutingTables* routing_ = nullptr;
  const ExplicitRoutes* explicit_routes_ = nullptr;
  uint64_t ecmp_key_;  // topo::ecmp_seed_key of the run's ECMP seed
  bool trust_dscp_ = false;
  bool retag_valleys_ = false;  // set_valley_retag: read per packet, beside trust_dscp_
  bool adaptive_ = false;       // set_adaptive_routing: read per packet, beside trust_dscp_
  bool remap_vl_ = false;       // set_sl_to_vl: read per packet, beside trust_dscp_
  bool int_stamping_ = false;   // set_int_stamping: read per dequeued packet
  uint64_t int_byte_unit_ = 1;
  uint64_t int_queue_unit_ = 1;
  DscpMap dscp_map_;
  SwitchStats stats_;
  std::vector<PfcGate*> pfc_gates_;
  std::vector<IbCreditGate*> credit_gates_;
  AggregationEngine* aggregation_ = nullptr;
  std::vector<HeadroomExhaustion> exhaustions_;
  std::vector<uint8_t> port_goes_up_;  // [port]; only read with retag_valleys_
  std::array<uint8_t, kPriorities> valley_next_{};
  std::vector<uint8_t> sl_to_vl_;  // [port * kSlToVlEntries + SL]; only read with remap_vl_
};

}  // namespace models
