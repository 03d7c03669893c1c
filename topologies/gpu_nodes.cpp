#include "topologies/gpu_nodes.hpp"

#include "topologies/topology.hpp"

namespace topo {

const std::vector<std::string>& gpu_node_preset_names() {
  static const std::vector<std::string> names{"dgx-h100", "hgx-h100", "dgx-a100", "gb200-nvl72",
                                              "generic"};
  return names;
}

bool gpu_node_preset(const std::string& name, GpuNodeParams& out) {
  GpuNodeParams p;
  p.preset = name;
  if (name == "dgx-h100" || name == "hgx-h100") {
    // DGX H100: 8 H100 SXM5, NVLink 4 (18 links, 900 GB/s both ways), 8 ConnectX-7 400 Gb/s.
    p.gpus = 8;
    p.nics = 8;
    p.nic_rate_bps = 400'000'000'000;
    p.nvlink_rate_bps = 3'600'000'000'000;
    p.nvls_reduction_rate_bps = 2'486'000'000'000;  // NVLS, fitted (gpu_nodes.hpp)
    p.nvls_chunk_cost_ps = 59'000;
    // Each GPU and its NIC under one PCIe Gen5 switch, the GPU on a Gen5 x16 link (460 Gb/s
    // of payload, models/host_path.hpp); 2 Xeon 8480C sockets of 8 DDR5-4800 channels:
    // 2 x 8 x 38.4 GB/s = 614.4 GB/s of host memory (docs/references.md "PCIe").
    p.gpu_pcie_rate_bps = 460'000'000'000;
    p.host_memory_rate_bps = 4'915'200'000'000;
    // HGX H100 8-GPU as a cloud server builds it (Azure ND H100 v5; its NCCL topology file,
    // Azure/azhpc-images topology/ndv5-topo.xml): the same baseboard (8 H100 SXM5, NVLink 4
    // through its NVSwitches, NVLS), on each of 2 Sapphire Rapids sockets (8480C) four PCIe
    // Gen5 x16 switches, each with one GPU and one ConnectX-7 400 Gb/s NIC, every link Gen5
    // x16: the layout above, so the same figures (docs/collectives.md "Where each preset's
    // figures come from").
  } else if (name == "dgx-a100") {
    // DGX A100: 8 A100 SXM4, NVLink 3 (12 links, 600 GB/s both ways), 8 ConnectX-6 200 Gb/s.
    p.gpus = 8;
    p.nics = 8;
    p.nic_rate_bps = 200'000'000'000;
    p.nvlink_rate_bps = 2'400'000'000'000;
    // 4 PCIe Gen4 switches of 2 GPUs and 2 NICs, each GPU on a Gen4 x16 link (230 Gb/s of
    // payload); 2 EPYC 7742 sockets of 8 DDR4-3200 channels: 2 x 8 x 25.6 = 409.6 GB/s.
    p.gpu_pcie_rate_bps = 230'000'000'000;
    p.host_memory_rate_bps = 3'276'800'000'000;
  } else if (name == "gb200-nvl72") {
    // GB200 NVL72: one NVLink domain of 72 Blackwell GPUs (18 compute trays of 4 GPUs, 9
    // NVSwitch trays: every GPU one NVLink hop through the switch trays from any other),
    // NVLink 5 (18 links, 1.8 TB/s both ways: 900 GB/s each way), one ConnectX-7 400 Gb/s
    // scale-out NIC per GPU (4 per compute tray). The domain is one "server" here.
    p.gpus = 72;
    p.nics = 72;
    p.nic_rate_bps = 400'000'000'000;
    p.nvlink_rate_bps = 7'200'000'000'000;
    // NVLS (fourth-generation NVSwitch, SHARP): no published reduction throughput; assumed
    // at the dgx-h100 fit's share of the NVLink rate (2486 / 3600 of 7.2 Tb/s), and its cost
    // per chunk (NCCL's kernel, no Blackwell trace to fit) as dgx-h100's.
    p.nvls_reduction_rate_bps = 4'972'000'000'000;
    p.nvls_chunk_cost_ps = 59'000;
  } else if (name != "generic") {
    return false;
  }
  out = p;
  return true;
}

std::vector<int> gpu_nic_indices(int gpu, int gpus, int nics) {
  std::vector<int> out;
  if (nics >= gpus) {
    for (int k = gpu; k < nics; k += gpus) out.push_back(k);
  } else {
    out.push_back(static_cast<int>(int64_t{gpu} * nics / gpus));
  }
  return out;
}

void add_gpu_nodes(Topology& t, const std::vector<std::vector<int>>& nic_node,
                   const GpuNodeParams& p) {
  GpuCluster c;
  c.params = p;
  c.servers = static_cast<int>(nic_node.size());
  c.server_nics = nic_node;
  for (int s = 0; s < c.servers; ++s) {
    std::string name = "n";
    name += std::to_string(s);
    const int sw = static_cast<int>(t.nodes.size());
    t.nodes.push_back(Node{name + "_nvswitch", NodeKind::Switch, 0, 1, s});
    c.nvswitch_node.push_back(sw);
    for (int g = 0; g < p.gpus; ++g) {
      const int gpu = static_cast<int>(t.nodes.size());
      t.nodes.push_back(Node{name + "g" + std::to_string(g), NodeKind::Host, 0, 0, s});
      t.links.push_back(Link{gpu, sw, p.nvlink_rate_bps, p.nvlink_latency_ps, 0.0, -1, -1});
      c.nvlink_node.push_back(gpu);
      std::vector<int> nics;
      for (int k : gpu_nic_indices(g, p.gpus, p.nics)) nics.push_back(nic_node[s][k]);
      c.nic_nodes.push_back(std::move(nics));
    }
  }
  t.gpus = std::move(c);
}

}  // namespace topo
