#include "scenarios/builder/build_infiniband.hpp"

#include <array>
#include <memory>

#include "scenarios/loader/sl_to_vl_overrides.hpp"

namespace scen {

models::SwitchBufferParams infiniband_switch_buffer(const Scenario& s, size_t ports) {
  models::SwitchBufferParams b;
  b.buffer_bytes = static_cast<int64_t>(ports) * s.ib.data_vls * s.ib.vl_buffer_bytes;
  b.queue_limit_bytes = 0;
  b.reserve_bytes = 0;
  b.threshold_mode = models::ThresholdMode::Static;
  b.classes = s.ib.data_vls;  // more than 8 VLs: the switch's ports and buffer get more classes
  return b;
}

models::VlArbitrationParams infiniband_arbitration(const models::IbParams& ib) {
  if (ib.arbitration_given) return ib.arbitration;
  models::VlArbitrationParams p;
  for (int vl = 0; vl < ib.data_vls; ++vl) p.low.push_back({static_cast<uint8_t>(vl), 64});
  return p;
}

void wire_infiniband(const Scenario& s, models::Network& net) {
  const topo::Fabric& f = s.fabric;
  const size_t nodes = f.topo.nodes.size();
  net.ib_receivers.resize(nodes);
  for (size_t n = 0; n < nodes; ++n) {
    std::vector<models::EgressPort*> ports;
    if (f.host_index[n] >= 0) {
      ports.push_back(&net.nics[f.host_index[n]]->port());
    } else {
      models::Switch& sw = *net.switches[net.node_switch[n]];
      for (size_t p = 0; p < sw.port_count(); ++p) ports.push_back(&sw.port(p));
    }
    net.ib_receivers[n] = std::make_unique<models::IbCreditReturn>(
        net.ctx, std::move(ports), static_cast<int>(n), f.topo.nodes[n].name, s.ib);
    if (f.host_index[n] < 0) {
      net.switches[net.node_switch[n]]->buffer().set_listener(net.ib_receivers[n].get());
    }
  }
  // One gate per sending port, starting with the downstream buffer's whole credit.
  net.link_credit_gate.assign(net.links.size(), nullptr);
  for (size_t i = 0; i < net.links.size(); ++i) {
    const topo::Link& l = f.topo.links[i / 2];
    const bool a_side = i % 2 == 0;
    const int from = a_side ? l.a : l.b, to = a_side ? l.b : l.a;
    const int from_port = a_side ? l.a_port : l.b_port;
    models::EgressPort& sender = *net.link_sender[i];
    net.ib_gates.push_back(std::make_unique<models::IbCreditGate>(
        net.ctx, sender, from, s.ib.data_vls, net.ib_receivers[to]->capacity_blocks(),
        &net.credit_log, s.ib.credit_log_min_stall));
    models::IbCreditGate* gate = net.ib_gates.back().get();
    sender.set_gate(gate);
    net.link_credit_gate[i] = gate;
    net.ib_receivers[from]->set_gate(static_cast<size_t>(from_port), gate);
    if (f.host_index[from] < 0) {
      net.switches[net.node_switch[from]]->set_credit_gate(static_cast<size_t>(from_port), gate);
    }
  }
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
  std::array<uint8_t, 16> sl_to_vl{};
  for (int sl = 0; sl < models::kIbServiceLevels; ++sl) {
    sl_to_vl[sl] = s.ib.vl_of(static_cast<uint8_t>(sl));
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
  for (size_t h = 0; h < net.nics.size(); ++h) {
    const int node = f.host_node[h];
    const int link = f.ports[node][0].link;
    const topo::Link& l = f.topo.links[link];
    const size_t dir = l.a == node ? 0 : 1;
    net.nics[h]->enable_ib(sl_to_vl, net.link_credit_gate[2 * link + dir],
                           net.ib_receivers[node].get(), s.ib.data_vls);
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
