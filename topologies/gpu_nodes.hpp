// GPU servers as data. A server ("node" in the user's words) has G GPUs; each GPU has
//   - an NVLink port into the server's NVSwitch domain, modelled as one switch
//     ("n<s>_nvswitch") with a link per GPU at the GPU's NVLink rate each way, so that NVLink
//     traffic contends at the GPU's port like any other link (not a fixed delay), and
//   - one or more network NICs (rails), the fabric's host endpoints.
// The engine keeps one link per endpoint: a GPU owns several endpoints, its NVLink endpoint
// "n<s>g<g>" (a host of the NVSwitch domain) and its NIC endpoints (hosts of the fabric). The
// collective transport sends a message from the endpoint that reaches the peer: the NVLink
// endpoint for a GPU of the same server, else the NIC of the message's channel (rail).
// An NVSwitch domain is a separate part of the graph: nothing routes between it and the
// fabric, which is what a server does (GPU memory is not a network path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topo {

struct Topology;

// The PCIe path of a server's NICs (models/host_path.hpp) as data: doorbell, DMA read and
// DMA write latencies in ps and the PCIe payload rate; -1 = not set here (the scenario's
// fabric.nic value, or the server's own for a per-rail override).
struct HostPathData {
  int64_t doorbell_latency_ps = -1;
  int64_t dma_read_latency_ps = -1;
  int64_t dma_write_latency_ps = -1;
  int64_t pcie_rate_bps = -1;
};

// A per-node / per-rail change of the host path: the servers and rails (NIC index k within
// the server) it applies to, empty = all.
struct HostPathOverride {
  std::vector<int> servers;
  std::vector<int> rails;
  HostPathData path;
};

// A server's GPUs and NICs. Presets (gpu_node_preset): dgx-h100 (8 H100, 8 x 400 Gb/s
// ConnectX-7, NVLink 4: 450 GB/s each way per GPU), dgx-a100 (8 A100, 8 x 200 Gb/s
// ConnectX-6, NVLink 3: 300 GB/s each way), docs/references.md "Collectives".
struct GpuNodeParams {
  std::string preset = "dgx-h100";
  int gpus = 8;
  int nics = 8;  // per server (rails)
  int64_t nic_rate_bps = 400'000'000'000;
  int64_t nvlink_rate_bps = 3'600'000'000'000;  // per GPU, each way: 450 GB/s
  // GPU <-> NVSwitch propagation and the NVSwitch's forwarding latency. No public figure
  // splits NVLink's "sub-microsecond" GPU-to-GPU latency; 100 ns a link and 200 ns the
  // switch give 400 ns one way plus serialisation, to be calibrated against traces.
  int64_t nvlink_latency_ps = 100'000;
  int64_t nvswitch_latency_ps = 200'000;
  // NVLink's link layer is lossless by credits (a port sends only into receive buffer space the
  // next hop granted), whatever the scale-out fabric: receive buffer per (NVLink port, class),
  // at the NVSwitch's ports and the GPUs'. NVIDIA publishes no NVLink buffer size; 0 = "auto":
  // the credit loop at the GPU's NVLink rate (2 x nvlink_latency + nvswitch_latency + one
  // credit-update interval) plus two frames, the least that keeps a link at line rate, which
  // NVLink reaches, with a quarter to spare (scenarios/builder/build_nvlink.hpp).
  int64_t nvlink_buffer_bytes = 0;
  // The NICs' PCIe path: every NIC of every server, then the overrides in order.
  HostPathData host_path;
  std::vector<HostPathOverride> host_path_overrides;
  // The PCIe layout inside the server (models/shared_dma_link.hpp): each GPU's own PCIe link
  // to the PCIe switch it shares with its NIC(s), payload rate per direction (0 = not
  // modelled): a NIC reads the GPU's memory and writes into it across it (GPUDirect RDMA),
  // so one GPU driving several NICs is capped by it. A NIC is attached to the first GPU that
  // uses it (gpu_nic_indices). `gpudirect_rdma` false: data is staged in host memory (the GPU
  // writes it there across its link, the NIC reads it), each byte crossing the memory twice
  // at `host_memory_rate` (0 = unlimited), shared by the server's NICs.
  int64_t gpu_pcie_rate_bps = 0;
  bool gpudirect_rdma = true;
  int64_t host_memory_rate_bps = 0;
  // NVLS (NVLink SHARP): the NVSwitch reduces what the GPUs push into it (multimem.ld_reduce)
  // and multicasts the result (multimem.st); third-generation NVSwitch (H100) has it, A100's
  // does not. Throughput of the in-switch reduction, in reduced payload bits per second for
  // one all-reduce group; 0 = this NVSwitch cannot reduce (no NVLS). dgx-h100: 2486 Gb/s
  // (310.8 GB/s) with 59 ns a chunk (nvls_chunk_cost_ps), both fitted by rdmasim calibrate to
  // the real all_reduce_perf on one 8 x H100 server (../shared/traces/
  // nccl-tests_all_reduce_h100_1node_8gpu.txt, docs/collectives.md "NVLS"): on NCCL's 128 KiB
  // chunks (calls from 1 GiB) that is 272 GB/s of algbw, where the trace levels off at
  // 274.2-274.4 GB/s (busbw ~480 GB/s), and on its smaller chunks below 1 GiB the trace's
  // slower climb. NVIDIA publishes no reduction throughput of the NVSwitch, and NCCL's own
  // cost model likewise rates Hopper NVLS below the links (nvlsEfficiency 0.85, NVIDIA/nccl
  // src/graph/tuning.cc).
  int64_t nvls_reduction_rate_bps = 0;
  // Added by the NVSwitch to each chunk it reduces and multicasts (beyond its forwarding
  // latency, which the packets already took on the way in). Assumed, as nvlink_latency.
  int64_t nvls_latency_ps = 100'000;
  // NVLS: the throughput cost of each chunk the NVSwitch reduces, beyond its bytes: NCCL's NVLS
  // kernel synchronises each of its concurrent chunk pipelines once per chunk, so small chunks
  // (NCCL shrinks them for calls below 1 GiB, models/collectives/nccl_chunking.hpp) cost
  // throughput. NVIDIA publishes no such figure: dgx-h100's is fitted, with the reduction
  // rate, to the real 8 x H100 all_reduce_perf (docs/collectives.md "NVLS").
  int64_t nvls_chunk_cost_ps = 0;
};

