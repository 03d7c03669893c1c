#include "scenarios/builder/build_nvls.hpp"

#include <array>
#include <memory>

namespace scen {

void wire_nvls(const Scenario& s, models::Network& net) {
  const topo::Fabric& f = s.fabric;
  if (net.sharp || !f.topo.gpus.nvls()) return;
  std::vector<models::Switch*> switch_of_node(f.topo.nodes.size(), nullptr);
  for (size_t n = 0; n < switch_of_node.size(); ++n) {
    if (net.node_switch[n] >= 0) switch_of_node[n] = net.switches[net.node_switch[n]].get();
  }
  std::vector<models::Nic*> nics;
  for (auto& nic : net.nics) nics.push_back(nic.get());
  // Off InfiniBand a packet's class is its priority as given (no SL -> VL table).
  std::array<uint8_t, 16> identity{};
  for (size_t p = 0; p < identity.size(); ++p) identity[p] = static_cast<uint8_t>(p);
  // Every group brings its own parameters (CollectiveSpec::nvls); these are never used.
  net.sharp = std::make_unique<models::SharpAllReduce>(
      net.ctx, f, std::move(switch_of_node), std::move(nics), models::SharpParams{}, identity,
      s.nic.mtu, s.nic.header_bytes + s.nic.framing_bytes);
}

}  // namespace scen
