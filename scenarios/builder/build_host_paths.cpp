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

models::NicParams nvlink_endpoint_params(const models::NicParams& nic) {
  models::NicParams p = nic;
  // A GPU's NVLink copies: no NIC send engine (rate, per-message overhead, message rate,
  // inline sends, outstanding-bytes cap) and no host receive path (drain rate, buffer, the
  // NIC's own PFC) — GPU memory on both sides.
  p.max_send_rate_bps = 0;
  p.message_overhead = sim::Time(0);
  p.max_message_rate = 0;
  p.inline_threshold_bytes = 0;
  p.inline_saving = sim::Time(0);
  p.max_inflight_bytes = 0;
  p.rx_drain_rate_bps = 0;
  p.rx_buffer_bytes = 0;
  p.pfc_xoff_bytes = 0;
  return p;
}

void apply_host_paths(const Scenario& s, models::Network& net) {
  const topo::Fabric& f = s.fabric;
  const topo::GpuCluster& gpus = f.topo.gpus;
  const models::NicParams nvlink = nvlink_endpoint_params(s.nic);
  for (int n : gpus.nvlink_node) {
    net.nics[f.host_index[n]]->set_params(nvlink);  // first: set_host_path reads it
    net.nics[f.host_index[n]]->set_host_path({});
  }
  for (int server = 0; server < static_cast<int>(gpus.server_nics.size()); ++server) {
    const auto& nics = gpus.server_nics[server];
    for (int rail = 0; rail < static_cast<int>(nics.size()); ++rail) {
      net.nics[f.host_index[nics[rail]]]->set_host_path(
          gpu_nic_host_path(s.nic.host, gpus.params, server, rail));
    }
  }
}

}  // namespace scen
