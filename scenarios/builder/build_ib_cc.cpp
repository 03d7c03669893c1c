#include "scenarios/builder/build_ib_cc.hpp"

#include <memory>

namespace scen {

void wire_ib_congestion_control(const Scenario& s, models::Network& net) {
  const models::IbCcParams& cc = s.ib.cc;
  if (s.fabric_kind != FabricKind::Infiniband || !cc.enabled) return;
  const topo::Fabric& f = s.fabric;
  net.link_fecn_marker.assign(net.links.size(), nullptr);
  for (size_t i = 0; i < net.links.size(); ++i) {
    const topo::Link& l = f.topo.links[i / 2];
    const int from = i % 2 == 0 ? l.a : l.b;
    if (f.host_index[from] >= 0) continue;  // channel adapters do not mark
    if (net.nvlink_node[from]) continue;    // nor NVSwitches (build_nvlink.hpp)
    net.fecn_markers.push_back(std::make_unique<models::FecnMarker>(
        net.ctx, cc, net.link_credit_gate[i], net.link_sender[i]->rate_bps()));
    net.link_sender[i]->set_marker(net.fecn_markers.back().get());
    net.link_fecn_marker[i] = net.fecn_markers.back().get();
  }
  const auto mtu_wire = static_cast<uint32_t>(s.nic.mtu + s.nic.header_bytes + s.nic.framing_bytes);
  net.ib_cc = std::make_unique<models::IbCongestionControl>(net.ctx, cc, *net.transport,
                                                            net.nics.size(), mtu_wire);
  for (auto& nic : net.nics) nic->set_ib_cc(net.ib_cc.get());
}

}  // namespace scen
