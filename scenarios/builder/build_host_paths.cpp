#include "scenarios/builder/build_host_paths.hpp"

#include "models/nic.hpp"
#include "scenarios/loader/host_path_section.hpp"

namespace scen {

models::HostPathParams host_path_of(const Scenario& s, int node) {
  const topo::GpuCluster& gpus = s.fabric.topo.gpus;
  for (int n : gpus.nvlink_node) {
    if (n == node) return {};
  }
  for (int server = 0; server < static_cast<int>(gpus.server_nics.size()); ++server) {
    const auto& nics = gpus.server_nics[server];
    for (int rail = 0; rail < static_cast<int>(nics.size()); ++rail) {
      if (nics[rail] == node) return gpu_nic_host_path(s.nic.host, gpus.params, server, rail);
    }
  }
  return s.nic.host;
}

void apply_host_paths(const Scenario& s, models::Network& net) {
  const topo::Fabric& f = s.fabric;
  const topo::GpuCluster& gpus = f.topo.gpus;
  for (int n : gpus.nvlink_node) net.nics[f.host_index[n]]->set_host_path({});
  for (int server = 0; server < static_cast<int>(gpus.server_nics.size()); ++server) {
    const auto& nics = gpus.server_nics[server];
    for (int rail = 0; rail < static_cast<int>(nics.size()); ++rail) {
      net.nics[f.host_index[nics[rail]]]->set_host_path(
          gpu_nic_host_path(s.nic.host, gpus.params, server, rail));
    }
  }
}

}  // namespace scen
