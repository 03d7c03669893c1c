#include "scenarios/builder/build_host_paths.hpp"

#include <memory>
#include <vector>

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
  p.send_efficiency = 1.0;
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

namespace {

// Each GPU's PCIe link, and with GPUDirect RDMA off the server's staging memory, attached to
// the NICs next to the GPU (the first GPU that uses a NIC).
void attach_shared_dma(const Scenario& s, models::Network& net) {
  const topo::Fabric& f = s.fabric;
  const topo::GpuCluster& gpus = f.topo.gpus;
  const topo::GpuNodeParams& p = gpus.params;
  const bool staged = !p.gpudirect_rdma && p.host_memory_rate_bps > 0;
  if (p.gpu_pcie_rate_bps == 0 && !staged) return;
  for (int server = 0; server < static_cast<int>(gpus.server_nics.size()); ++server) {
    const auto& nics = gpus.server_nics[server];
    models::SharedDmaLink* memory = nullptr;
    if (staged) {
      net.shared_dma.push_back(std::make_unique<models::SharedDmaLink>(
          p.host_memory_rate_bps, /*crossings=*/2, /*duplex=*/false));
      memory = net.shared_dma.back().get();
    }
    std::vector<bool> attached(nics.size(), false);
    for (int g = 0; g < p.gpus; ++g) {
      models::SharedDmaLink* link = nullptr;
      if (p.gpu_pcie_rate_bps > 0) {
        net.shared_dma.push_back(std::make_unique<models::SharedDmaLink>(
            p.gpu_pcie_rate_bps, /*crossings=*/1, /*duplex=*/true));
        link = net.shared_dma.back().get();
      }
      for (int k : topo::gpu_nic_indices(g, p.gpus, p.nics)) {
        if (attached[k]) continue;
        attached[k] = true;
        models::Nic& nic = *net.nics[f.host_index[nics[k]]];
        if (link != nullptr) nic.add_shared_dma(link);
        if (memory != nullptr) nic.add_shared_dma(memory);
      }
    }
  }
}

}  // namespace

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
  attach_shared_dma(s, net);
}

}  // namespace scen
