#include "scenarios/builder/build_infiniband.hpp"

#include <array>
#include <memory>

#include "scenarios/builder/credit_domain.hpp"
#include "scenarios/loader/sl_to_vl_overrides.hpp"

namespace scen {

models::VlArbitrationParams infiniband_arbitration(const models::IbParams& ib) {
  if (ib.arbitration_given) return ib.arbitration;
  models::VlArbitrationParams p;
  for (int vl = 0; vl < ib.data_vls; ++vl) p.low.push_back({static_cast<uint8_t>(vl), 64});
  return p;
}

void wire_infiniband(const Scenario& s, models::Network& net) {
  const topo::Fabric& f = s.fabric;
  const size_t nodes = f.topo.nodes.size();
  std::array<uint8_t, 16> sl_to_vl{};
  for (int sl = 0; sl < models::kIbServiceLevels; ++sl) {
    sl_to_vl[sl] = s.ib.vl_of(static_cast<uint8_t>(sl));
  }
  // The fabric's links; the GPU servers' NVLink domains have credits of their own
  // (build_nvlink.hpp).
  std::vector<bool> fabric(nodes, true);
  for (size_t n = 0; n < nodes; ++n) fabric[n] = !net.nvlink_node[n];  // sized by build_network
  wire_credit_domain(f, net, fabric, s.ib, sl_to_vl, &net.credit_logs);
  // VL arbitration on every sending port (one VL needs none).
  if (s.ib.data_vls > 1 || s.ib.arbitration_given) {
    const models::VlArbitrationParams arb = infiniband_arbitration(s.ib);
    for (models::EgressPort* port : net.link_sender) {
      net.vl_arbiters.push_back(std::make_unique<models::VlArbiter>(arb));
      port->set_arbiter(net.vl_arbiters.back().get());
    }
  }
  // Adaptive routing: switches choose per packet among the equal-cost ports, reading the
  // credit gates wired above; receivers accept the resulting out-of-order arrivals.
  if (s.ib.adaptive_routing) {
    for (auto& sw : net.switches) sw->set_adaptive_routing(true);
    for (auto& nic : net.nics) nic->accept_out_of_order(true);
  }
  // Switch ports whose SL -> VL table differs from the NICs' (overrides): each switch maps a
  // packet's SL to its output port's VL. Without overrides every port has the fabric's table
  // and a packet keeps its VL end to end, so switches need not look it up.
  if (has_sl_to_vl_overrides(s)) {
    for (size_t n = 0; n < nodes; ++n) {
      if (net.node_switch[n] < 0) continue;
      models::Switch& sw = *net.switches[net.node_switch[n]];
      sw.set_sl_to_vl(switch_sl_to_vl(s, static_cast<int>(n), sw.port_count()));
    }
  }
  // SHARP: aggregation trees are built when a collective first asks for one.
  std::vector<models::Switch*> switch_of_node(nodes, nullptr);
  std::vector<models::Nic*> nics;
  for (size_t n = 0; n < nodes; ++n) {
    if (net.node_switch[n] >= 0) switch_of_node[n] = net.switches[net.node_switch[n]].get();
  }
  for (auto& nic : net.nics) nics.push_back(nic.get());
  net.sharp = std::make_unique<models::SharpAllReduce>(
      net.ctx, f, std::move(switch_of_node), std::move(nics), s.sharp, sl_to_vl, s.nic.mtu,
      s.nic.header_bytes + s.nic.framing_bytes);
}

}  // namespace scen