// The preset's parameters; false for an unknown name ("generic" leaves the defaults, which
// the scenario then sets).
bool gpu_node_preset(const std::string& name, GpuNodeParams& out);
// The names gpu_node_preset knows ("generic" last).
const std::vector<std::string>& gpu_node_preset_names();

// Which of a server's `nics` NICs GPU `gpu` (of `gpus`) uses: with at least as many NICs as
// GPUs, GPU g owns NICs g, g + G, g + 2G, ... (rails); with fewer, GPUs share them, GPU g
// using NIC g * nics / gpus (the NIC under the same PCIe switch, in DGX order).
std::vector<int> gpu_nic_indices(int gpu, int gpus, int nics);

// The GPUs of a topology. Node indices (the topology's node order) throughout.
struct GpuCluster {
  GpuNodeParams params;
  int servers = 0;
  std::vector<int> nvswitch_node;             // [server]
  std::vector<int> nvlink_node;               // [gpu], gpu = server * params.gpus + local
  std::vector<std::vector<int>> nic_nodes;    // [gpu] its NIC endpoints, channel c uses c mod size
  std::vector<std::vector<int>> server_nics;  // [server][k] NIC k's endpoint (rail k)

  // Whether the servers' NVSwitches reduce in the switch (NVLS).
  bool nvls() const { return params.nvls_reduction_rate_bps > 0; }

  bool empty() const { return servers == 0; }
  int gpus() const { return static_cast<int>(nvlink_node.size()); }
  int server_of(int gpu) const { return gpu / params.gpus; }
};

// Adds each server's NVLink domain to `t`, whose NIC endpoints are `nic_node[server][k]`
// (k < p.nics): a switch "n<s>_nvswitch" (tier 1, group s) and per GPU a host "n<s>g<g>"
// (group s) linked to it at p.nvlink_rate_bps / p.nvlink_latency_ps. Fills t.gpus.
void add_gpu_nodes(Topology& t, const std::vector<std::vector<int>>& nic_node,
                   const GpuNodeParams& p);

}  // namespace topo
